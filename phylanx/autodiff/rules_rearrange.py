"""VJP rules of the NumPy rearrangements: ``broadcast_to``, ``tril``/``triu``, ``roll``,
``split``/``array_split`` and ``sort``.

Each moves, copies or masks elements, so its rule moves the cotangent back: a broadcast
is summed (by the engine's unbroadcast), a mask is applied again, a roll undone, the
pieces of a split joined, and a sort's permutation inverted.
"""
from __future__ import annotations

import numpy as np

from .rule_helpers import arr, int_list
from .table import VJP


@VJP.register("broadcast_to")
def broadcast_to_vjp(ct, out, array, shape):
    return (ct, None)      # the engine sums the copies back to the operand's shape


@VJP.register("tril")
def tril_vjp(ct, out, m, k=0):
    # a 1-d ``m`` was taken as repeated rows: the engine sums the rows' cotangents
    return (np.tril(np.asarray(ct), int(k)), None)


@VJP.register("triu")
def triu_vjp(ct, out, m, k=0):
    return (np.triu(np.asarray(ct), int(k)), None)


@VJP.register("roll")
def roll_vjp(ct, out, a, shift, axis=None):
    back = [-s for s in int_list(shift)]
    axes = None if axis is None else tuple(int_list(axis))
    ct = np.reshape(ct, np.shape(out))
    # rolling by the negated shifts undoes the roll (also a flattened one, axis nil)
    return (np.roll(ct, back if len(back) > 1 else back[0], axes), None, None)


def _split_vjp(ct, out, ary, indices_or_sections, axis=0):
    pieces = [np.zeros(np.shape(o), arr(o).dtype) if c is None else np.asarray(c)
              for c, o in zip(ct, out)]
    return (np.concatenate(pieces, axis=int(axis)), None, None)


VJP.defrule("split", _split_vjp)
VJP.defrule("array_split", _split_vjp)


@VJP.register("sort")
def sort_vjp(ct, out, a, axis=-1, kind=None, order=None):
    x = arr(a)
    ct = np.asarray(ct)
    if axis is None:               # the flattened array was sorted
        grad = np.zeros(x.size, ct.dtype)
        grad[np.argsort(x, axis=None, kind="stable")] = ct
        return (grad.reshape(x.shape),)
    # each output element came from one input element: the stable order of the values
    # (ties get their own elements' cotangents in order, as JAX's stable sort does)
    where = np.argsort(x, axis=int(axis), kind="stable")
    grad = np.zeros(x.shape, ct.dtype)
    np.put_along_axis(grad, where, ct, axis=int(axis))
    return (grad,)
