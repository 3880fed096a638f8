"""conv44's changes switched off and on in one process, calls alternated: what each
Conv1D loss of ``grad_mlp.py`` gains, less disturbed by a shared machine's load than
two runs of two trees.

    OPENBLAS_NUM_THREADS=1 python benchmarks/grad_conv_changes.py [--repeat 40]

"off": the forward keeps no window matrix (``saved.Keeping.applies`` answers no),
einsums are never planned (``EINSUM_PLANNED_WORK`` beyond reach), middle-axis extremes
are NumPy's (``HALVING_INNER_BYTES = 0``) and padding is ``np.pad``; "on": as shipped.
Printed per loss: the median process CPU ms of ``value_and_grad`` per call each way and
on / off.  State the machine's load when quoting.
"""
from __future__ import annotations

import argparse
import os
import time
from contextlib import contextmanager

import numpy as np
from grad_mlp import LOSSES, problem

import phylanx
from phylanx.autodiff import saved
from phylanx.primitives.keras_support import _windows, adjoints, conv_gemm
from phylanx.primitives.matrixops import numpy_products
from phylanx.primitives.statistics import reductions


def _np_pad(x, pads, fill=0):
    return np.pad(x, [(0, 0), *pads, (0, 0)], constant_values=fill)


@contextmanager
def changes_off():
    """conv44's changes undone for the duration (module doc)."""
    kept = (saved.Keeping.applies, numpy_products.EINSUM_PLANNED_WORK,
            reductions.HALVING_INNER_BYTES, _windows.padded, adjoints.padded)
    saved.Keeping.applies = lambda self, tracked, args: False
    numpy_products.EINSUM_PLANNED_WORK = 1 << 62
    reductions.HALVING_INNER_BYTES = 0
    _windows.padded = adjoints.padded = _np_pad
    try:
        yield
    finally:
        (saved.Keeping.applies, numpy_products.EINSUM_PLANNED_WORK,
         reductions.HALVING_INNER_BYTES, _windows.padded, adjoints.padded) = kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()
    assert conv_gemm._windows is _windows     # its padding goes through _windows.padded
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    for model in [m for m in LOSSES if m != "mlp"]:
        arrays, what = problem(model, 512, 256, "float32")
        fn = phylanx.value_and_grad(LOSSES[model], (0, 1, 2, 3))
        with changes_off():
            value_off, grads_off = fn(*arrays)
        value_on, grads_on = fn(*arrays)
        assert np.isclose(value_on, value_off, rtol=1e-4)
        for a, b in zip(grads_on, grads_off):
            assert np.allclose(a, b, rtol=1e-3, atol=1e-5 * float(np.abs(b).max()))
        times = {"off": [], "on": []}
        for i in range(args.repeat):
            for way in (("off", "on") if i % 2 else ("on", "off")):
                start = time.process_time()
                if way == "off":
                    with changes_off():
                        fn(*arrays)
                else:
                    fn(*arrays)
                times[way].append((time.process_time() - start) * 1e3)
        off, on = np.median(times["off"]), np.median(times["on"])
        print(f"{model}: off {off:.2f} ms, on {on:.2f} ms CPU a call, on / off {on / off:.2f}"
              f"  ({what})")


if __name__ == "__main__":
    main()
