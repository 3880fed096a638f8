"""Where one GEMM over copied windows (``keras_support/conv_windows.py``) beats the other
conv1d forms: the forward and the kernel's cotangent over input channel counts.

    python benchmarks/conv_channels.py [--channels 8,12,16,24,32,48] [--dtype float32,float64]
                                       [--repeat 15]

Per case (batch 64, length 128, kernel 5, 32 output channels): the median process CPU
milliseconds per call of the window-matrix form and of the form phylanx takes without
it (Winograd, shifted GEMMs or the window tensordot, ``conv.py``), calls alternated, and
their ratio; the window row's bytes (taps x channels x item size) beside it, which
``conv_windows.ROW_BYTES`` bounds.  Both forms' results are checked to agree.  Run with
``OPENBLAS_NUM_THREADS=1`` to compare the forms, not BLAS's threads; state the load.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from phylanx.primitives.keras_support import conv_windows, conv_winograd
from phylanx.primitives.keras_support.adjoints import conv_cotangents
from phylanx.primitives.keras_support.conv import conv1d


def timed(calls: dict, repeat: int) -> dict:
    """Median CPU ms of each call, the calls alternated."""
    names = list(calls)
    times: dict = {n: [] for n in names}
    for fn in calls.values():
        fn()
    for i in range(repeat):
        for n in names[i % 2:] + names[:i % 2]:
            start = time.process_time()
            calls[n]()
            times[n].append((time.process_time() - start) * 1e3)
    return {n: float(np.median(t)) for n, t in times.items()}


def with_row_bytes(limit: int, fn):
    """``fn`` run with the window-matrix form's bound set to ``limit``."""
    def run():
        saved = conv_windows.ROW_BYTES
        conv_windows.ROW_BYTES = limit
        try:
            return fn()
        finally:
            conv_windows.ROW_BYTES = saved
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", default="8,12,16,24,32,48")
    parser.add_argument("--dtype", default="float32,float64")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    batch, length, taps, outs = 64, 128, 5, 32
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; conv1d batch "
          f"{batch}, length {length}, kernel {taps}, {outs} output channels; CPU ms")
    rng = np.random.default_rng(0)
    for dtype in args.dtype.split(","):
        try:
            conv_winograd.compiled(conv_winograd.outputs_per_tile(taps), taps, dtype)
        except Exception as exc:  # noqa: BLE001 - the other forms are timed without it
            print(f"  (Winograd not compiled: {exc})")
        for channels in (int(c) for c in args.channels.split(",")):
            x = rng.normal(size=(batch, length, channels)).astype(dtype)
            w = rng.normal(size=(taps, channels, outs)).astype(dtype)
            ct = rng.normal(size=(batch, length - taps + 1, outs)).astype(dtype)
            calls = {}
            for label, limit in (("windows", 1 << 30), ("other", 0)):
                calls[f"forward {label}"] = with_row_bytes(
                    limit, lambda x=x, w=w: conv1d(x, w))
                calls[f"kernel ct {label}"] = with_row_bytes(
                    limit, lambda x=x, w=w, ct=ct: conv_cotangents(x, w, ct, need_x=False)[1])
            scale = 1e-4 if dtype == "float32" else 1e-10
            for part in ("forward", "kernel ct"):
                a, b = calls[f"{part} windows"](), calls[f"{part} other"]()
                assert np.abs(a - b).max() <= scale * np.abs(b).max() * 10, part
            ms = timed(calls, args.repeat)
            row = taps * channels * np.dtype(dtype).itemsize
            parts = "; ".join(
                f"{part} {ms[f'{part} windows']:.2f} against {ms[f'{part} other']:.2f} "
                f"({ms[f'{part} windows'] / ms[f'{part} other']:.2f}x)"
                for part in ("forward", "kernel ct"))
            print(f"  {dtype} {channels:3d} channels (row {row:4d} B): {parts}", flush=True)


if __name__ == "__main__":
    main()
