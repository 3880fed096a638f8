"""Central finite differences of plain Python/NumPy functions: the oracle of the grad tests."""
from __future__ import annotations

import numpy as np


def numeric_grad(fn, args, argnum=0, eps=1e-6):
    """d fn(*args) / d args[argnum] by central differences (args converted to float64)."""
    args = [np.array(a, dtype=np.float64) if isinstance(a, (np.ndarray, float, int, list))
            and not isinstance(a, bool) else a for a in args]
    base = args[argnum]
    grad = np.zeros(np.shape(base))
    for idx in np.ndindex(grad.shape):
        values = []
        for step in (eps, -eps):
            moved = np.array(base, dtype=np.float64)
            moved[idx] += step
            call = list(args)
            call[argnum] = moved if moved.ndim else np.float64(moved[()])
            values.append(float(fn(*call)))
        grad[idx] = (values[0] - values[1]) / (2 * eps)
    return grad if grad.ndim else np.float64(grad[()])


def assert_grad_close(got, want, rtol=1e-5):
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6 * scale)
