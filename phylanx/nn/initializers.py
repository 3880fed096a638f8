"""Weight initialisers with Keras' names and formulas, drawing from a seedable generator.

``glorot_uniform`` (Keras' default kernel initialiser), ``glorot_normal``, ``he_uniform``,
``he_normal``, ``lecun_uniform``, ``lecun_normal``, ``orthogonal``, ``zeros``, ``ones``.
Fans follow Keras: a kernel of shape ``(..., fan_in, fan_out)`` has receptive field size
``prod(shape[:-2])``.  The normal variants draw from a normal truncated at two standard
deviations (Keras' ``truncated_normal``), scaled as Keras scales it.  Values are
float32.  Without a ``seed``, values come from the generator :func:`set_seed` resets.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import PhylanxValueError

_rng = np.random.default_rng()


def set_seed(seed: int) -> None:
    """Make initialisers, dropout and shuffling reproducible (like
    ``keras.utils.set_random_seed``)."""
    global _rng
    _rng = np.random.default_rng(seed)
    np.random.seed(seed)
    from ..primitives.matrixops import random_numbers
    random_numbers.set_seed(seed)


def generator(seed: int | None = None) -> np.random.Generator:
    return _rng if seed is None else np.random.default_rng(seed)


def _fans(shape: tuple) -> tuple[float, float]:
    if len(shape) < 1:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    receptive = float(np.prod(shape[:-2])) if len(shape) > 2 else 1.0
    return shape[-2] * receptive, shape[-1] * receptive


def _truncated_normal(rng, stddev: float, shape: tuple) -> np.ndarray:
    values = rng.standard_normal(shape)
    bad = np.abs(values) > 2.0
    while bad.any():
        values[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(values) > 2.0
    return values * stddev


def _variance_scaling(scale: float, mode: str, uniform: bool) -> Callable:
    def init(shape: tuple, seed: int | None = None) -> np.ndarray:
        fan_in, fan_out = _fans(tuple(shape))
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
        rng = generator(seed)
        variance = scale / max(1.0, n)
        if uniform:
            limit = np.sqrt(3.0 * variance)
            return rng.uniform(-limit, limit, shape).astype(np.float32)
        # Keras divides by the stddev of a unit normal truncated at 2 sigma
        return _truncated_normal(rng, np.sqrt(variance) / .87962566103423978,
                                 tuple(shape)).astype(np.float32)
    return init


def zeros(shape: tuple, seed: int | None = None) -> np.ndarray:
    return np.zeros(shape, np.float32)


def ones(shape: tuple, seed: int | None = None) -> np.ndarray:
    return np.ones(shape, np.float32)


def orthogonal(shape: tuple, seed: int | None = None) -> np.ndarray:
    """Keras' recurrent kernel default: an orthogonal matrix (QR of a normal matrix)."""
    rows = int(np.prod(shape[:-1]))
    cols = shape[-1]
    a = generator(seed).standard_normal((max(rows, cols), min(rows, cols)))
    q, r = np.linalg.qr(a)
    q *= np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return q[:rows, :cols].reshape(shape).astype(np.float32)


INITIALIZERS: dict[str, Callable] = {
    "glorot_uniform": _variance_scaling(1.0, "fan_avg", True),
    "glorot_normal": _variance_scaling(1.0, "fan_avg", False),
    "he_uniform": _variance_scaling(2.0, "fan_in", True),
    "he_normal": _variance_scaling(2.0, "fan_in", False),
    "lecun_uniform": _variance_scaling(1.0, "fan_in", True),
    "lecun_normal": _variance_scaling(1.0, "fan_in", False),
    "orthogonal": orthogonal,
    "zeros": zeros,
    "ones": ones,
}


def get(name) -> Callable:
    """The initialiser called ``name`` (a callable ``f(shape, seed)`` is returned as is)."""
    if callable(name):
        return name
    init = INITIALIZERS.get(str(name).lower())
    if init is None:
        raise PhylanxValueError(f"unknown initializer {name!r}; known: "
                                f"{', '.join(sorted(INITIALIZERS))}")
    return init
