"""W5's float32 step (conv1d forward + backward) alone, and what its settings change.

    python benchmarks/conv_step.py [--calls 40]

Each part alternates its variants call by call in this one process and prints the
median milliseconds (25th percentile, minimum); W5's shape (batch 32, length 1024,
64 -> 64 channels, kernel 5, float32):

* ``step``: ``phylanx.value_and_grad`` of ``sum(conv1d(x, w) * g)`` (the workload of
  ``run.py``) against PyTorch's ``conv1d`` + ``backward`` when installed;
* ``first calls``: the first 8 calls of a fresh step against the later ones (the
  evaluation policy decides after a few calls: why ``run.py`` settles it first);
* ``algorithm``: the convolution and its VJP (``conv_gemm.correlate`` +
  ``correlate_vjp``) by Winograd's F(4, 5) (``keras_support/conv_winograd.py``, the
  default) against one GEMM per kernel tap (setting ``conv_winograd`` off);
* ``channels``: the same two forms for 8, 16 and 32 channels in and out (where
  ``conv_winograd.MIN_CHANNELS`` puts the line);
* ``blocks per thread``: ``primitives/blas_blocks.BLOCKS_PER_THREAD`` 2, 4 and 8 on the
  convolution and its VJP;
* ``argument``: ``value_and_grad`` computing on the caller's array (``autodiff/api.py``)
  against on a copy of it, as it did before.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from workloads.common import optional
from workloads.w5_conv import conv_loss, conv_numpy, setups

import phylanx
from phylanx import Phylanx, config
from phylanx.autodiff import api
from phylanx.primitives import blas_blocks
from phylanx.primitives.keras_support import conv_gemm, conv_winograd


def alternate(variants: dict, calls: int) -> dict:
    """Milliseconds of each variant's calls, called in rotating order."""
    names = list(variants)
    times = {n: [] for n in names}
    for i in range(calls):
        for n in names[i % len(names):] + names[:i % len(names)]:
            t0 = time.perf_counter()
            variants[n]()
            times[n].append((time.perf_counter() - t0) * 1e3)
    return times


def show(title: str, times: dict) -> None:
    print(title)
    for n, t in times.items():
        t = np.array(t)
        print(f"  {n:<28} {np.median(t):7.2f} ms (p25 {np.percentile(t, 25):.2f}, "
              f"min {t.min():.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args()
    rng = np.random.default_rng(5)
    x = rng.normal(size=(32, 1024, 64)).astype(np.float32)
    w = (rng.normal(size=(5, 64, 64)) / np.sqrt(5 * 64)).astype(np.float32)
    g = rng.normal(size=(32, 1020, 64)).astype(np.float32)
    step = phylanx.value_and_grad(Phylanx(conv_loss), argnums=(0, 1))
    value, (gx, gw) = step(x, w, g)
    ref_value, (ref_gx, ref_gw) = conv_numpy(x, w, g)
    for got, ref in ((value, ref_value), (gx, ref_gx), (gw, ref_gw)):
        np.testing.assert_allclose(got, ref, rtol=1e-3, atol=1e-3 * np.abs(ref).max())

    # the first calls of a fresh step, then the settled ones
    fresh = phylanx.value_and_grad(Phylanx(conv_loss), argnums=(0, 1))
    times = alternate({"step": lambda: fresh(x, w, g)}, 8 + args.calls)["step"]
    show("first calls", {"first 8": times[:8], "later": times[8:]})

    variants = {"phylanx": lambda: step(x, w, g)}
    if optional("torch") is not None:         # run.py's W5 peer, set up the same way
        variants["torch"] = setups(x, w, g)["torch"]()
        variants["torch"]()
    show("step", alternate(variants, args.calls))

    def algorithm(winograd: bool, x=x, w=w, g=g):
        def run():
            config.set("conv_winograd", winograd)
            conv_gemm.correlate(x, w, (1,))
            conv_gemm.correlate_vjp(x, w, g, (1,))
        return run
    try:
        show("algorithm (conv + VJP)", alternate(
            {"Winograd F(4, 5)": algorithm(True), "a GEMM per tap": algorithm(False)},
            args.calls))
    finally:
        config.reset("conv_winograd")

    saved_min = conv_winograd.MIN_CHANNELS
    conv_winograd.MIN_CHANNELS = 1
    try:
        for chans in (8, 16, 32):
            xc = rng.normal(size=(32, 1024, chans)).astype(np.float32)
            wc = (rng.normal(size=(5, chans, chans)) / np.sqrt(5 * chans)).astype(np.float32)
            gc = rng.normal(size=(32, 1020, chans)).astype(np.float32)
            conv_winograd.compiled(4, 5, np.float32)
            show(f"channels {chans} (conv + VJP)", alternate(
                {"Winograd F(4, 5)": algorithm(True, xc, wc, gc),
                 "a GEMM per tap": algorithm(False, xc, wc, gc)}, args.calls))
    finally:
        conv_winograd.MIN_CHANNELS = saved_min
        config.reset("conv_winograd")

    def kernels(blocks: int):
        def run():
            blas_blocks.BLOCKS_PER_THREAD = blocks
            conv_gemm.correlate(x, w, (1,))
            conv_gemm.correlate_vjp(x, w, g, (1,))
        return run
    saved = blas_blocks.BLOCKS_PER_THREAD
    try:
        show("blocks per thread (conv + VJP)",
             alternate({f"{b}": kernels(b) for b in (2, 4, 8)}, args.calls))
    finally:
        blas_blocks.BLOCKS_PER_THREAD = saved

    alone = api._alone

    def on(view: bool):
        def run():
            api._alone = alone if view else (lambda value, arrays: False)
            step(x, w, g)
        return run
    try:
        show("argument", alternate({"caller's array": on(True), "a copy": on(False)},
                                   args.calls))
    finally:
        api._alone = alone


if __name__ == "__main__":
    main()
