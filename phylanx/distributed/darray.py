"""``DistributedArray``: a tiled array as a PhySL value (reference §4.2).

One object per rank holds this rank's tile (``.local``), the :class:`~.tiles.Layout`
of all tiles (global shape, one box per locality) and the global name and
generation.  It is an ordinary PhySL value: variables hold it, decorated functions
take and return it, ``phylanx.evaluate`` accepts it.

**How kernels see it.**  A tiled array means the whole array, so no kernel ever
computes on it as if its tile were the whole.  The runtime dispatches operands by
kind before a kernel runs (``runtime.nodes.register_operand_kind``, registered
below): a primitive declared ``takes_tiled`` (the distributed primitives, lists,
printing) gets the DistributedArray as it is; any other applies its rule from the
``DISTRIBUTION`` table (element-wise ones tile by tile with NumPy's broadcasting,
``broadcasting.py``; ``shape``, ``size``, ``len``, ``transpose`` ... the global answer,
see ``primitives/dist_matrixops/global_view.py``; reductions and products,
``global_reductions.py``, ``global_products.py``); an element-wise primitive without a
rule of its own goes tile by tile too; any other computes NumPy's answer from the
gathered operands and re-tiles it (``gather_fallback.py``, with a once-per-line
:class:`~.errors.PhylanxPerformanceWarning`); only a primitive with side effects, which
every rank would repeat, raises a located :class:`~.errors.PhylanxDistributionError`
that names the ``_d`` form, if there is one, and the ways to go on:
``all_gather_d(x)`` for the whole array, ``local_tile(x)`` for this locality's tile.
With several localities rules communicate: subtrees still run concurrently, but each
communicates only after the work before it in program order has ended
(``runtime/comm_order.py``), so every rank communicates in the same order.  A tiled
array nested in a list is
caught when the kernel converts it (``__array__`` raises :class:`TiledOperand`
inside an evaluation): ``on_tiled_operand`` translates that into the same located
error where the runtime locates a kernel's exception (the kernel is not run again).  NumPy
element-wise ufuncs and operators (``x + 1``, ``np.sqrt(x)``) go tile by tile through
``__array_ufunc__``; other ufunc calls (``np.matmul``, ``np.add.reduce``) refuse
inside an evaluation.  Outside one, in plain Python, ``x.shape``, ``len(x)`` and
``x.size`` are global and ``np.asarray(x)``, NumPy reductions and products gather
the whole array (a collective: every rank must make the same call); ``x[key]`` and
``x[key] = v`` take global indices (``dist_matrixops/global_subscripts.py``).
"""
from __future__ import annotations

import copy
from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from .. import distributed as api
from ..errors import PhylanxError, PhylanxTypeError, PhylanxValueError
from ..runtime import started
from ..runtime.cancel import context
from ..source import user_line
from . import lockstep, tiles
from .one_rank_errors import guarded
from .storages import ANY, Storage, remember
from .tiles import Layout


class TiledOperand(Exception):  # noqa: N818 - a signal translated into the refusal
    """Raised when a kernel tries to turn a DistributedArray into a NumPy array."""


def in_evaluation() -> bool:
    return context.token is not None


class DistributedArray(NDArrayOperatorsMixin):
    """This rank's tile of a tiled array, with the layout of all tiles and its name."""

    def __phylanx_value__(self) -> DistributedArray:
        # values.from_python asks a PhySL-aware object for its value: a tiled array is one
        return self
    __hash__ = object.__hash__

    #: ((digest, name), ...) of the plain operands this array was computed with or
    #: stored from, where no message was sent: checked at its next exchange
    #: (``lockstep.label_of``; ranks must pass them alike)
    plain: tuple = ()

    def __init__(self, local: np.ndarray, layout: Layout, name: str, generation: int = 0,
                 storage: Storage = ANY):
        self.local = local
        self.layout = layout
        self.name = name
        self.generation = int(generation)
        #: which memory the tiles are (``storages.py``): the stores that change this
        #: array's gathered copies are those into arrays of a storage it may share
        self.storage = storage
        remember(local)

    # -- what it is ------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The global shape."""
        return self.layout.shape

    @property
    def ndim(self) -> int:
        return len(self.layout.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.layout.shape))

    @property
    def dtype(self) -> np.dtype:
        return self.local.dtype

    @property
    def box(self) -> tuple[tuple[int, int], ...]:
        """This rank's spans (global, half-open), in axis order."""
        return self.layout.boxes[api.find_here()]

    @property
    def full_name(self) -> str:
        """``name/<generation>`` (just ``name`` for generation 0)."""
        return self.name if self.generation == 0 else f"{self.name}/{self.generation}"

    def tile(self) -> list:
        """This rank's ``list("tile", ...)`` annotation."""
        return self.layout.tile(api.find_here())

    def annotation(self) -> list:
        """The localities annotation of reference §4.2, as a PhySL list."""
        count = len(self.layout.boxes)
        return ["localities", ["locality", np.int64(api.find_here()), np.int64(count)],
                *[[f"meta_{r}", self.layout.tile(r)] for r in range(count)],
                ["name", self.name, np.int64(self.generation)]]

    def derive(self, local: np.ndarray, layout: Layout | None = None, suffix: str = "",
               name: str | None = None, new_memory: bool = False) -> DistributedArray:
        """A result computed from this array: same base name (plus ``suffix``), the
        next generation; or ``name`` (generation 0) if one was given.  Its tiles may be
        views of this array's (a slice, a transpose), so it has this array's
        :class:`Storage`, unless the caller allocated them (``new_memory``: every
        rank's tile is memory of its own, whatever the operands)."""
        storage = Storage(self.name + suffix) if new_memory else self.storage
        if name:
            result = DistributedArray(local, layout or self.layout, name, 0, storage)
        else:
            result = DistributedArray(local, layout or self.layout, self.name + suffix,
                                      self.generation + 1, storage)
        result.plain = self.plain
        return result

    # -- conversions -----------------------------------------------------------------
    def gather(self) -> np.ndarray:
        """Collective: the whole array, on every rank."""
        # (outside an evaluation: at the user's line, np.asarray(x) and bool(x) too)
        with api._located(None if in_evaluation() else user_line(), "gather"), \
                lockstep.operation(lockstep.label_of("gather", (self,))):
            return tiles.gather(self.local, self.layout, final=True)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if in_evaluation():
            raise TiledOperand(self.full_name)
        whole = self.gather()
        return whole if dtype is None else whole.astype(dtype)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any):
        if method == "__call__" and "out" not in kwargs and ufunc.signature is None:
            # element-wise only: a generalized ufunc (np.matmul) is no tile-by-tile op.
            # ``where`` is an operand like the others (each tile takes its part of the
            # mask): passed whole, a mask that broadcast to the tile but not to the
            # global shape was applied to every tile alike
            count = len(inputs)
            where = kwargs.pop("where", True)
            line = None if in_evaluation() else user_line()
            with api._located(line, ufunc.__name__):
                if where is True:
                    result = elementwise(lambda *xs: ufunc(*xs, **kwargs), inputs)
                else:
                    result = elementwise(
                        lambda *xs: ufunc(*xs[:count], where=xs[count], **kwargs),
                        (*inputs, where))
            if line is not None and type(result) is DistributedArray:
                # from Python (``x * w``): the plain operands stand for one value, as in
                # a rule (``_dispatch``, which does this inside an evaluation); computed
                # without a message, the result carries them to its next one
                plain = plain_operands(inputs if where is True else (*inputs, where),
                                       ufunc.__name__, line)
                if plain:
                    result.plain = merged(result.plain, plain)
            return result
        out = kwargs.get("out", ())
        out = out if type(out) is tuple else (out,)
        if method == "__call__" and ufunc.signature is None and len(out) == 1 and \
                type(out[0]) is DistributedArray:
            # ``x += v`` in Python (NumPy's mixin passes out=(x,)): the result computed
            # tile by tile, then stored into x (a store: copies standing for views of
            # x see it).  Gathering here instead handed NumPy x as out again: recursion
            with api._located(None if in_evaluation() else user_line(), ufunc.__name__):
                return _into(out[0], ufunc, inputs,
                             {k: v for k, v in kwargs.items() if k != "out"})
        if in_evaluation():
            raise TiledOperand(self.full_name)
        plain = [x.gather() if isinstance(x, DistributedArray) else x for x in inputs]
        return getattr(ufunc, method)(*plain, **kwargs)

    @property
    def T(self) -> DistributedArray:  # noqa: N802 - NumPy's name
        """``x.T``: NumPy's transposed view (its tile a view of this one's)."""
        return self.transpose()

    def transpose(self, *axes: Any) -> DistributedArray:
        """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``, as
        NumPy's: a view (``transpose_d``), the spans permuted."""
        from .primitives.dist_matrixops.layout_ops import transpose_d
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        with api._located(None if in_evaluation() else user_line(), "transpose"):
            return transpose_d(self, list(axes) if axes else None)

    def __bool__(self) -> bool:
        if self.size != 1:
            raise PhylanxValueError(f"the truth value of a distributed array with {self.size} "
                                   "elements is ambiguous; use all() or any()")
        return bool(self.gather().reshape(()))

    def __len__(self) -> int:
        return self.layout.shape[0]

    def __getitem__(self, key: Any) -> Any:
        """``x[key]`` with global indices, NumPy's answer (a collective when it sends:
        every rank makes the same call); see ``dist_matrixops/global_subscripts.py``."""
        from .primitives.dist_matrixops import global_subscripts as subscripts
        with api._located(None if in_evaluation() else user_line(), "__getitem__"):
            return subscripts.read(self, subscripts.python_key(self, key))

    def __setitem__(self, key: Any, value: Any) -> None:
        """``x[key] = value`` with global indices: each rank writes its tile's part."""
        from .primitives.dist_matrixops import global_subscripts as subscripts
        where = None if in_evaluation() else user_line()
        with api._located(where, "__setitem__"):
            subscripts.write(self, subscripts.python_key(self, key), value, where)

    def __reduce_ex__(self, protocol: Any):
        # a pickle holds this rank's tile only: unpickled elsewhere (a file, another
        # process, a broadcast or all_gather, which pickle what is not a NumPy array) it
        # passed for the whole array, the other tiles zeros or another rank's rows
        raise PhylanxTypeError(
            f"the distributed array {self.full_name!r} cannot be pickled (it holds only "
            "this locality's tile): gather it first (x.gather()), or send x.local and "
            "the layout explicitly", None if in_evaluation() else user_line(), "pickle")

    def __copy__(self) -> DistributedArray:
        result = DistributedArray(self.local, self.layout, self.name, self.generation,
                                  self.storage)
        result.plain = self.plain
        return result

    def __deepcopy__(self, memo: dict) -> DistributedArray:
        result = DistributedArray(copy.deepcopy(self.local, memo), self.layout, self.name,
                                  self.generation, copy.deepcopy(self.storage, memo))
        result.plain = self.plain
        return result

    def __repr__(self) -> str:
        return (f"DistributedArray({self.full_name!r}, shape={self.shape}, "
                f"tile={list(self.box)}, local={self.local!r})")

    __str__ = __repr__


# -- element-wise operations -----------------------------------------------------------
def _is_tiled(value: Any) -> bool:
    return type(value) is DistributedArray


def _into(out: DistributedArray, ufunc: np.ufunc, inputs: tuple, kwargs: dict) -> Any:
    """``ufunc(*inputs, out=out, **kwargs)`` for a tiled ``out``: NumPy's casting check
    first (on empty stand-ins: ``x += 0.5`` of an int ``x`` is NumPy's error, never a
    quiet cast), then the result stored into ``out`` whole."""
    def stand_in(a: Any) -> Any:
        if isinstance(a, DistributedArray):
            return np.empty((0,), a.dtype)
        return a if np.ndim(a) == 0 else np.empty((0,), np.asarray(a).dtype)
    if "where" in kwargs:
        from ..errors import PhylanxValueError
        raise PhylanxValueError(f"{ufunc.__name__}(..., out=, where=) into a distributed "
                                "array is not supported: store np.where(mask, new, x) into it")
    ufunc(*map(stand_in, inputs), out=np.empty((0,), out.dtype), **kwargs)
    out[...] = out.__array_ufunc__(ufunc, "__call__", *inputs, **kwargs)
    return out


def elementwise(fn: Any, args: Any) -> Any:
    """``fn`` tile by tile with NumPy's broadcasting against the global shapes
    (``broadcasting.py``: plain operands sliced to each tile, tiled ones of other
    layouts fetched, the layout chosen by the bytes it moves)."""
    from .broadcasting import elementwise as tile_by_tile
    return tile_by_tile(fn, args)


#: the distributed counterparts whose names are not ``<name>_d``; the others are found
#: by name in the registry (``sum`` -> ``sum_d``, ``dot`` -> ``dot_d``)
_GLOBAL_FORMS = {"amax": "max_d", "amin": "min_d", "matmul": "dot_d (or cannon_product_d)",
                 "slice": "slice_row_d or slice_column_d",
                 "__subscript": "slice_row_d or slice_column_d",
                 "conv1d": "conv1d_d"}


def global_form(primitive: str) -> str | None:
    """The distributed primitive that gives ``primitive``'s global answer, if any."""
    from ..primitives.registry import lookup
    spec = lookup(primitive)
    name = spec.name if spec is not None else primitive
    if name in _GLOBAL_FORMS:
        return _GLOBAL_FORMS[name]
    counterpart = lookup(name + "_d")
    # (a creator such as identity_d is no counterpart: it takes no tiled array)
    return counterpart.name if counterpart is not None and counterpart.takes_tiled else None


def refusal(primitive: str, value: Any = None) -> PhylanxError:
    """The error for a tiled array given to ``primitive``, which has no rule for it."""
    from .errors import PhylanxDistributionError
    what = (f"the distributed array {value.full_name!r} (global shape {value.shape})"
            if type(value) is DistributedArray else "a distributed array")
    form = global_form(primitive)
    use = (f"use {form} for the global answer (in Python: from phylanx.ops import ...), or "
           if form else "")
    return PhylanxDistributionError(
        f"no distribution rule: it would only see this locality's tile of "
        f"{what}; {use}gather the whole array first with all_gather_d(x) (x.gather() in "
        "Python), or take this locality's tile explicitly with local_tile(x)",
        primitive=primitive)


def dispatch(node: Any, impl: Any, args: tuple) -> Any:
    """The runtime's dispatcher for tiled operands (``runtime.nodes``): the primitive's
    ``DISTRIBUTION`` rule, else NumPy's answer from the gathered operands
    (``gather_fallback.py``), else (side effects) a located refusal.  Never the kernel
    on a tile."""
    return guarded((node.primitive, node.loc), lambda e: located_at(node, e),
                   _dispatch_at_site, node, impl, args)


def _dispatch_at_site(node: Any, impl: Any, args: tuple) -> Any:
    """:func:`_dispatch` with the node as the site of the operations it runs (its
    static id joins their labels: ``lockstep.enter_site``); ``guarded``'s wait for
    its turn, after it, runs outside the site (the thread may run other tasks then)."""
    outer = lockstep.enter_site(node.primitive, node.loc, node.plan)
    # the node evaluated in start mode: its own rule may start its final collective
    # and leave the wait to the statement's join (runtime/started.py)
    outer_rule = started.enter_rule(node)
    try:
        return _dispatch(node, impl, args)
    finally:
        started.leave_rule(outer_rule)
        lockstep.leave_site(outer)


def located_at(node: Any, error: BaseException) -> Any:
    """``error`` located at ``node`` (a PhylanxError standing for it, if it is not one)."""
    return node.locate(error) if isinstance(error, PhylanxError) else node.wrap(error)


def _dispatch(node: Any, impl: Any, args: tuple) -> Any:
    from ..autodiff.recording import active_tape
    from ..primitives.registry import lookup
    from ..primitives.rules import DISTRIBUTION
    tape = active_tape()
    if tape is not None:
        # a rule computes on parts of the operands the gradient's tape does not know:
        # the dependence on a differentiated value would be lost (a zero gradient)
        tape.refuse_tiled(node.primitive, args, node)
    rule = DISTRIBUTION.get(node.primitive)
    spec = lookup(node.primitive)
    if rule is None and (spec is None or spec.side_effects):
        # every rank would repeat the effect (random numbers, a file written)
        raise refusal(node.primitive, next((a for a in args if _is_tiled(a)), None))
    # the plain operands stand for one value: their digests go into this operation's
    # messages, or (none sent: a rule or an element-wise kernel tile by tile) with the
    # tiled result into its next one, whichever way it is computed (issue 28)
    plain = plain_operands(args, node.primitive, node.loc)
    with lockstep.plain_operands_of_rule(plain):     # (none: not the caller's)
        result = _global_answer(node, impl, args, rule, spec)
    if plain and type(result) is DistributedArray and (
            node.primitive in _CHANGE_THEIR_TARGET or not any(result is a for a in args)):
        # computed here from them, maybe without a message: its next carries them
        # (an operand passed through is not changed: a store into it carries them; the
        # target ``x`` of ``x op= w`` is, and takes ``w``'s digest on)
        result.plain = merged(result.plain, plain)
    return result


#: the primitives whose result is their first operand changed in place (``x op= e``)
_CHANGE_THEIR_TARGET = frozenset({"__inplace", "__update"})


def _global_answer(node: Any, impl: Any, args: tuple, rule: Any, spec: Any) -> Any:
    """The primitive's answer for the whole arrays: its rule, else (element-wise) tile
    by tile, else NumPy's answer from the gathered operands."""
    if rule is not None:
        result = rule(impl, list(args))
        if result is not NotImplemented:    # (a rule declines operands it does not cover)
            return result
    if spec is not None and spec.elementwise:
        # an element-wise kernel without a rule of its own yet (the rule table covers
        # the flag ``distributable``): tile by tile is its global answer
        if node.primitive == "power":
            _integer_power_of_plain_exponent(impl, args)
        return elementwise(impl, args)
    if spec is None or spec.side_effects:
        raise refusal(node.primitive, next((a for a in args if _is_tiled(a)), None))
    from .gather_fallback import gather_and_compute
    return gather_and_compute(node.primitive, impl, args, node.loc)


#: a tiled array carries at most this many plain operands (by name; a loop's operand
#: combines its digests)
_CARRIED = 8


def _integer_power_of_plain_exponent(impl: Any, args: tuple) -> None:
    """Raise, on every rank, what NumPy raises for a tiled integer base to a plain
    exponent it refuses (a negative integer, a Python int out of the base's range),
    when the whole result is not empty: every exponent element then meets some base
    element, but maybe none of this rank's tile (an empty tile, a column tiling whose
    plain row has its negative elsewhere), where NumPy says nothing; the ranks that
    raised would end the job (a one-rank error).  Asked of the kernel on a one-element
    stand-in of the base's tile with the whole exponent (the values of a tiled
    exponent are not known to every rank: not here)."""
    if len(args) != 2 or type(args[0]) is not DistributedArray or _is_tiled(args[1]):
        return
    base, exponent = args
    try:
        empty = 0 in np.broadcast_shapes(base.shape, np.shape(exponent))
    except ValueError:
        return          # (the tile-by-tile path raises its own broadcasting error)
    if base.dtype.kind in "biu" and not empty:
        impl(np.ones((1,) * base.ndim, base.dtype), exponent)


def plain_operands(args: Any, primitive: str, where: Any) -> tuple:
    """((digest, name), ...) of the numbers and plain arrays among a rule's operands,
    which every rank must pass alike (``agreement.operand_digest``)."""
    from ..values import type_name
    from .agreement import operand_digest
    found = []
    for i, a in enumerate(args):
        if type(a) is DistributedArray:
            continue
        digest = operand_digest(a)
        if digest is not None:
            # (the location's text only when there is an operand to name)
            at = f" at {where}" if where is not None else ""
            found.append((digest, f"operand {i + 1} of {primitive} ({type_name(a)}){at}"))
    return tuple(found)


def merged(carried: tuple, plain: tuple) -> tuple:
    """``carried`` with ``plain`` added: one entry per name (digests of one name
    combined, as a loop's operand); past :data:`_CARRIED` names the oldest two become
    one entry (combined, never dropped: a difference not yet checked stays found)."""
    from .agreement import combine
    by_name = {name: digest for digest, name in carried}
    for digest, name in plain:
        by_name[name] = combine((by_name[name], digest)) if name in by_name else digest
    entries = [(d, n) for n, d in by_name.items()]
    while len(entries) > _CARRIED:
        (d0, n0), (d1, n1) = entries[:2]
        entries[:2] = [(combine((d0, d1)), f"{n0}, or {n1}")]
    return tuple(entries)


def on_tiled_operand(node: Any, impl: Any, args: Any, exc: BaseException) -> Any:
    """The runtime's failure hook: a kernel met a tiled array its operands held (inside
    a list: top-level operands were dispatched before the kernel ran)."""
    if not isinstance(exc, TiledOperand):
        return NotImplemented       # failed for another reason: its own error
    from ..runtime.nodes import takes_kind
    if takes_kind(node):
        return NotImplemented       # a distributed primitive failed: its own error
    raise refusal(node.primitive)


def as_tiled(value: Any, what: str = "argument") -> DistributedArray:
    """``value`` if it is a DistributedArray, else a located-by-caller type error."""
    if type(value) is not DistributedArray:
        from ..values import type_name
        raise PhylanxTypeError(f"{what} must be a distributed array (from annotate_d, "
                               f"constant_d, ...), got a {type_name(value)}")
    return value


def _register() -> None:
    from ..runtime import nodes
    from .bootstrap import launched_by_mpi
    nodes.register_operand_kind(DistributedArray, dispatch)
    if launched_by_mpi() and api.num_localities() > 1:
        # rules and the gather fallback communicate: every rank communicates in program
        # order, concurrent subtrees included (runtime/comm_order.py)
        from ..runtime import comm_order
        from . import settings
        comm_order.enable(timeout=lambda: settings.get("collective_timeout"))
        from . import local_work  # noqa: F401 - registers which subtrees cannot communicate
    from . import fused_tiles  # noqa: F401 - fused regions run on the tiles (their trace)
    if on_tiled_operand not in nodes.operand_handlers:
        nodes.operand_handlers.append(on_tiled_operand)


_register()

__all__ = ["DistributedArray", "PhylanxError", "TiledOperand", "as_tiled", "dispatch",
           "elementwise", "global_form", "on_tiled_operand",
           "refusal"]
