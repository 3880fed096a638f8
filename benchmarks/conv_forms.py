"""Why W5 float32 trails JAX: the conv1d forward as one GEMM per kernel tap (phylanx's
``conv_gemm.py``) against one im2col GEMM (a copy of every window, then one product
with a 5x longer inner dimension), NumPy matmul on both cores and on one.

    python benchmarks/conv_forms.py [--dtype float32] [--repeat 10]

Prints the median milliseconds of each form and of the window copy alone; W5's shape
(batch 32, length 1024, 64 -> 64 channels, kernel 5).  Both forms give the same values
(checked).  Also: the per-tap form as two row blocks on two threads (one BLAS thread
each), accumulated by SciPy's ``gemm`` wrapper (which keeps the GIL) and by phylanx's
``primitives/blas_gemm.py`` (which drops it); and, when JAX is installed, W5's forward +
backward under ``jax.jit`` as ``jax.grad`` (which may drop the forward: the loss is
linear in it) and as ``jax.value_and_grad``.
"""
from __future__ import annotations

import argparse
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.lib.stride_tricks import as_strided
from threadpoolctl import threadpool_limits
from workloads.common import median_ms, optional


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
    blocks(x, w, rows, taps, args.repeat)
    jax_forward_dropped(x.reshape(batch, length, channels), w, args.repeat)


def blocks(x, w, rows, taps, repeat) -> None:
    """The per-tap accumulation as two row blocks on two threads, by each gemm."""
    from scipy.linalg import blas

    from phylanx.primitives.blas_gemm import gemm
    scipy_gemm = blas.get_blas_funcs("gemm", dtype=x.dtype)
    acc = np.empty((rows, w.shape[-1]), x.dtype)

    def with_scipy(lo, hi, t):
        scipy_gemm(1.0, w[t].T, x[lo + t:hi + t].T, beta=1.0 if t else 0.0,
                   c=acc[lo:hi].T, overwrite_c=True)

    def with_phylanx(lo, hi, t):
        gemm(x[lo + t:hi + t], w[t], acc[lo:hi], beta=1.0 if t else 0.0)
    half = rows // 2
    with ThreadPoolExecutor(2) as pool, threadpool_limits(1):
        for label, one in (("SciPy's gemm (keeps the GIL)", with_scipy),
                           ("phylanx's blas_gemm (drops it)", with_phylanx)):
            def run(one=one):
                list(pool.map(lambda b: [one(*b, t) for t in range(taps)],
                              [(0, half), (half, rows)]))
            print(f"  per tap, two row blocks on two threads, {label}: "
                  f"{median_ms(run, repeat):.1f} ms")


def jax_forward_dropped(x, w, repeat) -> None:
    jax = optional("jax")
    if jax is None:
        print("  jax: not installed")
        return
    g = np.random.default_rng(1).normal(size=(x.shape[0], x.shape[1] - w.shape[0] + 1,
                                              w.shape[-1])).astype(x.dtype)

    def loss(x, w, g):
        y = jax.lax.conv_general_dilated(x, w, (1,), "VALID",
                                         dimension_numbers=("NWC", "WIO", "NWC"))
        return jax.numpy.sum(y * g)
    operands = [jax.numpy.asarray(a) for a in (x, w, g)]
    for label, transform in (("jax.grad", jax.grad), ("jax.value_and_grad",
                                                       jax.value_and_grad)):
        fn = jax.jit(transform(loss, argnums=(0, 1)))
        ms = median_ms(lambda fn=fn: jax.block_until_ready(fn(*operands)), repeat)
        print(f"  W5 forward + backward under jax.jit, {label}: {ms:.1f} ms")


if __name__ == "__main__":
    main()
