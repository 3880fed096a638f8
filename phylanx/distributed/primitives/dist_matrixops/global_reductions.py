"""Reductions of tiled arrays over any axes: the ``DISTRIBUTION`` rules of ``sum``,
``prod``, ``amax``, ``amin``, ``mean``, ``var``, ``std``, ``all``, ``any`` and
``np.linalg.norm`` (``__npnorm``, its 2-norm / Frobenius norm).

``axis`` is None, an int or a tuple, ``keepdims`` as NumPy.  Two cases, decided from
the layout (the same on every rank):

* **no reduced axis is split** (every tile spans the reduced axes whole, e.g.
  ``np.sum(x, axis=1)`` of a row-tiled ``x``): each rank runs the primitive's own
  kernel on its tile, no communication, and the result is tiled like ``x`` without
  the reduced axes (a length-1 axis with ``keepdims``); if every axis is reduced,
  every tile holds the whole array and the answer is plain;
* **a reduced axis is split**: each rank reduces the cells it *owns* (overlapping
  tiles count every element once) into an array of the result's shape, the partial
  results travel in one all_gather (the operation's final message) and are combined
  in rank order, so every rank holds the same plain result, bit for bit.  ``mean``
  divides the sum by the count; ``var``/``std`` send each rank's mean and sum of
  squared deviations (NumPy's two passes on the cells it owns) in one all_gather, joined
  in rank order by Chan's pairwise update (:func:`moments`), divided by ``N - ddof``.

Options these do not cover (``initial``, ``dtype``, a ``norm`` order, empty
reductions, complex data) take the gather fallback (``gather_fallback.py``: NumPy's
answer, with its performance warning): the rule declines (``NotImplemented``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .... import distributed as api
from ....primitives.dtypes import to_bool
from ....primitives.rules import DISTRIBUTION
from ....primitives.statistics.reductions import _ddof, reduction_axes
from ....runtime import started
from ....values import scalarize
from ... import lockstep, tiles, tiling
from ...darray import DistributedArray
from ...tiles import Layout

#: name -> (ufunc combining partial results, positions of the options that must be nil)
_COMBINE = {"sum": (np.add, (3, 4)), "prod": (np.multiply, (3, 4)),
            "amax": (np.maximum, (3, 4)), "amin": (np.minimum, (3, 4)),
            "all": (np.logical_and, ()), "any": (np.logical_or, ()),
            "mean": (np.add, (4,)), "var": (np.add, (4,)), "std": (np.add, (4,))}


def _args(args: list, count: int) -> list:
    return list(args) + [None] * (count - len(args))


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    axes = reduction_axes(axis.tolist() if isinstance(axis, np.ndarray) else axis, ndim)
    if axes is None:
        return tuple(range(ndim))
    return (axes,) if isinstance(axes, int) else tuple(axes)


def every_tile_whole_along(a: DistributedArray, axes: tuple[int, ...]) -> bool:
    """Every tile, empty ones too, spans ``axes`` whole (each tile's kernel can run on
    the tile as it is: ``fused_tiles``)."""
    return all(box[ax] == (0, a.shape[ax]) for box in a.layout.boxes for ax in axes)


def whole_along(a: DistributedArray, axes: tuple[int, ...]) -> bool:
    """Reducing ``axes`` is local: every tile spans them whole.  An empty tile written
    (0, 0) on every axis (``tiling.py``) is taken as ``annotate`` writes it: empty along
    the axes the other tiles split (the first, if none), whole along the others; so
    either form decides alike (dist50).  Not every empty tile passes: one tile holding
    all the rows reduced along them stays the all_gather (its plain result is what the
    consumers take, k-means' means; ``test_scaling_counts_mpi``)."""
    split = a.layout.split_axes() or [0]

    def annotated(box: tiling.Box) -> tiling.Box:
        if any(span != (0, 0) for span in box):
            return box
        return tuple((0, 0) if i in split else (0, n) for i, n in enumerate(a.shape))
    return all(annotated(box)[ax] == (0, a.shape[ax])
               for box in a.layout.boxes for ax in axes)


def _local(a: DistributedArray, axes: tuple[int, ...], keep: bool, kernel: Any) -> Any:
    """The reduction of each tile, tiled like ``a`` without the reduced axes.  An empty
    tile's kernel runs on a stand-in spanning the reduced axes whole (NumPy's max
    refuses an axis of length 0, which a box of (0, 0) on every axis would give), for
    the result's dtype."""
    if len(axes) == a.ndim:
        return kernel(a.local)          # every tile is the whole array
    layout = reduced_layout(a, axes, keep)
    mine = layout.boxes[api.find_here()]
    tile = a.local
    if tiling.is_empty(a.box):
        extents = tiling.box_shape(mine)
        kept = iter([extents[i] for i in range(a.ndim) if i not in axes] if keep else extents)
        tile = np.empty(tuple(a.shape[i] if i in axes else next(kept) for i in range(a.ndim)),
                        a.dtype)
    return a.derive(np.asarray(kernel(tile)).reshape(tiling.box_shape(mine)), layout)


def reduced_layout(a: DistributedArray, axes: tuple[int, ...], keep: bool) -> Layout:
    """The layout of a reduction over ``axes`` that no tile splits: ``a``'s without them
    (a length-1 axis with ``keep``)."""
    def reduced(box):
        out = tuple((0, 1) if i in axes else span for i, span in enumerate(box)
                    if keep or i not in axes)
        # an empty tile stays empty (one empty only along a reduced axis holds no part of
        # the kept spans): (0, 0) on every axis, as the layouts derived elsewhere
        return tuple((0, 0) for _ in out) if tiling.is_empty(box) and \
            not tiling.is_empty(out) else out
    boxes = [reduced(b) for b in a.layout.boxes]
    shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape)
                  if keep or i not in axes)
    kept = [i for i in range(a.ndim) if i not in axes]
    key = None
    if len(shape) == 1:
        key = a.layout.key1d if a.ndim == 1 else ("rows" if kept == [0] else "columns")
    return Layout(boxes, shape, key)


def result_layout(name: str, a: DistributedArray, axis: Any, keepdims: Any) -> Any:
    """The layout of the reduction ``name(a, axis, keepdims)`` decided from the shape,
    dtype and layout alone, as the rule decides: a Layout for a tiled result,
    ``"plain"`` for a plain one, None where the rule declines (the gather fallback)."""
    axes = _axes(axis, a.ndim)
    if whole_along(a, axes):
        return "plain" if len(axes) == a.ndim else reduced_layout(a, axes, to_bool(keepdims))
    return "plain" if _plain_case(a, axes) else None


def _identity(ufunc: np.ufunc, dtype: np.dtype) -> Any:
    """The value ``ufunc`` leaves the other operand unchanged with, in ``dtype``."""
    if ufunc not in (np.maximum, np.minimum):
        return ufunc.identity
    if dtype.kind == "b":
        return ufunc is np.minimum
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.max if ufunc is np.minimum else info.min
    return np.inf if ufunc is np.minimum else -np.inf


def combined(a: DistributedArray, axes: tuple[int, ...], ufunc: np.ufunc, dtype: np.dtype,
             block_of: Any = None, final: bool = True, then: Any = None) -> Any:
    """Collective: ``ufunc`` reduced over ``axes`` of ``block_of(cell, block)`` (the
    block itself by default) for every owned cell, combined over the ranks in rank
    order; the shape keeps the reduced axes (length 1).  ``then``: the rest of the
    rule, applied to that; given, a rule in start mode gets a ``Started`` instead
    (``tiles.all_gathered_then``: the all_gather left in flight)."""
    # in native byte order: a ufunc's dtype= refuses another (a big-endian tile's amax),
    # and NumPy's reductions of such an array give native values too
    dtype = np.dtype(dtype).newbyteorder("=")
    shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
    partial = np.full(shape, _identity(ufunc, dtype), dtype)
    rank = api.find_here()
    box = a.layout.boxes[rank]
    for cell in a.layout.owned[rank]:
        block = a.local[tiling.to_local(cell, box)]
        if block_of is not None:
            block = block_of(cell, block)
        where = tuple(slice(0, 1) if i in axes else slice(s, e) for i, (s, e) in enumerate(cell))
        part = ufunc.reduce(block, axis=axes, keepdims=True, dtype=dtype)
        partial[where] = ufunc(partial[where], part)

    def reduced(parts: list) -> Any:
        out = parts[0]
        for p in parts[1:]:
            out = ufunc(out, p)
        return out if then is None else then(out)
    if len(a.layout.boxes) == 1:
        return reduced([partial])
    if final and then is not None:
        return tiles.all_gathered_then(partial, reduced)
    return reduced(tiles.all_gather(partial, final=final))


def _finish(value: np.ndarray, axes: tuple[int, ...], keep: bool) -> Any:
    return scalarize(value if keep else value.reshape(
        tuple(n for i, n in enumerate(value.shape) if i not in axes)))


def _plain_case(a: Any, axes: tuple[int, ...]) -> bool:
    """What the partial-and-combine path computes exactly as NumPy: real or boolean
    data and a non-empty reduction."""
    return a.dtype.kind in "biuf" and all(a.shape[ax] for ax in axes)


def _reduction(name: str):
    ufunc, must_be_nil = _COMBINE[name]

    def rule(impl: Any, args: list) -> Any:
        a, axis, keepdims, *rest = _args(args, 6 if name in ("var", "std") else 5)
        options = [args[i] for i in must_be_nil if i < len(args)]
        if (type(a) is not DistributedArray or any(o is not None for o in options)
                or any(type(x) is DistributedArray for x in args[1:])):
            return NotImplemented
        axes = _axes(axis, a.ndim)
        keep = to_bool(keepdims)
        if whole_along(a, axes):
            return _local(a, axes, keep, lambda tile: impl(tile, *args[1:]))
        if name in ("var", "std") and len(args) > 5:
            _ddof(args[5])      # (as the kernel checks it: a bool, nil, a string refused)
        if not _plain_case(a, axes):
            return NotImplemented
        with lockstep.operation(lockstep.label_of(name, (a,))):
            return _global(name, a, axes, keep, rest)
    rule.__name__ = f"{name}_rule"
    return rule


def _global(name: str, a: DistributedArray, axes: tuple[int, ...], keep: bool,
            rest: list) -> Any:
    ufunc = _COMBINE[name][0]

    def finish(value: np.ndarray) -> Any:
        return _finish(value, axes, keep)
    if name in ("all", "any"):
        return combined(a, axes, ufunc, np.dtype(bool), then=finish)
    if name in ("amax", "amin"):
        return combined(a, axes, ufunc, a.dtype, then=finish)
    if name in ("sum", "prod"):
        dtype = getattr(np, name)(np.zeros(1, a.dtype)).dtype
        return combined(a, axes, ufunc, dtype, then=finish)
    count = int(np.prod([a.shape[ax] for ax in axes]))
    dtype = np.mean(np.zeros(1, a.dtype)).dtype
    if name == "mean":
        # NumPy sums float16 in float32 and casts the quotient (``_methods._mean``); the
        # partial sums combined in float16 were up to 20 units in the last place off
        wide = np.promote_types(dtype, np.float32)
        return combined(a, axes, np.add, wide, then=lambda total: finish(
            (total / wide.type(count)).astype(dtype, copy=False)))
    ddof = rest[2] if rest[2] is not None else 0

    def spread(total: np.ndarray) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):
            variance = (total / total.dtype.type(max(count - ddof, 0))).astype(dtype,
                                                                                copy=False)
        return finish(np.sqrt(variance) if name == "std" else variance)
    return moments(a, axes, dtype, spread)


def _owned_counts(a: DistributedArray, axes: tuple[int, ...], rank: int) -> np.ndarray:
    """How many elements ``rank`` owns along ``axes`` at each position of the result
    (the reduced axes kept, length 1): known from the layout alone, on every rank."""
    counts = np.zeros(tuple(1 if i in axes else n for i, n in enumerate(a.shape)), np.int64)
    for cell in a.layout.owned[rank]:
        where = tuple(slice(0, 1) if i in axes else slice(s, e)
                      for i, (s, e) in enumerate(cell))
        counts[where] += int(np.prod([cell[ax][1] - cell[ax][0] for ax in axes]))
    return counts


def _merge(count: np.ndarray, mean: np.ndarray, m2: np.ndarray, more: np.ndarray,
           mean_b: np.ndarray, m2_b: np.ndarray, dtype: np.dtype) -> None:
    """Chan, Golub and LeVeque's pairwise update, in place: ``(count, mean, m2)`` (the
    count, mean and sum of squared deviations of one part) joined with another part's,
    position by position (a part of count 0 changes nothing)."""
    total = count + more
    weight = (more / np.maximum(total, 1)).astype(dtype, copy=False)
    delta = mean_b - mean
    # (delta times n_a n_b / n first: with ``count`` 0, delta * delta overflowed for a
    # large mean, |mean| > 1.8e19 in float32, and inf * 0 made the variance nan)
    m2 += m2_b + delta * (delta * (count * weight).astype(dtype, copy=False))
    mean += delta * weight
    count[...] = total


def moments(a: DistributedArray, axes: tuple[int, ...], dtype: np.dtype,
            then: Any) -> Any:
    """Collective: ``then(sum of squared deviations from the mean)`` over ``axes`` (the
    reduced axes kept, length 1) in ONE all_gather, which a rule in start mode leaves
    in flight as ``sum`` does (``tiles.all_gathered_then``).  Each rank sends the mean
    and the sum of squared deviations of the cells it owns (NumPy's two passes, on
    them), the counts being known from the layout; the parts are joined in rank order
    by the pairwise update of Chan, Golub and LeVeque (the law: the sum of squared
    deviations of a union is the parts' sums plus ``delta^2 n_a n_b / n``), so every
    rank holds the same bits.  Before, the global mean travelled first and the squared
    deviations after it: two collectives, the second unable to start before the first
    was read.  The sums are in float32 at least (the result is ``then``'s to cast): NumPy
    accumulates float16 in float32, and the join in float16 was ten times less exact."""
    dtype = np.promote_types(dtype, np.float32)
    rank = api.find_here()
    shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
    box = a.layout.boxes[rank]
    count = np.zeros(shape, np.int64)
    mean, m2 = np.zeros(shape, dtype), np.zeros(shape, dtype)
    for cell in a.layout.owned[rank]:
        block = a.local[tiling.to_local(cell, box)].astype(dtype, copy=False)
        size = int(np.prod([cell[ax][1] - cell[ax][0] for ax in axes]))
        if size == 0 or block.size == 0:
            continue
        where = tuple(slice(0, 1) if i in axes else slice(s, e)
                      for i, (s, e) in enumerate(cell))
        centre = np.add.reduce(block, axis=axes, keepdims=True, dtype=dtype) / dtype.type(size)
        deviation = block - centre
        squares = np.add.reduce(deviation * deviation, axis=axes, keepdims=True, dtype=dtype)
        part = (count[where], mean[where], m2[where])
        _merge(*part, np.full(part[0].shape, size, np.int64), centre, squares, dtype)
        count[where], mean[where], m2[where] = part
    partial = np.stack([mean, m2])

    def joined(parts: list) -> Any:
        total = np.zeros(shape, np.int64)
        centre, squares = np.zeros(shape, dtype), np.zeros(shape, dtype)
        for r, part in enumerate(parts):
            _merge(total, centre, squares, _owned_counts(a, axes, r), part[0], part[1],
                   dtype)
        return then(squares)
    if len(a.layout.boxes) == 1:
        return joined([partial])
    return tiles.all_gathered_then(partial, joined)


def norm_rule(impl: Any, args: list) -> Any:
    """``np.linalg.norm(x[, None, axis, keepdims])``: the square root of the sum of
    squares (over all axes, or one); other orders gather (the fallback)."""
    x, order, axis, keepdims = _args(args, 4)
    if (type(x) is not DistributedArray or order is not None or x.dtype.kind not in "biuf"
            or isinstance(axis, (list, tuple, np.ndarray))
            or any(type(v) is DistributedArray for v in args[1:])):
        return NotImplemented
    axes = _axes(axis, x.ndim)
    keep = to_bool(keepdims)
    if whole_along(x, axes):
        return _local(x, axes, keep, lambda tile: impl(tile, *args[1:]))
    dtype = np.result_type(x.dtype, np.float64) if x.dtype.kind in "biu" else x.dtype
    with lockstep.operation(lockstep.label_of("__npnorm", (x,))):
        squares = combined(x, axes, np.add, dtype,
                           lambda cell, block: np.square(block.astype(dtype, copy=False)))
    return _finish(np.sqrt(squares), axes, keep)


for _name in _COMBINE:
    DISTRIBUTION.defrule(_name, _reduction(_name))
#: their rules may leave their final all_gather to the statement's join (start mode)
started.STARTS.update(("sum", "prod", "amax", "amin", "all", "any", "mean", "var", "std"))
DISTRIBUTION.defrule("__npnorm", norm_rule)
