"""matrixops, random numbers: ``random random_sample random_integers randn set_seed get_seed
shuffle``.

All of them draw from ONE module-level ``numpy.random.Generator``; ``set_seed``
replaces it with a freshly seeded one, so a program is reproducible after
``set_seed(n)``, and ``get_seed`` returns the last seed.  A lock serialises the
draws because nodes may run on several threads and a Generator is not
thread-safe.

``random(size, dist)`` names its distributions like C++ <random> (which the
original used), so parameters and supports follow C++: ``uniform_int(a, b)`` is
inclusive of ``b``, ``geometric(p)`` counts failures (support 0, 1, ...),
``exponential(lambda)`` takes a rate, ``gamma(alpha, beta)`` a scale.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import scalarize, type_name
from ..array_args import as_shape
from ..dtypes import to_dtype, to_int
from ..registry import primitive

_lock = threading.Lock()
_seed: int = int(np.random.SeedSequence().entropy % 2**32)
_rng: np.random.Generator = np.random.default_rng(_seed)


def with_generator(draw: Callable[[np.random.Generator], Any]) -> Any:
    """``draw(rng)`` with the generator that ``set_seed`` controls, under its lock.

    Every primitive that draws random numbers goes through here, so one
    ``set_seed`` makes a whole program reproducible.
    """
    with _lock:
        return draw(_rng)


def _truncated_normal(rng: np.random.Generator, mean: float, stddev: float,
                      size: tuple[int, ...]) -> np.ndarray:
    """Normal samples more than two standard deviations from the mean are drawn again."""
    out = rng.normal(mean, stddev, size)
    bad = np.abs(out - mean) > 2 * abs(stddev)
    while np.any(bad):
        out[bad] = rng.normal(mean, stddev, int(bad.sum()))
        bad = np.abs(out - mean) > 2 * abs(stddev)
    return out


#: name -> (defaults of the C++ distribution's parameters, sampler(rng, p1, p2, size))
_DISTRIBUTIONS: dict[str, tuple[tuple[float, ...], Callable[..., np.ndarray]]] = {
    "uniform_int": ((0, 2**31 - 1),
                    lambda r, a, b, n: r.integers(int(a), int(b), n, endpoint=True)),
    "uniform": ((0.0, 1.0), lambda r, a, b, n: r.uniform(a, b, n)),
    "bernoulli": ((0.5,), lambda r, p, n: r.random(n) < p),
    "binomial": ((1, 0.5), lambda r, t, p, n: r.binomial(int(t), p, n)),
    "negative_binomial": ((1, 0.5), lambda r, k, p, n: r.negative_binomial(k, p, n)),
    "geometric": ((0.5,), lambda r, p, n: r.geometric(p, n) - 1),
    "poisson": ((1.0,), lambda r, mean, n: r.poisson(mean, n)),
    "exponential": ((1.0,), lambda r, rate, n: r.exponential(1.0 / rate, n)),
    "gamma": ((1.0, 1.0), lambda r, alpha, beta, n: r.gamma(alpha, beta, n)),
    "weibull": ((1.0, 1.0), lambda r, a, b, n: b * r.weibull(a, n)),
    "extreme_value": ((0.0, 1.0), lambda r, a, b, n: r.gumbel(a, b, n)),
    "normal": ((0.0, 1.0), lambda r, mean, sd, n: r.normal(mean, sd, n)),
    "truncated_normal": ((0.0, 1.0), _truncated_normal),
    "lognormal": ((0.0, 1.0), lambda r, m, s, n: r.lognormal(m, s, n)),
    "chi_squared": ((1.0,), lambda r, k, n: r.chisquare(k, n)),
    "cauchy": ((0.0, 1.0), lambda r, a, b, n: a + b * r.standard_cauchy(n)),
    "fisher_f": ((1.0, 1.0), lambda r, m, k, n: r.f(m, k, n)),
    "student_t": ((1.0,), lambda r, k, n: r.standard_t(k, n)),
}


def _size(size: Any) -> tuple[int, ...]:
    """A size argument: nil (one value), an integer or a list of integers."""
    return () if size is None else as_shape(size, "size")


def _distribution(dist: Any) -> tuple[str, list[float]]:
    if dist is None:
        name, params = "normal", []
    elif isinstance(dist, str):
        name, params = dist, []
    elif isinstance(dist, (list, tuple)) and dist and isinstance(dist[0], str):
        name, params = dist[0], list(dist[1:])
    else:
        raise PhylanxTypeError(
            f"dist must be a distribution name or a list [name, p1, p2], got a {type_name(dist)}")
    if name not in _DISTRIBUTIONS:
        raise PhylanxValueError(
            f"unknown distribution '{name}' (known: {', '.join(sorted(_DISTRIBUTIONS))})")
    defaults = _DISTRIBUTIONS[name][0]
    if len(params) > len(defaults):
        raise PhylanxValueError(
            f"distribution '{name}' takes at most {len(defaults)} parameter(s), got {len(params)}")
    for p in params:
        if not isinstance(p, (int, float, np.integer, np.floating)) or isinstance(p, np.bool_):
            raise PhylanxTypeError(
                f"parameters of distribution '{name}' must be numbers, got a {type_name(p)}")
    return name, [float(p) for p in params] + list(defaults[len(params):])


@primitive(
    "random", "random(_1, __arg(_2_dist, nil), __arg(_3_dtype, nil))",
    side_effects=True, no_oracle="random numbers; distributions checked by moments in tests",
    example="random(list(2, 3), list(\"uniform\", 0, 1))", result=None,
)
def random(size, dist=None, dtype=None):
    """Random numbers of shape ``size`` from ``dist`` (default normal(0, 1)), float64 by default.

    ``dist`` is a name or a list ``[name, p1, p2]`` of: uniform_int, uniform, bernoulli,
    binomial, negative_binomial, geometric, poisson, exponential, gamma, weibull,
    extreme_value, normal, truncated_normal, lognormal, chi_squared, cauchy, fisher_f,
    student_t (parameters and supports as in C++ <random>).
    """
    shape = _size(size)
    name, params = _distribution(dist)
    out_dtype = to_dtype(dtype, np.float64)
    sampler = _DISTRIBUTIONS[name][1]
    try:
        with _lock:
            values = sampler(_rng, *params, shape)
    except ValueError as e:
        raise PhylanxValueError(f"bad parameters {params} for distribution '{name}': {e}") from None
    return scalarize(np.asarray(values).astype(out_dtype))


@primitive(
    "random_sample", "random_sample(__arg(_1_size, nil))",
    side_effects=True, no_oracle="random numbers", example="random_sample(3)", result=None,
)
def random_sample(size=None):
    """Uniform samples from [0, 1) of shape ``size``; one float64 if nil (random_sample)."""
    shape = _size(size)
    with _lock:
        return scalarize(_rng.random(shape))


@primitive(
    "random_integers", "random_integers(low, __arg(_2_high, nil), __arg(_3_size, nil))",
    side_effects=True, no_oracle="random numbers",
    example="random_integers(1, 6, 4)", result=None,
)
def random_integers(low, high=None, size=None):
    """Random int64 values in the closed range [low, high] ([1, low] if high is nil)."""
    lo = to_int(low, "low")
    if high is None:
        lo, hi = 1, lo
    else:
        hi = to_int(high, "high")
    if hi < lo:
        raise PhylanxValueError(f"low ({lo}) must not exceed high ({hi})")
    shape = _size(size)
    with _lock:
        return scalarize(_rng.integers(lo, hi, shape, dtype=np.int64, endpoint=True))


@primitive(
    "randn", "randn(__1)", side_effects=True,
    no_oracle="random numbers", example="randn(2, 3)", result=None,
)
def randn(*dims):
    """Standard-normal float64 samples of shape (d0, d1, ...); one value without arguments."""
    shape = tuple(to_int(d, "dimension") for d in dims)
    if any(d < 0 for d in shape):
        raise PhylanxValueError(f"dimensions {list(shape)} must be non-negative")
    with _lock:
        return scalarize(_rng.standard_normal(shape))


@primitive(
    "set_seed", "set_seed(_1)", side_effects=True,
    no_oracle="seeds the generator", example="set_seed(42)", result=None,
)
def set_seed(seed):
    """Re-seed the global random generator (the draws that follow are reproducible); nil."""
    global _rng, _seed
    value = to_int(seed, "seed")
    if value < 0:
        raise PhylanxValueError(f"seed must be non-negative, got {value}")
    with _lock:
        _seed = value
        _rng = np.random.default_rng(value)


@primitive(
    "get_seed", "get_seed()", no_oracle="global state",
    example="get_seed() >= 0", result="true",
)
def get_seed():
    """The seed last given to ``set_seed`` (or chosen at start-up), as an int64."""
    return np.int64(_seed)


@primitive(
    "shuffle", "shuffle(_1)", side_effects=True,
    no_oracle="random permutation", example="shuffle([1, 2, 3, 4])", result=None,
)
def shuffle(x):
    """Shuffle an array (along its first axis) or a list in place and return it."""
    if isinstance(x, (np.generic, int, float)) or (isinstance(x, np.ndarray) and x.ndim == 0):
        raise PhylanxValueError("cannot shuffle a 0-d value")
    if not isinstance(x, (np.ndarray, list)):
        raise PhylanxTypeError(f"shuffle needs an array or a list, got a {type_name(x)}")
    with _lock:
        _rng.shuffle(x)
    return x
