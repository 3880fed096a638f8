"""Per-node cost of two source trees of phylanx, old against new, in CPU time.

The execution tree's per-node overhead (``benchmarks/overhead.py``'s inline loop and
recursive fib(20), W6 of ``run.py``) measured by wall-clock time varies by 5x on a
shared, loaded machine.  This script runs both trees in separate processes, alternately
(``PYTHONPATH`` pointing at each), and times each evaluation with the thread's CPU time
(``time.thread_time``), which a descheduled thread does not accrue; per round it keeps
the best and the median of ``--calls`` evaluations, and it prints the median over rounds
of each figure for each tree and their ratio (new / old)::

    git archive <old commit> | tar -x -C /tmp/old
    python benchmarks/tree_ab.py /tmp/old . --rounds 6

Figures: fib(20) in ms and its ratio to CPython's fib(20) (best of each), and the
microseconds per primitive node of the 10,000-addition loop of ``overhead.py``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

CHILD = r'''
import json, statistics, sys, time
from phylanx import execution_tree as et
calls = int(sys.argv[1])
st = et.compiler_state("fib")
et.compile(st, "<ab>", "fib", "define(fib, n, if(n < 2, n, fib(n - 1) + fib(n - 2)))")
fib_p = et.code_for(st, "<ab>", "fib")
st2 = et.compiler_state("adds")
et.compile(st2, "<ab>", "adds", """define(adds, n, block(define(s, 0), define(i, 0),
    while(i < n, block(store(s, s + i), store(i, i + 1))), s))""")
adds = et.code_for(st2, "<ab>", "adds")
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
for _ in range(3):
    et.invoke(fib_p, (20,), {}), et.invoke(adds, (10000,), {})
tp, tc, nodes = [], [], []
clock = time.thread_time
for _ in range(calls):
    t0 = clock(); et.invoke(fib_p, (20,), {}); t1 = clock()
    fib(20); t2 = clock()
    et.invoke(adds, (10000,), {}); t3 = clock()
    tp.append(t1 - t0); tc.append(t2 - t1); nodes.append((t3 - t2) * 1e6 / 100000)
print(json.dumps({"fib ms (best)": 1e3 * min(tp),
                  "fib ms (median)": 1e3 * statistics.median(tp),
                  "fib / CPython (best)": min(tp) / min(tc),
                  "us per node (best)": min(nodes),
                  "us per node (median)": statistics.median(nodes)}))
'''


def one_run(tree: str, calls: int) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    out = subprocess.run([sys.executable, "-c", CHILD, str(calls)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", help="source tree of the old version (holds phylanx/)")
    ap.add_argument("new", help="source tree of the new version")
    ap.add_argument("--rounds", type=int, default=6, help="runs of each tree (alternating)")
    ap.add_argument("--calls", type=int, default=31, help="evaluations timed per run")
    args = ap.parse_args()
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    for r in range(args.rounds):
        for name in ("old", "new") if r % 2 == 0 else ("new", "old"):
            runs[name].append(one_run(getattr(args, name), args.calls))
            print(name, {k: round(v, 4) for k, v in runs[name][-1].items()}, flush=True)
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    print(f"\n{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {' '.join(load)}; medians over {args.rounds} rounds")
    for key in runs["old"][0]:
        old = statistics.median(d[key] for d in runs["old"])
        new = statistics.median(d[key] for d in runs["new"])
        print(f"{key:24s} old {old:9.4f}  new {new:9.4f}  new/old {new / old:6.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
