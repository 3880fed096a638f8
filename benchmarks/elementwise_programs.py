"""Element-wise chains ending in a reduction, float64 and float32: the programs that
element-wise fusion (``phylanx/fusion``, setting ``fusion``) is for, beside the general
programs of ``general_programs.py`` (which it must not slow down).

Each is a :class:`general_programs.Program`; ``settings_ab.py fusion --fresh`` times
them with the setting on and off and NumPy in turns.
"""
from __future__ import annotations

import numpy as np
from general_programs import Program, _data


def gaussian_response(x, y, scale, steps):
    """float64: a smooth response of every pair of coordinates, summed, for shrinking
    scales (the chain ``exp(-z*z/2) * (1 + tanh(z))`` and its sum fuse into one loop)."""
    total = 0.0
    for _ in range(steps):
        z = (x - y) * scale
        total += np.sum(np.exp(-0.5 * z * z) * (1.0 + np.tanh(z)))
        scale = scale * 0.9
    return total


def logistic_loss_f32(margin, label, steps):
    """float32: the mean logistic loss ``log(1 + exp(-m))`` of shifted margins."""
    total = 0.0
    for i in range(steps):
        m = margin * label + 0.01 * i
        total += np.mean(np.log1p(np.exp(-m)))
    return total


def gaussian_data(quick):
    n, steps = _data(quick, (20_000, 3), (2_000_000, 10))
    rng = np.random.default_rng(41)
    return rng.normal(size=n), rng.normal(size=n), 1.5, steps


def logistic_data(quick):
    n, steps = _data(quick, (20_000, 3), (4_000_000, 10))
    rng = np.random.default_rng(42)
    return (rng.normal(size=n).astype(np.float32),
            np.sign(rng.normal(size=n)).astype(np.float32), steps)


PROGRAMS = [
    Program("element-wise chain + sum, float64", gaussian_response, gaussian_data,
            why_no_jax="fresh program of the fusion A/B", tol=1e-9),
    Program("element-wise chain + mean, float32", logistic_loss_f32, logistic_data,
            why_no_jax="fresh program of the fusion A/B", tol=1e-4),
]
