"""``async`` bodies that communicate keep the program order of communication (review of
issue 28 item 2), for any number of ranks and 1 or 2 threads.

``async(sum(x))`` of a tiled ``x`` beside a later ``sum(y)`` of another tiled array (in
sibling statements, and as operands of one expression): the async body ran outside the
order (``comm_order.unordered``), so on one rank its reduction started before
``sum(y)``'s and on another after: "ranks are out of step" or "ranks disagree".
Local work before each reduction makes the async one start first on rank 0 and last
on the others.  The answers are NumPy's.
Prints 'OK <rank>' at the end."""
import sys

import numpy as np

from phylanx import distributed as dist
from phylanx import execution_tree as et
from phylanx.runtime import executors

r, n = dist.find_here(), dist.num_localities()
SOURCES = {
    "statements": "define(statements, x, y, p, q, block("
                  "define(a, async(sum(x + 0.0 * sum(dot(p, p))))), "
                  "define(b, sum(y + 0.0 * sum(dot(q, q)))), a * 1000 + b))",
    "operands": "define(operands, x, y, p, q, async(sum(x + 0.0 * sum(dot(p, p)))) * 1000"
                " + sum(y + 0.0 * sum(dot(q, q))))",
}
state = et.compiler_state("async_order")
functions = {}
for name, source in SOURCES.items():
    et.compile(state, f"<{name}>", name, source)
    functions[name] = et.code_for(state, f"<{name}>", name)

X = np.arange(40.0).reshape(8, 5)
Y = np.arange(32.0).reshape(8, 4) * 0.5 + 1
x, y = dist.tiled(X, "row", name="x"), dist.tiled(Y, "column", name="y")
big, small = np.full((250, 250), 1e-3), np.ones((1, 1))
p, q = (small, big) if r == 0 else (big, small)
want = X.sum() * 1000 + Y.sum()
for threads in (1, 2):
    executors.set_threads(threads)
    for name, fn in functions.items():
        for _run in range(4):
            got = et.invoke(fn, (x, y, p, q), {})
            np.testing.assert_allclose(float(got), want, rtol=1e-12, err_msg=name)
sys.stdout.write(f"OK {r}\n")     # one write: the lines of the ranks are not joined
sys.stdout.flush()
