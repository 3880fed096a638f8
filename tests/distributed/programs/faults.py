"""Faults for any number of ranks; argv[1] chooses which:

* ``exception``: the last rank raises; the others wait in a collective (must be ended);
* ``kill``: the last rank kills itself with SIGKILL; the others wait in a collective;
* ``timeout``: only rank 0 calls a collective: it times out (0.5 s), the job ends;
* ``mismatch``: ranks disagree in collectives; every rank gets a located error naming
  the ranks, then the job ends normally ('OK <rank>');
* ``leave STATUS [busy|raise]``: the last rank leaves (``sys.exit(STATUS)``, a bare
  ``raise SystemExit(status)`` (``raise``), or ``end``: its program ends) while the
  others wait in a collective, or compute (``busy``), for 30 s: must be ended, with its
  status;
* ``fewer``: the last rank calls one collective of a name, the others two, then it ends;
* ``died``: rank 0 is told that the last rank's process is one that has ended (a
  launcher that does not end the job when a rank dies); it waits in a collective
  (must be ended by the liveness check);
* ``kill-large``: the last rank is killed right after starting a large all_reduce (its
  data request started with the header exchange: the others may wait for it in
  ``MPI_Wait``); must be ended;
* ``stop-large``: the last rank stops (SIGSTOP) once its headers of a large all_reduce
  are exchanged (its data request started: the others wait for it in ``MPI_Wait``);
  they must fail by the collective timeout with the located error, and end the job;
* ``start-fails [all_reduce|all_gather]``: the last rank's MPI refuses to start the data
  of a large all_reduce (all_gather) after its header went out (the others wait for that
  data in ``MPI_Wait``); the rank catches the error and goes on: the job must end within
  seconds, with the located error (it waited for the collective timeout, 60 s);
* ``late``: the last rank starts collectives, never waits for them and ends; the others
  call them later: they complete ('OK <rank>');
* ``started-alone``: rank 0 takes a branch whose statement starts a collective
  (``runtime/started.py``), the others do not and compute for a while: rank 0's wait
  fails on rank 0 only, which must end the job with the located error (the ranks
  cannot all raise it), never an error rank 0 alone catches.
"""
import os
import signal
import sys
import time

import numpy as np

import phylanx
from phylanx import distributed as dist

r, n = dist.find_here(), dist.num_localities()
mode = sys.argv[1]
dist.barrier("start").result()

if mode == "exception":
    if r == n - 1:
        time.sleep(0.2)
        raise ValueError(f"boom from rank {r}")
    dist.all_reduce(1, name="never completes").result()

elif mode == "started-alone":
    from phylanx import Phylanx

    @Phylanx
    def branch(a, c, w):
        if c > 0:
            x = np.sum(a)           # started alone
            z = w * 2.0
            q = z + 1.0
        else:
            x = 0.0
            q = w
        return x + q

    phylanx.config.set("collective_timeout", 2.0)
    a = dist.tiled(np.arange(12.0).reshape(4, 3), "row", name="started_alone")
    try:
        branch(a, 1 if r == 0 else 0, np.ones(3))
    except Exception as error:  # noqa: BLE001 - must not be caught on one rank alone
        print(f"CAUGHT on rank {r}: {error}", flush=True)
    time.sleep(20)                  # the others compute, in no collective

elif mode == "kill":
    if r == n - 1:
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGKILL)
    dist.all_reduce(1, name="never completes").result()

elif mode == "kill-large":
    future = dist.all_reduce(np.ones(1 << 17), name="large")      # 1 MiB
    if r == n - 1:
        time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGKILL)
    future.result()
    dist.all_reduce(np.ones(1 << 17), name="large").result()

elif mode == "stop-large":
    large = np.ones(1 << 21)      # 16 MiB: the data takes a while after the headers
    dist.all_reduce(large, name="large").result()
    for _ in range(20):
        if r == n - 1:
            time.sleep(0.5)         # the others wait already (their headers sent)
            # (None: finished already; a finished future drops its operation)
            running = dist.all_reduce(large, name="large")._running
            deadline = time.monotonic() + 10
            while running is not None and running.wait_here is None \
                    and not running.finished and time.monotonic() < deadline:
                time.sleep(0)       # until the headers agreed (the data request started)
            if running is not None and not running.finished:
                os.kill(os.getpid(), signal.SIGSTOP)
            continue                # the data arrived first (a busy machine): again
        dist.all_reduce(large, name="large").result()    # a stopped peer: waited for here
    print(f"the data always arrived before rank {n - 1} could stop", flush=True)
    sys.exit(3)

elif mode == "start-fails":
    from phylanx.distributed.mpi import MPI
    from phylanx.runtime.locality import here

    collective = getattr(dist, sys.argv[2] if len(sys.argv) > 2 else "all_reduce")
    starts_data = "Iallreduce" if collective is dist.all_reduce else "Iallgather"

    class Refusing:
        """The channel's communicator, whose next data call (``starts_data``) fails (as
        an MPI out of resources would)."""

        def __init__(self, comm):
            self.comm, self.refused = comm, False

        def __getattr__(self, attribute):
            if attribute != starts_data or self.refused:
                return getattr(self.comm, attribute)

            def refuse(*args):
                self.refused = True
                raise MPI().Exception(MPI().ERR_INTERN)
            return refuse

    large = np.ones(1 << 16)      # 512 KiB: its data waited for with MPI_Wait
    collective(large, name="large").result()
    channel = here().collectives._channels["large"]
    if r == n - 1:
        channel.comm = Refusing(channel.comm)
    try:
        collective(large, name="large").result()   # a data start refused: here
    except phylanx.PhylanxError as e:
        print(f"[rank {r}] caught {e}", flush=True)     # (the old code raised it here alone)
    # (the old code: this rank's next header exchange met the others' data request)
    collective(large, name="large").result()
    print(f"[rank {r}] went on, out of step", flush=True)
    sys.exit(3)

elif mode == "timeout":
    # a collective only rank 0 calls: a located timeout error, then the job ends
    # (the others stay: a rank that left would end it sooner, mode "leave")
    if r == 0:
        phylanx.config.set("collective_timeout", 0.5)     # (the others never call it)
        dist.all_reduce(1, name="only rank 0").result()
    else:
        time.sleep(8)

elif mode == "leave":
    if r == n - 1:
        time.sleep(0.2)
        if sys.argv[3:] == ["raise"]:
            status = int(sys.argv[2])
            raise SystemExit(status)    # no sys.exit: the status read from this line
        if sys.argv[2] != "end":
            sys.exit(int(sys.argv[2]))
    elif sys.argv[3:] == ["busy"]:
        time.sleep(30)                  # the others compute, in no collective
    else:
        dist.all_reduce(1).result()     # the others wait here

elif mode == "died":
    if r == 0:
        import subprocess
        child = subprocess.Popen([sys.executable, "-c", "pass"])
        child.wait()
        service = phylanx.runtime.locality.here().service
        service.watch({n - 1: child.pid}, lambda: True)
        dist.all_reduce(1, name="died").result()    # rank 0 waits here
    else:
        time.sleep(30)

elif mode == "fewer":
    dist.all_reduce(r, name="steps").result()
    if r != n - 1:
        dist.all_reduce(r, name="steps").result()     # the second: the last rank left

elif mode == "late":
    if r == n - 1:
        dist.all_reduce(r, name="late")
        dist.barrier()
    else:
        time.sleep(0.5)     # the last rank has left by now
        assert dist.all_reduce(r, name="late").result() == n * (n - 1) // 2
        dist.barrier().result()
    print(f"OK {r}", flush=True)

elif mode == "mismatch":
    cases = [
        ("shape", lambda: dist.all_reduce(np.zeros(2 if r == 0 else 3))),
        ("dtype", lambda: dist.all_reduce(np.zeros(2, dtype="int64" if r == 0 else "float64"))),
        ("op", lambda: dist.all_reduce(1.0, "sum" if r == 0 else "max", name="ops")),
        # data small enough to travel with the header on one rank only, then on none
        ("shape, 1 KiB boundary", lambda: dist.all_reduce(np.zeros(128 if r == 0 else 129))),
        ("shape, large", lambda: dist.all_reduce(np.zeros(4096 if r == 0 else 4097))),
        ("shape, reduce", lambda: dist.reduce(np.zeros(2 if r == 0 else 3), root=n - 1)),
        ("kind", lambda: dist.broadcast(1, name="kinds") if r == 0
         else dist.all_gather(1, name="kinds")),
        ("kind, all_reduce", lambda: dist.all_reduce(1.0, name="kinds2") if r == 0
         else dist.all_gather(1.0, name="kinds2")),
        ("root", lambda: dist.broadcast(1, root=0 if r == 0 else n - 1, name="roots")),
        # unnamed collectives of different kinds (they waited on two communicators)
        ("kind, unnamed", lambda: dist.all_reduce(1.0) if r == 0 else dist.all_gather(1.0)),
    ]
    for what, start in cases:
        try:
            start().result()
        except dist.PhylanxCollectiveMismatchError as e:
            text = str(e)
            assert n > 1 and "faults.py" in text and "rank 0" in text, text
            assert f"{n - 1}:" in text, text            # the other ranks are named
            if r == 0:
                print(f"MISMATCH {what}: {text.splitlines()[0]}", flush=True)
        else:
            assert n == 1, f"{what}: no error on {n} ranks"
    # from PhySL: located at the primitive call
    try:
        phylanx.evaluate(f"all_reduce(linspace(0, 1, {2 + (r > 0)}))", )
    except dist.PhylanxCollectiveMismatchError as e:
        assert n > 1 and "all_reduce" in str(e) and "<evaluate>:1:1" in str(e), str(e)
        if r == 0:
            print(f"MISMATCH physl: {str(e).splitlines()[0]}", flush=True)
    dist.barrier("end").result()
    print(f"OK {r}", flush=True)
