"""VJP rules of shape primitives: reshape, flatten, squeeze, expand_dims, transpose, flips,
tile, repeat, pad, diag, astype, and joining/splitting (concatenate, stacks, splits).

These only move elements, so each rule moves the cotangent back (summing where an element
was copied several times).
"""
from __future__ import annotations

import numpy as np

from ..primitives.matrixops.original_stack import join_layout, stack_operands
from ..primitives.matrixops.shape import pad_widths
from .rule_helpers import arr, int_list
from .table import VJP


def _back_to_shape(ct, out, a, *rest):
    return (np.reshape(ct, np.shape(a)),)


VJP.register("reshape", "squeeze", "expand_dims", "astype", "__view",
             "__asndarray")(_back_to_shape)


@VJP.register("__copy")
def copy_vjp(ct, out, x):
    return (ct if isinstance(x, (list, tuple, dict)) else np.reshape(ct, np.shape(x)),)


@VJP.register("flatten", "ravel")
def flatten_vjp(ct, out, a, order=None):
    order = "F" if order == "F" else "C"      # "A"/"K" keep the memory order of a C array
    if order == "F" and not (isinstance(a, np.ndarray) and a.flags.f_contiguous and
                             not a.flags.c_contiguous):
        return (np.reshape(ct, np.shape(a), order="F"),)
    return (np.reshape(ct, np.shape(a)),)


@VJP.register("__npreshape")
def npreshape_vjp(ct, out, a, shape, order="C"):
    return (np.reshape(ct, np.shape(a), order=order), None, None)


@VJP.register("transpose")
def transpose_vjp(ct, out, a, axes=None):
    ct = np.asarray(ct)
    if axes is None or np.ndim(a) < 2:
        return (ct.T,)
    perm = [p % np.ndim(a) for p in int_list(axes)]
    return (np.transpose(ct, np.argsort(perm)),)


@VJP.register("flip")
def flip_vjp(ct, out, a, axis=None):
    if isinstance(axis, (list, tuple, np.ndarray)):
        axis = tuple(int(i) for i in np.asarray(axis).ravel())
    return (np.flip(ct, axis),)


@VJP.register("flipud")
def flipud_vjp(ct, out, a):
    return (np.flipud(ct),)


@VJP.register("fliplr")
def fliplr_vjp(ct, out, a):
    return (np.fliplr(ct),)


@VJP.register("tile")
def tile_vjp(ct, out, a, reps):
    counts = int_list(reps)
    shape = np.shape(a)
    ndim = max(len(shape), len(counts))
    shape_full = (1,) * (ndim - len(shape)) + tuple(shape)
    counts = [1] * (ndim - len(counts)) + list(counts)
    # out axis i has length counts[i] * shape[i]: split it into (copy, element) and sum copies
    split = [n for pair in zip(counts, shape_full) for n in pair]
    summed = np.asarray(ct).reshape(split).sum(axis=tuple(range(0, 2 * ndim, 2)))
    return (summed.reshape(shape),)


@VJP.register("repeat")
def repeat_vjp(ct, out, a, repeats, axis=None):
    x = arr(a)
    ct = np.asarray(ct)
    if axis is None:
        x_axis, ax = x.reshape(-1), 0
    else:
        x_axis, ax = x, int(axis) % x.ndim
    n = x_axis.shape[ax]
    counts = np.broadcast_to(np.asarray(int_list(repeats)), (n,))
    owner = np.repeat(np.arange(n), counts)         # which element each output slot copies
    grad = np.zeros(np.moveaxis(x_axis, ax, 0).shape, dtype=ct.dtype)
    np.add.at(grad, owner, np.moveaxis(ct, ax, 0))
    return (np.moveaxis(grad, 0, ax).reshape(np.shape(a)),)


@VJP.register("pad")
def pad_vjp(ct, out, a, pad_width, mode, constant_values=None):
    ndim = np.ndim(a)
    widths = np.broadcast_to(pad_widths(pad_width), (ndim, 2))
    inner = tuple(slice(int(before), int(before) + n)
                  for (before, _), n in zip(widths, np.shape(a)))
    ct = np.asarray(ct)
    # one constant fills the border: its cotangent is the border's; per-axis constants are
    # not differentiated
    border = np.sum(ct) - np.sum(ct[inner]) if np.ndim(constant_values) == 0 else None
    return ct[inner], None, None, None if constant_values is None else border


VJP.defrule("__nppad", pad_vjp)       # np.pad


@VJP.register("diag")
def diag_vjp(ct, out, v, k=0):
    k = 0 if k is None else int(k)
    ct = np.asarray(ct)
    if np.ndim(v) == 1:
        return (np.diag(ct, k),)
    grad = np.zeros(np.shape(v), dtype=ct.dtype)
    rows = np.arange(ct.shape[0]) + max(-k, 0)
    grad[rows, rows + k] = ct
    return (grad,)


# -- joining and splitting ---------------------------------------------------------
def _split_along(ct, pieces: list, axis: int) -> list:
    """``ct`` cut along ``axis`` into the extents of ``pieces`` (already shaped as joined)."""
    bounds = np.cumsum([p.shape[axis] for p in pieces])[:-1]
    return np.split(np.asarray(ct), bounds, axis=axis)


def _join_vjp(promote, axis_of):
    """The rule of a join that reshapes each part with ``promote`` and concatenates them
    along ``axis_of(pieces)``."""
    def rule(ct, out, arrays, *options):
        parts = [np.asarray(p) for p in arrays]
        pieces = [promote(p) for p in parts]
        cut = _split_along(ct, pieces, axis_of(pieces, options))
        return ([c.reshape(p.shape) for c, p in zip(cut, parts)],)
    return rule


def _concat_axis(pieces, options):
    return int(options[0]) % pieces[0].ndim if options and options[0] is not None else 0


def _concat_promote(p):
    return p


@VJP.register("concatenate")
def concatenate_vjp(ct, out, arrays, axis=0):
    parts = [np.asarray(p) for p in arrays]
    if axis is None:
        cut = _split_along(ct, [p.reshape(-1) for p in parts], 0)
        return ([c.reshape(p.shape) for c, p in zip(cut, parts)],)
    return _join_vjp(_concat_promote, _concat_axis)(ct, out, arrays, axis)


# the NumPy spellings (np.hstack ... np.stack compile to __nphstack ... __npstack)
VJP.defrule("__nphstack", _join_vjp(np.atleast_1d,
                                    lambda pieces, options: 1 if pieces[0].ndim > 1 else 0))
VJP.defrule("__npvstack", _join_vjp(np.atleast_2d, lambda pieces, options: 0))
VJP.defrule("__npdstack", _join_vjp(np.atleast_3d, lambda pieces, options: 2))
VJP.defrule("column_stack", _join_vjp(
    lambda p: p.reshape(-1, 1) if p.ndim < 2 else p, lambda pieces, options: 1))


@VJP.register("__npstack")
def npstack_vjp(ct, out, arrays, axis=0, dtype=None):
    ct = np.asarray(ct)
    ax = int(0 if axis is None else axis) % ct.ndim
    if isinstance(arrays, np.ndarray):      # np.stack(m, axis): the rows of m were joined
        return (np.moveaxis(ct, ax, 0),)
    return ([np.take(ct, i, axis=ax) for i in range(ct.shape[ax])],)


def _original_join_vjp(name):
    """The rule of the original's hstack/vstack/dstack (compat addendum A.3.1): the layout
    of the forward primitive (:func:`join_layout`) cut back into the operands; the
    scalars of a list nested in hstack get a list of cotangents."""
    def rule(ct, out, arrays, dtype=None):
        flat = [np.asarray(v) for item in arrays
                for v in (item if isinstance(item, (list, tuple)) else (item,))]
        pieces, axis = join_layout(name, [p.shape for p in flat])
        cut = _split_along(ct, [np.empty(s) for s in pieces], axis)
        grads = iter(c.reshape(p.shape) for c, p in zip(cut, flat))
        return ([[next(grads) for _ in item] if isinstance(item, (list, tuple))
                 else next(grads) for item in arrays],)
    return rule


for _name in ("hstack", "vstack", "dstack"):
    VJP.defrule(_name, _original_join_vjp(_name))


@VJP.register("stack")
def stack_vjp(ct, out, arrays, axis=0, dtype=None):
    ct = np.asarray(ct)
    ax = int(0 if axis is None else axis) % ct.ndim
    if stack_operands(arrays)[1]:           # one operand: its rows were joined
        return ([np.moveaxis(ct, ax, 0)],)
    return ([np.take(ct, i, axis=ax) for i in range(ct.shape[ax])],)


def _split_vjp(axis_of):
    def rule(ct, out, x, *sections):
        pieces = [np.asarray(c) if c is not None else np.zeros(np.shape(o), np.asarray(o).dtype)
                  for c, o in zip(ct, out)]
        return (np.concatenate(pieces, axis=axis_of(np.ndim(x))),)
    return rule


VJP.defrule("hsplit", _split_vjp(lambda ndim: 1 if ndim > 1 else 0))
VJP.defrule("vsplit", _split_vjp(lambda ndim: 0))
