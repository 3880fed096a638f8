"""PhySL index arguments -> NumPy/Python indices, shared by ``slice`` and ``store``.

An index argument is an integer (negative counts from the end), nil (the whole
axis), a list ``list(start, stop[, step])`` (a range; nil bounds allowed), a
``range`` value, or an integer/boolean array (advanced indexing).  Lists,
dictionaries and strings are indexed like their Python counterparts.

A tuple is Python's index tuple, never a range: as the only index of an array it
gives one index per axis (NumPy's ``x[t]``), its elements with their Python meaning
(``None`` a new axis, a list an index array); among other indices it is an index
array, as NumPy reads a tuple nested in a subscript.  A dictionary's key may be a
tuple, and several indices on a dictionary are one tuple key (Python's ``d[a, b]``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import PhylanxIndexError, PhylanxKeyError, PhylanxTypeError, PhylanxValueError
from ..values import NEWAXIS, type_name


def _bound(v: Any, what: str) -> int | None:
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)):
        raise PhylanxTypeError(f"slice {what} must be an integer or nil, got a boolean")
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return int(v)
    raise PhylanxTypeError(f"slice {what} must be an integer or nil, got a {type_name(v)}")


def to_index(spec: Any) -> Any:
    """One PhySL index argument as a Python index."""
    if spec is None:
        return slice(None)
    if spec is NEWAXIS:
        return None
    if spec is Ellipsis:
        return Ellipsis
    t = type(spec)
    if t is tuple:   # nested in a subscript, NumPy makes an index array of it
        return to_index(advanced(spec))
    if t is list:
        if not 1 <= len(spec) <= 3:
            raise PhylanxValueError(
                f"a slice list needs 1 to 3 elements (start, stop[, step]), got {len(spec)}")
        parts = [_bound(v, w) for v, w in zip(spec, ("start", "stop", "step"))]
        if len(parts) == 3 and parts[2] == 0:
            raise PhylanxValueError("slice step cannot be zero")
        if len(parts) == 1:
            return slice(parts[0], None)
        return slice(*parts)
    if t is range:
        return slice(spec.start, spec.stop, spec.step)
    if isinstance(spec, np.ndarray):
        if spec.dtype == np.bool_ or np.issubdtype(spec.dtype, np.integer):
            return spec
        if np.issubdtype(spec.dtype, np.floating) and np.all(np.mod(spec, 1) == 0):
            return spec.astype(np.int64)
        raise PhylanxTypeError(f"an index array must hold integers or booleans, got {spec.dtype}")
    if isinstance(spec, (np.bool_, bool)):
        return bool(spec)
    if isinstance(spec, (int, np.integer)):
        return int(spec)
    if isinstance(spec, (float, np.floating)) and float(spec).is_integer():
        return int(spec)
    raise PhylanxTypeError(f"cannot index with a {type_name(spec)}")


def advanced(spec: list | tuple) -> np.ndarray:
    """A Python list or tuple used as an index: NumPy's index array of it."""
    try:
        out = np.asarray(spec)
    except ValueError as e:
        raise PhylanxValueError(f"cannot index with a ragged {type_name(spec)}: {e}") from None
    if out.size == 0:
        return out.astype(np.intp)
    if out.dtype == object:
        raise PhylanxTypeError(f"cannot index with a {type_name(spec)} of mixed values")
    return out


def _axis_index(v: Any) -> Any:
    """An element of an index tuple, with its Python meaning."""
    if v is None:
        return NEWAXIS
    t = type(v)
    if t is list or t is tuple:
        return advanced(v)
    return v


def per_axis(indices: tuple | list) -> tuple | list:
    """A tuple that is the only index stands for one index per axis (NumPy's ``x[t]``)."""
    if len(indices) == 1 and type(indices[0]) is tuple:
        return [_axis_index(v) for v in indices[0]]
    return indices


def dict_key(indices: tuple | list) -> Any:
    """The key of ``d[i1, i2, ...]``: the index itself, or the tuple of several (Python)."""
    if len(indices) == 1:
        return indices[0]
    return tuple(indices)


def index_tuple(indices: tuple | list) -> Any:
    idx = tuple(to_index(i) for i in per_axis(indices))
    return idx[0] if len(idx) == 1 else idx


def get(value: Any, indices: tuple | list) -> Any:
    """``slice(value, i1, i2, ...)``."""
    if isinstance(value, dict):
        key = dict_key(indices)
        if key not in value:
            raise PhylanxKeyError(f"key {key!r} not found in dictionary")
        return value[key]
    if isinstance(value, np.ndarray):
        indices = per_axis(indices)
        # a bool scalar is a 0-d mask: NumPy adds an axis for it, indexes none
        real = [i for i in indices if i is not NEWAXIS and i is not Ellipsis
                and type(i) is not bool and type(i) is not np.bool_]
        if len(real) > max(value.ndim, 1) and not any(
                isinstance(i, np.ndarray) for i in indices):
            raise PhylanxIndexError(
                f"too many indices ({len(indices)}) for a {value.ndim}-d array")
        if value.ndim == 0 and real:
            raise PhylanxIndexError("cannot index a 0-d value")
        out = value[index_tuple(indices)]
        if any(i is Ellipsis for i in indices):
            return out   # x[...], x[..., 0, 0]: NumPy's view, 0-d included
        return out[()] if isinstance(out, np.ndarray) and out.ndim == 0 else out
    if isinstance(value, (list, tuple, range, str)):
        if len(indices) == 1:
            return value[to_index(sequence_index(indices[0]))]
        # nested lists: index level by level
        first = value[to_index(sequence_index(indices[0]))]
        if isinstance(indices[0], (list, tuple, range)):
            return [get(v, indices[1:]) for v in first]
        return get(first, indices[1:])
    check_scalar_target(value)
    raise PhylanxTypeError(f"cannot index a {type_name(value)}")


def check_scalar_target(value: Any) -> None:
    """A number cannot be indexed: a NumPy scalar is NumPy's ``IndexError``, a Python
    number Python's ``TypeError`` (not subscriptable)."""
    if isinstance(value, np.generic):
        raise PhylanxIndexError(f"cannot index a scalar ({type_name(value)})")
    if isinstance(value, (int, float, bool, complex)):
        raise PhylanxTypeError(f"cannot index a scalar: '{type(value).__name__}' object is "
                               "not subscriptable")


def put(target: Any, indices: tuple | list, value: Any) -> None:
    """``store(slice(target, i1, ...), value)``: assign in place.

    Arrays follow NumPy assignment (broadcasting); lists and dictionaries take
    the first index and pass the rest on to the element, as nested Python
    subscripts do.
    """
    if isinstance(target, np.ndarray):
        if target.ndim == 0 and any(
                i is not NEWAXIS and i is not Ellipsis and type(i) is not bool
                and type(i) is not np.bool_ for i in per_axis(indices)):
            # (``x[...] = v``, ``x[()] = v`` of a 0-d array are NumPy's stores into it)
            raise PhylanxIndexError("cannot index a 0-d value")
        target[index_tuple(indices)] = value
        return
    if not isinstance(target, (dict, list)):
        if isinstance(target, tuple):
            raise PhylanxTypeError("a tuple does not support item assignment (it is "
                                   "immutable); build a new tuple or use a list")
        raise PhylanxTypeError(f"cannot assign into a slice of a {type_name(target)}")
    if not indices:
        raise PhylanxValueError("store into a slice needs at least one index")
    if isinstance(target, dict):
        key = dict_key(indices)
        if isinstance(key, (np.ndarray, list, dict)):
            raise PhylanxTypeError(f"a dictionary key cannot be a {type_name(key)}")
        target[key] = value
        return
    if len(indices) > 1:
        put(get(target, indices[:1]), indices[1:], value)
        return
    idx = to_index(sequence_index(indices[0]))
    if isinstance(idx, slice):
        if not isinstance(value, (list, tuple, range, np.ndarray)):
            raise PhylanxTypeError("only a list (or array) can be assigned to a slice of a list")
        target[idx] = list(value)
    elif isinstance(idx, np.ndarray):
        positions = np.flatnonzero(idx) if idx.dtype == np.bool_ else idx.ravel()
        values = list(value) if isinstance(value, (list, tuple, np.ndarray)) else None
        if values is not None and len(values) != len(positions):
            raise PhylanxValueError(
                f"cannot assign {len(values)} values to {len(positions)} list positions")
        for k, pos in enumerate(positions):
            target[int(pos)] = values[k] if values is not None else value
    else:
        target[idx] = value


def _is_float(v: Any) -> bool:
    return isinstance(v, (float, np.floating))


def check_python_indices(value: Any, indices: tuple | list) -> None:
    """The indices of a Python subscript (``__subscript``, read or store), refused where
    Python and NumPy refuse them, with their exception classes: a float index or index
    array of an array is NumPy's ``IndexError``, of a list, tuple or string Python's
    ``TypeError``; a float slice bound is a ``TypeError``.  (PhySL's ``slice`` keeps the
    original's truncation of whole floats, reference A.1.)  Dictionary keys are any
    hashable value."""
    if isinstance(value, dict):
        return
    sequence = isinstance(value, (list, tuple, range, str))
    for spec in indices:
        t = type(spec)
        if t is int or t is slice or spec is None:   # the common case, checked first
            continue
        if t is list or t is range:   # a slice a:b[:c]
            if any(_is_float(v) for v in (spec if t is list else ())):
                raise PhylanxTypeError("slice indices must be integers or None or have an "
                                       "__index__ method")
        elif t is np.bool_ and sequence:   # no __index__: Python refuses, not int(True)
            if isinstance(value, str):
                raise PhylanxTypeError("string indices must be integers, not 'numpy.bool'")
            raise PhylanxTypeError(f"{type(value).__name__} indices must be integers or "
                                   "slices, not numpy.bool")
        elif _is_float(spec) and isinstance(value, str):
            raise PhylanxTypeError(f"string indices must be integers, not "
                                   f"'{type(spec).__name__}'")
        elif _is_float(spec) and sequence:
            raise PhylanxTypeError(f"{type(value).__name__} indices must be integers or "
                                   f"slices, not {type(spec).__name__}")
        elif _is_float(spec):
            raise PhylanxIndexError("only integers, slices (`:`), ellipsis (`...`), "
                                    "numpy.newaxis (`None`) and integer or boolean arrays are "
                                    "valid indices")
        elif isinstance(spec, np.ndarray) and spec.dtype.kind not in "biu" and spec.size:
            raise PhylanxIndexError("arrays used as indices must be of integer (or boolean) "
                                    "type")
        elif t is tuple and not sequence:
            check_python_indices(value, [_axis_index(v) for v in spec])


def sequence_index(spec: Any) -> Any:
    """An index of a list or string: a tuple is Python's TypeError, not a range."""
    if type(spec) is tuple:
        raise PhylanxTypeError("list indices must be integers or slices, not tuple")
    return spec


#: which axis ``slice_row``/``slice_column``/``slice_page`` index, by rank
_AXIS = {
    "slice_page": {3: 0, 4: 1},
    "slice_row": {1: 0, 2: 0, 3: 1, 4: 2},
    "slice_column": {1: 0, 2: 1, 3: 2, 4: 3},
}


def axis_indices(kind: str, value: Any, indices: tuple | list) -> list:
    """Full index list for ``slice_row(x, r)`` and friends: ``r`` on the right axis."""
    if len(indices) != 1:
        raise PhylanxValueError(f"{kind} takes exactly one index, got {len(indices)}")
    ndim = np.ndim(value) if isinstance(value, np.ndarray) else 1
    axis = _AXIS[kind].get(ndim)
    if axis is None:
        raise PhylanxValueError(f"{kind} does not apply to a {ndim}-d value")
    return [None] * axis + [indices[0]]
