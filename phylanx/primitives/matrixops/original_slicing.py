"""PhySL indexing as the original: ``slice``, ``slice_row``, ``slice_column``, ``slice_page``,
``tuple_slice`` (compat addendum A.1).

The index operands are read by :mod:`..original_index` (``list(3)`` is the index 3,
ranges are not clamped, ``slice(v, a, b)`` chains on a vector, an explicit ``nil``
beside an integer index on a matrix is a leading new axis, floats are truncated) and
then applied as NumPy indices.  Lists take one position or range; a missing
dictionary key gives nil.  Python subscripts in ``@Phylanx`` code do not come here:
they compile to ``__subscript``, which keeps NumPy's meaning.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import type_name
from .. import original_index as orig
from ..registry import primitive
from .slicing import _as_value, get_item

_WHY = "the original's index rules (compat addendum A.1), not NumPy's; hand tests in " \
       "tests/primitives/test_original_slicing.py"


def original_get(value: Any, indices: list) -> Any:
    """``slice(value, *indices)`` with the original's reading of the indices."""
    if not indices:
        return value
    if type(value) is list and len(indices) == 1 and type(indices[0]) is int:
        # the hot case: one item of a list (the cotangents a vjp returns, say)
        i = indices[0]
        if -len(value) <= i < len(value):
            return _as_value(value[i])
    if isinstance(value, np.ndarray):
        if value.ndim > 4:
            raise PhylanxTypeError(f"slice: a {value.ndim}-d array holds unsupported data type")
        converted = orig.read_indices(value, indices)
        return get_item(value, converted) if value.ndim else value[()]
    if isinstance(value, (np.generic, int, float, bool)):
        orig.read_indices(np.asarray(value), indices)   # only "element 0" is allowed
        return value
    if isinstance(value, dict):
        if len(indices) != 1:
            raise PhylanxTypeError("slice: a dictionary target does not hold a numeric data "
                                   "type; it takes exactly one key")
        return _as_value(value.get(orig.dict_key(indices[0])))   # missing: nil
    if isinstance(value, (list, tuple, range)):
        if len(indices) > 1:   # nested lists: level by level (the original refused)
            return get_item(value, [_list_index(value, indices[0]), *indices[1:]])
        picked = orig.list_index(value, indices)
        if isinstance(picked, tuple):
            return _as_value(value[picked[1]])
        return [_as_value(v) for v in picked]
    if isinstance(value, str):
        return get_item(value, list(indices))
    raise PhylanxTypeError("slice: target object does not hold a numeric, range, or "
                           f"dictionary type (got a {type_name(value)})")


def _list_index(seq: Any, index: Any) -> Any:
    picked = orig.list_index(seq, [index])
    if isinstance(picked, tuple):
        return picked[1]
    kind, payload = orig.classify(index)
    return orig._range(payload, len(seq), "the requested list elements") \
        if kind == "range" else None


@primitive("slice", "slice(_1, __2)", differentiable=True, no_oracle=_WHY,
           example="slice([[1, 2, 3], [4, 5, 6]], 1, list(nil, nil, -1))", result="[6, 5, 4]")
def slice_(value, *indices):
    """Index an array, list or dictionary as the original: ``slice(x, rows, cols, ...)``.

    An index is an integer, nil (the whole axis), ``list(start, stop[, step])``
    (a range, not clamped), ``list(i)`` (the index ``i``), a range, or an integer or
    boolean array; a float is truncated. ``slice(v, a, b)`` on a vector is
    ``v[a][b]``; ``slice(m, nil, 2)`` is row 2 (``slice_column(m, 2)`` is column 2).
    """
    if len(indices) > 3:
        raise PhylanxValueError("slice requires either one, two, three or four arguments")
    return original_get(value, list(indices))


@primitive("slice_row", "slice_row(_1, _2)", differentiable=True, no_oracle=_WHY,
           example="slice_row([[1, 2], [3, 4], [5, 6]], list(1, nil))", result="[[3, 4], [5, 6]]")
def slice_row(value, index):
    """``slice(x, i)``: rows of a matrix, pages of a 3-d array, elements of a vector."""
    return original_get(value, orig.form_indices("slice_row", [index]))


@primitive("slice_column", "slice_column(_1, _2)", differentiable=True, no_oracle=_WHY,
           example="slice_column([[1, 2, 3], [4, 5, 6]], list(nil, nil, -1))",
           result="[[3, 2, 1], [6, 5, 4]]")
def slice_column(value, index):
    """``slice(x, <implicit nil>, j)``: columns of a matrix (a vector: its elements)."""
    return original_get(value, orig.form_indices("slice_column", [index]))


@primitive("slice_page", "slice_page(_1, _2)", differentiable=True, no_oracle=_WHY,
           example="slice_page([[[1, 2]], [[3, 4]]], 1)", result="[[3, 4]]")
def slice_page(value, index):
    """``slice(t, p, <implicit nil>)``: page ``p`` of a 3-d array."""
    return original_get(value, orig.form_indices("slice_page", [index]))


@primitive("tuple_slice", "tuple_slice(_1, _2)", differentiable=True, no_oracle=_WHY,
           example="tuple_slice([[1, 2, 3], [4, 5, 6]], list(1, list(0, 2)))", result="[4, 5]")
def tuple_slice(value, index_tuple):
    """``tuple_slice(x, list(i1, i2, ...))`` is ``slice(x, i1, i2, ...)``.

    A single index that is not a list is used as is.
    """
    if isinstance(index_tuple, (list, tuple, range)):
        return original_get(value, [_as_value(i) for i in index_tuple])
    return original_get(value, [index_tuple])
