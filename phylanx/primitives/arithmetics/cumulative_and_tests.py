"""The rest of the arithmetics category (§3.3.3): cumulative sums/products, ``normalize``,
``trace``, n-ary ``maximum``/``minimum`` and the ``isnan``-style tests.

``maximum``, ``minimum`` and the ``is*`` tests support the dtype suffixes (``maximum__int``
...): the registry declares those variants, the compiler casts arguments and result.
"""
from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import scalarize
from ..dtypes import to_axis, to_dtype
from ..numeric_args import as_numeric, as_operand, finish, float_of
from ..registry import primitive


def _cumulative(fn, a: Any, axis: Any, dtype: Any) -> Any:
    a = as_numeric(a)
    # a 0-d input runs as a 1-d one, as NumPy's: its axis must be 0 or -1 (any other was
    # ignored, user49) and it becomes 1-d
    ax = to_axis(axis, np.ndim(a))
    return fn(a, axis=ax if np.ndim(a) else None, dtype=to_dtype(dtype))


@primitive(
    "cumsum", "cumsum(_1_a, __arg(_2_axis, nil), __arg(_3_dtype, nil))",
    samples="axis", differentiable=True, distributable=True,
    oracle=lambda a, axis=None, dtype=None: np.cumsum(a, axis=axis, dtype=dtype),
    example="cumsum([1, 2, 3])", result="[1, 3, 6]",
)
def cumsum(a, axis=None, dtype=None):
    """Cumulative sum along ``axis`` (of the flattened array if nil), like numpy.cumsum."""
    return _cumulative(np.cumsum, a, axis, dtype)


@primitive(
    "cumprod", "cumprod(_1_a, __arg(_2_axis, nil), __arg(_3_dtype, nil))",
    samples="axis", differentiable=True,
    oracle=lambda a, axis=None, dtype=None: np.cumprod(a, axis=axis, dtype=dtype),
    example="cumprod([[1, 2], [3, 4]], 0)", result="[[1, 2], [3, 8]]",
)
def cumprod(a, axis=None, dtype=None):
    """Cumulative product along ``axis`` (of the flattened array if nil), like numpy.cumprod."""
    return _cumulative(np.cumprod, a, axis, dtype)


def _normalize_oracle(a):
    a = np.asarray(a)
    a = float_of(a.astype(np.int64) if a.dtype == np.bool_ else a)
    return a / np.linalg.norm(a)


@primitive(
    "normalize", "normalize(_1, __arg(_2_dtype, nil))",
    oracle=_normalize_oracle, differentiable=True,
    example="normalize([3.0, 4.0])", result="[0.6, 0.8]",
)
def normalize(a, dtype=None):
    """Divide ``a`` by its Euclidean (2-) norm, ``x / ||x||`` (all elements for n-d input).

    Integer input gives float64, float32 stays float32; a zero vector gives NaN (0/0, with
    NumPy's warning).  ``dtype`` casts the result.
    """
    a = as_numeric(a)
    if a.dtype == np.bool_:
        a = a.astype(np.int64)
    a = float_of(a)
    return finish(a / np.linalg.norm(a), to_dtype(dtype))


@primitive(
    "trace", "trace(_1, __arg(_2_dtype, nil), __arg(_3_offset, 0))",
    oracle=lambda a, dtype=None, offset=0: np.trace(a, offset, dtype=dtype),
    differentiable=True, example="trace([[1, 2], [3, 4]])", result="5",
)
def trace(a, dtype=None, offset=0):
    """Sum of a diagonal of a matrix, like numpy.trace (n-d: over the first two axes).

    ``offset`` picks the diagonal as NumPy's (1: above the main one, -1: below; one
    outside the matrix sums nothing); ``np.trace(x, 1)`` passes it by NumPy's name.
    ``dtype`` sets the accumulation and result type (bool input sums as int64, as NumPy).
    """
    a = as_numeric(a)
    if np.ndim(a) < 2:
        raise PhylanxValueError(f"the argument must be an array of at least 2 dimensions, "
                                f"got a {np.ndim(a)}-d one")
    return scalarize(np.trace(a, as_offset(offset), dtype=to_dtype(dtype)))


def as_offset(offset: Any) -> int:
    """``trace``'s diagonal offset: an integer (NumPy refuses a float or a bool, so do we:
    truncating 1.5 would sum another diagonal than the one asked for)."""
    if isinstance(offset, (bool, np.bool_)) or not isinstance(offset, (int, np.integer)) \
            and not (isinstance(offset, np.ndarray) and offset.ndim == 0
                     and offset.dtype.kind in "iu"):
        raise PhylanxTypeError(f"offset must be an integer, got {offset!r}")
    return int(offset)


def _extremum(name: str, ufunc: np.ufunc, example: str, result: str, doc: str):
    def impl(a, *others):
        if not others:
            raise PhylanxValueError("at least two arguments are needed, got one")
        return scalarize(reduce(ufunc, others, as_operand(a)))

    impl.__name__ = name
    impl.__doc__ = doc
    primitive(
        name, f"{name}(_1, __2)", supports_dtype=True,
        oracle=lambda *xs: reduce(ufunc, xs), samples="binary", elementwise=True,
        distributable=True, differentiable=True, example=example, result=result,
        flags={"binary": ufunc},
    )(impl)
    return impl


maximum = _extremum(
    "maximum", np.maximum, "maximum([1, 5, 2], 3, [0, 0, 4])", "[3, 5, 4]",
    "Element-wise maximum of two or more arguments with broadcasting (NaN wins, as NumPy).")
minimum = _extremum(
    "minimum", np.minimum, "minimum([1, 5, 2], 3)", "[1, 3, 2]",
    "Element-wise minimum of two or more arguments with broadcasting (NaN wins, as NumPy).")


def _test(name: str, fn, example: str, result: str, doc: str):
    def impl(a):
        return scalarize(fn(as_numeric(a)))

    impl.__name__ = name
    impl.__doc__ = doc
    primitive(
        name, f"{name}(_1)", supports_dtype=True, oracle=fn,
        samples="unary", elementwise=True, distributable=True, example=example, result=result,
    )(impl)
    return impl


_SPECIALS = "list(1.0, nan, inf, ninf)"
isnan = _test("isnan", np.isnan, f"isnan({_SPECIALS})", "[false, true, false, false]",
              "Element-wise test for NaN -> bool.")
isinf = _test("isinf", np.isinf, f"isinf({_SPECIALS})", "[false, false, true, true]",
              "Element-wise test for positive or negative infinity -> bool.")
isneginf = _test("isneginf", np.isneginf, f"isneginf({_SPECIALS})",
                 "[false, false, false, true]", "Element-wise test for -inf -> bool.")
isposinf = _test("isposinf", np.isposinf, f"isposinf({_SPECIALS})",
                 "[false, false, true, false]", "Element-wise test for +inf -> bool.")
isfinite = _test("isfinite", np.isfinite, f"isfinite({_SPECIALS})",
                 "[true, false, false, false]",
                 "Element-wise test for a finite number (not NaN, not +-inf) -> bool.")
