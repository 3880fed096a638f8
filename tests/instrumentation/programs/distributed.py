"""A small SPMD program for the 2-locality trace test: collectives, a remote call,
and some work on each rank (run by ``phylanx trace -n 2``)."""
import numpy as np

import phylanx
from phylanx import distributed as dist

r, n = dist.find_here(), dist.num_localities()


def double(x):
    return 2 * x


total = dist.all_reduce(np.full(1000, float(r + 1)), "sum", "trace_sum").result()
assert total[0] == n * (n + 1) / 2, total
assert dist.run_on((r + 1) % n, double, r).result() == 2 * r
gathered = dist.all_gather(r, "trace_gather").result()
assert list(gathered) == list(range(n)), gathered
phylanx.evaluate("block(define(f, n, if(n < 2, n, f(n - 1) + f(n - 2))), f(15))")
dist.barrier("trace_done").result()
if len(__import__("sys").argv) > 1 and __import__("sys").argv[1] == "fail" and r == n - 1:
    raise ValueError("planned failure on the last rank")
print("OK", r)
