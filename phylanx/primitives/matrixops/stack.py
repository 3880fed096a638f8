"""matrixops, joining and splitting: ``concatenate insert hsplit vsplit`` and the NumPy
spellings ``__nphstack __npvstack __npdstack __npstack``.

``np.hstack``/``np.vstack``/``np.dstack``/``np.stack`` compile to the ``__np`` twins,
which keep NumPy's meaning (an array argument is the sequence of its rows, an empty
sequence is an error, ``np.stack([m])`` adds an axis); the PhySL names ``hstack`` ...
``stack`` follow the original (``original_stack.py``, compat addendum A.3.1).  A
``dtype`` casts the result like ``np.hstack(..., dtype=...)`` does.  ``hsplit``/``vsplit``
return lists of arrays.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxValueError
from ..array_args import array_sequence, as_array, as_int_list, numpy_call
from ..dtypes import to_axis, to_dtype, to_int
from ..registry import primitive


def _cast(result: np.ndarray, dtype) -> np.ndarray:
    dt = to_dtype(dtype)
    return result if dt is None else result.astype(dt)


def _nonempty(arrays: list, name: str) -> list:
    if not arrays:
        raise PhylanxValueError(f"{name} needs a list of at least one array")
    return arrays


@primitive(
    "concatenate", "concatenate(_1, __arg(_2_axis, 0))", distributable=True,
    oracle=lambda arrays, axis=0: np.concatenate(arrays, axis),
    example="concatenate(list([1, 2], [3]))", result="[1, 2, 3]",
    differentiable=True,
)
def concatenate(arrays, axis=0):
    """Join a list of arrays along an existing axis (flattening them first if axis is nil)."""
    parts = _nonempty(array_sequence(arrays, "arrays"), "concatenate")
    if axis is None:
        return np.concatenate([p.ravel() for p in parts])
    if any(p.ndim == 0 for p in parts):
        raise PhylanxValueError("concatenate cannot join 0-d values (use hstack or stack)")
    ax = to_axis(axis, parts[0].ndim)
    return numpy_call(np.concatenate, parts, ax)


@primitive(
    "__nphstack", "__nphstack(_1, __arg(_2_dtype, nil))", distributable=True,
    oracle=lambda arrays, dtype=None: np.hstack(arrays).astype(dtype or np.hstack(arrays).dtype),
    example="__nphstack(list(1, 2, 3))", result="[1, 2, 3]",
    differentiable=True, extension=True, internal=True,
)
def nphstack(arrays, dtype=None):
    """``np.hstack``: stack arrays/scalars horizontally; scalars make a 1-d array."""
    parts = _nonempty(array_sequence(arrays, "arrays"), "hstack")
    return _cast(numpy_call(np.hstack, parts), dtype)


@primitive(
    "__npvstack", "__npvstack(_1, __arg(_2_dtype, nil))", distributable=True,
    oracle=lambda arrays, dtype=None: np.vstack(arrays).astype(dtype or np.vstack(arrays).dtype),
    example="__npvstack(list([1, 2], [3, 4]))", result="[[1, 2], [3, 4]]",
    differentiable=True, extension=True, internal=True,
)
def npvstack(arrays, dtype=None):
    """``np.vstack``: stack a list of arrays vertically (row-wise); 1-d inputs become rows."""
    parts = _nonempty(array_sequence(arrays, "arrays"), "vstack")
    return _cast(numpy_call(np.vstack, parts), dtype)


@primitive(
    "__npdstack", "__npdstack(_1, __arg(_2_dtype, nil))",
    oracle=lambda arrays, dtype=None: np.dstack(arrays).astype(dtype or np.dstack(arrays).dtype),
    example="__npdstack(list([1, 2], [3, 4]))", result="[[[1, 3], [2, 4]]]",
    differentiable=True, extension=True, internal=True,
)
def npdstack(arrays, dtype=None):
    """``np.dstack``: stack a list of arrays depth-wise (along the third axis, numpy.dstack)."""
    parts = _nonempty(array_sequence(arrays, "arrays"), "dstack")
    return _cast(numpy_call(np.dstack, parts), dtype)


@primitive(
    "__npstack", "__npstack(_1, __arg(_2_axis, 0), __arg(_3_dtype, nil))", distributable=True,
    oracle=lambda arrays, axis=0, dtype=None: np.stack(arrays, axis).astype(
        dtype or np.stack(arrays, axis).dtype),
    example="__npstack(list([1, 2], [3, 4]), 1)", result="[[1, 3], [2, 4]]",
    differentiable=True, extension=True, internal=True,
)
def npstack(arrays, axis=0, dtype=None):
    """``np.stack``: join a list of same-shaped arrays along a new axis (numpy.stack)."""
    parts = _nonempty(array_sequence(arrays, "arrays"), "stack")
    shapes = {p.shape for p in parts}
    if len(shapes) > 1:
        raise PhylanxValueError(
            f"stack needs arrays of one shape, got shapes {sorted(shapes, key=len)}")
    ax = to_axis(0 if axis is None else axis, parts[0].ndim + 1)
    return _cast(np.stack(parts, ax), dtype)


def _insert_oracle(arr, obj, values, axis=None, dtype=None):
    out = np.insert(arr, obj, values, axis)
    return out if dtype is None else out.astype(dtype)


@primitive(
    "insert", "insert(_1, _2, _3, __arg(_4_axis, nil), __arg(_5_dtype, nil))",
    oracle=_insert_oracle,
    example="insert([1, 2, 3], 1, 9)", result="[1, 9, 2, 3]",
)
def insert(arr, obj, values, axis=None, dtype=None):
    """numpy.insert: ``values`` inserted before index/indices ``obj`` (flattened if no axis)."""
    a = as_array(arr, "arr")
    ax = None if axis is None else to_axis(axis, a.ndim)
    where = as_int_list(obj, "obj")
    result = numpy_call(np.insert, a, where, as_array(values, "values"), ax)
    return _cast(result, dtype)


def _split(x, sections: tuple, axis: int, name: str) -> list:
    arr = as_array(x, "x")
    if axis >= max(arr.ndim, 1) or arr.ndim == 0:
        need = "1" if axis == 0 else "2"
        raise PhylanxValueError(f"{name} needs an array of at least {need} dimension(s), "
                                f"got a {arr.ndim}-d value")
    if not sections:
        raise PhylanxValueError(f"{name} needs a number of sections or a list of indices")
    if len(sections) == 1:
        where = as_int_list(sections[0], "indices_or_sections")
    else:
        where = [to_int(s, "indices_or_sections") for s in sections]
    if isinstance(where, int):
        if where <= 0:
            raise PhylanxValueError(f"the number of sections must be positive, got {where}")
        if arr.shape[axis] % where:
            raise PhylanxValueError(
                f"cannot split an axis of length {arr.shape[axis]} into {where} equal parts")
    return list(np.split(arr, where, axis))


@primitive(
    "hsplit", "hsplit(_1, __2)", supports_dtype=True,
    flags={"dtype_args": (0,)},
    oracle=lambda x, *s: list(np.hsplit(x, s[0] if len(s) == 1 else list(s))),
    example="hsplit([[1, 2, 3, 4]], 2)", result="list([[1, 2]], [[3, 4]])",
    differentiable=True,
)
def hsplit(x, *indices_or_sections):
    """Split into column blocks (along axis 1, axis 0 for 1-d) -> list of arrays.

    The second argument is a number of equal blocks or a list of split indices.
    """
    arr = as_array(x, "x")
    return _split(arr, indices_or_sections, 1 if arr.ndim > 1 else 0, "hsplit")


@primitive(
    "vsplit", "vsplit(_1, __2)", supports_dtype=True,
    flags={"dtype_args": (0,)},
    oracle=lambda x, *s: list(np.vsplit(x, s[0] if len(s) == 1 else list(s))),
    example="vsplit([[1, 2], [3, 4]], 2)", result="list([[1, 2]], [[3, 4]])",
    differentiable=True,
)
def vsplit(x, *indices_or_sections):
    """Split into row blocks (along axis 0; needs at least 2 dimensions) -> list of arrays.

    The second argument is a number of equal blocks or a list of split indices.
    """
    arr = as_array(x, "x")
    if arr.ndim < 2:
        raise PhylanxValueError(
            f"vsplit needs an array of at least 2 dimensions, got a {arr.ndim}-d value")
    return _split(arr, indices_or_sections, 0, "vsplit")

