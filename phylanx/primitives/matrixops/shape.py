"""matrixops, shape manipulation and queries: ``reshape flatten squeeze expand_dims transpose
flip flipud fliplr size ndim shape astype tile repeat pad count_nonzero diag clip gradient``.

Each follows the NumPy function of the same name on arrays of any rank (views
where NumPy returns views, like NumPy); numbers count as 0-d arrays and 0-d
results are NumPy scalars.  ``pad`` supports only the 'constant' mode of the
original.  The queries ``size``/``ndim``/``shape`` also accept PhySL lists
(their length is their only dimension).
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxAxisError, PhylanxTypeError, PhylanxValueError
from ...values import scalarize, type_name
from ..array_args import as_array, as_int_list, as_shape, numpy_call
from ..dtypes import to_axes, to_axis, to_bool, to_dtype, to_int
from ..numeric_args import as_operand
from ..registry import primitive


def _axes_arg(axis, ndim: int):
    """An axis or a list of axes, validated against ``ndim``."""
    if isinstance(axis, np.ndarray) and axis.ndim == 1:
        axis = axis.tolist()
    return to_axes(list(axis) if isinstance(axis, (tuple, range)) else axis, ndim)


@primitive(
    "reshape", "reshape(_1, _2)",
    oracle=lambda a, shape: np.reshape(a, shape),
    example="reshape([1, 2, 3, 4], list(2, 2))", result="[[1, 2], [3, 4]]",
    differentiable=True,
)
def reshape(a, shape):
    """The data of ``a`` in a new shape (numpy.reshape); one entry may be -1 (inferred)."""
    arr = as_array(a, "a")
    dims = as_shape(shape, "shape", allow_unknown=True)
    try:
        return scalarize(np.reshape(arr, dims))
    except ValueError:
        raise PhylanxValueError(
            f"cannot reshape an array of shape {arr.shape} ({arr.size} elements) into "
            f"shape {dims}") from None


@primitive(
    "flatten", "flatten(_1, _2)", "flatten(_1)",
    oracle=lambda a, order=None: np.asarray(a).flatten(order or "C"),
    example="flatten([[1, 2], [3, 4]])", result="[1, 2, 3, 4]",
    differentiable=True,
)
def flatten(a, order=None):
    """A 1-d copy of ``a`` in row-major ("C", default) or column-major ("F") order."""
    if order is None:
        order = "C"
    if order not in ("C", "F", "A", "K"):
        raise PhylanxValueError(f"order must be one of 'C', 'F', 'A', 'K', got {order!r}")
    return as_array(a, "a").flatten(order)


@primitive(
    "ravel", "ravel(_1_a, __arg(_2_order, \"C\"))", extension=True,
    oracle=lambda a, order="C": np.ravel(a, order),
    example="ravel([[1, 2], [3, 4]])", result="[1, 2, 3, 4]", differentiable=True,
)
def ravel(a, order="C"):
    """``a`` as 1-d, like numpy.ravel: a view of ``a`` when its memory allows.

    Writes through the view change ``a``, as in NumPy; otherwise a copy (``flatten`` always
    copies).
    """
    if order not in ("C", "F", "A", "K"):
        raise PhylanxValueError(f"order must be one of 'C', 'F', 'A', 'K', got {order!r}")
    return np.ravel(as_array(a, "a"), order)


@primitive(
    "__npreshape", "__npreshape(_1_a, _2_shape, __arg(_3_order, \"C\"))", extension=True,
    internal=True,
    oracle=lambda a, shape, order="C": np.reshape(a, shape, order=order),
    example="__npreshape([[1, 2], [3, 4]], list(4), \"F\")", result="[1, 3, 2, 4]",
    differentiable=True,
)
def npreshape(a, shape, order="C"):
    """NumPy's ``reshape(a, shape, order=...)`` with an index order ("C", "F" or "A")."""
    if order not in ("C", "F", "A"):
        raise PhylanxValueError(f"order must be one of 'C', 'F', 'A', got {order!r}")
    arr = as_array(a, "a")
    return scalarize(numpy_call(np.reshape, arr, as_shape(shape, "shape", allow_unknown=True),
                                order=order))


@primitive(
    "__keepdims", "__keepdims(_1_result, _2_a, __arg(_3_axis, nil))", extension=True, internal=True,
    oracle=lambda result, a, axis=None: np.reshape(result, (1,) * np.ndim(a)) if axis is None
    else np.expand_dims(result, axis),
    example="__keepdims(1, [[1, 2]])", result="[[1]]",
)
def keepdims(result, a, axis=None):
    """``result`` of a reduction of ``a`` with its reduced axes back as length 1.

    NumPy's ``keepdims=True`` for reductions whose primitive has no such argument.
    """
    ndim = np.ndim(a)
    if axis is None:
        return np.reshape(result, (1,) * ndim)
    return np.expand_dims(result, to_axis(axis, ndim))


@primitive(
    "__view", "__view(_1_a, __arg(_2_dtype, nil))", extension=True, internal=True,
    oracle=lambda a, dtype=None: np.asarray(a).view() if dtype is None else
    np.asarray(a).view(dtype),
    example="__view([1.0, 2.0])", result="[1.0, 2.0]", differentiable=True,
)
def view(a, dtype=None):
    """Python's ``x.view()``: a new array object on the same memory.

    Writes through it show in ``x``; ``x.view(dtype)`` reinterprets the bytes, as NumPy's
    ``view``.
    """
    arr = as_array(a, "a")
    if dtype is None:
        return arr.view()
    return numpy_call(arr.view, to_dtype(dtype))


@primitive(
    "squeeze", "squeeze(_1)", "squeeze(_1,_2)",
    oracle=lambda a, axis=None: np.squeeze(a, tuple(axis) if isinstance(axis, list) else axis),
    example="squeeze([[1, 2, 3]])", result="[1, 2, 3]",
    differentiable=True,
)
def squeeze(a, axis=None):
    """Remove axes of length one (all of them, or the given axis/axes)."""
    arr = as_array(a, "a")
    axes = None if axis is None else _axes_arg(axis, arr.ndim)
    if arr.ndim == 0:      # (axis 0 or -1 of a 0-d value, checked above: NumPy's answer)
        axes = None
    for ax in (axes if isinstance(axes, tuple) else () if axes is None else (axes,)):
        if arr.shape[ax] != 1:
            raise PhylanxValueError(
                f"cannot squeeze axis {ax} of an array of shape {arr.shape}: its length is not 1")
    return scalarize(np.squeeze(arr, axes))


@primitive(
    "expand_dims", "expand_dims(_1,_2)",
    oracle=np.expand_dims, distributable=True,
    example="expand_dims([1, 2], 1)", result="[[1], [2]]",
    differentiable=True,
)
def expand_dims(a, axis):
    """Insert a length-1 axis at ``axis`` (or several at a list of axes) of the result."""
    arr = as_array(a, "a")
    axes = as_int_list(axis, "axis")
    count = len(axes) if isinstance(axes, list) else 1
    return np.expand_dims(arr, _axes_arg(axes, arr.ndim + count))


@primitive(
    "transpose", "transpose(_1)", "transpose(_1,_2)", distributable=True,
    oracle=lambda a, axes=None: np.transpose(a, axes),
    example="transpose([[1, 2], [3, 4]])", result="[[1, 3], [2, 4]]",
    differentiable=True,
)
def transpose(a, axes=None):
    """Reverse the axes, or permute them in the order of the list ``axes``."""
    arr = as_array(a, "a")
    if axes is None:
        # a 0-d array passed in stays one (``x.T`` is NumPy's 0-d view), a number a scalar
        return np.transpose(arr) if _zero_d_array(a) else scalarize(np.transpose(arr))
    perm = as_int_list(axes, "axes")
    perm = perm if isinstance(perm, list) else [perm]
    if len(perm) != arr.ndim:
        raise PhylanxValueError(
            f"axes {perm} must list each of the {arr.ndim} axes of the array exactly once")
    order = _axes_arg(perm, arr.ndim) if perm else ()
    return np.transpose(arr, order) if _zero_d_array(a) else scalarize(np.transpose(arr, order))


def _zero_d_array(value) -> bool:
    """A 0-d ndarray (kept 0-d where NumPy keeps it), not a number or NumPy scalar."""
    return type(value) is np.ndarray and value.ndim == 0


@primitive(
    "flip", "flip(_1,_2)", "flip(_1)",
    oracle=lambda a, axis=None: np.flip(a, axis),
    example="flip([1, 2, 3])", result="[3, 2, 1]",
    differentiable=True,
)
def flip(a, axis=None):
    """Reverse the order of elements along the given axis/axes (all axes if omitted)."""
    arr = as_array(a, "a")
    if arr.ndim == 0:
        if axis is not None:      # (NumPy's AxisError; 0 and -1 were ignored, user49)
            raise PhylanxAxisError(f"axis {axis} is out of bounds for a 0-d array")
        return scalarize(arr)
    return np.flip(arr, None if axis is None else _axes_arg(axis, arr.ndim))


@primitive(
    "flipud", "flipud(_1)", oracle=np.flipud,
    example="flipud([[1, 2], [3, 4]])", result="[[3, 4], [1, 2]]",
    differentiable=True,
)
def flipud(a):
    """Reverse the order of the rows (axis 0); needs at least one dimension."""
    arr = as_array(a, "a")
    if arr.ndim < 1:
        raise PhylanxValueError("flipud needs an array of at least 1 dimension, got a 0-d value")
    return np.flipud(arr)


@primitive(
    "fliplr", "fliplr(_1)", oracle=np.fliplr,
    example="fliplr([[1, 2], [3, 4]])", result="[[2, 1], [4, 3]]",
    differentiable=True,
)
def fliplr(a):
    """Reverse the order of the columns (axis 1); needs at least two dimensions."""
    arr = as_array(a, "a")
    if arr.ndim < 2:
        raise PhylanxValueError(
            f"fliplr needs an array of at least 2 dimensions, got a {arr.ndim}-d value")
    return np.fliplr(arr)


def _sized_list(x):
    return isinstance(x, (list, tuple, range))


@primitive(
    "size", "size(_1)", oracle=np.size, distributable=True,
    example="size([[1, 2, 3], [4, 5, 6]])", result="6",
)
def size(a):
    """Total number of elements (the length of a list)."""
    if _sized_list(a):
        return len(a)
    return as_array(a, "a").size   # a Python int, as NumPy's x.size


@primitive(
    "ndim", "ndim(_1)", oracle=np.ndim, distributable=True,
    example="ndim([[1, 2], [3, 4]])", result="2",
)
def ndim(a):
    """Number of dimensions (0 for a number, 1 for a list)."""
    if _sized_list(a):
        return 1
    return as_array(a, "a").ndim   # a Python int, as NumPy's x.ndim


def _shape_oracle(a, dim=None):
    shape = np.shape(a)
    return shape if dim is None else shape[dim]


@primitive(
    "shape", "shape(_1, _2)", "shape(_1)", oracle=_shape_oracle, distributable=True,
    example="shape([[1, 2, 3], [4, 5, 6]])", result="tuple(2, 3)",
)
def shape(a, dim=None):
    """The tuple of dimension sizes (as NumPy's ``x.shape``), or the size of dimension ``dim``."""
    dims = (len(a),) if _sized_list(a) else as_array(a, "a").shape
    if dim is None:
        return tuple(dims)   # Python ints, as NumPy's x.shape
    if not dims:
        raise PhylanxValueError(f"a 0-d value has no dimension {dim}")
    return dims[to_axis(dim, len(dims), "dim")]


@primitive(
    "astype", "astype(_1_x, _2_dtype)",
    oracle=lambda x, dtype: np.asarray(x).astype(dtype),
    example="astype([1.5, 2.7], \"int\")", result="[1, 2]",
    differentiable=True,
)
def astype(x, dtype):
    """A copy of ``x`` cast to ``dtype`` ("bool", "int"/"int64", "float"/"float64", ...)."""
    cast = as_array(x, "x").astype(to_dtype(dtype, np.float64))
    return cast if _zero_d_array(x) else scalarize(cast)     # (x.astype of a 0-d array: 0-d)


@primitive(
    "tile", "tile(_1,_2)", oracle=np.tile,
    example="tile([1, 2], 2)", result="[1, 2, 1, 2]",
    differentiable=True,
)
def tile(a, reps):
    """numpy.tile: ``a`` repeated ``reps`` times (an integer or a list, one per axis)."""
    counts = as_int_list(reps, "reps")
    if any(c < 0 for c in (counts if isinstance(counts, list) else [counts])):
        raise PhylanxValueError(f"reps {counts} must be non-negative")
    return scalarize(np.tile(as_array(a, "a"), counts))


@primitive(
    "repeat", "repeat(_1,_2)", "repeat(_1,_2,_3)",
    oracle=lambda a, repeats, axis=None: np.repeat(a, repeats, axis),
    example="repeat([1, 2], 2)", result="[1, 1, 2, 2]",
    differentiable=True,
)
def repeat(a, repeats, axis=None):
    """numpy.repeat: repeat each element (along ``axis``, flattened if omitted)."""
    arr = as_array(a, "a")
    counts = as_int_list(repeats, "repeats")
    if any(c < 0 for c in (counts if isinstance(counts, list) else [counts])):
        raise PhylanxValueError(f"repeats {counts} must be non-negative")
    return numpy_call(np.repeat, arr, counts, to_axis(axis, arr.ndim))


def _pad_oracle(a, pad_width, mode="constant", constant_values=None):
    return np.pad(a, pad_width, mode, constant_values=0 if constant_values is None
                  else constant_values)


@primitive(
    "pad", "pad(_1, _2, _3)", "pad(_1, _2, _3, _4)", oracle=_pad_oracle,
    example="pad([1, 2], list(1, 2), \"constant\")", result="[0, 1, 2, 0, 0]",
    differentiable=True,
)
def pad(a, pad_width, mode, constant_values=None):
    """numpy.pad in 'constant' mode: pad_width per axis (before, after), filled with a constant.

    ``pad_width`` is an integer, ``[before, after]`` or one such pair per axis;
    ``constant_values`` (default 0) likewise.  As in the original, ``list(w, nil)`` is
    ``w`` and ``list(list(b, e), nil)`` is ``(b, e)`` on every axis.  Other modes are not
    supported.
    """
    if not isinstance(mode, str):
        raise PhylanxTypeError(f"the padding mode should be a string, got a {type_name(mode)}")
    if mode != "constant":
        raise PhylanxValueError(f"the pad primitive has only been implemented for constant "
                                f"mode, got {mode!r}")
    arr = as_array(a, "a")
    values = 0 if constant_values is None else as_array(constant_values, "constant_values")
    return numpy_call(np.pad, arr, pad_widths(pad_width), "constant", constant_values=values)


def pad_widths(pad_width) -> np.ndarray:
    """The pad widths as an int64 array NumPy takes (also read by the autodiff rule)."""
    if isinstance(pad_width, (list, tuple)) and len(pad_width) == 2 and pad_width[1] is None:
        # the original's form with a trailing nil: the first entry on every axis (A.3.5)
        pad_width = pad_width[0]
    widths = as_array(pad_width, "pad_width")
    if widths.dtype.kind not in "iub" or np.any(widths < 0):
        raise PhylanxValueError("pad_width must hold non-negative integers")
    return widths.astype(np.int64)


def _has_nil(value) -> bool:
    return value is None or (isinstance(value, (list, tuple)) and any(map(_has_nil, value)))


@primitive(
    "__nppad", "__nppad(_1_array, _2_pad_width, __arg(_3_mode, \"constant\"), "
    "__arg(_4_constant_values, nil))", oracle=_pad_oracle,
    example="__nppad([1, 2], list(1, 2), \"constant\")", result="[0, 1, 2, 0, 0]",
    differentiable=True, extension=True, internal=True,
)
def nppad(array, pad_width, mode="constant", constant_values=None):
    """``np.pad(array, pad_width, "constant", constant_values=...)``: NumPy's pad.

    ``pad`` without the original's nil widths (NumPy refuses ``(w, None)``)."""
    if _has_nil(pad_width):
        raise PhylanxTypeError("np.pad: pad_width must be of integral type, got None (the "
                               "PhySL pad primitive reads list(w, nil) as the original did)")
    return pad(array, pad_width, mode, constant_values)


@primitive(
    "count_nonzero", "count_nonzero(_1, __arg(_2_axis, nil), __arg(_3_keepdims, false))",
    oracle=lambda a, axis=None, keepdims=False: np.count_nonzero(a, axis, keepdims=bool(keepdims)),
    samples="reduction", example="count_nonzero([0, 1, 2, 0])", result="2",
)
def count_nonzero(a, axis=None, keepdims=False):
    """Number of non-zero (true) elements (along ``axis``), as int64, like numpy.count_nonzero.

    ``axis`` (nil: everything; an int or a list of ints) and ``keepdims`` extend the
    original's one-argument form.
    """
    arr = as_array(a, "a")
    if axis is None and not to_bool(keepdims):
        return np.count_nonzero(arr)
    # (a 0-d value's axis must be 0 or -1, as NumPy's: to_axes checks it as a 1-d one's)
    axes = _axes_arg(axis, arr.ndim)
    counts = np.count_nonzero(arr, axis=axes if arr.ndim else None,
                              keepdims=to_bool(keepdims))
    return scalarize(np.asarray(counts, dtype=np.int64))


@primitive(
    "diag", "diag(_1)", "diag(_1, _2)",
    oracle=lambda v, k=0: np.diag(v, k),
    example="diag([1, 2])", result="[[1, 0], [0, 2]]",
    differentiable=True,
)
def diag(v, k=0):
    """The k-th diagonal of a matrix, or a matrix with a vector on its k-th diagonal."""
    arr = as_array(v, "v")
    if arr.ndim not in (1, 2):
        raise PhylanxValueError(f"diag needs a 1-d or a 2-d array, got a {arr.ndim}-d value")
    return np.diag(arr, 0 if k is None else to_int(k, "k"))


@primitive(
    "clip", "clip(_1_a, __arg(_2_a_min, nil), __arg(_3_a_max, nil))", oracle=np.clip,
    example="clip([1, 5, 9], 2, 6)", result="[2, 5, 6]",
    differentiable=True,
)
def clip(a, a_min=None, a_max=None):
    """numpy.clip: limit values to [a_min, a_max] (either bound may be nil)."""
    arr = as_array(a, "a")
    # Python-number bounds stay weak, as in NumPy: clip(float32 x, 0, 1) stays float32
    lo = None if a_min is None else as_operand(a_min, "a_min")
    hi = None if a_max is None else as_operand(a_max, "a_max")
    return scalarize(numpy_call(np.clip, arr, lo, hi))


def _gradient_oracle(f, axis=None):
    out = np.gradient(f, axis=axis)
    return list(out) if isinstance(out, tuple) else out


@primitive(
    "gradient", "gradient(_1, _2)", "gradient(_1)",
    oracle=_gradient_oracle,
    example="gradient([1., 2., 4., 7.])", result="[1., 1.5, 2.5, 3.]",
)
def gradient(f, axis=None):
    """numpy.gradient: central differences inside, one-sided at the ends.

    With one axis (or a 1-d input) the result is an array; otherwise a list of
    arrays, one per axis.
    """
    arr = as_array(f, "f")
    if arr.dtype.kind not in "biuf":
        raise PhylanxTypeError(f"gradient needs a numeric array, got {type_name(f)}")
    axes = None if axis is None else _axes_arg(axis, arr.ndim)
    out = numpy_call(np.gradient, arr, axis=axes)
    return list(out) if isinstance(out, tuple) else out
