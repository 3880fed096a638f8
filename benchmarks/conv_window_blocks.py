"""conv46's changes on and off inside ``value_and_grad`` of ``grad_mlp.py``'s Conv1D
losses, with ``jax.jit(jax.value_and_grad)`` beside them; the three calls alternated in
one process.  The changes: the window-matrix convolution and its kernel cotangent as
batch / row blocks on the task pool (``keras_support/conv_windows.py``) instead of one
product each on BLAS's own threads, and sums / means over a middle axis as a product
with a row of ones (``reductions.middle_axis_sum``) instead of NumPy's reduction.

    python benchmarks/conv_window_blocks.py [--repeat 40] [--dtype float32]
                                            [--models conv1d,conv1d-causal,...]
                                            [--only blocks|sums]

"off": ``_item_blocks`` gives one range, the kernel's cotangent is one ``matrix.T @ ct``
(BLAS's threads as they are set: run it with the default threads for the comparison
the blocks replace) and ``MIDDLE_SUM_INNER_BYTES`` is 0; ``--only`` switches one of the
two.  Printed per loss: median wall and process CPU ms per call of each, and the ratios
to JAX.  State the machine's load when quoting.
"""
from __future__ import annotations

import argparse
import os
from contextlib import contextmanager

import numpy as np
from grad_mlp import LOSSES, alternate, jax_loss, problem
from workloads.common import optional

import phylanx
from phylanx.primitives.keras_support import conv_windows
from phylanx.primitives.statistics import reductions

ONLY = {"blocks": True, "sums": True}


@contextmanager
def changes_off():
    """The products as one BLAS call each and NumPy's middle-axis sums (those of
    :data:`ONLY` set), for the duration."""
    kept = (conv_windows._item_blocks, conv_windows._windows_t_product,
            reductions.MIDDLE_SUM_INNER_BYTES)
    if ONLY["blocks"]:
        conv_windows._item_blocks = lambda cells, shape: [(0, cells[0])]
        conv_windows._windows_t_product = lambda matrix, rows: matrix.T @ rows
    if ONLY["sums"]:
        reductions.MIDDLE_SUM_INNER_BYTES = 0
    try:
        yield
    finally:
        (conv_windows._item_blocks, conv_windows._windows_t_product,
         reductions.MIDDLE_SUM_INNER_BYTES) = kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--models", default=",".join(m for m in LOSSES if m != "mlp"))
    parser.add_argument("--only", choices=tuple(ONLY))
    args = parser.parse_args()
    if args.only:
        ONLY.update({k: k == args.only for k in ONLY})
    # "on" is the blocks with the setting on (off by default since stop 46's idle run)
    phylanx.config.set("conv_blocks", True)
    jax = optional("jax")
    if jax is not None and args.dtype == "float64":
        jax.config.update("jax_enable_x64", True)
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    for model in args.models.split(","):
        arrays, what = problem(model, 512, 256, args.dtype)
        fn = phylanx.value_and_grad(LOSSES[model], (0, 1, 2, 3))
        with changes_off():
            value_off, grads_off = fn(*arrays)
        value_on, grads_on = fn(*arrays)
        tol = 1e-4 if args.dtype == "float32" else 1e-10
        assert np.isclose(value_on, value_off, rtol=tol)
        for a, b in zip(grads_on, grads_off):
            assert np.allclose(a, b, rtol=tol * 10, atol=tol * float(np.abs(b).max()))

        def off(fn=fn, arrays=arrays):
            with changes_off():
                fn(*arrays)
        calls = {"on": lambda fn=fn, arrays=arrays: fn(*arrays), "off": off}
        if jax is not None:
            peer = jax.jit(jax.value_and_grad(jax_loss(jax.numpy, model), (0, 1, 2, 3)))
            on_device = [jax.numpy.asarray(a) for a in arrays]
            calls["jax"] = lambda peer=peer, on_device=on_device: jax.block_until_ready(
                peer(*on_device))
        times = alternate(calls, args.repeat)
        print(f"{what}")
        for label, (wall, cpu) in times.items():
            line = f"  {label}: {wall:.2f} ms (CPU {cpu:.2f} ms)"
            if "jax" in times and label != "jax":
                line += (f"  / JAX {wall / times['jax'][0]:.2f}x "
                         f"(CPU {cpu / max(times['jax'][1], 1e-9):.2f}x)")
            print(line)


if __name__ == "__main__":
    main()
