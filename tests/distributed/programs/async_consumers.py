"""An async collective whose value several statements need (tests/distributed/test_mpi.py).

The statement needing the value first runs the collective's task itself (no worker had
started it).  When the wait for MPI helped the pool it could run another statement
needing the same value, which then waited for a future this very thread computes: the
ranks hung until ``collective_timeout``.  Now ``async(all_reduce(...))`` returns without
a thread waiting (``Forward``), and a wait for a collective (``sum_d``'s, inside the
``async`` task) runs no other task, a spare worker standing in.  The same holds for a
call placed on another locality (``h{L#n}(x)``) under ``async``, and for many
collectives in flight at once.  Prints 'OK <rank>'.

``async_consumers.py [THREADS...]``: for each THREADS in turn, in one process, the
pool replaced by one of THREADS workers (``executors.set_threads``, as
``PHYLANX_THREADS`` does at start-up) and the collective timeout 5 s (a hang fails
fast); prints ``THREADS <threads> OK <rank>`` after each, and leaves both settings as
it found them (``test_mpi.py`` runs it in a job of other programs).
"""
import sys

import numpy as np

import phylanx
from phylanx import distributed as dist
from phylanx.runtime import executors

r, n = dist.find_here(), dist.num_localities()


def consumers(tag: str) -> None:
    """The program once; ``tag`` keeps its tiled arrays' names apart from another run's."""
    state = phylanx.execution_tree.compiler_state("async-consumers", "<async-consumers>")
    phylanx.execution_tree.compile(state, "<async-consumers>", "step", """
    define(step, x, w, block(
      define(g1, dot(transpose(x), x)),
      define(g2, dot(x, transpose(x)) * 2.0),
      define(b, async(all_reduce(concatenate(list(flatten(g1), flatten(g2))), "sum", "bucket"))),
      define(r1, reshape(slice(b, list(0, 1600)), list(40, 40))),
      define(r2, reshape(slice(b, list(1600, 3200)), list(40, 40))),
      define(u1, w - r1 * 0.5),
      define(u2, w - r2 * 0.25),
      list(u1, u2)))""")
    step = state.lookup("step")
    x = np.ones((40, 40))
    for _ in range(10):
        u1, u2 = phylanx.execution_tree.invoke(step, (x, np.zeros((40, 40))), {})
    assert np.all(u1 == -20.0 * n) and np.all(u2 == -20.0 * n), (u1[0, 0], u2[0, 0])
    # ... and the same with a tiled array's collective (sum_d) under the async
    phylanx.execution_tree.compile(state, "<async-consumers>", "step_d", """
    define(step_d, x, w, k, block(
      define(g1, dot(transpose(x), x)),
      define(g2, dot(x, transpose(x)) * 2.0),
      define(b, async(sum_d(annotate_d(concatenate(list(flatten(g1), flatten(g2))), "bucket" + k,
          list("tile", list("columns", find_here() * 3200, (find_here() + 1) * 3200))), 0, true))),
      define(r1, slice(b, list(0, 1))),
      define(r2, slice(b, list(0, 1))),
      define(u1, w - r1 * 0.5),
      define(u2, w - r2 * 0.25),
      list(u1, u2)))""")
    step_d = state.lookup("step_d")
    for i in range(10):
        u1, u2 = phylanx.execution_tree.invoke(step_d, (x, np.zeros((40, 40)), f"{tag}{i}"), {})
    # every rank's part sums to 1600 * 40 + 1600 * 80
    assert np.all(u1 == -0.5 * 192000 * n) and np.all(u2 == -0.25 * 192000 * n), (u1, u2)

    # ... and a call placed on another locality (f{L#n}): its wait for the answer ran other
    # tasks too, one of them needing the value this thread computes (hung before)
    right = (r + 1) % n
    phylanx.execution_tree.compile(state, "<async-consumers>", "h",
                                   "define(h, x, dot(x, x) + find_here())")
    phylanx.execution_tree.compile(state, "<async-consumers>", "step_placed", f"""
    define(step_placed, x, block(
      define(g1, dot(transpose(x), x)),
      define(g2, dot(x, transpose(x)) * 2.0),
      define(a, async(h{{L#{right}}}(x))),
      define(u1, g1 - a * 0.5),
      define(u2, g2 - a * 0.25),
      list(u1, u2)))""")
    step_placed = state.lookup("step_placed")
    for _ in range(30):
        u1, u2 = phylanx.execution_tree.invoke(step_placed, (x,), {})
    assert np.all(u1 == 40 - (40 + right) * 0.5) and np.all(u2 == 80 - (40 + right) * 0.25), \
        (u1[0, 0], u2[0, 0])

    # ... and many collectives in flight at once, each wait blocking its thread
    k = 48
    body = ",\n".join(f'define(c{i}, async(all_reduce(x * {i + 1}.0, "sum", "c{i}")))'
                       for i in range(k))
    phylanx.execution_tree.compile(state, "<async-consumers>", "many", f"""
    define(many, x, block({body}, {" + ".join(f"c{i}" for i in range(k))}))""")
    many = state.lookup("many")
    for _ in range(3):
        total = phylanx.execution_tree.invoke(many, (x,), {})
        assert np.all(total == n * k * (k + 1) / 2), total[0, 0]


if len(sys.argv) > 1:
    threads_before = phylanx.config.get("threads")
    phylanx.config.set("collective_timeout", 5.0)
    for threads in sys.argv[1:]:
        executors.set_threads(int(threads))
        consumers(f"t{threads}_")
        print(f"THREADS {threads} OK {r}", flush=True)
    executors.set_threads(threads_before)
    phylanx.config.reset("collective_timeout")
else:
    consumers("")
print(f"OK {r}", flush=True)
