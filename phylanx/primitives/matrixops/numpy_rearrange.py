"""matrixops, NumPy rearrangements the original lacks (extensions): ``atleast_1d atleast_2d
broadcast_to moveaxis swapaxes rot90 split array_split delete take take_along_axis
fill_diagonal``.

Each follows the NumPy function of the same name on arrays of any rank, with NumPy's
argument names as keyword slots; numbers count as 0-d arrays.  Where NumPy returns a tuple
of arrays (``split``, ``atleast_1d`` of several arrays) the result is a PhySL list.
``moveaxis``/``swapaxes``/``rot90`` return NumPy's views, as NumPy does; ``broadcast_to``
returns a writable copy instead of NumPy's read-only view, so that a later ``store`` into
it works.  ``fill_diagonal`` changes its argument in place, like ``store``, and returns it.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxIndexError, PhylanxTypeError, PhylanxValueError
from ...values import scalarize, type_name
from ..array_args import as_array, as_int_list, as_shape, numpy_call
from ..dtypes import to_axis, to_bool, to_int
from ..registry import primitive


def _atleast(fn, first, more):
    arrays = [as_array(a, f"argument {i + 1}") for i, a in enumerate((first, *more))]
    results = [fn(a) for a in arrays]
    return results[0] if len(results) == 1 else results


def _listed(fn):
    """The NumPy oracle with its tuple of results as a list (what phylanx returns)."""
    def oracle(*args, **kwargs):
        result = fn(*args, **kwargs)
        return list(result) if isinstance(result, tuple) else result
    return oracle


@primitive(
    "atleast_1d", "atleast_1d(_1, __2)", extension=True, oracle=_listed(np.atleast_1d),
    example="atleast_1d(5)", result="[5]",
)
def atleast_1d(arys, *more):
    """The arguments as arrays of at least 1 dimension, like numpy.atleast_1d.

    A number becomes a 1-element array; arrays are returned unchanged.  With several
    arguments the result is a list of them.
    """
    return _atleast(np.atleast_1d, arys, more)


@primitive(
    "atleast_2d", "atleast_2d(_1, __2)", extension=True, oracle=_listed(np.atleast_2d),
    example="atleast_2d([1, 2])", result="[[1, 2]]",
)
def atleast_2d(arys, *more):
    """The arguments as arrays of at least 2 dimensions, like numpy.atleast_2d.

    A number becomes a 1 x 1 array, a vector a single row; with several arguments the
    result is a list of them.
    """
    return _atleast(np.atleast_2d, arys, more)


@primitive(
    "broadcast_to", "broadcast_to(_1_array, _2_shape)", extension=True,
    differentiable=True,
    oracle=lambda array, shape: np.broadcast_to(
        array, tuple(shape) if isinstance(shape, list) else shape),
    example="broadcast_to([1, 2, 3], list(2, 3))", result="[[1, 2, 3], [1, 2, 3]]",
)
def broadcast_to(array, shape):
    """``array`` repeated to ``shape`` by NumPy's broadcasting rules, like numpy.broadcast_to.

    As NumPy's, a read-only view of ``array`` (a write to it is an error; copy it first).
    A shape the array cannot broadcast to is an error.
    """
    arr = as_array(array, "array")
    return numpy_call(np.broadcast_to, arr, as_shape(shape, "shape"))


def _axes(value, what: str):
    axes = as_int_list(value, what)
    return tuple(axes) if isinstance(axes, list) else axes


@primitive(
    "moveaxis", "moveaxis(_1_a, _2_source, _3_destination)", extension=True,
    oracle=lambda a, source, destination: np.moveaxis(
        a, tuple(source) if isinstance(source, list) else source,
        tuple(destination) if isinstance(destination, list) else destination),
    example="shape(moveaxis(constant(0, list(2, 3, 4)), 0, -1))", result="list(3, 4, 2)",
)
def moveaxis(a, source, destination):
    """Move axes of ``a`` to new positions, the others keeping their order (numpy.moveaxis).

    ``source`` and ``destination`` are an axis or lists of axes of equal length; negative
    axes count from the end.
    """
    arr = as_array(a, "a")
    return numpy_call(np.moveaxis, arr, _axes(source, "source"),
                      _axes(destination, "destination"))


@primitive(
    "swapaxes", "swapaxes(_1_a, _2_axis1, _3_axis2)", extension=True, oracle=np.swapaxes,
    example="swapaxes([[1, 2, 3]], 0, 1)", result="[[1], [2], [3]]",
)
def swapaxes(a, axis1, axis2):
    """``a`` with two axes interchanged, like numpy.swapaxes (negative axes count from the end)."""
    arr = as_array(a, "a")
    if arr.ndim == 0:
        raise PhylanxValueError("swapaxes needs an array of at least 1 dimension, got a 0-d "
                                "value")
    return np.swapaxes(arr, to_axis(axis1, arr.ndim, "axis1"), to_axis(axis2, arr.ndim, "axis2"))


@primitive(
    "rot90", "rot90(_1_m, __arg(_2_k, 1), __arg(_3_axes, list(0, 1)))", extension=True,
    differentiable=True,
    oracle=lambda m, k=1, axes=(0, 1): np.rot90(m, k, tuple(axes)),
    example="rot90([[1, 2], [3, 4]])", result="[[2, 4], [1, 3]]",
)
def rot90(m, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``, like numpy.rot90.

    Counter-clockwise from the first axis towards the second; negative ``k`` rotates the
    other way.  ``a`` needs at least 2 dimensions.
    """
    arr = as_array(m, "m")
    plane = as_int_list(axes, "axes")
    if not isinstance(plane, list) or len(plane) != 2:
        raise PhylanxValueError(f"axes must be a list of 2 axes, got {axes!r}")
    return numpy_call(np.rot90, arr, to_int(k, "k"), tuple(plane))


def _sections(value):
    """``indices_or_sections``: a number of equal sections or a list of split points."""
    if isinstance(value, (list, tuple, range)) or (isinstance(value, np.ndarray)
                                                   and value.ndim == 1):
        return [to_int(v, "indices_or_sections") for v in
                (value.tolist() if isinstance(value, np.ndarray) else value)]
    return to_int(value[()] if isinstance(value, np.ndarray) else value, "indices_or_sections")


@primitive(
    "split", "split(_1_ary, _2_indices_or_sections, __arg(_3_axis, 0))", extension=True,
    differentiable=True,
    oracle=_listed(np.split),
    example="split([1, 2, 3, 4, 5, 6], 3)", result="list([1, 2], [3, 4], [5, 6])",
)
def split(ary, indices_or_sections, axis=0):
    """Split an array into a list of sub-arrays along ``axis``, like numpy.split.

    An integer N gives N equal parts (an error if the axis length is not divisible); a
    list of indices gives the parts between them (``split(x, list(2, 3))`` is
    ``x[:2], x[2:3], x[3:]``).
    """
    arr = as_array(ary, "ary")
    if arr.ndim == 0:
        raise PhylanxValueError("split needs an array of at least 1 dimension, got a 0-d value")
    return list(numpy_call(np.split, arr, _sections(indices_or_sections),
                           to_axis(axis, arr.ndim)))


def _indices(arr: np.ndarray) -> np.ndarray:
    """An empty index list is float64 as an array: NumPy takes it as no index at all."""
    return arr.astype(np.intp) if arr.size == 0 and arr.dtype.kind == "f" else arr


@primitive(
    "array_split", "array_split(_1_ary, _2_indices_or_sections, __arg(_3_axis, 0))",
    differentiable=True,
    extension=True, oracle=_listed(np.array_split),
    example="array_split([1, 2, 3, 4, 5], 3)", result="list([1, 2], [3, 4], [5])",
)
def array_split(ary, indices_or_sections, axis=0):
    """Like ``split``, but N parts need not be equal (numpy.array_split).

    The first ``len % N`` parts get one element more.
    """
    arr = as_array(ary, "ary")
    if arr.ndim == 0:
        raise PhylanxValueError("array_split needs an array of at least 1 dimension, got a "
                                "0-d value")
    sections = _sections(indices_or_sections)
    if isinstance(sections, int) and sections <= 0:
        raise PhylanxValueError(f"the number of sections must be larger than 0, got {sections}")
    return list(numpy_call(np.array_split, arr, sections, to_axis(axis, arr.ndim)))


@primitive(
    "delete", "delete(_1_arr, _2_obj, __arg(_3_axis, nil))", extension=True,
    oracle=lambda arr, obj, axis=None: np.delete(arr, obj, axis),
    example="delete([[1, 2], [3, 4], [5, 6]], 1, 0)", result="[[1, 2], [5, 6]]",
)
def delete(arr, obj, axis=None):
    """A copy of ``arr`` without the entries ``obj`` along ``axis``, like numpy.delete.

    ``obj``: an index, a list of indices or a boolean mask; ``axis`` nil: of the
    flattened array.
    """
    a = as_array(arr, "arr")
    ax = None if axis is None else to_axis(axis, a.ndim)
    which = obj if isinstance(obj, slice) else _indices(as_array(obj, "obj"))
    try:
        return numpy_call(np.delete, a, which, ax)
    except IndexError as e:   # NumPy's class
        raise PhylanxIndexError(str(e)) from None


@primitive(
    "take_along_axis", "take_along_axis(_1_arr, _2_indices, _3_axis)", extension=True,
    differentiable=True,
    oracle=np.take_along_axis,
    example="take_along_axis([[4, 1], [2, 3]], [[1], [0]], 1)", result="[[1], [2]]",
)
def take_along_axis(arr, indices, axis):
    """Values along ``axis`` at indices shaped like ``arr``, like numpy.take_along_axis.

    What ``argsort`` and ``argmax(..., keepdims=True)`` results select.
    """
    a = as_array(arr, "arr")
    idx = _indices(as_array(indices, "indices"))
    if idx.dtype.kind not in "iu":
        raise PhylanxTypeError(f"indices must be integers, got dtype {idx.dtype}")
    ax = None if axis is None else to_axis(axis, a.ndim)
    try:
        return numpy_call(np.take_along_axis, a, idx, ax)
    except IndexError as e:   # NumPy's class
        raise PhylanxIndexError(str(e)) from None


_TAKE_MODES = ("raise", "wrap", "clip")


@primitive(
    "take", "take(_1_a, _2_indices, __arg(_3_axis, nil), __arg(_4_mode, \"raise\"))",
    extension=True, differentiable=True,
    oracle=lambda a, indices, axis=None, mode="raise": np.take(a, indices, axis, mode=mode),
    example="take([[1, 2], [3, 4]], [1, 0, 1], 1)", result="[[2, 1, 2], [4, 3, 4]]",
)
def take(a, indices, axis=None, mode="raise"):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened array if nil).

    Like numpy.take: the result has the shape of ``indices`` in place of that axis;
    ``mode`` "raise" refuses out-of-range indices, "wrap" wraps them around, "clip" clips.
    """
    arr = as_array(a, "a")
    idx = as_array(indices, "indices")   # float or bool indices: NumPy's TypeError
    if mode not in _TAKE_MODES:
        raise PhylanxValueError(f"mode must be one of {', '.join(_TAKE_MODES)}, got {mode!r}")
    ax = None if axis is None else to_axis(axis, arr.ndim)
    try:
        return scalarize(np.asarray(numpy_call(np.take, arr, idx, ax, mode=mode)))
    except IndexError as e:   # out of range with mode "raise": NumPy's class
        raise PhylanxIndexError(str(e)) from None


@primitive(
    "fill_diagonal", "fill_diagonal(_1_a, _2_val, __arg(_3_wrap, false))", extension=True,
    side_effects=True,   # changes ``a`` in place: never reordered, shared or hoisted
    oracle=lambda a, val, wrap=False: (np.fill_diagonal(a, val, wrap), a)[1],
    example="fill_diagonal(constant(0, list(2, 3)), 7)",
    result="[[7.0, 0.0, 0.0], [0.0, 7.0, 0.0]]",
)
def fill_diagonal(a, val, wrap=False):
    """Write ``val`` on the main diagonal of ``a`` in place and return ``a`` (numpy.fill_diagonal).

    ``a`` is an array of at least 2 dimensions (all of equal length beyond 2-d); ``val``
    a number or values used in turn.  ``wrap`` restarts the diagonal below a tall
    matrix every N + 1 rows.  As with ``store``, other names of the array see the change
    (NumPy itself returns None; ``np.fill_diagonal(a, v)`` in decorated Python is a
    statement).
    """
    if not isinstance(a, np.ndarray):
        raise PhylanxTypeError(f"a must be an array (it is changed in place), got a "
                               f"{type_name(a)}")
    values = as_array(val, "val")
    numpy_call(np.fill_diagonal, a, values, to_bool(wrap))
    return a
