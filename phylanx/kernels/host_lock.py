"""One compile of a kernel per host: the lock the processes sharing a cache directory
take around compiling a kernel module and saving it to numba's disk cache.

``phylanx run -n 4`` on a machine whose kernel cache is empty started four identical
compiles of every kernel, on the same cores, at the same moment.  With
:func:`first_compile` held around ``dispatcher.compile(types)``, the first process
compiles and numba saves the machine code; the others wait, then numba's ``compile``
finds the code in its index and loads it (tens of milliseconds, not seconds).

* The lock is an ``fcntl.flock`` on a file beside the module in the cache directory
  (``.phylanx_fused_<hash>.lock``, left in place): the kernel releases it when its holder
  exits or is killed, so a lock file left behind never blocks anyone.
* One lock per module, whatever the signature: numba's index of a function is one file
  rewritten read-modify-write without a lock of its own, so two processes saving two
  signatures at once can lose an entry or name two entries' code files alike.
* Every wait is bounded (setting ``fusion_cache_wait``, 120 s): past it the waiter
  compiles itself, with a one-line :class:`KernelCacheWarning`.
  On a rank of several, the wait and the compile are told to the other ranks
  (``compiling._peers_told``): their collectives wait for it, up to this bound plus a
  ``collective_timeout``, rather than fail after ``collective_timeout`` (issue 28).
* A lock file that cannot be made (a cache directory that cannot be written) is no
  lock: the process compiles as it did before.
* Asked first, ``cached()`` can say the disk cache holds the kernel already: then no
  lock is taken (loads of a kept kernel run side by side, as before); asked again once
  the lock is taken after a wait, it lets the waiters load side by side too.
"""
from __future__ import annotations

import fcntl
import os
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

#: the first pause between two tries of a held lock, and the longest (seconds)
FIRST_PAUSE, LONGEST_PAUSE = 0.005, 0.1


class KernelCacheWarning(RuntimeWarning):
    """Another process held a kernel's compile lock past ``fusion_cache_wait``: this
    one compiled the kernel itself."""


def lock_path(module_path: Path) -> Path:
    """The lock file of a generated module: hidden, beside it."""
    return module_path.with_name(f".{module_path.stem}.lock")


@contextmanager
def first_compile(module_path: Path, wait: float,
                  cached: Callable[[], bool] | None = None) -> Iterator[str]:
    """Held around compiling (and caching) the kernels of the module at ``module_path``;
    yields how: ``"cached"`` (``cached()`` said the disk cache holds them: no lock),
    ``"held"``, ``"no lock"`` (the lock file cannot be made) or ``"timed out"`` (held by
    another process for more than ``wait`` seconds: compiled here all the same)."""
    if cached is not None and cached():
        yield "cached"
        return
    try:
        fd = os.open(lock_path(module_path), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError:
        yield "no lock"
        return
    try:
        how = _take(fd, wait)
        if how == "held" and cached is not None and cached():
            os.close(fd)        # (compiled while this one waited: load beside the others)
            fd = -1
            how = "cached"
        elif how == "timed out":
            warnings.warn(f"phylanx: another process has been compiling {module_path.name} "
                          f"for more than {wait:g} s (fusion_cache_wait); compiling it "
                          "here too", KernelCacheWarning, stacklevel=3)
        yield how
    finally:
        if fd >= 0:
            os.close(fd)        # releases the lock


def _take(fd: int, wait: float) -> str:
    """Lock ``fd`` exclusively within ``wait`` seconds (tries with growing pauses: a
    blocking flock has no time limit): ``"held"``, ``"timed out"`` (another holder kept
    it), or ``"no lock"`` (a file system without flock)."""
    deadline = time.monotonic() + wait
    pause = FIRST_PAUSE
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return "held"
        except BlockingIOError:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timed out"
            time.sleep(min(pause, left))
            pause = min(2 * pause, LONGEST_PAUSE)
        except OSError:
            return "no lock"    # (ENOLCK: NFS mounted nolock) compiled as before
