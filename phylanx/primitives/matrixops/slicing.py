"""``__subscript``: Python subscripts with NumPy's meaning (the frontend's indexing).

PhySL's ``slice`` family reads indices as the original did: see ``original_slicing.py``.

Index arguments follow ``indexing.py``: an integer (negative counts from the end), nil
(the whole axis), ``list(start, stop[, step])`` (a range; nil bounds and negative steps
allowed), a ``range`` value, an integer/boolean array (advanced indexing, as NumPy), or
a tuple (as the only index: one index per axis, NumPy's ``x[t]``; a dictionary key).
Arrays are indexed like NumPy subscripts (basic slices are views, as in NumPy); lists,
strings and dictionaries like their Python counterparts, level by level for nested lists.
``store(__subscript(x, ...), v)`` is compiled by the ``store`` special form through
``indexing.put``; this primitive only reads.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import PhylanxIndexError, PhylanxKeyError, PhylanxTypeError, PhylanxValueError
from ...values import type_name
from .. import indexing
from ..registry import primitive


def _as_value(item: Any) -> Any:
    """An element of a list or range as it is: a Python number stays one (as in Python)."""
    return item


def _sequence_pick(seq: Any, index: np.ndarray) -> list | str:
    """Advanced indexing of a list/string with an integer or boolean array (1-d)."""
    if index.ndim != 1:
        raise PhylanxValueError(
            f"a list can only be indexed with a 1-d index array, got shape {index.shape}")
    n = len(seq)
    if index.dtype == np.bool_:
        if index.shape[0] != n:
            raise PhylanxValueError(
                f"boolean index of length {index.shape[0]} does not match a sequence of "
                f"length {n}")
        positions = np.flatnonzero(index).tolist()
    else:
        positions = index.tolist()
        for p in positions:
            if not -n <= p < n:
                raise PhylanxIndexError(f"index {p} is out of bounds for a sequence of length {n}")
    picked = [seq[p] for p in positions]
    return "".join(picked) if isinstance(seq, str) else picked


def _sequence_get(seq: Any, indices: list) -> Any:
    """Index a list/range/string; later indices apply to each selected element."""
    first = indexing.sequence_index(indices[0])
    rest = indices[1:]
    if isinstance(first, np.ndarray):
        selected, many = _sequence_pick(seq, indexing.to_index(first)), True
    else:
        py_index = indexing.to_index(first)
        if isinstance(py_index, slice):
            selected, many = seq[py_index], True
        else:
            n = len(seq)
            if not -n <= py_index < n:
                raise PhylanxIndexError(
                    f"index {py_index} is out of bounds for a {type_name(seq)} of length {n}")
            selected, many = seq[py_index], False
    if not rest:
        if many and isinstance(selected, (list, range)):
            return [_as_value(v) for v in selected]
        return _as_value(selected)
    if many:
        return [get_item(element, rest) for element in selected]
    return get_item(_as_value(selected), rest)


def get_item(value: Any, indices: list) -> Any:
    """``slice(value, i1, i2, ...)`` for every indexable kind of value."""
    if not indices:   # x[()]: an array's element if 0-d (NumPy's), else the value
        return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value
    if isinstance(value, (list, tuple, range, str)):
        return _sequence_get(value, list(indices))
    if isinstance(value, dict):
        key = indexing.dict_key(indices)   # d[a, b] is d[(a, b)], as in Python
        if isinstance(key, (np.ndarray, list, dict)):
            raise PhylanxTypeError(f"a dictionary key cannot be a {type_name(key)}")
        try:
            return value[key]
        except KeyError:
            raise PhylanxKeyError(f"key {key!r} not found in dictionary") from None
        except TypeError as e:   # a tuple key holding a list
            raise PhylanxTypeError(f"a dictionary key cannot be a {type_name(key)}: {e}") \
                from None
    indexing.check_scalar_target(value)
    return indexing.get(value, list(indices))


_WHOLE_AXIS = slice(None)


def _basic_indices(indices: tuple) -> tuple | None:
    """The NumPy basic index ``indices`` stand for when each is a Python int, nil (the
    whole axis), a slice, or a slice list ``list(start, stop[, step])`` of Python ints
    and nils with a non-zero step; else None (the general path: other kinds, and the
    checks and conversions it makes for them)."""
    out = []
    for i in indices:
        t = type(i)
        if t is int or t is slice:
            out.append(i)
        elif i is None:
            out.append(_WHOLE_AXIS)
        elif t is list and 0 < len(i) <= 3:
            for bound in i:
                if bound is not None and type(bound) is not int:
                    return None
            if len(i) == 3 and i[2] == 0:
                return None   # the general path's error
            out.append(slice(i[0], None) if len(i) == 1 else slice(*i))
        else:
            return None
    return tuple(out)


@primitive("__subscript", "__subscript(_1, __2)", differentiable=True, extension=True,
           internal=True, distributable=True,
           oracle=lambda x, *idx: x[tuple(idx)],
           example="__subscript([[1, 2, 3], [4, 5, 6]], 1, list(nil, nil, -1))",
           result="[6, 5, 4]")
def subscript(value, *indices):
    """A Python subscript ``x[rows, cols, ...]`` with NumPy's meaning (what ``@Phylanx`` emits).

    Each index is an integer (negative from the end), nil (whole axis),
    ``list(start, stop[, step])`` (clamped like a Python slice), a range, an
    integer/boolean array, ``__newaxis()`` or ``__ellipsis()``.  PhySL's ``slice``
    reads its indices as the original did (``docs/physl.md`` lists the differences).
    Several indices on a list, tuple, range or string are Python's TypeError (``l[i, j]``
    is not ``l[i][j]`` in Python).
    """
    if type(value) is np.ndarray and 0 < len(indices) <= value.ndim:
        # an element, a row, a column or a slice by Python ints: NumPy's basic subscript
        # is what get_item computes for these
        basic = _basic_indices(indices)
        if basic is not None:
            return value[basic]
    indexing.check_python_indices(value, indices)
    if len(indices) > 1 and isinstance(value, (list, tuple, range, str)):
        kind = {list: "list", tuple: "tuple", range: "range"}.get(type(value))
        raise PhylanxTypeError(
            f"{kind} indices must be integers or slices, not tuple" if kind
            else "string indices must be integers, not 'tuple'")
    return get_item(value, list(indices))


@primitive("__subscript_adjoint", "__subscript_adjoint(_1, _2, __3)", differentiable=True,
           extension=True, internal=True,
           oracle=lambda ct, like, *idx: _numpy_add_at(np.zeros(np.shape(like)), idx, ct),
           example="__subscript_adjoint(5.0, [0.0, 0.0, 0.0], 1)", result="[0.0, 5.0, 0.0]")
def subscript_adjoint(ct, like, *indices):
    """Zeros shaped like the array ``like`` with ``ct`` added at ``like[indices]``.

    A repeated advanced index adds once per occurrence.  The adjoint of ``__subscript``
    on arrays: the equation form of its VJP that nested ``grad`` records.
    """
    if not isinstance(like, np.ndarray):
        raise PhylanxTypeError(f"__subscript_adjoint takes an array, got a {type_name(like)}")
    return _added_at(ct, like, list(indices))


def _numpy_add_at(out: np.ndarray, idx: tuple, ct: Any) -> np.ndarray:
    np.add.at(out, idx[0] if len(idx) == 1 else idx, ct)
    return out


def _added_at(ct: Any, like: np.ndarray, indices: list) -> np.ndarray:
    dtype = like.dtype if like.dtype.kind in "fc" else np.result_type(np.asarray(ct).dtype,
                                                                      np.float64)
    out = np.zeros(like.shape, dtype=dtype)
    index = indexing.index_tuple(indices)
    np.add.at(out, index, np.broadcast_to(ct, np.shape(out[index])))
    return out
