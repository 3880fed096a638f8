"""Equation forms of the rules with list operands or list results: the joins (``stack``,
``hstack``, ... and their NumPy spellings), the splits, the conversions between arrays
and Python lists (``__array``, ``__tolist``, ``__pysum``, ``x.item()``) and PhySL's own
slice forms (for nested differentiation; the mechanism is in :mod:`.rules_recordable`).

All of them only move elements, so each form moves the cotangent back with primitives
the outer tape records: a join's cotangent is cut into its operands' pieces
(``__subscript`` of ranges, reshaped), a split's pieces are joined (``concatenate``,
zeros where no cotangent came), a list's item cotangents are stacked, an element read
gets its cotangent through ``__subscript_adjoint``.  Which piece goes where is decided
from the shapes only (constants of the derivative), as in the kernel rules.
``tests/autodiff/test_second_order.py`` checks their second derivatives.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..primitives.matrixops.original_stack import join_layout, stack_operands
from ..primitives.original_index import form_indices, read_indices
from . import rules_rearrange, rules_shape, rules_structure  # noqa: F401 (the rules)
from .containers import is_container
from .equations import eq, shape_of
from .rules_recordable import recordable


def _cut(ct: Any, out: Any, piece_shapes: list, axis: int, part_shapes: list) -> list:
    """``ct`` cut along ``axis`` into pieces of ``piece_shapes`` (the operands as they
    were joined), each reshaped to its operand's shape."""
    start, parts = 0, []
    for piece, part in zip(piece_shapes, part_shapes):
        ranges = [[0, n] for n in shape_of(out)]
        ranges[axis] = [start, start + piece[axis]]
        parts.append(eq("reshape", eq("__subscript", ct, *ranges), list(part)))
        start += piece[axis]
    return parts


def _numpy_join(promote, axis_of):
    """The form of a NumPy join (``np.hstack`` ...): each operand reshaped by ``promote``
    (``np.atleast_2d`` ...), then concatenated along ``axis_of(pieces)``."""
    def form(ct, out, arrays, *options, wanted=None):
        rows = not isinstance(arrays, (list, tuple))    # the rows of one array joined
        parts = [np.shape(p) for p in arrays]
        pieces = [promote(np.empty(s)).shape for s in parts]
        cut = _cut(ct, out, pieces, axis_of(pieces), parts)
        return (eq("__npstack", cut, 0) if rows else cut,)
    return form


recordable("__nphstack")(_numpy_join(
    np.atleast_1d, lambda pieces: 1 if len(pieces[0]) > 1 else 0))
recordable("__npvstack")(_numpy_join(np.atleast_2d, lambda pieces: 0))
recordable("__npdstack")(_numpy_join(np.atleast_3d, lambda pieces: 2))
recordable("column_stack")(_numpy_join(
    lambda p: p.reshape(-1, 1) if p.ndim < 2 else p, lambda pieces: 1))


def _original_join(name: str):
    """hstack/vstack/dstack of the original (:func:`join_layout`); a list nested in
    hstack's operand gets a list of cotangents."""
    def form(ct, out, arrays, dtype=None, wanted=None):
        flat = [np.shape(v) for item in arrays
                for v in (item if isinstance(item, (list, tuple)) else (item,))]
        pieces, axis = join_layout(name, flat)
        grads = iter(_cut(ct, out, pieces, axis, flat))
        return ([[next(grads) for _ in item] if isinstance(item, (list, tuple))
                 else next(grads) for item in arrays],)
    return form


for _name in ("hstack", "vstack", "dstack"):
    recordable(_name)(_original_join(_name))


def _unstacked(ct: Any, out: Any, parts: list, axis: Any) -> list:
    """The cotangents of the operands stacked along a new ``axis``: ``ct``'s slices."""
    rank = len(shape_of(out))
    ax = int(0 if axis is None else axis) % rank
    return _cut(ct, out, [(1,) * rank] * len(parts), ax, [np.shape(p) for p in parts])


def _rows_first(ct: Any, out: Any, axis: Any) -> Any:
    """``ct`` with the stacked axis moved to the front (the rows of one array joined)."""
    rank = len(shape_of(out))
    ax = int(0 if axis is None else axis) % rank
    return eq("transpose", ct, [ax] + [i for i in range(rank) if i != ax])


@recordable("__npstack")
def npstack_equations(ct, out, arrays, axis=0, dtype=None, wanted=None):
    if isinstance(arrays, np.ndarray):
        return (_rows_first(ct, out, axis),)
    return (_unstacked(ct, out, list(arrays), axis),)


@recordable("stack")
def stack_equations(ct, out, arrays, axis=0, dtype=None, wanted=None):
    if stack_operands(arrays)[1]:               # one operand: its rows were joined
        return ([_rows_first(ct, out, axis)],)
    return (_unstacked(ct, out, list(arrays), axis),)


# -- splits: the pieces' cotangents joined -----------------------------------------------

def _joined(ct: Any, out: Any, axis: int) -> Any:
    pieces = [np.zeros(np.shape(o), np.asarray(o).dtype) if c is None else c
              for c, o in zip(ct, out)]
    return eq("concatenate", pieces, axis)


@recordable("split", "array_split")
def split_equations(ct, out, ary, indices_or_sections, axis=0, wanted=None):
    return (_joined(ct, out, int(axis)), None, None)


recordable("hsplit")(lambda ct, out, x, *sections, wanted=None: (
    _joined(ct, out, 1 if len(shape_of(x)) > 1 else 0),))
recordable("vsplit")(lambda ct, out, x, *sections, wanted=None: (_joined(ct, out, 0),))


# -- arrays and Python lists ---------------------------------------------------------------

def _item_cotangents(ct: Any, x: Any) -> Any:
    """The cotangent of ``x`` (an array, or a list of them, nested) given ``ct`` of the
    array made of it: list items get ``ct``'s rows."""
    if is_container(x) and not isinstance(x, dict):
        return [_item_cotangents(eq("__subscript", ct, i), item) for i, item in enumerate(x)]
    return eq("reshape", ct, list(np.shape(x)))


@recordable("__array", "__pycast")
def convert_equations(ct, out, x, *options, wanted=None):
    if isinstance(x, dict):
        return None
    return (_item_cotangents(ct, x),)


@recordable("__item")
def item_equations(ct, out, x, *index, wanted=None):
    if not index:
        return (eq("reshape", ct, list(np.shape(x))),)
    if len(index) == 1 and not isinstance(index[0], tuple):
        position = np.unravel_index(int(index[0]), np.shape(x))     # a flat index
    else:
        position = index[0] if isinstance(index[0], tuple) else index
    return (eq("__subscript_adjoint", ct, x, *(int(i) for i in position)),
            *([None] * len(index)))


def _stacked(ct: Any, shape: tuple) -> Any:
    """A list cotangent (``None`` for items without one, nested) as one array of
    ``shape``: the adjoint of turning an array into a list of its rows."""
    if ct is None:
        return np.zeros(shape)
    if not isinstance(ct, (list, tuple)):
        return eq("reshape", ct, list(shape))
    if not ct:
        return np.zeros(shape)
    return eq("__npstack", [_stacked(c, shape[1:]) for c in ct], 0)


@recordable("__tolist", "__pylist", "__pytuple")
def to_list_equations(ct, out, x, wanted=None):
    if is_container(x):
        return (ct,)                # the same items: their cotangents pass through
    return (_stacked(ct, np.shape(x)),)


@recordable("__pysum")
def pysum_equations(ct, out, items, start=0, wanted=None):
    if isinstance(items, (list, tuple)):
        return [ct] * len(items), ct
    # sum over the rows of an array: each row gets the cotangent
    return eq("broadcast_to", ct, list(np.shape(items))), ct


# -- PhySL's slice forms -------------------------------------------------------------------

def _original_slice(kind: str):
    """``slice(x, ...)`` and its kin of an array: the cotangent added at the places read
    (``__subscript_adjoint``, itself recordable)."""
    def form(ct, out, value, *indices, wanted=None):
        if not isinstance(value, np.ndarray) or not value.ndim:
            return None             # lists and strings: not covered
        idx = read_indices(value, form_indices(kind, list(indices)))
        return (eq("__subscript_adjoint", ct, value, *idx),)
    return form


for _kind in ("slice", "slice_row", "slice_column", "slice_page", "tuple_slice"):
    recordable(_kind)(_original_slice(_kind))
