"""The tape: primitive applications recorded while a function runs, and the reverse pass.

Dependence on the differentiated inputs is tracked by *identity*: ``producer`` maps
``id(value)`` of every value that depends on an input to the tape entry that made it
(inputs are leaf entries).  Entries keep their arguments and outputs alive (and the tape
the values whose entry took a copy before a change: ``renamed``), so an id cannot be
reused while the tape exists.  An application is recorded only when one of its
operands is tracked and its output is a new float value or a container holding one;
outputs that are one of the operands (a selection), integers and booleans carry no
gradient and are not recorded.  Lists, tuples and dicts are never tracked by identity:
each use derives their dependence from their items (see :mod:`.containers`).

In-place changes (``x += v``, ``x[i] = v``, ``x.fill(0)``) would corrupt the values kept on
the tape, so :meth:`Tape.before_mutation` replaces the tape's references to the changed
memory by copies first, and values that see the change through another name (views) are
marked so that a gradient flowing through them is an error instead of a wrong number.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import PhylanxError, PhylanxRuntimeError
from ..primitives.registry import lookup
from ..primitives.rules import apply_vjp, unbroadcast
from ..runtime.nodes import registered_kind
from ..values import Function
from . import containers
from .containers import carries_gradient, is_container, is_float_value
from .table import VJP

#: entry names that are not primitives
LEAF = "<input>"
CHANGED_IN_PLACE = "<changed in place>"
CONTAINER = "<container>"     # a use of a list/tuple/dict: its parents are its items'
ITEM = "<item>"               # a new float item of a container a primitive returned
UNBROADCAST = "<unbroadcast>"  # a cotangent fitted to its operand (nested grad's record)
COMPLEX_VALUES = "<complex values>"  # a rule for real values given complex ones (changed_by:
                                     # the primitive; rules_complex.py)


class PhylanxGradientError(PhylanxRuntimeError):
    """A gradient cannot be computed (no VJP rule on the path, unsupported construct)."""


@dataclass(eq=False)
class Entry:
    """One recorded application: ``out = name(*args)`` evaluated at ``node``."""

    index: int
    name: str
    args: list
    out: Any
    node: Any                         # the tree node (location), None for leaves
    parents: list                     # per argument: the producing Entry, or None
    loc: Any = None
    keys: Any = None                  # <container> of a dict: its keys; <item>: its path
    changed_by: Any = None            # <changed in place>: the array whose change it was
    saved: Any = None                 # what the forward kept for the rule (saved.py)


def _same_memory(a: Any, b: Any) -> bool:
    """``a`` and ``b`` are arrays over exactly the same elements of the same memory."""
    return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
            and a.strides == b.strides and a.dtype == b.dtype
            and a.__array_interface__["data"][0] == b.__array_interface__["data"][0])


def _is_complex(value: Any) -> bool:
    return type(value) is complex or getattr(getattr(value, "dtype", None), "kind", "") == "c"


def _holds_complex(value: Any) -> bool:
    """A complex value, or a container with one among its items (``norm([z0, z1])``)."""
    if is_container(value):
        return any(_is_complex(v) for _, v in containers.float_leaves(value))
    return _is_complex(value)


def _root(array: np.ndarray) -> np.ndarray:
    """The array owning the memory of ``array`` (itself unless it is a view)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


class Tape:
    """Recorded applications, in evaluation order (a topological order of the graph)."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.producer: dict[int, Entry] = {}
        # id of a memory owner -> (entry, position) of every array on the tape using that
        # memory (position -1: the output), for :meth:`before_mutation`
        self.holders: dict[int, list[tuple[Entry, int]]] = {}
        self.twin_of = None   # set by the recorder: Function -> its recording twin
        # differentiated arguments computed on the caller's memory (api._as_input): id of
        # the memory owner -> the caller's array; saved (array, copy) before a change
        self.caller_memory: dict[int, np.ndarray] = {}
        self.saved_caller_memory: list[tuple[np.ndarray, np.ndarray]] = []
        # tasks of parallel_block/async record from worker threads too
        self.lock = threading.RLock()
        # id of a container -> its latest <container> entry, reused while its items
        # still have the same entries (the entry keeps the container alive)
        self.uses: dict[int, Entry] = {}
        # the tape of the grad this one's function was called in (``grad(grad(f))``):
        # it records this tape's function and reverse pass too (recording.record)
        self.outer: Tape | None = None
        # a complex value was recorded: operands are checked from then on (rules_complex)
        self.complex_seen = False
        # values whose entry now holds a copy (before_mutation) while their id still names
        # that entry: held here, so that the id names no other value while the tape lives
        # (a change that failed, caught by ``try``, left the key; a constant made later at
        # the dropped array's address was taken for it: a gradient where none flows)
        self.renamed: list[Any] = []

    def chain(self) -> list[Tape]:
        """This tape and its outer ones, innermost first."""
        tapes, tape = [], self
        while tape is not None:
            tapes.append(tape)
            tape = tape.outer
        return tapes

    # -- recording ----------------------------------------------------------
    def leaf(self, value: Any) -> Entry:
        entry = self._append(LEAF, [], value, None, [])
        return entry

    def _append(self, name: str, args: list, out: Any, node: Any, parents: list,
                keys: Any = None) -> Entry:
        with self.lock:
            return self._append_locked(name, args, out, node, parents, keys)

    def _append_locked(self, name: str, args: list, out: Any, node: Any, parents: list,
                       keys: Any = None) -> Entry:
        entry = Entry(len(self.entries), name, args, out, node, parents,
                      getattr(node, "loc", None), keys)
        self.entries.append(entry)
        if not is_container(out):      # containers are derived from their items (module doc)
            self.producer[id(out)] = entry
        for pos, value in enumerate(args):
            self._hold(entry, pos, value)
        self._hold(entry, -1, out)
        return entry

    def _hold(self, entry: Entry, pos: int, value: Any) -> None:
        # a 0-d array too: ``t *= w`` changes it in place, as NumPy's (ip46)
        if isinstance(value, np.ndarray):
            self.holders.setdefault(id(_root(value)), []).append((entry, pos))

    def tracked(self, value: Any) -> Entry | None:
        """The entry ``value`` depends on: its producer; for a container, a
        ``<container>`` entry whose parents are the entries of the items it holds now."""
        if not is_container(value):
            return self.producer.get(id(value))
        held = containers.items(value)
        parents = [self.tracked(v) for v in held]
        if not any(p is not None for p in parents):
            return None
        keys = list(value.keys()) if isinstance(value, dict) else None
        last = self.uses.get(id(value))
        if last is not None and last.keys == keys and len(last.parents) == len(parents) \
                and all(a is b for a, b in zip(last.parents, parents)) \
                and all(a is b for a, b in zip(last.args, held)):
            return last                # nothing changed since the last use
        entry = self._append(CONTAINER, held, value, None, parents, keys)
        self.uses[id(value)] = entry
        return entry

    def record(self, name: str, args: tuple | list, out: Any, node: Any,
               hidden: Entry | None = None, opaque: bool = False, saved: Any = None) -> None:
        """Append ``out = name(*args)`` if it depends on a tracked value (see module doc).

        ``hidden``: an entry ``out`` depends on although no operand is tracked (a function
        the primitive called computed it); the entry then has no usable rule.
        ``opaque``: the primitive called a function with parts of a tracked operand (rows
        of an array) that the tape does not see, so ``out`` and every float inside it
        depend on this application, whatever the tape knew of them (only a rule of the
        primitive could say more).
        ``saved``: what the primitive's keeping form kept for its rule (``saved.py``).
        """
        if is_container(out):
            fresh = self._fresh_items(out, args, opaque)
            if not fresh:
                return     # its items are tracked values or operands: they say it all
        elif not is_float_value(out):
            if type(out) is registered_kind():
                self.refuse_tiled(name, args, node)
            return
        if not opaque and id(out) in self.producer:
            return                     # the very object already tracked: same dependence
        for a in args:
            if out is a:
                return                 # a selection of an operand: locally constant
        parents = [self.tracked(a) for a in args]
        if hidden is not None and not any(p is not None for p in parents):
            parents.append(hidden)
            args = list(args) + [None]
        if not any(p is not None for p in parents):
            return
        # containers may change later (append): keep them as they were when used
        kept = [containers.snapshot(a) for a in args]
        # (once per recorded application: a dtype check until a complex value was seen)
        dtype = getattr(out, "dtype", None)
        real_only = (self.complex_seen or type(out) is complex
                     or (dtype.kind == "c" if dtype is not None else is_container(out))) \
            and self._real_only(name, args, out, parents)
        if not is_container(out):
            entry = self._append(COMPLEX_VALUES if real_only else name, kept, out, node,
                                 parents)
            entry.saved, entry.changed_by = saved, name if real_only else None
            return
        with self.lock:
            entry = self._append_locked(COMPLEX_VALUES if real_only else name, kept,
                                        containers.snapshot(out), node, parents)
            entry.changed_by = name if real_only else None
            for path, leaf in fresh:
                self._append_locked(ITEM, [leaf], leaf, node, [entry], path)

    def record_plain(self, name: str, args: tuple | list, out: Any, node: Any) -> None:
        """:meth:`record` of an application none of whose operands is a container (the
        recorder checked their kinds: ``recording.PLAIN_OPERANDS``) and whose result is
        a real float array or scalar, before any complex value was recorded: the same
        decisions without the container and complex cases (fewer Python frames per
        recorded application); anything else goes to :meth:`record`."""
        if (self.complex_seen or not isinstance(out, (np.ndarray, np.generic))
                or out.dtype.kind != "f"):
            self.record(name, args, out, node)
            return
        producer = self.producer
        if id(out) in producer:
            return                     # the very object already tracked: same dependence
        for a in args:
            if out is a:
                return                 # a selection of an operand: locally constant
        parents = [producer.get(id(a)) for a in args]
        if any(parents):
            self._append(name, list(args), out, node, parents)

    def _real_only(self, name: str, args: Any, out: Any, parents: list) -> bool:
        """Whether ``out = name(*args)`` gives complex values to a rule written for real
        ones (``rules_complex``): its entry is then a located error when a gradient
        reaches it.  Operands are looked at only once a complex value was recorded."""
        complex_out = _holds_complex(out)
        if not (complex_out or self.complex_seen):
            return False
        self.complex_seen = True
        # a cotangent's fit (nested grad: its real part, sums over broadcast axes) is
        # linear, and its rule, the fit back (c + 0j, broadcast), is JAX's transpose
        if name == UNBROADCAST or getattr(VJP.get(name), "complex_ready", False):
            return False
        return complex_out or any(p is not None and _holds_complex(a)
                                  for a, p in zip(args, parents))

    def refuse_tiled(self, name: str, args: Any, node: Any) -> None:
        """A distributed array is made from, or meets, a tracked value: the tape cannot
        follow it (it tracks NumPy values; a tile is not the whole, and the distributed
        primitives have no VJP rules), so a located error, never a zero gradient (the
        dependence was silently lost before).  Called for the results of distributed
        primitives (:meth:`record`) and by the distributed layer's dispatch of tiled
        operands (``darray.dispatch``, which runs a rule on parts of the operands)."""
        if any(self.tracked(a) is not None for a in args):
            raise PhylanxGradientError(
                f"cannot differentiate through '{name}' with distributed arrays: gradients "
                "do not flow through tiled arrays yet; compute the differentiated part on "
                "plain arrays (all_gather_d(x) or local_tile(x) first)",
                getattr(node, "loc", None), name)

    def _fresh_items(self, out: Any, args: tuple | list, opaque: bool = False) -> list:
        """(path, item) of the float items of the container ``out`` that are neither
        tracked nor one of the operands (at any depth): what the primitive computed
        (``opaque``: every float item, see :meth:`record`)."""
        if opaque:
            return list(containers.float_leaves(out))
        operands = containers.leaf_ids(args)
        return [(path, leaf) for path, leaf in containers.float_leaves(out)
                if id(leaf) not in self.producer and id(leaf) not in operands]

    def item(self, container: Any, index: int, node: Any) -> Any:
        """``container[index]`` (as ``slice`` computes it), recorded as a ``slice``."""
        value = container[index]
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value[()]
        self.record("slice", [container, np.int64(index)], value, node)
        return value

    def before_mutation(self, target: Any) -> None:
        """``target`` is about to change in place: copy what the tape holds of its memory."""
        with self.lock:
            if not isinstance(target, np.ndarray):
                return
            if self.caller_memory:
                owner = self.caller_memory.pop(id(_root(target)), None)
                if owner is not None:        # restored when the function has returned
                    self.saved_caller_memory.append((owner, owner.copy()))
            holders = self.holders.pop(id(_root(target)), [])
            stale = {}
            for entry, pos in holders:
                held = entry.out if pos < 0 else entry.args[pos]
                copy = held.copy()
                if pos < 0:
                    entry.out = copy
                    if self.producer.get(id(held)) is entry:
                        self.renamed.append(held)
                        if held is not target:
                            stale[id(held)] = (held, entry)
                else:
                    entry.args[pos] = copy
                self._hold(entry, pos, copy)
            for held, entry in stale.values():
                # another name of the changed memory (a view): its tape value is out of date
                marker = self._append(CHANGED_IN_PLACE, [entry.out], held, entry.node, [entry])
                marker.loc = entry.loc
                marker.changed_by = target

    def stores_its_changed_view(self, container: Any, region: Any, value: Any) -> bool:
        """``store(container[i], value)`` where ``value`` is the view ``region`` of
        ``container`` changed in place just before (Python's ``b[i] op= v``: the view
        changes, then is stored where it already is).  Only that region of ``container``
        changed, and the store records it: ``container`` is known again by the value it
        had before (no out-of-date marker), and the store, a no-op on the memory, is
        recorded without copying what the tape holds.  False otherwise."""
        with self.lock:
            marker = self.producer.get(id(container))
            if (marker is None or marker.name != CHANGED_IN_PLACE
                    or marker.changed_by is not value or not _same_memory(region, value)):
                return False
            self.producer[id(container)] = marker.parents[0]
            return True

    def after_mutation(self, name: str, target: Any, args: list, node: Any,
                       aliased: list[bool] | None = None) -> None:
        """``target`` was changed in place by ``name(target, *args)``: its id now names
        the new value, recorded with the old value's shape as operand 0 (rules see zeros
        there: they need only the shape, and the old values were overwritten).
        ``aliased[i]``: operand ``i`` was the target itself (its old value)."""
        with self.lock:
            if not isinstance(target, np.ndarray):   # a container: each use reads its items
                return
            old = self.producer.pop(id(target), None)
            aliased = aliased or [False] * len(args)
            parents = [old] + [old if same else self.tracked(a)
                               for a, same in zip(args, aliased)]
            if any(p is not None for p in parents) and is_float_value(target):
                shape_of_old = np.broadcast_to(np.zeros((), target.dtype), target.shape)
                self._append(name, [shape_of_old, *args], target, node, parents)


def _float_dtype(value: Any) -> np.dtype:
    """The dtype of ``value``'s gradient: its own float dtype, complex128 for a Python
    complex, else float64."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None and dtype.kind in "fc":
        return dtype
    return np.dtype(np.complex128 if type(value) is complex else np.float64)


def fit(ct: Any, value: Any) -> Any:
    """``ct`` summed over broadcast axes and cast so that it matches the operand ``value``
    (item by item for a container: :func:`.containers.fit_container`)."""
    if is_container(value):
        return containers.fit_container(ct, value, fit)
    if is_container(ct):
        ct = containers.rows_cotangent(ct, value, fit)
    return unbroadcast(ct, value)


def add_cotangents(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    if is_container(a):
        return containers.add_container(a, b, add_cotangents)
    return a + b   # never in place: rules may return views of a shared cotangent


def accumulate(a: Any, b: Any, outers: list[Tape] = ()) -> Any:
    """``a + b`` of two cotangents (None: none yet), each addition of arrays recorded on
    the outer tapes (nested grad; containers item by item: a list's sum is not the
    ``__add`` of lists, Python's concatenation)."""
    if not outers or a is None or b is None:
        return add_cotangents(a, b)
    if is_container(a):
        return containers.add_container(a, b, lambda x, y: accumulate(x, y, outers))
    return record_on(outers, "__add", [a, b], a + b)


def backward(tape: Tape, result: Any, seed: Any) -> dict[int, Any]:
    """Cotangents of the leaf entries (by entry index) for ``result`` seeded with ``seed``."""
    start = tape.producer.get(id(result))
    outers = tape.chain()[1:]        # nested grad: they record this reverse pass
    leaves: dict[int, Any] = {}
    if start is None:
        return leaves
    cts: dict[int, Any] = {start.index: seed}
    # index of a primitive that returned a container -> {path of an item: cotangent}
    item_cts: dict[int, dict] = {}
    for index in range(start.index, -1, -1):
        ct = cts.pop(index, None)
        items = item_cts.pop(index, None)
        if items is not None:
            ct = accumulate(ct, containers.densify(items, tape.entries[index].out), outers)
        if ct is None:
            continue
        entry = tape.entries[index]
        if entry.name == LEAF:
            leaves[index] = ct
            continue
        if entry.name == ITEM:         # added where it sits in its primitive's output
            acc = item_cts.setdefault(entry.parents[0].index, {})
            acc[entry.keys] = accumulate(acc.get(entry.keys), ct, outers)
            continue
        for pos, g in enumerate(_apply_rule(entry, ct, outers)):
            parent = entry.parents[pos] if pos < len(entry.parents) else None
            if parent is None or g is None:
                continue
            arg = entry.args[pos]
            if not carries_gradient(arg):
                continue               # integer and boolean operands get no gradient
            g = fitted_cotangent(g, entry, pos, outers)
            cts[parent.index] = accumulate(cts.get(parent.index), g, outers)
    return leaves


# -- nested differentiation: the reverse pass recorded on the outer tapes -------------
# (grad(grad(f)): the inner reverse pass is a function of the inner function's values,
# which the outer tapes track; each of its steps is recorded there as a primitive
# application, so the outer reverse pass differentiates it with the same rules)

def record_on(outers: list[Tape], name: str, args: list, out: Any, node: Any = None) -> Any:
    """``out = name(*args)`` recorded on each outer tape (a no-op where no operand is
    tracked)."""
    for tape in outers:
        tape.record(name, args, out, node)
    return out


def fit_recorded(g: Any, arg: Any, outers: list[Tape]) -> Any:
    """:func:`fit`, recorded on the outer tapes as an ``<unbroadcast>`` step; a container
    cotangent or operand is fitted item by item, each step recorded (a cast of a scalar
    item, or a row taken from an array, unrecorded, lost the second derivative)."""
    if outers and (is_container(arg) or is_container(g)):
        return _fit_items_recorded(g, arg, outers)
    fitted = fit(g, arg)
    if outers and fitted is not g and not is_container(fitted):
        record_on(outers, UNBROADCAST, [g], fitted)
    return fitted


def _fit_items_recorded(g: Any, arg: Any, outers: list[Tape]) -> Any:
    """:func:`fit` of a container cotangent or operand under outer tapes, each item's
    step recorded: an array's rows for a list operand are ``__subscript`` steps, a list
    of row cotangents for an array operand is an ``__npstack`` step."""
    def fit_item(c: Any, v: Any) -> Any:
        return fit_recorded(c, v, outers)

    if is_container(arg):
        if not is_container(g) and not isinstance(arg, dict):
            if np.shape(g)[:1] != (len(arg),):
                raise TypeError(f"an array cotangent of shape {np.shape(g)} for a container "
                                f"of {len(arg)} items (nested differentiation)")
            take = lookup("__subscript").impl
            g = [record_on(outers, "__subscript", [g, i], take(g, i)) for i in range(len(arg))]
        return containers.fit_container(g, arg, fit_item)
    if not isinstance(g, (list, tuple)) or not any(
            tape.tracked(c) is not None for tape in outers for c in g if c is not None):
        return containers.rows_cotangent(g, arg, fit)      # checks the kind, stacks
    fitted: list = []
    rows = containers.rows_cotangent(g, arg, lambda c, v: fitted.append(fit_item(c, v))
                                     or fitted[-1])
    # the stacking of the fitted (recorded) items, zeros where none came, is one step
    pending, zero = iter(fitted), np.zeros(np.shape(arg)[1:], rows.dtype)
    items = [zero if c is None else next(pending) for c in g]
    return record_on(outers, "__npstack", [items, 0], rows)


def fitted_cotangent(g: Any, entry: Entry, pos: int, outers: list[Tape] = ()) -> Any:
    """The cotangent ``g`` of operand ``pos`` of ``entry`` fitted to it
    (:func:`fit_recorded`; also used by :mod:`.plan`): a rule that gave a container's
    cotangent the wrong kind is a located error."""
    try:
        return fit_recorded(g, entry.args[pos], outers)
    except TypeError as e:
        raise PhylanxGradientError(f"the VJP rule's cotangent of operand {pos} does not "
                                   f"fit it: {e}", entry.loc, entry.name) from e


def _depends_on_outer(outers: list[Tape], values: list) -> bool:
    return any(tape.tracked(v) is not None for tape in outers for v in values
               if not is_container(v))


def _recorded_rule(entry: Entry, ct: Any, rule: Any, outers: list[Tape]) -> tuple:
    """The rule of ``entry`` evaluated primitive by primitive, each recorded on the outer
    tapes: its equations (``equations.recordable``); a rule without them is an error,
    never a step the outer tapes would miss (a zero second derivative)."""
    from .equations import Eq
    form = getattr(rule, "recordable", None) or getattr(rule, "equations", None)
    if form is None:
        raise PhylanxGradientError(
            f"cannot differentiate the derivative of '{entry.name}' (grad of grad): its VJP "
            "rule is NumPy code, not equations the outer grad can record (see "
            "docs/autodiff.md, nested differentiation)", entry.loc, entry.name)

    def evaluate(value: Any) -> Any:
        if type(value) is list:        # the cotangents of a list operand's items
            return [evaluate(v) for v in value]
        if not isinstance(value, Eq):
            return value
        args = [evaluate(a) for a in value.args]
        spec = lookup(value.primitive)
        return record_on(outers, value.primitive, args, spec.impl(*args), entry.node)

    wanted = tuple(p is not None for p in entry.parents)
    equations = form(ct, entry.out, *entry.args, wanted=wanted)
    if equations is None:
        raise PhylanxGradientError(
            f"cannot differentiate the derivative of '{entry.name}' (grad of grad) for "
            "these operands: its equations do not cover them", entry.loc, entry.name)
    grads = tuple(evaluate(e) for e in equations)
    return grads + (None,) * (len(entry.args) - len(grads))


def _apply_rule(entry: Entry, ct: Any, outers: list[Tape] = ()) -> tuple:
    if entry.name == UNBROADCAST:    # its adjoint: the cotangent fitted back (self-adjoint)
        return (fit_recorded(ct, entry.args[0], list(outers)),)
    if entry.name == CONTAINER:
        return tuple(containers.item_cotangents(ct, entry.args, entry.keys))
    if entry.name == COMPLEX_VALUES:
        raise PhylanxGradientError(
            f"cannot differentiate '{entry.changed_by}' of complex values: its VJP rule is "
            "for real ones (complex intermediates follow JAX's convention through the "
            "rules listed in phylanx/autodiff/rules_complex.py; see docs/autodiff.md)",
            entry.loc, entry.changed_by)
    if entry.name == CHANGED_IN_PLACE:
        raise PhylanxGradientError(
            "cannot differentiate through a value that was changed in place through another "
            "name (a view of the same array); copy it before changing it", entry.loc,
            getattr(entry.node, "primitive", None))
    rule = VJP.get(entry.name)
    if rule is None:
        raise PhylanxGradientError(
            f"cannot differentiate through '{entry.name}': it has no VJP rule (the gradient "
            "flows through it); see docs/autodiff.md to add one", entry.loc, entry.name)
    try:
        if outers and _depends_on_outer(outers, [ct, entry.out, *entry.args]):
            return _recorded_rule(entry, ct, rule, outers)
        out = apply_vjp(rule, ct, entry.out, entry.args,
                        tuple(p is not None for p in entry.parents), entry.saved)
    except PhylanxError as e:
        raise located(e, entry)
    except Exception as e:
        raise rule_failed(e, entry) from e
    return tuple(out)


def located(error: PhylanxError, entry: Entry) -> PhylanxError:
    """``error``, raised by ``entry``'s rule, given the entry's location and primitive
    where it has none (also used by :mod:`.plan`)."""
    if error.loc is None:
        error.loc = entry.loc
    if error.primitive is None:
        error.primitive = entry.name
    return error


def rule_failed(error: Exception, entry: Entry) -> PhylanxGradientError:
    """The located error for a rule of ``entry`` that failed with a non-phylanx error."""
    return PhylanxGradientError(f"the VJP rule failed: {type(error).__name__}: {error}",
                                entry.loc, entry.name)


def translate_function(tape: Tape | None, value: Any) -> Any:
    """A function value passed to a kernel, replaced by its recording twin."""
    if tape is not None and type(value) is Function and tape.twin_of is not None:
        return tape.twin_of(value)
    return value
