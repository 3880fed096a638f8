"""Products written straight into their output against a product buffer copied in.

    OPENBLAS_NUM_THREADS=1 python benchmarks/products_into_output.py [--repeat 5]
                                                                    [--batch 500]

One process, the two forms interleaved so both meet the same load (min of
``--repeat``, wall and CPU seconds, the ratio old / new):

* ``conv1d``: ``benchmarks/distributed.py``'s ``conv1d_d`` on one locality's half
  (``--batch`` items of length 1000, 3 -> 100 channels, filter 10, float64), the
  few-channel window GEMM in slices of the batch (``conv_windows.correlate``):
  before, each slice's product went to a buffer of its own, then was copied into the
  output; now ``np.matmul(..., out=)`` of the output's rows;
* ``dot``: a 2000 x 4000 row tile times 4000 x 4000 in two column pieces
  (``dot_d``'s ``OrderedSum``): before, each piece's product was copied into its
  columns of the result; now ``add_product`` computes it there.

The results of both forms are checked equal.  No results file.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np


def _timed(fn) -> tuple[float, float, object]:
    """Wall and CPU seconds of one call of ``fn``, and its value."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    cpu = time.process_time() - cpu
    return time.perf_counter() - wall, cpu, value


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of each form")
    ap.add_argument("--batch", type=int, default=500, help="conv1d batch items")
    args = ap.parse_args()

    from phylanx.distributed.overlapped_fetch import OrderedSum
    from phylanx.primitives.keras_support import conv_windows
    from phylanx.primitives.keras_support.conv import conv1d
    rng = np.random.default_rng(0)
    x, kernel = rng.normal(size=(args.batch, 1000, 3)), rng.normal(size=(10, 3, 100))

    def conv_copied():
        """conv_windows.correlate before: a product buffer per slice, copied in."""
        windows = conv_windows._windows(x, (10,), (1,), (1,), [(0, 0)])
        cells = windows.shape[:2]
        weights = kernel.reshape(-1, 100)
        out = np.empty((*cells, 100))
        for part in conv_windows._slices(cells, weights.shape[0] * 8):
            rows = conv_windows._matrix(windows[part], np.dtype(float), 1) @ weights
            out[part] = rows.reshape(out[part].shape)
        return out

    a, b = rng.normal(size=(2000, 4000)), rng.normal(size=(4000, 4000))
    halves = [(0, 2000), (2000, 4000)]

    def dot_copied():
        out = np.zeros((2000, 4000))
        for c0, c1 in halves:
            out[:, c0:c1] = np.dot(a, b[:, c0:c1])
        return out

    def dot_into():
        out = np.zeros((2000, 4000))
        total = OrderedSum(out, {i: ((0, 2000), span) for i, span in enumerate(halves)})
        for i, (c0, c1) in enumerate(halves):
            total.add_product(i, a, b[:, c0:c1])
        return out

    load = os.getloadavg()[0]
    print(f"load average {load:.2f} ({'LOADED' if load > 0.5 else 'idle'}); "
          f"BLAS threads {os.environ.get('OPENBLAS_NUM_THREADS', 'default')}; min of "
          f"{args.repeat}, seconds")
    for name, old, new in (("conv1d", conv_copied, lambda: conv1d(x, kernel)),
                           ("dot", dot_copied, dot_into)):
        times = {"copied in": [], "into the output": []}
        last = {}
        for _ in range(args.repeat):      # interleaved: both meet the same load
            for label, fn in (("copied in", old), ("into the output", new)):
                last.pop(label, None)     # (one output of each alive at a time)
                wall, cpu, last[label] = _timed(fn)
                times[label].append((wall, cpu))
        (w_old, c_old), (w_new, c_new) = [
            (min(t[0] for t in runs), min(t[1] for t in runs)) for runs in times.values()]
        same = np.array_equal(last["copied in"], last["into the output"])
        del last
        print(f"  {name:7s} copied in: wall {w_old:.3f} CPU {c_old:.3f}; into the output: "
              f"wall {w_new:.3f} CPU {c_new:.3f}; old / new wall {w_old / w_new:.2f}x, "
              f"CPU {c_old / c_new:.2f}x; equal: {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
