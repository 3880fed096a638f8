"""A value one rank cannot send, then a channel after one rank's collective timed out
(``tests/distributed/test_collectives_after_timeout_mpi.py``), under ``mpiexec -n 2``;
prints 'OK <rank>'.

A rank whose all_gather, gather or broadcast value cannot be pickled fails, and so does
the other rank, at once (before, it sent no header: the other paired with its next
call of the name, a silent wrong result; the root of an unchecked broadcast failed
alone, the other waited until its timeout).

Rank 0's collective of name "x" times out (rank 1 is not there yet); rank 1 then calls
it and both go on with that name.  MPI matches collectives of a communicator by their
order, and rank 0's timed-out request is still posted: rank 1's call completes it, and
the next ones pair up as they were called, each with its right sum (with the header
exchange a persistent all-gather whose buffers rank 0 alone replaced after the timeout,
its next exchange was a collective of its own: the channel stalled, then rank 1 got the
sum of rank 0's earlier call and its own later one, with no error).  The job then ends
by MPI_Abort (a collective timed out), so the test reads the 'OK' lines, not the status.
"""
import time

import numpy as np

import phylanx
from phylanx import distributed as dist

r, n = dist.find_here(), dist.num_localities()
assert n == 2, n

# -- first: a value one rank cannot send (no pickle) fails every rank at once -----------
# (it sent no header before: the other rank waited for it until collective_timeout)
phylanx.config.set("collective_timeout", 10.0)
for label, call in (
        ("all_gather", lambda: dist.all_gather((lambda: 0) if r == 1 else 0, name="pk")),
        ("all_reduce", lambda: dist.all_reduce((lambda: 0) if r == 1 else "a", name="pk")),
        ("gather", lambda: dist.gather((lambda: 0) if r == 0 else 0, root=1, name="pk")),
        ("broadcast", lambda: dist.broadcast((lambda: 0) if r == 1 else 0, root=1,
                                             name="pk")),
        # unchecked: the root sent nothing before, the other waited until its timeout
        ("unchecked broadcast", lambda: dist.broadcast((lambda: 0) if r == 1 else 0, root=1,
                                                       name="pk", check=False))):
    start = time.monotonic()
    try:
        dist.all_gather(0, name="pk").result()     # (the channel made)
        call().result()
    except dist.PhylanxDistributedError as e:
        assert time.monotonic() - start < 5.0, (label, time.monotonic() - start)
        assert e.loc is not None and e.loc.file == __file__, (label, e.loc)
    else:
        raise AssertionError(f"{label} of a lambda did not fail on rank {r}")
    assert dist.all_gather(r, name="pk").result() == [0, 1], label     # (in step)
dist.all_reduce(1.0, name="x").result()     # (the channel made, its exchange set up)
if r == 0:
    phylanx.config.set("collective_timeout", 0.5)
    try:
        dist.all_reduce(np.float64(1.0), name="x").result()
    except dist.PhylanxDistributedError as e:
        assert "did not complete" in str(e), str(e)
    else:
        raise AssertionError("rank 0's lone all_reduce did not time out")
    phylanx.config.set("collective_timeout", 20.0)
    dist.barrier(name="go").result()
else:
    phylanx.config.set("collective_timeout", 20.0)
    dist.barrier(name="go").result()
    # rank 0's timed-out call, still posted, is this one's partner
    got = dist.all_reduce(np.float64(2.0), name="x").result()
    assert got == 3.0, got
for k in (1, 2, 3):
    got = dist.all_reduce(np.float64((r + 1) * 10 ** k), name="x").result()
    assert got == 3 * 10 ** k, (r, k, got)
got = dist.all_gather(np.array([r, k]), name="x").result()
assert [g.tolist() for g in got] == [[0, 3], [1, 3]], got
# -- at shutdown every persistent header exchange is freed, also rank 0's that timed out
# (in flight then, completed by rank 1's call since): before, none was ever freed
from phylanx.distributed.mpi import MPI  # noqa: E402
from phylanx.runtime.locality import here  # noqa: E402

collectives = here().collectives
dist.barrier(name="end").result()
exchanges = [c.buffers.exchange for c in collectives._channels.values()
             if c.buffers is not None and c.buffers.exchange is not None]
assert len(exchanges) >= 4, exchanges     # (pk, x, go, end: MPI-4 named channels)
assert collectives.close() is False       # (nothing left pending)
assert all(e == MPI().REQUEST_NULL for e in exchanges), exchanges
try:
    dist.all_reduce(1.0, name="x").result()
except dist.PhylanxDistributedError as e:
    assert "shut down" in str(e) and e.loc is not None and e.loc.file == __file__, e
else:
    raise AssertionError("a collective after close did not fail")
print(f"OK {r}", flush=True)
