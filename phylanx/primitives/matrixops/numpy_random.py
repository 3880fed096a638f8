"""matrixops, numpy.random functions the original lacks (extensions): ``choice permutation
beta``.

They draw from the shared generator of ``matrixops_random`` (``with_generator``), so
``set_seed(n)`` (``np.random.seed(n)`` in decorated Python) makes them reproducible together
with ``random``/``shuffle``.  The streams are those of ``numpy.random.Generator``: the same
distributions as the legacy ``np.random.*`` functions, not the same numbers for a seed.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import scalarize, type_name
from ..array_args import as_array, as_shape
from ..dtypes import to_bool, to_int
from ..registry import primitive
from .random_numbers import with_generator


def _size(size):
    return None if size is None else as_shape(size, "size")


def _population(a) -> np.ndarray | int:
    """An integer n (meaning arange(n)) or a non-empty 1-d array to draw from."""
    if isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)):
        n = int(a)
        if n <= 0:
            raise PhylanxValueError(f"a must be a positive integer or a 1-d array, got {n}")
        return n
    arr = as_array(a, "a")
    if arr.ndim != 1:
        raise PhylanxValueError(f"a must be a positive integer or a 1-d array, got a "
                                f"{arr.ndim}-d array")
    if arr.size == 0:
        raise PhylanxValueError("a must not be empty (there is nothing to choose from)")
    return arr


def _probabilities(p, n: int) -> np.ndarray | None:
    if p is None:
        return None
    probs = as_array(p, "p").astype(np.float64)
    if probs.shape != (n,):
        raise PhylanxValueError(f"p must be a 1-d array of {n} probabilities, got shape "
                                f"{probs.shape}")
    if np.any(probs < 0) or not np.isclose(probs.sum(), 1.0):
        raise PhylanxValueError("p must hold non-negative probabilities that sum to 1")
    return probs


@primitive(
    "choice",
    "choice(_1_a, __arg(_2_size, nil), __arg(_3_replace, true), __arg(_4_p, nil))",
    extension=True, side_effects=True,
    no_oracle="random draws; tests check support, shape, uniqueness and frequencies",
    example="choice(5, 3, false)", result=None,
)
def choice(a, size=None, replace=True, p=None):
    """Random samples from ``a`` (a 1-d array, or n for arange(n)), like numpy.random.choice.

    ``size`` is nil (one value), an integer or a shape; ``replace`` false draws without
    repetition (size must not exceed the population); ``p`` gives the probability of each
    element.
    """
    population = _population(a)
    n = population if isinstance(population, int) else population.size
    shape = _size(size)
    replace = to_bool(replace, True)
    probs = _probabilities(p, n)
    count = 1 if shape is None else int(np.prod(shape))
    if not replace and count > n:
        raise PhylanxValueError(f"cannot take {count} samples without replacement from {n} "
                                "elements")
    if not replace and probs is not None and np.count_nonzero(probs) < count:
        raise PhylanxValueError(f"p has fewer than {count} non-zero entries to sample without "
                                "replacement")
    values = with_generator(lambda rng: rng.choice(population, shape, replace, probs))
    return scalarize(np.asarray(values))


@primitive(
    "permutation", "permutation(_1_x)", extension=True,
    side_effects=True, no_oracle="random permutation; tests check it is one",
    example="permutation(4)", result=None,
)
def permutation(x):
    """A random permutation of arange(x) for an integer, else a shuffled copy of the array.

    Like numpy.random.permutation: n-d arrays are shuffled along their first axis only; the
    argument itself is not changed (``shuffle`` works in place).
    """
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        n = to_int(x, "x")
        if n < 0:
            raise PhylanxValueError(f"x must be a non-negative integer or an array, got {n}")
        return with_generator(lambda rng: rng.permutation(n))
    arr = as_array(x, "x")
    if arr.ndim == 0:
        raise PhylanxValueError("x must be an integer or an array of at least 1 dimension")
    return with_generator(lambda rng: rng.permutation(arr))


def _shape_parameter(value, what: str):
    if isinstance(value, (list, tuple, np.ndarray, np.generic, int, float)) and not isinstance(
            value, (bool, np.bool_)):
        arr = as_array(value, what).astype(np.float64)
        if arr.size and (np.any(arr <= 0) or np.any(np.isnan(arr))):
            raise PhylanxValueError(f"{what} must be positive, got {value}")
        return arr
    raise PhylanxTypeError(f"{what} must be a positive number or array, got a "
                           f"{type_name(value)}")


@primitive(
    "beta", "beta(_1_a, _2_b, __arg(_3_size, nil))", extension=True,
    side_effects=True, no_oracle="random draws; tests check the moments",
    example="beta(2.0, 5.0, 3)", result=None,
)
def beta(a, b, size=None):
    """Samples of the Beta(a, b) distribution on [0, 1], like numpy.random.beta.

    ``a`` and ``b`` are positive numbers or arrays (broadcast against each other and
    ``size``); one float64 when everything is scalar and ``size`` is nil.
    """
    alpha, beta_ = _shape_parameter(a, "a"), _shape_parameter(b, "b")
    shape = _size(size)
    try:
        values = with_generator(lambda rng: rng.beta(alpha, beta_, shape))
    except ValueError as e:
        raise PhylanxValueError(f"a, b and size do not broadcast: {e}") from None
    return scalarize(np.asarray(values))
