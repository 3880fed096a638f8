"""matrixops, array creation: ``eye identity arange constant full constant_like full_like
linspace linearmatrix``.

``constant`` is what the Python frontend turns ``np.zeros/ones/empty`` into
(value nil -> uninitialised, default dtype float64); ``constant_like`` serves
``np.zeros_like`` and friends and keeps the dtype of its model array.
Everything else follows the NumPy function of the same name.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxValueError, PhylanxZeroDivisionError
from ...values import scalarize
from ..array_args import as_array, as_shape, numpy_call
from ..dtypes import original_dtype, to_bool, to_count, to_dtype, to_int
from ..registry import primitive


@primitive(
    "eye", "eye(_1_N, __arg(_2_M, nil), __arg(_3_k, 0), __arg(_4_dtype, \"float\"))",
    oracle=lambda N, M=None, k=0, dtype="float": np.eye(N, M, k, dtype=dtype),
    example="eye(2, 3, 1)", result="[[0., 1., 0.], [0., 0., 1.]]",
)
def eye(N, M=None, k=0, dtype="float"):
    """An N x M matrix with ones on the k-th diagonal (numpy.eye)."""
    rows = to_count(N, "N")
    cols = rows if M is None else to_count(M, "M")
    return np.eye(rows, cols, to_int(k, "k"), dtype=to_dtype(dtype, np.float64))


@primitive(
    "identity", "identity(_1, __arg(_2_dtype, nil))",
    oracle=lambda n, dtype=None: np.identity(n, dtype=dtype),
    example="identity(2)", result="[[1., 0.], [0., 1.]]",
)
def identity(n, dtype=None):
    """The n x n identity matrix (numpy.identity), float64 unless ``dtype`` says otherwise."""
    return np.identity(to_count(n, "n"), dtype=to_dtype(dtype, np.float64))


def _arange_oracle(start=None, stop=None, step=1, dtype=None):
    if stop is None:
        return np.arange(start, step=step, dtype=dtype)
    return np.arange(start, stop, step, dtype=dtype)


@primitive(
    "arange",
    "arange(__arg(_1_start, nil), __arg(_2_stop, nil), __arg(_3_step, 1), __arg(_4_dtype, nil))",
    oracle=_arange_oracle,
    example="arange(1, 7, 2)", result="[1, 3, 5]",
)
def arange(start=None, stop=None, step=1, dtype=None):
    """Evenly spaced values in [start, stop) (numpy.arange); ``arange(n)`` counts 0..n-1."""
    if start is None and stop is None:
        raise PhylanxValueError("arange needs at least a stop value")
    if step is None:
        step = 1
    if np.ndim(step) == 0 and step == 0:
        raise PhylanxZeroDivisionError("step of arange must not be zero")   # NumPy's class
    if stop is None:  # arange(n): n is the stop
        return numpy_call(np.arange, start, step=step, dtype=to_dtype(dtype))
    if start is None:
        start = 0
    return numpy_call(np.arange, start, stop, step, dtype=to_dtype(dtype))


def _constant_oracle(value, shape=None, dtype="float64"):
    """The addendum's rule A.3.6: a 0-d value; a dtype string maps as the original's
    map_dtype (bool, "int..." int64, "float..." float64), anything else is float64."""
    if np.ndim(value) or (isinstance(dtype, str) and not dtype):
        raise ValueError("a 0-d value")
    key = dtype.lower() if isinstance(dtype, str) else "float64"
    dt = np.bool_ if key == "bool" else np.int64 if key.startswith("int") else np.float64
    return np.full(() if shape is None else shape, value, dtype=dt)


@primitive(
    "constant", "constant(_1_value, __arg(_2_shape, nil), __arg(_3_dtype, \"float64\"))",
    oracle=_constant_oracle,
    example="constant(1, list(2, 2))", result="[[1., 1.], [1., 1.]]",
)
def constant(value, shape=None, dtype="float64"):
    """An array of ``shape`` filled with the 0-d ``value``; a scalar if no shape.

    As in the original: float64 by default whatever the value's type; a dtype string
    ``"bool"``, ``"int..."`` (int64) or ``"float..."`` (float64, also ``"float32"``), any
    other string float64.  ``value`` nil leaves the array uninitialised.  ``np.zeros``/
    ``np.ones``/``np.empty`` compile to ``__npconstant`` (NumPy's dtypes).
    """
    dt = original_dtype(dtype) or np.dtype(np.float64)
    if value is not None and np.ndim(as_array(value, "value")):
        raise PhylanxValueError(f"the value of constant must be 0-d, got a "
                                f"{np.ndim(value)}-d array (np.full takes arrays)")
    return _filled_array(value, shape, dt)


def _filled_array(value, shape, dt: np.dtype):
    if shape is None:
        if value is None:
            return dt.type(0)
        return scalarize(numpy_call(np.asarray(as_array(value, "value")).astype, dt))
    dims = as_shape(shape)
    if value is None:
        return scalarize(np.empty(dims, dtype=dt))
    return scalarize(numpy_call(np.full, dims, as_array(value, "value"), dtype=dt))


def _npconstant_oracle(value, shape=None, dtype="float64"):
    dt = np.dtype(dtype or "float64")
    if shape is None:
        return np.asarray(value).astype(dt)
    return np.full(shape, value, dtype=dt)


@primitive(
    "__npconstant",
    "__npconstant(_1_value, __arg(_2_shape, nil), __arg(_3_dtype, \"float64\"))",
    oracle=_npconstant_oracle, extension=True, internal=True,
    example="__npconstant(1, list(2), \"float32\")", result="[1., 1.]",
)
def npconstant(value, shape=None, dtype="float64"):
    """``np.zeros``/``np.ones``/``np.empty``: ``constant`` with NumPy's dtypes (float32 ...).

    The dtype defaults to float64 like NumPy's constructors; an unknown dtype is an error.
    """
    return _filled_array(value, shape, to_dtype(dtype, np.float64))


@primitive(
    "full", "full(_1_shape, _2_value, __arg(_3_dtype, nil))",
    oracle=lambda shape, value, dtype=None: np.full(shape, value, dtype=dtype),
    example="full(list(2, 2), 5)", result="[[5, 5], [5, 5]]",
)
def full(shape, value, dtype=None):
    """numpy.full: an array of ``shape`` filled with ``value`` (dtype inferred from value)."""
    dims = as_shape(shape)
    return scalarize(numpy_call(np.full, dims, as_array(value, "value"), dtype=to_dtype(dtype)))


def _restore_full(args, loc):
    from ...language import ast
    return ast.Call("full", tuple(args[1:]), None, loc)


@primitive(
    "__fresh_rows_of", "__fresh_rows_of(_1_rows_of, _2_shape, _3_value, __arg(_4_dtype, nil))",
    oracle=lambda rows_of, shape, value, dtype=None: np.full(shape, value, dtype=dtype),
    extension=True, internal=True, distributable=True, flags={"restore": _restore_full},
    example="__fresh_rows_of([[1.5], [2.5]], list(2, 3), 0.0)",
    result="[[0., 0., 0.], [0., 0., 0.]]",
)
def fresh_rows_of(rows_of, shape, value, dtype=None):
    """``full(shape, value, dtype)`` for a table no other name holds, with ``rows_of``'s rows.

    ``compiler/rewrite/fresh_rows.py`` writes it for ``np.zeros``, ``np.ones``,
    ``np.empty`` and ``np.full`` of ``(x.shape[0], ...)``.  Here ``rows_of`` is plain and
    only names the rows; the distributed layer's rule allocates the array with the row
    tiling of a row-tiled ``rows_of`` (``dist_matrixops/creation.py``)."""
    return full(shape, value, dtype)


def _constant_like_oracle(value, a, dtype=None):
    if value is None:
        return np.empty_like(a, dtype=dtype)
    return np.full_like(a, value, dtype=dtype or np.asarray(value).dtype)


@primitive(
    "constant_like", "constant_like(_1_value, _2_a, __arg(_3_dtype, nil))",
    differentiable=True, oracle=_constant_like_oracle,
    example="constant_like(0, [[1.5, 2.5]])", result="[[0, 0]]",
)
def constant_like(value, a, dtype=None):
    """An array shaped like ``a`` filled with ``value``, of the VALUE's dtype (the original's).

    So ``constant_like(0, float_array)`` is int64 (``np.zeros_like``, which keeps ``a``'s
    dtype, compiles to ``__npconstant_like``).  ``value`` nil leaves it uninitialised,
    of ``a``'s dtype.
    """
    model = as_array(a, "a")
    if value is None:
        return scalarize(np.empty_like(model, dtype=to_dtype(dtype)))
    fill = as_array(value, "value")
    dt = to_dtype(dtype, fill.dtype)
    return scalarize(numpy_call(np.full_like, model, fill, dtype=dt))


@primitive(
    "__npconstant_like", "__npconstant_like(_1_value, _2_a, __arg(_3_dtype, nil))",
    differentiable=True,
    oracle=lambda value, a, dtype=None: (np.empty_like(a, dtype=dtype) if value is None
                                         else np.full_like(a, value, dtype=dtype)),
    example="__npconstant_like(0, [[1.5, 2.5]])", result="[[0., 0.]]", extension=True,
    internal=True,
)
def npconstant_like(value, a, dtype=None):
    """``np.zeros_like``/``np.ones_like``/``np.empty_like``: ``a``'s dtype unless given.

    ``value`` nil leaves the array uninitialised (np.empty_like).
    """
    model = as_array(a, "a")
    dt = to_dtype(dtype)
    if value is None:
        return scalarize(np.empty_like(model, dtype=dt))
    return scalarize(numpy_call(np.full_like, model, as_array(value, "value"), dtype=dt))


@primitive(
    "full_like", "full_like(_1_a, _2_value, __arg(_3_dtype, nil))",
    differentiable=True, oracle=lambda a, value, dtype=None: np.full_like(a, value, dtype=dtype),
    example="full_like([1, 2, 3], 2.5, \"float\")", result="[2.5, 2.5, 2.5]",
)
def full_like(a, value, dtype=None):
    """numpy.full_like: an array like ``a`` filled with ``value`` (a's dtype unless given)."""
    model = as_array(a, "a")
    return scalarize(numpy_call(np.full_like, model, as_array(value, "value"),
                                dtype=to_dtype(dtype)))


@primitive(
    "linspace", "linspace(_1, _2, _3, __arg(_4_endpoint, true))",
    supports_dtype=True, flags={"dtype_args": (0, 1)},
    oracle=lambda start, stop, num, endpoint=True: np.linspace(start, stop, num, endpoint),
    example="linspace(0, 1, 5)", result="[0., 0.25, 0.5, 0.75, 1.]",
)
def linspace(start, stop, num, endpoint=True):
    """``num`` evenly spaced samples from ``start`` to ``stop`` (numpy.linspace).

    ``stop`` is the last sample unless ``endpoint`` is false (an extension of the
    original's three-argument form); then the step is (stop - start) / num.
    """
    count = to_count(num, "num")
    return numpy_call(np.linspace, as_array(start, "start"), as_array(stop, "stop"), count,
                      to_bool(endpoint, True))


def _linearmatrix_reference(nx, ny, x0, dx, dy):
    # 0-d arrays: Python floats count as float64 here (NumPy would treat them as weak)
    dt = np.result_type(*(np.asarray(v) for v in (x0, dx, dy)), np.float32)
    rows = np.arange(nx).reshape(-1, 1)
    cols = np.arange(ny).reshape(1, -1)
    return (x0 + cols * dx + rows * dy).astype(dt)


@primitive(
    "linearmatrix", "linearmatrix(_1, _2, _3, _4, _5)",
    supports_dtype=True, flags={"dtype_args": (2, 3, 4)}, oracle=_linearmatrix_reference,
    example="linearmatrix(2, 3, 1.0, 2.0, 3.0)", result="[[1., 3., 5.], [4., 6., 8.]]",
)
def linearmatrix(nx, ny, x0, dx, dy):
    """An nx x ny matrix ``x0 + j*dx + i*dy``: starts at x0, steps dx along a row, dy down a column.

    The result is floating point (float32 only if all of x0, dx, dy are float32).
    """
    rows, cols = to_count(nx, "nx"), to_count(ny, "ny")
    for name, v in (("x0", x0), ("dx", dx), ("dy", dy)):
        if as_array(v, name).ndim != 0:
            raise PhylanxValueError(f"{name} must be a scalar")
    dt = np.result_type(*(np.asarray(v) for v in (x0, dx, dy)), np.float32)
    i = np.arange(rows, dtype=dt).reshape(-1, 1)
    j = np.arange(cols, dtype=dt).reshape(1, -1)
    return (dt.type(x0) + j * dt.type(dx) + i * dt.type(dy)).astype(dt, copy=False)
