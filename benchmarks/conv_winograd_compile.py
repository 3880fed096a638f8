"""Compile CPU of one generated Winograd module (keras_support/conv_winograd.py), per
kernel: the first call of each, in this fresh process with an empty cache directory.

    python benchmarks/conv_winograd_compile.py M R DTYPE     # e.g. 4 5 float32

Run it once per module (a fresh process each: numba keeps what it compiled); numba's
own start-up is paid by a trivial kernel first, outside the figures.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp()

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from phylanx.kernels import compiling  # noqa: E402
from phylanx.primitives.keras_support import conv_winograd as cw  # noqa: E402


@njit
def _trivial(a):
    return a.sum() + np.dot(a, a)


def main() -> None:
    _trivial(np.ones(3))
    m, r, dtype = int(sys.argv[1]), int(sys.argv[2]), np.dtype(sys.argv[3])
    module = compiling.module_from_source(cw.source(m, r, dtype.name))
    a = cw.ALPHA
    x, out = np.zeros((1, 2 * a, 1), dtype), np.zeros((2 * a, 1), dtype)
    u, v, mm = (np.zeros((a, 1, 1), dtype) for _ in range(3))
    mk, tmp, zero = np.zeros((a, 1, 1), dtype), np.zeros((1, 1), dtype), np.zeros(1, dtype)
    t0 = time.process_time()
    module.correlate_tiles(x, 2 * a, 2 * a, 0, u, 0, 1, out, v, mm, zero)
    t1 = time.process_time()
    module.kernel_tiles(x, 2 * a, 2 * a, x, 2 * a, 2 * a, 0, 1, mk, v, mm, tmp, zero, zero)
    t2 = time.process_time()
    print(f"F({m},{r}) {dtype.name}: correlate_tiles {t1 - t0:.2f} s, kernel_tiles "
          f"{t2 - t1:.2f} s, total {t2 - t0:.2f} s of CPU")


if __name__ == "__main__":
    main()
