"""Interrupts raised by user code the MPI machinery runs (issue 27 item 7), for 2+ ranks:
a reduction function raising SystemExit, then a remote call raising it; after each,
the same machinery (progress thread, service thread) still serves the next call.
Prints 'OK <rank>' at the end."""
import numpy as np

from phylanx import distributed as dist
from phylanx.distributed.errors import PhylanxRemoteError
from phylanx.runtime.cancel import CancelledError

r, n = dist.find_here(), dist.num_localities()
right = (r + 1) % n


def exits(a, b):
    raise SystemExit("from the reduction")


# the fold meets the interrupt: the waiter is told, in its thread or through the future
try:
    dist.all_reduce(np.ones(2), op=exits, name="bad").result()
    raise AssertionError("the reduction's SystemExit was lost")
except CancelledError as e:
    assert isinstance(e.cause, SystemExit), e
except SystemExit as e:
    assert "from the reduction" in str(e), e
total = dist.all_reduce(np.ones(2), op=lambda a, b: a + b, name="good").result()
assert total.tolist() == [n, n], total


def exit_remotely(code):
    raise SystemExit(code)


try:
    dist.run_on(right, exit_remotely, 7).result()
    raise AssertionError("the remote call's SystemExit was lost")
except PhylanxRemoteError as e:
    assert "SystemExit: 7" in str(e), e
assert dist.run_on(right, abs, -r).result() == r       # the service goes on
dist.barrier("done").result()
print(f"OK {r}", flush=True)
