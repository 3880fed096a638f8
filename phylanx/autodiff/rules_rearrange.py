"""VJP rules of the NumPy rearrangements: ``broadcast_to``, ``tril``/``triu``, ``roll``,
``rot90``, ``split``/``array_split``, ``sort``, ``take`` and ``take_along_axis``.

Each moves, copies or masks elements, so its rule moves the cotangent back: a broadcast
is summed (by the engine's unbroadcast), a mask is applied again, a roll or rotation undone,
the pieces of a split joined, a sort's permutation inverted, and what ``take`` picked
added back where it came from (a repeated index gets the sum of its cotangents).
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


@VJP.register("rot90")
def rot90_vjp(ct, out, m, k=1, axes=(0, 1)):
    return (np.rot90(np.asarray(ct), -int(k), tuple(int_list(axes))), None, None)


@VJP.register("take")
def take_vjp(ct, out, a, indices, axis=None, mode="raise"):
    x = arr(a)
    idx = np.asarray(indices)
    n = x.size if axis is None else x.shape[int(axis)]
    # the index each pick read (take's own normalisation of out-of-range ones)
    idx = idx % n if mode == "wrap" else np.clip(idx, 0, n - 1) if mode == "clip" else idx
    ct = np.asarray(ct, dtype=np.result_type(x.dtype, np.asarray(ct).dtype))
    grad = np.zeros(x.shape, ct.dtype)
    if axis is None:
        np.add.at(grad.reshape(-1), idx.reshape(-1), ct.reshape(-1))
        return (grad, None, None, None)
    ax = int(axis) % x.ndim
    # ct's axes: x's before ``ax``, the indices', x's after it; the indices' first
    picked = np.moveaxis(ct.reshape(x.shape[:ax] + idx.shape + x.shape[ax + 1:]),
                         list(range(ax, ax + idx.ndim)), list(range(idx.ndim)))
    np.add.at(np.moveaxis(grad, ax, 0), idx, picked)
    return (grad, None, None, None)


@VJP.register("take_along_axis")
def take_along_axis_vjp(ct, out, a, indices, axis):
    x = arr(a)
    ct = np.asarray(ct)
    grad = np.zeros(x.shape, np.result_type(x.dtype, ct.dtype))
    idx = np.asarray(indices)
    if axis is None:                    # of the flattened array
        np.add.at(grad.reshape(-1), idx.reshape(-1), ct.reshape(-1))
        return (grad, None, None)
    ax = int(axis) % x.ndim
    shape = ct.shape
    # where each output element came from: its own position on the other axes (0 where
    # ``a`` was broadcast), the index on ``ax``
    where = tuple(np.broadcast_to(idx, shape) if d == ax else
                  np.arange(shape[d]).reshape([-1 if e == d else 1 for e in range(len(shape))])
                  * (x.shape[d] != 1)
                  for d in range(len(shape)))
    np.add.at(grad, where, ct)
    return (grad, None, None)
