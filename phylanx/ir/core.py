"""The IR's data: variables with facts, literals, equations and functions (all immutable).

Like JAX's jaxpr, a :class:`Function` is a list of equations in SSA form,
``outs = prim[params](ins)``, where every :class:`Var` is defined once (as a parameter
or as one equation's output) and inputs are variables or :class:`Literal` values.
Control flow is structured: ``cond``, ``while`` and ``for`` equations hold their
regions as :class:`Function` parameters, with the loop-carried values explicit
(region parameters and results).  As in MLIR (and unlike jaxpr) a region may read the
variables of the functions around it, so a PhySL body keeps its lexical scoping
without closure conversion.  What the lowering does not understand is an ``opaque``
equation holding the PhySL AST, unchanged.

Every variable carries :class:`Facts`, each optional: unknown facts are normal.
Equality ignores source locations (as the PhySL AST's does), so print -> parse ->
equal holds.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Any

from ..source import UNKNOWN, SourceLoc

#: the kinds a value may have (Facts.kind)
KINDS = ("array", "scalar", "tuple", "list", "dict", "function", "darray", "str", "none")

#: dtype names of the facts (NumPy's names) and their short spelling in the text form
DTYPES = {"float64": "f64", "float32": "f32", "float16": "f16", "int64": "i64",
          "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "bool",
          "complex128": "c128", "complex64": "c64"}

#: operations of the IR itself, not primitives of the registry: bindings, structure,
#: calls of functions held by variables, reads of names bound outside the function
#: (globals, constants, functions), and what the lowering keeps as PhySL
STRUCTURAL = frozenset((
    "bind", "update", "cond", "while", "for_each", "call", "function", "lambda", "async",
    "read", "opaque", "return", "dot_general", "array_literal",
))


#: the IR's own operations that are not registry primitives (the others are: ``while``,
#: ``for_each``, ``lambda``, ``async`` and ``return`` are the registry's forms of those names)
IR_OPS = STRUCTURAL - {"while", "for_each", "lambda", "async", "return"}


@dataclass(frozen=True)
class Facts:
    """What is known about a value; ``None`` is unknown.  ``shape`` dims may be None."""

    shape: tuple[int | None, ...] | None = None
    dtype: str | None = None
    kind: str | None = None
    layout: str | None = None
    alias_of: int | None = None      # the id of a Var whose storage this may share

    def known(self) -> bool:
        return any(v is not None for v in (self.shape, self.dtype, self.kind, self.layout,
                                           self.alias_of))

    def with_(self, **changes) -> Facts:
        return replace(self, **changes)


NO_FACTS = Facts()
_IDS = itertools.count(1)


def fresh_id() -> int:
    return next(_IDS)


def reserve_ids(at_least: int) -> None:
    """Make later :func:`fresh_id` values exceed ``at_least`` (after parsing text)."""
    global _IDS
    current = next(_IDS)
    _IDS = itertools.count(max(current, at_least + 1))


@dataclass(frozen=True)
class Var:
    """A value defined once; ``name`` is the PhySL variable it is a version of ("" for a
    temporary of an expression)."""

    id: int
    name: str = ""
    facts: Facts = NO_FACTS

    @staticmethod
    def new(name: str = "", facts: Facts = NO_FACTS) -> Var:
        return Var(fresh_id(), name, facts)

    def with_facts(self, facts: Facts) -> Var:
        return Var(self.id, self.name, facts)


@dataclass(frozen=True)
class Literal:
    """A constant operand: int, float, bool, str or None."""

    value: Any

    def __eq__(self, other):          # True == 1 in Python; not here
        return type(other) is Literal and type(self.value) is type(other.value) \
            and (self.value == other.value or self.value != self.value
                 and other.value != other.value)

    def __hash__(self):
        return hash((type(self.value), self.value if self.value == self.value else "nan"))


Atom = Var | Literal


def _loc():
    return field(default=UNKNOWN, compare=False, repr=False)


@dataclass(frozen=True)
class Eqn:
    """``outs = prim[params](ins)``; ``params`` is a sorted tuple of (name, value)."""

    prim: str
    params: tuple[tuple[str, Any], ...]
    ins: tuple[Atom, ...]
    outs: tuple[Var, ...]
    loc: SourceLoc = _loc()
    #: where each operand was written (reads of a variable, literals, keyword arguments)
    in_locs: tuple = field(default=(), compare=False, repr=False)

    def param(self, name: str, default: Any = None) -> Any:
        for key, value in self.params:
            if key == name:
                return value
        return default


def params(**values: Any) -> tuple[tuple[str, Any], ...]:
    """Canonical parameter tuple: sorted by name, None values left out."""
    return tuple(sorted((k, v) for k, v in values.items() if v is not None))


@dataclass(frozen=True)
class Function:
    """``params -> results`` through ``eqns``.  ``name`` is the PhySL function's (or ""
    for a region: a branch or loop body, which reads the variables around it)."""

    params: tuple[Var, ...]
    eqns: tuple[Eqn, ...]
    results: tuple[Atom, ...]
    name: str = ""


def regions(eqn: Eqn) -> list[Function]:
    """The functions an equation holds as parameters (branches, loop bodies, closures)."""
    return [v for _, v in eqn.params if type(v) is Function]


def walk(fn: Function):
    """Every equation of ``fn`` and of its regions, outer before inner."""
    for eqn in fn.eqns:
        yield eqn
        for region in regions(eqn):
            yield from walk(region)


def check_ssa(fn: Function) -> None:
    """Raise ValueError unless every variable of ``fn`` (regions included) is defined once
    and read only after its definition (in its function or an enclosing one)."""
    defined: set[int] = set()

    def visit(f: Function, visible: set[int]) -> None:
        scope = set(visible)
        for p in f.params:
            _define(p, defined)
            scope.add(p.id)
        for eqn in f.eqns:
            for a in eqn.ins:
                if type(a) is Var and a.id not in scope:
                    raise ValueError(f"{a} read before its definition in {eqn.prim}")
            for region in regions(eqn):
                visit(region, scope)
            for out in eqn.outs:
                _define(out, defined)
                scope.add(out.id)
        for r in f.results:
            if type(r) is Var and r.id not in scope:
                raise ValueError(f"result {r} is not defined")

    visit(fn, set())


def _define(var: Var, defined: set[int]) -> None:
    if var.id in defined:
        raise ValueError(f"{var} is defined twice")
    defined.add(var.id)
