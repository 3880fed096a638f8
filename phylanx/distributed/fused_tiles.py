"""Fused regions on the local tiles of tiled operands, leaving the node-by-node trace.

A fused region (``fusion/regions.py``: an element-wise chain, perhaps ended by a
``sum``/``mean``/``amax``/``amin``) whose leaves are tiled arrays ran node by node before,
each operation through its ``DISTRIBUTION`` rule.  The law that lets it run fused on
the tiles instead: an element-wise chain commutes with any partition of its operands'
elements, and a reduction over axes no tile splits commutes with the partition of the
other axes; so when every tiled leaf has one layout and the full (broadcast) shape,
every plain operand is whole where the tiles are split (each tile reads all of it),
and the reduced axes are whole in every tile, each rank's tile of the result is the
region computed on its own tiles, with no message (what the node-by-node rules do
too: ``broadcasting.elementwise`` fetches nothing, ``global_reductions`` reduces
locally).  Anything else (a fetch, a reduction over a split axis, an autodiff tape,
operands of another kind) is declined: the node-by-node path runs.

**The same trace on every rank.**  Whether a region runs fused is each rank's own
decision (its tile's size, its timings), so the fused path leaves exactly what the
node-by-node path would, computed from the layouts and the plain operands alone
(:func:`trace`): the result's name and generation (each operation's *driver*, the
first tiled operand, gives the next generation), its layout, and the digests of the
plain operands it carries to its next exchange (``DistributedArray.plain``, merged
per operation as ``darray.dispatch`` merges them, named by each operation's primitive
and location); and each operation's evaluation is counted at its site as the rules'
``one_rank_errors.guarded`` counts it, so a later error's agreement finds every
rank's count alike.  A plain intermediate (an operation of plain operands only) is
computed here to take its digest, as the node-by-node path computes it.

**Declined where it could fail.**  A fused region on the tiles must not fail where the
node-by-node path would fail at one operation's site (agreed there with every rank,
counted at that site): a rank that fused would have counted nothing there, or its
operations as passed.  So the trace decides before anything runs, by the operands'
kinds, dtypes and plain values, and declines (node by node runs and raises at the
site): an operation NumPy refuses for these dtypes (``x & 1.5``, a Python int out of
an int8 tile's range: asked of its kernel on one-element stand-ins of its operands'
dtypes, once per operation and operand kinds), an integer base to an integer exponent
that is negative or, tiled, may be (its values are not known before), and any region
while a ``RuntimeWarning`` is raised as an error (``warnings`` filters: NumPy's
``divide by zero`` in a tile's ``log`` is then an error that depends on the values;
``np.errstate(...="raise")`` never reaches here, ``fusion/hot.py``).  What still
fails in the fused evaluation is the kernel's own fault: raised at the region's root,
agreed with every rank there (one that went on ends the job, with one located
message).  (It used to run the region again node by
node after the fused evaluation failed: a retry after a kernel's failure.)
"""
from __future__ import annotations

import warnings
import weakref
from typing import Any

import numpy as np

from .. import distributed as api
from ..errors import PhylanxValueError
from ..fusion import hot
from ..fusion.regions import Op, Region
from ..runtime.nodes import call
from . import tiling
from .darray import DistributedArray, located_at, merged, plain_operands
from .one_rank_errors import guarded, passed

#: reductions whose rule reduces each tile alone when no tile splits the reduced axes
_LOCAL_REDUCTIONS = ("sum", "mean", "amax", "amin")


class _Tiled:
    """What the node-by-node path would hold for a tiled intermediate (no data)."""

    __slots__ = ("name", "generation", "layout", "plain", "dtype", "storage")

    def __init__(self, name: str, generation: int, layout: Any, plain: tuple,
                 dtype: np.dtype, storage: Any) -> None:
        self.name, self.generation, self.layout, self.plain = name, generation, layout, plain
        self.dtype, self.storage = dtype, storage


class _Declined(Exception):  # noqa: N818 - a signal: the node-by-node path runs
    """Operands or operations the tile path does not cover."""


def trace(region: Region, values: list) -> tuple[_Tiled, list] | None:
    """(the result's trace, the operation nodes whose evaluations the rules count, in
    order), or None when the region is not row-local on these operands (module doc)."""
    tiled = [v for v in values if type(v) is DistributedArray]
    layout = tiled[0].layout
    if any(not _aligned(v.layout, layout) for v in tiled):
        return None
    for v in values:
        if type(v) is DistributedArray or type(v) in (bool, int, float):
            continue
        if not isinstance(v, (np.ndarray, np.generic)) or not _whole_where_split(
                np.shape(v), layout):
            return None
    dispatched: list = []
    try:
        result = _walk(region.root, values, layout, dispatched)
    except _Declined:
        return None
    except Exception:
        # a plain operation failed (its own located error, raised as node by node, where
        # the tiled operations before it passed): counted as they would be
        for node in dispatched:
            passed((node.primitive, node.loc))
        raise
    return (result, dispatched) if isinstance(result, _Tiled) else None


def _aligned(a: Any, b: Any) -> bool:
    """Layouts of one shape and boxes (a 1-d one's orientation key may differ: the
    element-wise rule reads them alike, ``broadcasting.aligned_driver``)."""
    return a is b or (a.boxes == b.boxes and a.shape == b.shape)


def _whole_where_split(plain_shape: tuple, layout: Any) -> bool:
    """A plain operand broadcasts into ``layout``'s shape without widening it, and every
    tile reads all of it (its axes of length > 1 are whole in every tile)."""
    shape = layout.shape
    if len(plain_shape) > len(shape):
        return False
    try:
        if np.broadcast_shapes(shape, plain_shape) != shape:
            return False
    except ValueError:
        return False
    lead = len(shape) - len(plain_shape)
    return all(box[lead + j] == (0, shape[lead + j])
               for box in layout.boxes for j, n in enumerate(plain_shape) if n != 1)


def _walk(op: Op, values: list, layout: Any, dispatched: list) -> Any:
    """``op``'s trace (a :class:`_Tiled`) or its plain value, its operands first in the
    order ``regions.interpret`` evaluates them."""
    from ..primitives.registry import lookup
    from ..primitives.rules import DISTRIBUTION
    from .primitives.dist_matrixops.elementwise import tilewise
    from .primitives.dist_matrixops.global_reductions import (
        every_tile_whole_along,
        reduced_layout,
    )
    args = []
    for kind, x in op.args:
        if kind == "op":
            args.append(_walk(x, values, layout, dispatched))
        elif kind == "leaf":
            args.append(values[x])
        else:
            args.append(x)
    tiled = [a for a in args if type(a) in (_Tiled, DistributedArray)]
    if not tiled:
        return call(op.node, op.impl, args)      # plain: computed, as node by node
    node = op.node
    rule = DISTRIBUTION.get(node.primitive)
    if op.reduction:
        if node.primitive not in _LOCAL_REDUCTIONS or len(tiled) != 1 or tiled[0] is not args[0]:
            raise _Declined
        axis, keep = (list(args[1:]) + [None, None])[:2]
        if any(a is not None for a in args[3:]):
            raise _Declined
        axes = _axes(axis, len(layout.shape))
        probe = _probe(layout)
        if axes is None or len(axes) == len(layout.shape) or \
                not every_tile_whole_along(probe, axes):
            raise _Declined          # a plain answer, or a reduction that communicates
        result_layout = reduced_layout(probe, axes, bool(keep))
    else:
        spec = lookup(node.primitive)
        if not (rule is tilewise or (rule is None and spec is not None and spec.elementwise)):
            raise _Declined
        if any(not _aligned(a.layout, layout) for a in tiled if type(a) is _Tiled):
            raise _Declined          # (every operation's result keeps the one layout)
        for a in args:
            if type(a) not in (_Tiled, DistributedArray) and not (
                    type(a) in (bool, int, float) or (
                        isinstance(a, (np.ndarray, np.generic))
                        and _whole_where_split(np.shape(a), layout))):
                raise _Declined
        result_layout = tiled[0].layout      # the driver's, as the rule's
    driver = tiled[0]
    result = _Tiled(driver.name, driver.generation + 1, result_layout, driver.plain,
                    _result_dtype(op, args), driver.storage)
    # (digests merged as ``darray._dispatch`` merges them: by a rule, or an element-wise
    # kernel without one, tile by tile)
    plain = plain_operands([_PROBE if type(a) is _Tiled else a for a in args],
                           node.primitive, node.loc)
    if plain:
        result.plain = merged(result.plain, plain)
    dispatched.append(node)
    return result


#: op -> {operand kinds: the result's dtype, or None (declined)}: the answer depends on
#: the operands' dtypes, kinds and (Python ints: NumPy refuses one out of a tile's
#: range) values alone, so it is asked once per operation and kinds (a memo of a pure
#: function of them: nothing here changes the plan or its choices)
_DTYPES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_MEMO_LIMIT = 256        # kinds kept per operation (distinct Python ints: forgotten then)


def _result_dtype(op: Op, args: list) -> np.dtype:
    """The dtype of ``op``'s result on ``args``, asked of its kernel before anything
    runs, on one-element stand-ins of the operands' dtypes (Python numbers as they
    are); :class:`_Declined` where the operation can fail on the tiles (module doc:
    node by node then raises it at its own site, agreed)."""
    tiled = [type(a) in (_Tiled, DistributedArray) for a in args]
    if op.node.primitive == "power" and len(args) >= 2 and \
            _kind(args[0]) in "biu" and _kind(args[1]) in "biu" and (
                tiled[1] or bool(np.any(np.asarray(args[1]) < 0))):
        raise _Declined      # an integer base to an exponent that is (may be) negative
    key = tuple(_operand_key(a, is_tiled) for a, is_tiled in zip(args, tiled))
    known = _DTYPES.get(op)
    if known is None or len(known) >= _MEMO_LIMIT:
        known = _DTYPES[op] = {}
    if key not in known:
        stand_ins = [np.ones((1,) * len(a.layout.shape), a.dtype) if is_tiled
                     else np.ones((1,) * a.ndim, a.dtype) if isinstance(a, np.ndarray)
                     else a.dtype.type(1) if isinstance(a, np.generic) else a
                     for a, is_tiled in zip(args, tiled)]
        try:
            with np.errstate(all="ignore"):
                known[key] = np.asarray(op.impl(*stand_ins)).dtype
        except Exception:  # noqa: BLE001 - NumPy answers "which dtype" by raising
            known[key] = None
    if known[key] is None:
        raise _Declined
    return known[key]


def _operand_key(value: Any, is_tiled: bool) -> tuple:
    """What :func:`_result_dtype`'s answer depends on of an operand."""
    if is_tiled:
        return ("tiled", value.dtype.str, len(value.layout.shape))
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.ndim)
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.str)
    return (type(value), value) if type(value) is int else (type(value),)


def _kind(value: Any) -> str:
    """A NumPy dtype kind (``b i u f c`` ...) of an operand: a tiled one's, a plain one's,
    a Python number's."""
    if type(value) in (_Tiled, DistributedArray) or isinstance(value, (np.ndarray, np.generic)):
        return value.dtype.kind
    return {bool: "b", int: "i", float: "f", complex: "c"}.get(type(value), "O")


def warnings_raise() -> bool:
    """Would a NumPy ``RuntimeWarning`` (``divide by zero encountered in log``) be raised
    as an error here (``warnings`` filters, ``-W error``, pytest's ``filterwarnings``)?
    The first filter that takes every such warning decides; one that takes some of them
    and raises counts as raising (declined when in doubt)."""
    for action, message, category, module, _line in warnings.filters:
        if not issubclass(RuntimeWarning, category):
            continue
        if (message is None or not message.pattern) and (module is None or not module.pattern):
            return action == "error"
        if action == "error":
            return True
    return False


def _axes(axis: Any, ndim: int) -> tuple[int, ...] | None:
    """The reduced axes, or None for an axis out of range or repeated (the rule's own
    error, node by node)."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    if any(not -ndim <= a < ndim for a in axes):
        return None
    normal = tuple(sorted(a % ndim for a in axes))
    return normal if len(set(normal)) == len(normal) else None


def _probe(layout: Any) -> DistributedArray:
    """A tiled array of ``layout`` without data, for the rules' layout questions."""
    return DistributedArray(np.empty((0,)), layout, "", 0)


#: stands for a tiled intermediate among an operation's operands (no digest)
_PROBE = DistributedArray(np.empty((0,)), None, "", 0)


class TileRunner:
    """``fusion.hot``'s runner of regions with tiled leaves (``hot.set_tiled_runner``)."""

    kind = DistributedArray

    @staticmethod
    def gram(rows: Any, values: list) -> Any:
        """A gram row pass with a tiled ``x`` (``gram_tiles.gram_on_tiles``)."""
        from .gram_tiles import gram_on_tiles
        return gram_on_tiles(rows, values)

    @staticmethod
    def size(value: DistributedArray) -> int:
        return value.size

    @staticmethod
    def run(region: Region, values: list, compute: Any) -> Any:
        from ..autodiff.recording import active_tape
        if active_tape() is not None or not all(
                type(v) in (DistributedArray, bool, int, float)
                or isinstance(v, (np.ndarray, np.generic)) for v in values):
            return NotImplemented    # a tape refuses tiled operands; futures: not yet here
        if warnings_raise():
            return NotImplemented    # a tile's NumPy warning would be an error (module doc)
        made = trace(region, values)
        if made is None:
            return NotImplemented
        result, dispatched = made
        root = region.root.node
        local = [v.local if type(v) is DistributedArray else v for v in values]
        # the trace declined what may fail on the tiles: the operations before the root
        # pass, as node by node; the kernel's own fault is the root's, agreed there
        for node in dispatched[:-1]:
            passed((node.primitive, node.loc))   # counted as the rules' evaluations are

        def on_tiles() -> DistributedArray:
            try:
                out = np.asarray(compute(local))
            except Exception as e:  # noqa: BLE001 - located at the root, never retried
                raise located_at(root, e) from e
            box = result.layout.boxes[api.find_here()]
            want = tiling.box_shape(box)
            if out.shape != want:
                raise PhylanxValueError(f"the fused result of a tile of shape {want} has "
                                        f"shape {out.shape}")
            tiled = DistributedArray(out, result.layout, result.name, result.generation,
                                     result.storage)
            tiled.plain = result.plain
            return tiled
        return guarded((root.primitive, root.loc), lambda e: located_at(root, e), on_tiles)


hot.set_tiled_runner(TileRunner)

__all__ = ["TileRunner", "trace"]
