"""Freed memory kept for reuse by the C library (glibc's ``mallopt``), setting
``malloc_reuse``.

Why: an iterative program frees and reallocates the same large temporaries every step.
glibc returns them to the system (``mmap``'d blocks unmapped, the heap's free top
trimmed past a threshold), so the next step gets fresh pages and pays a page fault per
4 KiB touched.  glibc raises both thresholds by itself, but only as far as the largest
block freed so far, so how fast a step runs depended on what ran before it in the
process.  This sets them where glibc's own rule puts them once a 32 MiB block has been
freed: blocks up to 32 MiB come from the heap, and up to 64 MiB of free heap top stay.
Measured, ``python benchmarks/malloc_reuse.py`` (each peer alone in a fresh process,
``benchmarks/results/2026-12-04-malloc-reuse.txt``, two rounds): W5's conv1d step
0.90-0.98x with it, NumPy's 0.84-0.93x; W4's MLP steps 0.91-1.02x (phylanx) and
1.04-1.20x (NumPy), single runs that moved as much between rounds.
(JAX and PyTorch keep caches of freed blocks for the same reason.)

The cost: each malloc arena may keep up to ``TRIM_BYTES`` free instead of returning it
(glibc's adaptive thresholds are off for the whole process from then on).  Read and
applied once, when the first evaluation starts (``forkjoin.evaluate``: a call of a
``@Phylanx`` function, a ``grad``; also when the task pool starts), changing the setting
later has no effect; nothing is changed when the setting
is off, when the C library is not glibc, or when the user tuned malloc already
(``MALLOC_*`` variables or ``GLIBC_TUNABLES``).
"""
from __future__ import annotations

import ctypes
import os

from .. import config

#: blocks up to this size come from the heap (glibc's maximum for the setting)
MMAP_BYTES = 32 << 20
#: free memory at the top of a heap kept up to this size (glibc's rule: twice the above)
TRIM_BYTES = 64 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_applied: bool | None = None


def _user_tuned() -> bool:
    return "GLIBC_TUNABLES" in os.environ or any(k.startswith("MALLOC_") for k in os.environ)


def apply() -> bool:
    """Set glibc's thresholds once (see the module's doc); whether they are in force."""
    global _applied
    if _applied is None:
        _applied = False
        if config.get("malloc_reuse") and not _user_tuned():
            try:
                libc = ctypes.CDLL(None)
                if not hasattr(libc, "gnu_get_libc_version"):   # musl, macOS: other mallocs
                    return False
                _applied = bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_BYTES)
                                and libc.mallopt(_M_TRIM_THRESHOLD, TRIM_BYTES))
            except OSError:
                _applied = False
    return _applied
