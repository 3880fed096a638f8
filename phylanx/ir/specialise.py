"""Specialisation: the facts of every variable from the facts of the arguments.

``specialise(fn, signature)`` propagates shapes, dtypes and kinds from an argument
signature (one :class:`Facts` per parameter, :func:`signature_of` derives it from
values) through the equations by the rules of ``shapes.py``; branches join their facts
(a dim the branches disagree on is unknown), loops iterate their carried facts to a
fixed point (widening to unknown dims, then to nothing, so it ends).  An equation with
a distributed operand also gets the layout of its value and, as its ``comm`` parameter,
what its rule sends between the ranks (``layouts.py``).  Results are
cached per (function, signature) in a bounded LRU, as a jit cache is.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from . import layouts
from .core import NO_FACTS, Eqn, Facts, Function, Literal, Var, params
from .shapes import UNKNOWN, constant_value, contraction, facts_of

#: specialisations kept (least recently used dropped first)
CACHE_SIZE = 256
_PY_DTYPES = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}
_NAMED = {"True": True, "False": False}
_ARRAY_KINDS = {"bool": "bool", "int": "int64", "float": "float64"}
#: equations whose value is not computed from their operands by a primitive
_NOT_COMPUTED = frozenset(("opaque", "read", "call", "return"))


def facts_of_value(v: Any) -> Facts:
    """The facts a value has (what a signature holds and what tests compare)."""
    t = type(v)
    if t in _PY_DTYPES:
        return Facts((), _PY_DTYPES[t], "scalar")
    if isinstance(v, (np.ndarray, np.generic)):
        return Facts(tuple(np.shape(v)), str(v.dtype), "array")
    kinds = {tuple: "tuple", list: "list", dict: "dict", str: "str", type(None): "none"}
    if t in kinds:
        return Facts(kind=kinds[t])
    if type(v).__name__ == "DistributedArray":   # by name: distributed/ is above ir/
        return Facts(tuple(v.shape), str(v.dtype), "darray", layout_of(v.layout))
    if callable(v):
        return Facts(kind="function")
    return NO_FACTS


def layout_of(layout) -> str:
    """A distributed array's layout as a fact: the axes its tiles split, how many tiles
    and every rank's box (``split0/2=0:2x0:3;2:4x0:3``: row blocks on 2 localities;
    ``whole/2=...``: replicated), see ``layouts.py``."""
    return layouts.encode(layout.boxes, layout.split_axes(), layout.key1d)


def signature_of(values) -> tuple[Facts, ...]:
    return tuple(facts_of_value(v) for v in values)


def join(a: Facts, b: Facts) -> Facts:
    """What holds for a value that is either ``a`` or ``b``."""
    shape = None
    if a.shape is not None and b.shape is not None and len(a.shape) == len(b.shape):
        shape = tuple(x if x == y else None for x, y in zip(a.shape, b.shape))
    same = lambda name: getattr(a, name) if getattr(a, name) == getattr(b, name) else None  # noqa: E731
    return Facts(shape, same("dtype"), same("kind"), same("layout"), same("alias_of"))


def _widen(f: Facts) -> Facts:
    shape = None if f.shape is None else (None,) * len(f.shape)
    return Facts(shape, f.dtype, f.kind)


def _merge(old: Facts, new: Facts | None) -> Facts:
    if new is None:
        return old
    return Facts(*(n if n is not None else o for o, n in
                   zip((old.shape, old.dtype, old.kind, old.layout, old.alias_of),
                       (new.shape, new.dtype, new.kind, new.layout, new.alias_of))))


class _Specialising:
    def __init__(self):
        self.vars: dict[int, Var] = {}
        self.values: dict[int, Any] = {}

    def define(self, v: Var, facts: Facts | None) -> Var:
        nv = v.with_facts(_merge(v.facts, facts))
        self.vars[v.id] = nv
        return nv

    def atom(self, a):
        return self.vars.get(a.id, a) if type(a) is Var else a

    def facts(self, a) -> Facts:
        if type(a) is Literal:
            t = type(a.value)
            if t is bool:   # a PhySL true/false literal is NumPy's bool (compiler.literal_value)
                return Facts((), "bool", "array")
            return Facts((), _PY_DTYPES[t], "scalar") if t in _PY_DTYPES else NO_FACTS
        return self.atom(a).facts

    def value(self, a) -> Any:
        return a.value if type(a) is Literal else self.values.get(a.id, UNKNOWN)

    def function(self, fn: Function, param_facts) -> Function:
        ps = tuple(self.define(p, f) for p, f in zip(fn.params, param_facts))
        eqns = tuple(self.eqn(e) for e in fn.eqns)
        return Function(ps, eqns, tuple(self.atom(r) for r in fn.results), fn.name)

    def loop(self, e: Eqn, ins, first: int, extra=()) -> tuple[tuple, dict]:
        """Regions of a loop with carried operands ``ins[first:]``, to a fixed point."""
        carried = [self.facts(a) for a in ins[first:]]
        body = e.param("body")
        for attempt in range(6):
            regions = {}
            if e.param("cond") is not None:
                regions["cond"] = self.function(e.param("cond"), carried)
            regions["body"] = self.function(body, [*extra, *carried])
            ends = [self.facts(r) for r in regions["body"].results[1:]]
            joined = [join(c, r) for c, r in zip(carried, ends)]
            if joined == carried:
                return tuple(carried), regions
            carried = [_widen(f) for f in joined] if attempt >= 2 else joined
            if attempt >= 4:
                carried = [NO_FACTS] * len(carried)
        return tuple(carried), regions

    def eqn(self, e: Eqn) -> Eqn:
        ins = tuple(self.atom(a) for a in e.ins)
        facts = [self.facts(a) for a in ins]
        values = [self.value(a) for a in ins]
        ps = e.params
        outs_facts: list[Facts | None] = [None] * len(e.outs)
        if e.prim == "cond":
            then = self.function(e.param("then"), facts[1:])
            other = e.param("other")
            if other is not None:
                other = self.function(other, facts[1:])
                ends = [join(self.facts(a), self.facts(b))
                        for a, b in zip(then.results, other.results)]
            else:
                ends = [NO_FACTS] + [join(f, self.facts(r))
                                     for f, r in zip(facts[1:], then.results[1:])]
            outs_facts = ends
            ps = params(then=then, other=other)
        elif e.prim == "while":
            carried, regions = self.loop(e, ins, 0)
            outs_facts = [None, *carried]
            ps = params(**regions)
        elif e.prim == "for_each":
            item = NO_FACTS
            it = facts[0]
            if it.kind == "array" and it.shape and it.dtype:
                item = Facts(it.shape[1:], it.dtype, "array")
            carried, regions = self.loop(e, ins, 1, (item,))
            outs_facts = [None, *carried]
            ps = params(**regions)
        elif e.prim == "async":           # its output is a future: facts unknown
            ps = params(body=self.function(e.param("body"), []))
        elif e.prim in ("function", "lambda"):
            fn = e.param("fn")
            # a function's other parameters (its defaults) kept as they are
            ps = params(**{**dict(e.params),
                           "fn": self.function(fn, [NO_FACTS] * len(fn.params))})
            outs_facts = [Facts(kind="function")]
        elif e.prim == "bind":
            f = facts[0]
            outs_facts = [Facts(f.shape, f.dtype, f.kind, f.layout)]
            if values[0] is not UNKNOWN:
                self.values[e.outs[0].id] = values[0]
        elif e.prim == "update":
            f = facts[0]
            if f.kind == "array" and f.shape:
                outs_facts = [Facts(f.shape, f.dtype, "array", f.layout)]
        elif e.prim == "__inplace" and len(ins) == 2 and e.params == ():
            # x += v: an array takes v in place (it stays itself, other names see it);
            # anything else is v (primitives: python_builtins.inplace).  Facts do not
            # tell a 0-d array (changed in place) from a NumPy scalar (rebound): unknown
            target, value = facts
            if target.kind == "array" and target.shape and target.dtype is not None \
                    and type(ins[0]) is Var:
                outs_facts = [Facts(target.shape, target.dtype, "array", target.layout,
                                    ins[0].id)]
            elif target.kind == "scalar":
                outs_facts = [Facts(value.shape, value.dtype, value.kind, value.layout)]
        elif e.prim == "array_literal":
            arr = np.array(e.param("value"), dtype=_ARRAY_KINDS[e.param("kind")])
            if arr.ndim == e.param("ndim"):
                outs_facts = [Facts(arr.shape, str(arr.dtype), "array")]
        elif any(f.kind == "darray" for f in facts) and e.prim not in _NOT_COMPUTED:
            # a distributed operand: the distributed layer's rules say the result's
            # facts, its layout among them (layouts.py); unknown where they do not know
            outs_facts = [layouts.tiled_facts(e, facts, values)]
            contract = contraction(*facts) if e.prim == "dot_general" else None
            if contract is not None:
                ps = params(**dict(e.params), contract=contract)
            # and what its rule sends between the ranks (``comm``) and the bytes it
            # moves, summed over the ranks (``moved``): absent where unknown
            comm, moved = layouts.communication(e, facts, values) or (None, None)
            ps = params(**dict(ps), comm=comm, moved=moved or None)   # (0: not shown)
        elif e.prim == "dot_general":
            outs_facts = [facts_of(e, facts, values)]
            contract = contraction(*facts)
            if contract is not None:
                ps = params(**dict(e.params), contract=contract)
        elif e.prim == "read" and e.param("name") in _NAMED:
            # Python's True/False/None as the frontend spells them (compiler.CONSTANTS)
            value = _NAMED[e.param("name")]
            self.values[e.outs[0].id] = value
            outs_facts = [Facts((), "bool", "scalar")]
        elif e.prim not in ("opaque", "read", "call", "return"):
            outs_facts = [facts_of(e, facts, values)]
            known = constant_value(e, values, facts)
            if known is not UNKNOWN:
                self.values[e.outs[0].id] = known
                if outs_facts[0] is None and type(known) in _PY_DTYPES:
                    outs_facts = [self.facts(Literal(known))]
        outs = tuple(self.define(v, f) for v, f in zip(e.outs, outs_facts))
        return Eqn(e.prim, ps, ins, outs, e.loc)


_CACHE: OrderedDict = OrderedDict()
_LOCK = threading.Lock()


def specialise(fn: Function, signature: tuple[Facts, ...]) -> Function:
    """``fn`` with the facts that follow from its parameters having ``signature``."""
    if len(signature) != len(fn.params):
        raise ValueError(f"{fn.name or 'the function'} takes {len(fn.params)} arguments, "
                         f"the signature has {len(signature)}")
    key = (id(fn), tuple(signature))
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None and hit[0] is fn:
            _CACHE.move_to_end(key)
            return hit[1]
    result = _Specialising().function(fn, signature)
    with _LOCK:
        _CACHE[key] = (fn, result)
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return result


def cache_info() -> tuple[int, int]:
    """(entries, capacity) of the specialisation cache."""
    return len(_CACHE), CACHE_SIZE
