"""Freed memory kept for reuse by the C library (glibc's ``mallopt``), setting
``malloc_reuse``.

Why: an iterative program frees and reallocates the same large temporaries every step.
glibc returns them to the system (``mmap``'d blocks unmapped, the heap's free top
trimmed past a threshold that follows the largest freed block), so the next step gets
fresh pages and pays a page fault per 4 KiB touched.  W5's conv1d step (float32, 8 MiB
arrays) spent 49 ms with glibc's defaults and 35 ms with blocks up to 32 MiB taken from
the heap and up to 256 MiB of free heap top kept (``benchmarks/malloc_reuse.py``).  JAX
and PyTorch keep their own caches of freed blocks for the same reason.

The cost: a process may keep up to ``TRIM_BYTES`` of freed memory per malloc arena
instead of returning it.  Applied once, when the runtime's task pool starts; nothing is
changed when the setting is off, when the C library is not glibc, or when the user
tuned malloc already (``MALLOC_*`` variables or ``GLIBC_TUNABLES``).
"""
from __future__ import annotations

import ctypes
import os

from .. import config

#: blocks up to this size come from the heap (glibc's maximum for the setting)
MMAP_BYTES = 32 << 20
#: free memory at the top of a heap kept up to this size
TRIM_BYTES = 256 << 20
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
                libc.gnu_get_libc_version        # glibc only: musl/macOS differ
                _applied = bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_BYTES)
                                and libc.mallopt(_M_TRIM_THRESHOLD, TRIM_BYTES))
            except (OSError, AttributeError):
                _applied = False
    return _applied
