"""matrixops, numpy.random functions the original lacks (extensions): ``choice permutation
beta``, and ``__nprandom``/``__random_method`` for decorated Python.

``choice``, ``permutation`` and ``beta`` draw from the shared generator of
``matrixops_random`` (``with_generator``), so PhySL's ``set_seed(n)`` makes them reproducible
together with ``random``/``shuffle``.

Decorated Python's ``np.random.<name>(...)`` is ``__nprandom``: NumPy's own function on its
global ``RandomState``, so a decorated function draws exactly what the undecorated one draws;
``rng.<method>(...)`` of a ``Generator``/``RandomState`` value is ``__random_method``.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxAttributeError, PhylanxTypeError, PhylanxValueError
from ...values import scalarize, type_name
from ..array_args import as_array, as_shape, python_call
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


#: ``np.random.<name>`` callable from decorated code: NumPy's own functions, drawing from
#: NumPy's global ``RandomState`` (so ``np.random.seed(42)`` before or inside a decorated
#: function gives the numbers the undecorated function gets), plus its constructors
#: (``default_rng``, ``RandomState``, ``SeedSequence``, bit generators)
NUMPY_RANDOM_FUNCTIONS = frozenset(
    name for name in np.random.__all__ if callable(getattr(np.random, name, None)))
#: methods of ``numpy.random.Generator`` and ``RandomState`` objects
GENERATOR_METHODS = frozenset(
    name for cls in (np.random.Generator, np.random.RandomState) for name in dir(cls)
    if not name.startswith("_") and callable(getattr(cls, name)))


@primitive(
    "__nprandom", "__nprandom(_1_function, _2_keywords, __3)", extension=True, internal=True,
    side_effects=True, no_oracle="draws from NumPy's global stream; tests compare with NumPy",
    example="__nprandom(\"seed\", list(), 1)", result="nil",
)
def nprandom(function, keywords, *values):
    """Decorated Python's ``np.random.<function>(...)``: NumPy's function, global stream.

    ``keywords`` names the keywords of the last values; the others are positional.
    """
    if function not in NUMPY_RANDOM_FUNCTIONS:
        raise PhylanxValueError(f"np.random.{function} is not a function of numpy.random")
    return python_call(f"np.random.{function}()", getattr(np.random, function), keywords,
                       values)


@primitive(
    "__random_method", "__random_method(_1_generator, _2_method, _3_keywords, __4)",
    extension=True, internal=True, side_effects=True,
    no_oracle="draws from the generator passed in; tests compare with NumPy",
    example="__random_method(__nprandom(\"default_rng\", list(), 0), \"integers\", list(), 1)",
    result="0",
)
def random_method(generator, method, keywords, *values):
    """``generator.<method>(...)`` of a NumPy ``Generator`` or ``RandomState`` value.

    Its own method, so it draws what it would draw undecorated; ``keywords`` as in
    ``__nprandom``.
    """
    bound = getattr(generator, method, None) if isinstance(
        generator, (np.random.Generator, np.random.RandomState)) else None
    if method not in GENERATOR_METHODS or bound is None:
        raise PhylanxAttributeError(
            f"a {type_name(generator)} has no method '.{method}()' (it is a method of "
            "numpy.random.Generator and RandomState objects)")
    return python_call(f".{method}()", bound, keywords, values)
