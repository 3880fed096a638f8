"""VJP rules of indexing and containers: the slice primitives, ``list``, and the in-place
changes the recorder turns into tape entries (``__inplace``, ``store`` into a slice,
``__fill``, ``add_at``).

A list's or tuple's cotangent is a list (``None`` for items that get none), a dict's a
dict; the slice of an array scatters its cotangent into zeros of the array's shape
(adding where an advanced index repeats an element).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import PhylanxValueError
from ..primitives.original_index import form_indices, read_indices
from .containers import is_container
from .rule_helpers import index_tuple
from .table import VJP


def _scatter(ct: Any, value: np.ndarray, indices: list) -> np.ndarray:
    """Zeros shaped like ``value`` with ``ct`` added at ``value[indices]``."""
    grad = np.zeros(np.shape(value), dtype=np.result_type(np.asarray(ct).dtype, np.float64)
                    if np.asarray(value).dtype.kind not in "fc" else np.asarray(value).dtype)
    index = index_tuple(indices)
    np.add.at(grad, index, np.reshape(ct, np.shape(grad[index])))
    return grad


def _list_cotangent(ct: Any, value: list, indices: list) -> list:
    if len(indices) != 1:
        raise PhylanxValueError("gradients through multi-index slices of lists are not "
                                "supported; index one level at a time")
    spec = indices[0]
    grads: list = [None] * len(value)
    positions = range(len(value))
    if isinstance(spec, (list, tuple, range)) or spec is None:
        chosen = positions[index_tuple([spec])]
        for c, p in zip(ct, chosen):
            grads[p] = c
    elif isinstance(spec, np.ndarray):
        chosen = np.flatnonzero(spec) if spec.dtype == np.bool_ else spec.ravel()
        for c, p in zip(ct, chosen):
            grads[int(p)] = c if grads[int(p)] is None else grads[int(p)] + c
    else:
        grads[int(spec)] = ct
    return grads


def _slice_cotangent(ct: Any, value: Any, indices: list) -> Any:
    if isinstance(value, dict):
        if len(indices) != 1:
            raise PhylanxValueError("a dictionary takes one key")
        return {indices[0]: ct}
    if isinstance(value, (list, tuple)):
        return _list_cotangent(ct, value, indices)
    if isinstance(value, np.ndarray):
        return _scatter(ct, value, indices)
    return None                                  # strings: no gradient


@VJP.register("__subscript")
def subscript_vjp(ct, out, value, *indices):
    return (_slice_cotangent(ct, value, list(indices)),)


@VJP.register("__subscript_adjoint")
def subscript_adjoint_vjp(ct, out, g, like, *indices):
    """Zeros with ``g`` added at ``like[indices]`` (linear in ``g``): ``g``'s cotangent is
    ``ct[indices]``; ``like`` only gives the shape."""
    return (np.asarray(ct)[index_tuple(list(indices))], None)


def _original_vjp(kind: str):
    """PhySL's slice forms: the original's indices, read as NumPy ones first."""
    def rule(ct, out, value, *indices):
        idx = form_indices(kind, list(indices))
        if isinstance(value, np.ndarray) and value.ndim:
            idx = read_indices(value, idx)
        return (_slice_cotangent(ct, value, idx),)
    return rule


for _kind in ("slice", "slice_row", "slice_column", "slice_page", "tuple_slice"):
    VJP.defrule(_kind, _original_vjp(_kind))


@VJP.register("list", "tuple")
def list_vjp(ct, out, *items):
    return tuple(ct) + (None,) * (len(items) - len(ct))


@VJP.register("__inplace")
def inplace_vjp(ct, out, old, value):
    # ``x += v`` overwrote the whole array with ``v``: nothing of the old values is left
    return None, ct


@VJP.register("__fill")
def fill_vjp(ct, out, old, value):
    return None, np.sum(ct)


@VJP.register("add_at")
def add_at_vjp(ct, out, old, indices, b):
    """``add_at(a, i, b)``: ``a``'s cotangent passes through; ``b``'s is the cotangent at
    the places it was added to (a repeated index gives each occurrence the same)."""
    from ..primitives.matrixops.numpy_search import _at_indices
    ct = np.asarray(ct)
    return ct, None, ct[_at_indices(indices)]


@VJP.register("constant_like", "__npconstant_like")
def constant_like_vjp(ct, out, value, a, dtype=None):
    """An array like ``a`` filled with ``value``: ``a`` gives only its shape (no
    gradient); ``value`` gets the cotangent, summed over what it was broadcast to."""
    if np.asarray(out).dtype.kind not in "fc":
        return None, None, None
    return np.asarray(ct), None, None


@VJP.register("full_like")
def full_like_vjp(ct, out, a, value, dtype=None):
    return (None,) + constant_like_vjp(ct, out, value, a, dtype)[:1] + (None,)


@VJP.register("store")
def store_vjp(ct, out, old, value, *indices):
    """``store(slice(x, i...), v)``: the stored elements' cotangent goes to ``v``, the rest
    to the old ``x``."""
    ct = np.asarray(ct)
    index = index_tuple(list(indices))
    rest = ct.copy()
    rest[index] = 0
    stored = ct[index]
    if _may_repeat(index):
        # a repeated integer index (x[[0, 0]] = v) keeps one write per element: the
        # others were overwritten and get no cotangent (every occurrence got it before)
        order = np.full(ct.shape, -1, dtype=np.int64)
        order[index] = np.arange(stored.size).reshape(stored.shape)
        kept = order[index] == np.arange(stored.size).reshape(stored.shape)
        stored = np.where(kept, stored, np.zeros((), stored.dtype))
    return (rest, stored) + (None,) * len(indices)


def _may_repeat(index: Any) -> bool:
    """An index (one part, or a tuple of them) that may select an element more than
    once: one holding an integer array."""
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(part, np.ndarray) and part.dtype.kind in "iu" and part.ndim
               for part in parts)


# -- conversions the frontend emits (np.array(x), float(x), x.item(), list(x), sum(xs)) --
@VJP.register("__array", "__pycast")
def convert_vjp(ct, out, x, *options):
    if is_container(x):
        return (np.asarray(ct),)        # the engine gives item i of the list row i
    return (np.reshape(ct, np.shape(x)),)


@VJP.register("__item")
def item_vjp(ct, out, x, *index):
    """``x.item(*index)``: the cotangent lands on the one element read."""
    if not index:
        return convert_vjp(ct, out, x)
    grad = np.zeros(np.shape(x), dtype=np.result_type(np.asarray(x), 1.0))
    flat = index[0] if len(index) == 1 and not isinstance(index[0], tuple) else None
    if flat is not None:
        grad.flat[int(flat)] = ct
    else:
        grad[tuple(index[0]) if isinstance(index[0], tuple) else tuple(index)] = ct
    return (grad, *([None] * len(index)))


def _dense(ct: Any, like: Any) -> np.ndarray:
    """A list cotangent (``None`` for items without one) as an array shaped like ``like``."""
    shape = np.shape(like)
    if type(ct) is not list:
        return np.zeros(shape) if ct is None else np.reshape(ct, shape)
    return np.stack([_dense(c, np.zeros(shape[1:])) for c in ct]) if ct else np.zeros(shape)


@VJP.register("__tolist", "__pylist", "__pytuple")
def to_list_vjp(ct, out, x):
    if is_container(x):
        return (ct,)
    return (_dense(ct, x),)


@VJP.register("__pysum")
def pysum_vjp(ct, out, items, start=0):
    if isinstance(items, (list, tuple)):
        return [ct] * len(items), ct
    return np.broadcast_to(ct, np.shape(items)[:1] + np.shape(ct)), ct
