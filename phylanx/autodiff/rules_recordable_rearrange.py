"""Equation forms of the rearrangement rules: ``pad`` (``np.pad``), ``tile``, ``repeat``
and ``sort`` (for nested differentiation; the mechanism is in :mod:`.rules_recordable`).

Each copies or moves elements, so its rule moves the cotangent back with primitives:
the inside of a padding is cut out (``__subscript``), the copies of a tile are summed
(``reshape``, ``sum``), a repeat's copies are summed (split and summed, or gathered
per element), a sort's permutation is undone by indexing with its inverse.  Which element
went where is decided from the shapes and the primal order (constants of the
derivative, as in the kernel rules of :mod:`.rules_shape` and :mod:`.rules_rearrange`).
``tests/autodiff/test_second_order.py`` checks their second derivatives.
"""
from __future__ import annotations

import numpy as np

from ..primitives.matrixops.shape import pad_widths
from .equations import eq, shape_of
from .rule_helpers import arr, int_list
from .rules_recordable import recordable


@recordable("pad", "__nppad")
def pad_equations(ct, out, a, pad_width, mode, constant_values=None, wanted=None):
    shape = shape_of(a)
    widths = np.broadcast_to(pad_widths(pad_width), (len(shape), 2))
    inner = eq("__subscript", ct, *([int(before), int(before) + n]
                                    for (before, _), n in zip(widths, shape)))
    if constant_values is None:
        return inner, None, None
    if np.ndim(constant_values) != 0:
        return inner, None, None, None      # per-axis constants: not differentiated
    border = eq("__sub", eq("sum", ct), eq("sum", inner))
    return inner, None, None, border


@recordable("tile")
def tile_equations(ct, out, a, reps, wanted=None):
    counts, shape = int_list(reps), tuple(shape_of(a))
    ndim = max(len(shape), len(counts))
    full = (1,) * (ndim - len(shape)) + shape
    counts = [1] * (ndim - len(counts)) + list(counts)
    # output axis i is (copy, element): split it and sum over the copies
    split = [n for pair in zip(counts, full) for n in pair]
    summed = eq("sum", eq("reshape", ct, split), list(range(0, 2 * ndim, 2)))
    return eq("reshape", summed, list(shape)), None


@recordable("repeat")
def repeat_equations(ct, out, a, repeats, axis=None, wanted=None):
    x = arr(a)
    if axis is None:
        ax, n, rank = 0, x.size, 1
    else:
        ax, rank = int(axis) % x.ndim, x.ndim
        n = x.shape[ax]
    counts = np.broadcast_to(np.asarray(int_list(repeats)), (n,))
    last = [i for i in range(rank) if i != ax] + [ax]
    moved = eq("transpose", ct, last) if rank > 1 else ct
    lead = [shape_of(ct)[i] for i in last[:-1]]
    widest = int(counts.max(initial=0))
    if n and np.all(counts == widest):
        # the copies of element i are places i*k ... i*k + k - 1: split the axis, sum
        summed = eq("sum", eq("reshape", moved, lead + [n, widest]), -1)
    else:
        # element i's copies gathered into row i of an (n, widest) table, the places
        # past its count reading an appended zero (linear in the length, unlike a 0/1
        # owner matrix of output length x n)
        total = int(counts.sum())
        zero = np.zeros(lead + [1], np.result_type(x, 1.0))
        padded = eq("concatenate", [moved, zero], -1)
        starts = np.cumsum(counts) - counts
        places = starts[:, None] + np.arange(max(widest, 1))[None, :]
        table = np.where(np.arange(max(widest, 1))[None, :] < counts[:, None], places, total)
        summed = eq("sum", eq("__subscript", padded, *([None] * (rank - 1)), table), -1)
    back = eq("transpose", summed, [int(i) for i in np.argsort(last)]) if rank > 1 else summed
    return eq("reshape", back, list(x.shape)), None, None


@recordable("sort")
def sort_equations(ct, out, a, axis=-1, kind=None, order=None, wanted=None):
    x = arr(a)
    if axis is None:             # the flattened array was sorted
        inverse = np.argsort(np.argsort(x, axis=None, kind="stable"), kind="stable")
        return (eq("reshape", eq("__subscript", ct, inverse), list(x.shape)),)
    ax = int(axis) % x.ndim
    # element i of the operand went to place inverse[i] of its line (stable, as the rule)
    inverse = np.argsort(np.argsort(x, axis=ax, kind="stable"), axis=ax, kind="stable")
    index = list(np.ogrid[tuple(slice(0, n) for n in x.shape)])
    index[ax] = inverse
    return (eq("__subscript", ct, *index),)
