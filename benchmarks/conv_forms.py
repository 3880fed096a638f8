"""Why W5 float32 trails JAX: the conv1d forward as one GEMM per kernel tap (phylanx's
``conv_gemm.py``) against one im2col GEMM (a copy of every window, then one product
with a 5x longer inner dimension), NumPy matmul on both cores and on one.

    python benchmarks/conv_forms.py [--dtype float32] [--repeat 10]

Prints the median milliseconds of each form and of the window copy alone; W5's shape
(batch 32, length 1024, 64 -> 64 channels, kernel 5).  Both forms give the same values
(checked).
"""
from __future__ import annotations

import argparse
import os

import numpy as np
from numpy.lib.stride_tricks import as_strided
from threadpoolctl import threadpool_limits
from workloads.common import median_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    batch, length, channels, out, taps = 32, 1024, 64, 64, 5
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch * length, channels)).astype(args.dtype)
    w = rng.normal(size=(taps, channels, out)).astype(args.dtype)
    rows = batch * length - (taps - 1)
    windows = as_strided(x, shape=(rows, taps * channels),
                         strides=(x.strides[0], x.strides[1]))

    def per_tap():
        acc = x[:rows] @ w[0]
        for t in range(1, taps):
            acc += x[t:t + rows] @ w[t]
        return acc

    def im2col():
        return np.ascontiguousarray(windows) @ w.reshape(taps * channels, out)

    scale = float(np.abs(per_tap()).max())
    assert float(np.abs(per_tap() - im2col()).max()) <= 1e-4 * scale
    flops = 2.0 * rows * channels * out * taps
    print(f"conv1d forward {batch}x{length}, {channels}->{out}, kernel {taps}, {args.dtype}; "
          f"{os.cpu_count()} cores")
    for label, limit in (("all cores", None), ("one BLAS thread", 1)):
        with threadpool_limits(limit):
            tap = median_ms(per_tap, args.repeat)
            col = median_ms(im2col, args.repeat)
            copy = median_ms(lambda: np.ascontiguousarray(windows), args.repeat)
        print(f"  {label}: one GEMM per tap {tap:.1f} ms ({flops / tap / 1e6:.0f} GFlop/s); "
              f"im2col {col:.1f} ms, of which the window copy {copy:.1f} ms "
              f"(its GEMM {flops / max(col - copy, 1e-9) / 1e6:.0f} GFlop/s)")


if __name__ == "__main__":
    main()
