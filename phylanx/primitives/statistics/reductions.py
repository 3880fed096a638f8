"""Reductions of the statistics category (§3.3.8): ``sum prod amax amin mean var std all any
logsumexp``.

All share the five-slot pattern ``name(_1, axis, keepdims, <4th>, <5th>)``; the 4th slot is
``initial`` for ``sum prod amax amin``, an ignored ``dummy_`` elsewhere (the original keeps
the slot to line up with NumPy's keywords), and the 5th ``dtype`` (``dummy1`` for
``all``/``any``).  ``axis`` is nil (everything), an int (negative counts from the end) or a
list/1-d array of ints.  Results follow NumPy, 0-d ones as NumPy scalars.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import PhylanxAxisError, PhylanxTypeError, PhylanxValueError
from ...values import scalarize, type_name
from ..dtypes import to_axes, to_bool, to_dtype
from ..lazy_modules import lazy_attribute, lazy_module
from ..numeric_args import as_numeric, finish
from ..registry import primitive

# SciPy loads on first use (``import phylanx`` stays fast)
scipy = lazy_module("scipy")


def reduction_axes(axis: Any, ndim: int) -> int | tuple[int, ...] | None:
    """A checked axis or tuple of axes for a reduction over an ``ndim``-d array."""
    if isinstance(axis, np.ndarray):
        axis = axis.tolist() if axis.ndim else axis[()]
    axes = to_axes(axis, ndim)
    # a 0-d value has no axes: an axis of 0 or -1 (accepted by to_axes) reduces everything,
    # as NumPy does for an integer axis
    return None if ndim == 0 else axes


def _prepare(a: Any, axis: Any, keepdims: Any, *, axis_of_0d: bool = True
             ) -> tuple[Any, Any, bool]:
    a = as_numeric(a)
    if not axis_of_0d and axis is not None and np.ndim(a) == 0:
        # numpy.mean/var/std (unlike sum/max/all) refuse any axis for a 0-d value
        raise PhylanxAxisError(f"axis {axis} is out of bounds for a 0-d array (give nil)")
    return a, reduction_axes(axis, np.ndim(a)), to_bool(keepdims)


def _plain(a: Any, axis: Any, *options: Any) -> bool:
    """The hot case: a non-empty numeric array, no options, axis nil or an in-range int.
    Then the NumPy call needs no checks or conversions."""
    for option in options:       # (a loop, not all() of a generator: one frame fewer)
        if option is not None:
            return False
    return (type(a) is np.ndarray and a.size and a.dtype.kind in "biuf"
            and (axis is None or (type(axis) is int and -a.ndim <= axis < a.ndim)))


def _empty_error(what: str, a: Any, axis: Any) -> PhylanxValueError:
    where = "" if axis is None else f" along axis {axis}"
    return PhylanxValueError(f"cannot take the {what} of an empty array{where} (shape "
                             f"{np.shape(a)}) without an 'initial' value")


def _oracle(fn, **fixed):
    """An oracle taking the impl's positional arguments (axis, keepdims, ...)."""
    def oracle(a, axis=None, keepdims=None, *_ignored):
        return fn(a, axis=axis, keepdims=bool(keepdims), **fixed)
    return oracle


_REDUCE_PATTERN = ("{name}(_1, __arg(_2_axis, nil), __arg(_3_keepdims, nil), "
                   "__arg(_4_{fourth}, nil), __arg(_5_{fifth}, nil))")


def _pattern(name: str, fourth: str, fifth: str = "dtype") -> str:
    return _REDUCE_PATTERN.format(name=name, fourth=fourth, fifth=fifth)


@primitive("sum", _pattern("sum", "initial"), samples="reduction", distributable=True,
           oracle=_oracle(np.sum), differentiable=True,
           example="sum([[1, 2], [3, 4]], 0)", result="[4, 6]")
def sum_(a, axis=None, keepdims=None, initial=None, dtype=None):
    """Sum of the elements (along ``axis``), plus ``initial`` if given, like numpy.sum.

    bool and int inputs sum as int64; ``dtype`` sets the accumulator and result type.
    """
    middle = _middle_axis(a, axis) if initial is None and dtype is None else None
    if middle is not None:
        out = middle_axis_sum(a, middle)
        return out if not to_bool(keepdims) else np.expand_dims(out, middle)
    if _plain(a, axis, keepdims, initial, dtype):
        return scalarize(np.sum(a, axis=axis))
    a, axes, keep = _prepare(a, axis, keepdims)
    extra = {} if initial is None else {"initial": initial}
    return scalarize(np.sum(a, axis=axes, keepdims=keep, dtype=to_dtype(dtype), **extra))


def middle_axis_sum(a: np.ndarray, axis: int) -> np.ndarray:
    """``np.sum(a, axis)`` of a C-contiguous float32/float64 array over a middle axis, as
    the batched product ``ones(1, n) @ a.reshape(outer, n, inner)`` (BLAS, accumulating
    in ``a``'s dtype as NumPy does, in another order of additions).  Why: NumPy adds a
    middle axis one short inner block at a time (a Conv1D's mean over 124 positions of 32
    float32 channels: 107 us against 14).  Infinities and NaNs propagate as in NumPy's
    sum; a zero result gets the sign NumPy's sum gives it (its columns summed again by
    NumPy: few)."""
    shape = a.shape
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    rows = a.reshape(outer, shape[axis], -1)
    out = np.matmul(np.ones((1, shape[axis]), a.dtype), rows).reshape(
        shape[:axis] + shape[axis + 1:])
    zero = np.nonzero(out == 0)
    if len(zero[0]):
        out[zero] = np.sum(np.moveaxis(a, axis, -1)[zero], axis=-1)
    return out


def _middle_axis(a: Any, axis: Any) -> int | None:
    """The axis (non-negative) over which :func:`middle_axis_sum` serves ``a``'s sum over
    ``axis``, else None: a C-contiguous float32/float64 array, one axis with axes before
    it (a leading axis NumPy sums as whole rows) and axes after it whose block is at
    most :data:`MIDDLE_SUM_INNER_BYTES`.  One axis however it is written (``1``,
    ``np.int64(1)``, ``(1,)``, ``[-2]``): the same sum gets the same bits."""
    if (type(a) is not np.ndarray or a.dtype.char not in "fd" or a.ndim < 3
            or axis is None):
        return None
    if type(axis) is int:
        axis = axis + a.ndim if axis < 0 else axis
    else:
        # a bad axis raises here the error NumPy's path would raise (reduction_axes)
        axis = reduction_axes(axis, a.ndim)
        if type(axis) is tuple:
            if len(axis) != 1:
                return None
            axis = axis[0]
    fits = (0 < axis < a.ndim - 1 and a.shape[axis] > 1 and a.size > 0
            and a.flags.c_contiguous and a.strides[axis] <= MIDDLE_SUM_INNER_BYTES)
    return axis if fits else None


#: longest block (bytes) after the summed axis served by :func:`middle_axis_sum`.
#: conv46, ``OPENBLAS_NUM_THREADS=1``, load 28 (**loaded**), product / NumPy CPU time:
#: float32 (64, 124, 32) 0.13x, (8, 1000, 4) 0.06x, (256, 8, 16) 0.20x, (1000, 2, 8)
#: 0.52x, (10, 500, 64) 0.21x, (64, 124, 1) 0.70x, (2, 3, 2) 0.89x; float64 0.09-0.49x on
#: the same; a 4096-byte block (4, 100, 1024) 0.73x (float32), 8192 bytes 0.86x (float64):
#: larger blocks were not measured
MIDDLE_SUM_INNER_BYTES = 8192


@primitive("prod", _pattern("prod", "initial"), samples="reduction", distributable=True,
           oracle=_oracle(np.prod), differentiable=True,
           example="prod([[1, 2], [3, 4]], 1)", result="[2, 12]")
def prod(a, axis=None, keepdims=None, initial=None, dtype=None):
    """Product of the elements (along ``axis``), times ``initial`` if given, like numpy.prod."""
    a, axes, keep = _prepare(a, axis, keepdims)
    extra = {} if initial is None else {"initial": initial}
    return scalarize(np.prod(a, axis=axes, keepdims=keep, dtype=to_dtype(dtype), **extra))


def halving_extreme(op, a: np.ndarray, axis: int) -> np.ndarray:
    """``op.reduce(a, axis)`` (``op``: ``np.maximum`` or ``np.minimum``) by halving: the
    upper half of the axis against the lower half, as one element-wise ``op`` of two
    views, until one index is left.  Exact (a maximum or minimum in any order; NaN
    propagates either way; a zero extreme gets NumPy's sign: :func:`_numpys_zero_signs`).
    Why: NumPy reduces a middle axis one short inner block at a
    time (a Conv1D's global max pooling, 32 float32 channels: 2.7x halving's time);
    halving streams whole rows (``benchmarks/middle_axis_extremes.py``)."""
    n = a.shape[axis]
    head = (slice(None),) * axis
    original = a
    while n > 1:
        half = n // 2
        folded = op(a[head + (slice(0, half),)], a[head + (slice(half, 2 * half),)])
        if n % 2:          # the odd last index, folded into the first
            first = folded[head + (slice(0, 1),)]
            op(first, a[head + (slice(2 * half, n),)], out=first)
        a, n = folded, half
    return _numpys_zero_signs(a[head + (0,)], original, axis)


def _numpys_zero_signs(out: np.ndarray, a: np.ndarray, axis: int) -> np.ndarray:
    """``out`` (``a``'s extreme over ``axis`` by halving) with each zero given the sign
    NumPy's reduction gives it.  NumPy reduces a middle axis as a left fold of
    ``np.maximum``/``np.minimum``, which return their second operand on a tie: of equal
    zeros of both signs the last along the axis wins.  Halving pairs other indices, so
    it may pick the other sign (rev24: ``1 / amax(x)`` was -inf where NumPy's is inf).
    Only the (usually few) zero results are looked at again."""
    zero = np.nonzero(out == 0)
    if not len(zero[0]):
        return out
    columns = np.moveaxis(a, axis, -1)[zero]                 # (zeros, axis length)
    last = columns.shape[1] - 1 - np.argmax((columns == 0)[:, ::-1], axis=1)
    out[zero] = columns[np.arange(len(last)), last]
    return out


def _halving_fits(a: Any, axes: Any, initial: Any, dtype: Any) -> bool:
    """Whether :func:`halving_extreme` serves ``a``'s reduction over ``axes``: a
    C-contiguous float32/float64 array, one axis with axes after it whose block is at
    most :data:`HALVING_INNER_BYTES`, no ``initial`` or ``dtype``."""
    return (type(a) is np.ndarray and a.dtype.char in "fd" and initial is None
            and dtype is None and type(axes) is int and 0 <= axes < a.ndim - 1
            and a.shape[axes] > 1 and a.flags.c_contiguous and a.size > 0
            and 2 * a.itemsize <= a.strides[axes] <= HALVING_INNER_BYTES
            and a.nbytes >= HALVING_MIN_ROWS * a.strides[axes])


#: longest block (bytes) after the reduced axis for which halving beats NumPy's
#: reduction of a middle axis.  ``python benchmarks/middle_axis_extremes.py`` (load 42:
#: **loaded**; 256K elements, reduced length 8, 128 and 1000), halving / NumPy CPU time:
#: from 2 elements to 128 bytes 0.03-0.56x for float32 and 0.17-0.90x for float64 (128
#: bytes: 0.26-0.48x, 0.68-0.90x); 256 bytes 0.57-0.73x for float32 but 1.29-1.90x for
#: float64; one element (a contiguous row per reduction, which NumPy sums fast) 1.1-7.9x
HALVING_INNER_BYTES = 128
#: fewest blocks (the reduced length times the axes before it) for which halving pays:
#: NumPy's reduction costs about 30 ns per block, halving a fixed few microseconds (its
#: log2(length) element-wise calls and the zero-sign check).  ``python
#: benchmarks/middle_axis_extremes.py`` (load 30: **loaded**), halving / NumPy CPU time
#: for one array of (length, inner): (8, 8) 1.2x, (8, 16) 2.0x, (64, 8) 1.7-2.0x,
#: (128, 16) 1.7-1.8x, (256, 16) 0.93-1.26x, (1000, 4) 0.45-0.53x, (1000, 16) 0.51-0.57x
#: (a Viterbi step's max over an 8x8 matrix paid 1.2-2x NumPy's)
HALVING_MIN_ROWS = 256


def _extreme(fn, what: str, a, axis, keepdims, initial, dtype):
    if _halving_fits(a, axis if type(axis) is not int or axis >= 0 else axis + np.ndim(a),
                     initial, dtype):
        axis = axis % a.ndim
        out = halving_extreme(np.maximum if fn is np.max else np.minimum, a, axis)
        return out if not to_bool(keepdims) else np.expand_dims(out, axis)
    if _plain(a, axis, keepdims, initial, dtype):
        # the hot case (a loop's step over a small matrix): the ufunc's reduction, which
        # is what np.max calls for an ndarray, without the conversions it does not need
        # (a 0-d result is a scalar: a ufunc's reduction never gives a 0-d array)
        return (np.maximum if fn is np.max else np.minimum).reduce(a, axis=axis)
    a, axes, keep = _prepare(a, axis, keepdims)
    dt = to_dtype(dtype)
    if dt is not None:
        a = a.astype(dt)   # max/min commute with (monotonic) casts, so casting first is exact
    extra = {} if initial is None else {"initial": initial}
    if a.size == 0 and initial is None:
        reduced = range(np.ndim(a)) if axes is None else np.atleast_1d(axes)
        if any(np.shape(a)[i] == 0 for i in reduced):
            raise _empty_error(what, a, axis)
    return scalarize(fn(a, axis=axes, keepdims=keep, **extra))


@primitive("amax", _pattern("amax", "initial"), samples="reduction", distributable=True,
           oracle=_oracle(np.max), example="amax([[1, 5], [3, 4]], 0)", result="[3, 5]",
           differentiable=True)
def amax(a, axis=None, keepdims=None, initial=None, dtype=None):
    """Largest element (along ``axis``; NaN if any is NaN), like numpy.max.

    An empty reduction needs ``initial``, which also takes part in the maximum.
    """
    return _extreme(np.max, "maximum", a, axis, keepdims, initial, dtype)


@primitive("amin", _pattern("amin", "initial"), samples="reduction", distributable=True,
           oracle=_oracle(np.min), example="amin([[1, 5], [3, 4]], 1)", result="[1, 3]",
           differentiable=True)
def amin(a, axis=None, keepdims=None, initial=None, dtype=None):
    """Smallest element (along ``axis``; NaN if any is NaN), like numpy.min.

    An empty reduction needs ``initial``, which also takes part in the minimum.
    """
    return _extreme(np.min, "minimum", a, axis, keepdims, initial, dtype)


@primitive("mean", _pattern("mean", "dummy_"), samples="reduction", distributable=True,
           oracle=_oracle(np.mean), differentiable=True,
           example="mean([[1, 2], [3, 4]], 0)", result="[2.0, 3.0]")
def mean(a, axis=None, keepdims=None, dummy_=None, dtype=None):
    """Arithmetic mean (along ``axis``), like numpy.mean: ints give float64, float32 stays.

    The mean of nothing is NaN with NumPy's warning.  The 4th argument is ignored.
    """
    middle = _middle_axis(a, axis) if dtype is None else None
    if middle is not None:
        # NumPy's mean: the sum in the array's dtype, divided by the count
        out = middle_axis_sum(a, middle)
        out /= a.shape[middle]
        return out if not to_bool(keepdims) else np.expand_dims(out, middle)
    if _plain(a, axis, keepdims, dtype):
        return scalarize(np.mean(a, axis=axis))
    a, axes, keep = _prepare(a, axis, keepdims, axis_of_0d=False)
    return scalarize(np.mean(a, axis=axes, keepdims=keep, dtype=to_dtype(dtype)))


@primitive("__masked_mean",
           "__masked_mean(_1_a, _2_where, __arg(_3_axis, nil), __arg(_4_keepdims, nil), "
           "__arg(_5_dtype, nil))", extension=True, internal=True, differentiable=True,
           oracle=lambda a, where, axis=None, keepdims=None, dtype=None: np.mean(
               a, axis=axis, keepdims=bool(keepdims), dtype=dtype, where=where),
           example="__masked_mean([1.0, 2.0, 6.0], [true, false, true])", result="3.5")
def masked_mean(a, where, axis=None, keepdims=None, dtype=None):
    """``np.mean(a, axis, where=where)``: the mean of the elements ``where`` selects.

    The frontend's ``where=`` of ``mean``; NaN with NumPy's warning where none is."""
    a, axes, keep = _prepare(a, axis, keepdims, axis_of_0d=False)
    mask = as_numeric(where)
    if np.asarray(mask).dtype.kind != "b":
        raise PhylanxTypeError(f"mean's where= must be a boolean array, got "
                               f"{type_name(where)}")
    return scalarize(np.mean(a, axis=axes, keepdims=keep, dtype=to_dtype(dtype),
                             where=mask))


def _moment_pattern(name: str) -> str:
    # ddof is a trailing slot beyond the original's five, so the original's calls still work
    return _pattern(name, "dummy_")[:-1] + ", __arg(_6_ddof, 0))"


def _moment_oracle(fn):
    def oracle(a, axis=None, keepdims=None, dummy_=None, dtype=None, ddof=0):
        return fn(a, axis=axis, keepdims=bool(keepdims), dtype=dtype, ddof=ddof)
    return oracle


def _ddof(ddof: Any) -> Any:
    if isinstance(ddof, (bool, np.bool_)) or not isinstance(
            ddof, (int, float, np.integer, np.floating)):
        raise PhylanxTypeError(f"ddof must be a number, got a {type_name(ddof)}")
    return ddof


@primitive("var", _moment_pattern("var"), samples="reduction", distributable=True,
           oracle=_moment_oracle(np.var), differentiable=True,
           example="var([1, 2, 3, 4])", result="1.25")
def var(a, axis=None, keepdims=None, dummy_=None, dtype=None, ddof=0):
    """Variance along ``axis`` with ``ddof`` delta degrees of freedom, like numpy.var.

    ``ddof`` 0 (the default) is the population variance, 1 the sample variance; the
    divisor is N - ddof.  The 4th argument is ignored; ``ddof`` extends the original.
    """
    a, axes, keep = _prepare(a, axis, keepdims, axis_of_0d=False)
    return scalarize(np.var(a, axis=axes, keepdims=keep, dtype=to_dtype(dtype),
                            ddof=_ddof(ddof)))


@primitive("std", _moment_pattern("std"), samples="reduction", distributable=True,
           oracle=_moment_oracle(np.std), differentiable=True,
           example="std([1, 2, 3, 4])", result="1.118033988749895")
def std(a, axis=None, keepdims=None, dummy_=None, dtype=None, ddof=0):
    """Standard deviation along ``axis`` with ``ddof`` delta degrees of freedom (numpy.std).

    ``ddof`` 0 (the default) is the population standard deviation; the divisor is
    N - ddof.  The 4th argument is ignored; ``ddof`` extends the original.
    """
    a, axes, keep = _prepare(a, axis, keepdims, axis_of_0d=False)
    return scalarize(np.std(a, axis=axes, keepdims=keep, dtype=to_dtype(dtype),
                            ddof=_ddof(ddof)))


@primitive("all", _pattern("all", "dummy0", "dummy1"),
           samples="reduction", distributable=True, oracle=_oracle(np.all),
           example="all([[true, false], [true, true]], 1)", result="[false, true]")
def all_(a, axis=None, keepdims=None, dummy0=None, dummy1=None):
    """True where all elements (along ``axis``) are non-zero, like numpy.all.

    NaN counts as true; the 4th and 5th arguments are ignored.
    """
    a, axes, keep = _prepare(a, axis, keepdims)
    return scalarize(np.all(a, axis=axes, keepdims=keep))


@primitive("any", _pattern("any", "dummy0", "dummy1"),
           samples="reduction", distributable=True, oracle=_oracle(np.any),
           example="any([[0, 0], [0, 3]], 1)", result="[false, true]")
def any_(a, axis=None, keepdims=None, dummy0=None, dummy1=None):
    """True where any element (along ``axis``) is non-zero, like numpy.any.

    NaN counts as true; the 4th and 5th arguments are ignored.
    """
    a, axes, keep = _prepare(a, axis, keepdims)
    return scalarize(np.any(a, axis=axes, keepdims=keep))


@primitive("logsumexp", _pattern("logsumexp", "dummy_"),
           samples="reduction", oracle=_oracle(lazy_attribute("scipy.special", "logsumexp")),
           supports_dtype=True, differentiable=True, flags={"dtype_args": (0,)},
           example="logsumexp([0.0, 0.0])", result="0.6931471805599453")
def logsumexp(a, axis=None, keepdims=None, dummy_=None, dtype=None):
    """``log(sum(exp(a)))`` along ``axis`` computed stably, like scipy.special.logsumexp.

    Integer input gives float64, float32 stays float32; an empty reduction gives -inf.
    A float ``dtype`` is computed in; other dtypes cast the result.  4th argument ignored.
    """
    a, axes, keep = _prepare(a, axis, keepdims)
    dt = to_dtype(dtype)
    if dt is not None and dt.kind in "fc":
        a = a.astype(dt)
    elif a.dtype == np.bool_:
        a = a.astype(np.float64)
    return finish(np.asarray(scipy.special.logsumexp(a, axis=axes, keepdims=keep)), dt)
