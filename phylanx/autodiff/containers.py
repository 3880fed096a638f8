"""Lists, tuples and dictionaries on the tape: a container's dependence is its items'.

A container never gets a tape entry that later uses find by its identity: its items can
change after it was built (``xs.append(v)``, ``d[k] = v``, ``xs[0] *= 2`` on an item),
and a tuple may hold a list that changes.  Instead, every *use* of a container as an
operand derives its dependence from the items it holds at that moment
(:meth:`~.tape.Tape.tracked` appends a ``<container>`` entry whose parents are the
items' entries), at any depth and for every kind (a list, a tuple, a dict's values).

So that this works for containers a primitive *computes* (``np.hsplit``, ``x.tolist()``,
``np.linalg.svd``'s tuple), the tape gives each new float item of such an output an
``<item>`` entry: the item's cotangent is accumulated, by its path in the output, into
the cotangent of the primitive, which its rule receives shaped like the output (``None``
where nothing flowed).

Cotangents of containers are lists (for lists and tuples) or dicts, item by item, with
``None`` for items that get none.  This module holds the structural helpers; the tape
(``tape.py``) uses them.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

#: the container kinds whose items carry gradients (tuples include named tuples)
CONTAINERS = (list, tuple, dict)


def is_container(value: Any) -> bool:
    return isinstance(value, CONTAINERS)


def is_float_value(value: Any) -> bool:
    """True for values that can carry a gradient: float (or complex) arrays and scalars
    (a Python complex too: ``(2 + 1j) * x`` of a tracked scalar is one, and until ad46 it
    was not recorded, a zero gradient)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype.kind in "fc"
    return type(value) is float or type(value) is complex


def carries_gradient(value: Any) -> bool:
    """A float value, or a container that may hold one."""
    return is_float_value(value) or is_container(value)


def items(container: Any) -> list:
    """The items of a container in order (a dict's values)."""
    return list(container.values()) if isinstance(container, dict) else list(container)


def snapshot(value: Any) -> Any:
    """``value`` with every container copied, at any depth (the leaves are shared): what
    the tape keeps of an operand, which may change later."""
    if isinstance(value, dict):
        return {k: snapshot(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snapshot(v) for v in value]
    if type(value) is tuple:
        return tuple(snapshot(v) for v in value)
    return value


def float_leaves(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, leaf) of every float value inside ``value``, containers at any depth."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from float_leaves(v, path + (k,))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from float_leaves(v, path + (i,))
    elif is_float_value(value):
        yield path, value


def leaf_ids(values: Any) -> set[int]:
    """Identities of every value inside the containers ``values`` (any depth)."""
    seen: set[int] = set()
    stack = list(values)
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue                   # a list holding itself: no endless walk
        seen.add(id(v))
        if is_container(v):
            stack.extend(items(v))
    return seen


def fit_container(ct: Any, value: Any, fit) -> Any:
    """``ct`` as the cotangent of the container ``value``: item by item, each fitted to
    its item with ``fit`` (:func:`.tape.fit`); None where no gradient flows."""
    if isinstance(value, dict):
        if not isinstance(ct, dict):
            raise TypeError(f"a dictionary operand got a {type(ct).__name__} cotangent")
        return {k: fit(c, value[k]) for k, c in ct.items()
                if c is not None and k in value and carries_gradient(value[k])}
    if isinstance(ct, dict):
        raise TypeError(f"a {type(value).__name__} operand got a dictionary cotangent")
    if not isinstance(ct, (list, tuple)):
        # a list used as an array (``sum(list(a, b))``): item i is row i of the array
        ct = np.asarray(ct)
        if ct.shape[:1] != (len(value),):
            ct = np.broadcast_to(ct, (len(value),) + ct.shape[1:] if ct.ndim else
                                 (len(value),))
    return [None if c is None or not carries_gradient(v) else fit(c, v)
            for c, v in zip(ct, value)]


def rows_cotangent(ct: Any, value: Any, fit) -> np.ndarray:
    """A list of row cotangents for an array operand a rule read as its rows
    (``np.hstack(m)``): the rows fitted and stacked, zeros for None.  Any other
    container cotangent for an array is a rule's mistake (TypeError)."""
    shape = np.shape(value)
    if not isinstance(ct, (list, tuple)) or not shape or len(ct) != shape[0]:
        raise TypeError(f"a {type(ct).__name__} cotangent of {len(ct)} items for an array "
                        f"operand of shape {shape}")
    row = np.zeros(shape[1:], dtype=np.result_type(value, np.float64)
                   if not is_float_value(value) else np.asarray(value).dtype)
    return np.stack([row if c is None else fit(c, row) for c in ct])


def add_container(a: Any, b: Any, add) -> Any:
    """The sum of two container cotangents (``add`` adds items)."""
    if isinstance(a, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = add(out.get(k), v)
        return out
    return [add(x, y) for x, y in zip(a, b)]


def item_cotangents(ct: Any, container_items: list, keys: list | None) -> list:
    """Per item, the cotangent of a container whose cotangent is ``ct`` (fitted)."""
    if keys is not None:
        return [ct.get(k) for k in keys]
    grads = list(ct)
    return grads + [None] * (len(container_items) - len(grads))


def densify(acc: dict, like: Any, path: tuple = ()) -> Any:
    """The cotangents accumulated by path in ``acc`` as a cotangent shaped like ``like``
    (the output of a primitive): lists/dicts of the item cotangents, None elsewhere."""
    if path in acc:
        return acc[path]
    if isinstance(like, dict):
        return {k: densify(acc, v, path + (k,)) for k, v in like.items()}
    if isinstance(like, (list, tuple)):
        return [densify(acc, v, path + (i,)) for i, v in enumerate(like)]
    return None
