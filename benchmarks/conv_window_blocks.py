"""The window-matrix convolution and its kernel cotangent as batch / row blocks on the
task pool (conv46, ``keras_support/conv_windows.py``) against the same products on
BLAS's own threads, inside ``value_and_grad`` of ``grad_mlp.py``'s Conv1D losses, with
``jax.jit(jax.value_and_grad)`` beside them; the three calls alternated in one process.

    python benchmarks/conv_window_blocks.py [--repeat 40] [--dtype float32]
                                            [--models conv1d,conv1d-causal,...]

"blocks off": ``_item_blocks`` gives one range and the kernel's cotangent is one
``matrix.T @ ct`` (BLAS's threads as they are set: run it with the default threads for
the comparison the blocks replace).  Printed per loss: median wall and process CPU ms
per call of each, and the ratios to JAX.  State the machine's load when quoting.
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


@contextmanager
def blocks_off():
    """The products as one BLAS call each, for the duration."""
    kept = conv_windows._item_blocks, conv_windows._windows_t_product
    conv_windows._item_blocks = lambda cells, shape: [(0, cells[0])]
    conv_windows._windows_t_product = lambda matrix, rows: matrix.T @ rows
    try:
        yield
    finally:
        conv_windows._item_blocks, conv_windows._windows_t_product = kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--models", default=",".join(m for m in LOSSES if m != "mlp"))
    args = parser.parse_args()
    jax = optional("jax")
    if jax is not None and args.dtype == "float64":
        jax.config.update("jax_enable_x64", True)
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    for model in args.models.split(","):
        arrays, what = problem(model, 512, 256, args.dtype)
        fn = phylanx.value_and_grad(LOSSES[model], (0, 1, 2, 3))
        with blocks_off():
            value_off, grads_off = fn(*arrays)
        value_on, grads_on = fn(*arrays)
        tol = 1e-4 if args.dtype == "float32" else 1e-10
        assert np.isclose(value_on, value_off, rtol=tol)
        for a, b in zip(grads_on, grads_off):
            assert np.allclose(a, b, rtol=tol * 10, atol=tol * float(np.abs(b).max()))

        def off(fn=fn, arrays=arrays):
            with blocks_off():
                fn(*arrays)
        calls = {"blocks on": lambda fn=fn, arrays=arrays: fn(*arrays), "blocks off": off}
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
