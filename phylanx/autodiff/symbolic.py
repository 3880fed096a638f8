"""Symbolic reverse mode: the derivative of a straight-line PhySL program as more PhySL.

A program here is a list of statements ``define(v, primitive(operands...))`` (single
assignment, no control flow: ``phylanx.nn``'s layers build their forward pass so,
unrolling recurrent time steps, which are known from the input shape).
:func:`gradients` walks the statements backwards and appends, for every statement that
depends on a value being differentiated, statements computing its operands' cotangents
from the primitive's rule in the VJP table (the one table ``grad``'s tape uses too):

* a rule written as equations (:mod:`.equations`: ``dot``, a summing ``all_reduce``)
  is emitted as those primitives, one cotangent per operand and only for operands that
  need one (the input batch does not), as separate statements so that the runtime may
  run the two products of a layer concurrently and start a collective in program order;
* every other rule is applied inside the tree by ``vjp("name", ct, out, operands...)``
  (``vjp_of`` with the flags of the operands that need a cotangent when the rule can
  skip the others, e.g. a first Conv1D's input), then one ``slice(g, i)`` per operand.

Cotangents reaching a value along several paths are added.  The result is one program
(forward, backward, and whatever the caller appends, e.g. an optimizer's update) that
is compiled once and evaluated for every batch; nothing is recorded at run time.  This
module holds no derivative of any primitive: those are the rules' business.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..primitives import registry
from .equations import Eq
from .table import VJP


@dataclass(eq=False)
class Var:
    """A PhySL variable of the program: its name, static shape (None: the batch axis, or
    any unknown size) and whether it depends on a parameter being differentiated."""

    name: str
    shape: tuple
    active: bool = False


@dataclass(frozen=True)
class Raw:
    """PhySL text used verbatim as an operand (a nested call such as
    ``all_reduce(...)`` under ``async``, which :meth:`Graph.op` cannot nest)."""

    text: str


@dataclass(eq=False)
class Stmt:
    out: Var
    primitive: str
    operands: tuple


@dataclass(eq=False)
class Graph:
    """Statements in program order; :meth:`op` appends one and returns its variable."""

    prefix: str = "v"
    stmts: list[Stmt] = field(default_factory=list)
    _count: int = 0

    def fresh(self, hint: str = "") -> str:
        self._count += 1
        return f"{self.prefix}{self._count}{'_' + hint if hint else ''}"

    def input(self, name: str, shape: tuple, active: bool = False) -> Var:
        return Var(name, tuple(shape), active)

    def op(self, primitive: str, *operands: Any, shape: tuple = (), hint: str = "",
           constant: bool = False) -> Var:
        """``define(v, primitive(operands...))``; operands are Vars, lists of Vars, or
        constants (numbers, strings, None, nested lists of them).  ``constant``: the
        caller knows the objective does not depend on this value's variation (a
        softmax's shift), so no gradient flows through it (JAX's ``stop_gradient``)."""
        active = not constant and _differentiable(primitive) and \
            any(_active(a) for a in operands)
        out = Var(self.fresh(hint), tuple(shape), active)
        self.stmts.append(Stmt(out, primitive, operands))
        return out

    def producer(self, var: Var) -> Stmt | None:
        """The statement defining ``var`` (None for an input)."""
        return next((s for s in self.stmts if s.out is var), None)

    def drop_if_unused(self, var: Var, results: Any) -> None:
        """Remove ``var``'s statement if no statement and nothing in ``results`` reads it
        (a softmax output whose loss took its logits)."""
        def reads(value: Any) -> bool:
            if isinstance(value, (list, tuple)):
                return any(reads(v) for v in value)
            if isinstance(value, Raw):          # verbatim text, e.g. timer(all_reduce(v))
                return re.search(rf"\b{re.escape(var.name)}\b", value.text) is not None
            return value is var
        if not reads(results) and not any(reads(s.operands) for s in self.stmts):
            self.stmts = [s for s in self.stmts if s.out is not var]

    def physl(self) -> list[str]:
        """The statements as PhySL ``define`` forms."""
        return [f"define({s.out.name}, {call(s.primitive, s.operands)})" for s in self.stmts]


def _differentiable(primitive: str) -> bool:
    """Outputs of primitives without a derivative (comparisons, ``shape``, random draws,
    ``argmax``) carry no gradient, whatever their operands."""
    spec = registry.lookup(primitive)
    return spec is not None and spec.differentiable


def _vjp_rule(name: str):
    return VJP.get(name)


def _active(value: Any) -> bool:
    if isinstance(value, Var):
        return value.active
    if isinstance(value, (list, tuple)):
        return any(_active(v) for v in value)
    return False


def literal(value: Any) -> str:
    """PhySL text of an operand."""
    if isinstance(value, Var):
        return value.name
    if isinstance(value, Raw):
        return value.text
    if value is None:
        return "nil"
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        text = repr(float(value))
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "list(" + ", ".join(literal(v) for v in value) + ")"
    raise TypeError(f"no PhySL literal for {type(value).__name__}")


def call(primitive: str, operands: tuple) -> str:
    return f"{primitive}({', '.join(literal(a) for a in operands)})"


def gradients(graph: Graph, loss: Var, wrt: list[Var]) -> list[Var | None]:
    """Append the statements computing d loss / d w for each ``w`` in ``wrt`` (see the
    module doc); None for a ``w`` the loss does not depend on."""
    cotangents: dict[int, list[Var]] = {id(loss): []}
    seed = 1.0
    forward = list(graph.stmts)

    def add(var: Var, ct: Var) -> None:
        cotangents.setdefault(id(var), []).append(ct)

    def total(var: Var) -> Any:
        parts = cotangents.pop(id(var), None)
        if parts is None:
            return None
        if var is loss and not parts:
            return seed
        acc = parts[0]
        for part in parts[1:]:
            acc = graph.op("__add", acc, part, shape=var.shape, hint="ct")
        return acc

    for stmt in reversed(forward):
        if not stmt.out.active or id(stmt.out) not in cotangents:
            continue
        ct = total(stmt.out)
        _backward(graph, stmt, ct, add)
    return [total(w) for w in wrt]


def _backward(graph: Graph, stmt: Stmt, ct: Any, add) -> None:
    a = stmt.operands
    wanted = [_active(v) for v in a]
    rule = _vjp_rule(stmt.primitive)
    equations = getattr(rule, "equations", None)
    if equations is not None:
        cts = equations(ct, stmt.out, *a, wanted=tuple(wanted))
        # the last operand first: a layer's weight (``dot(x, w)``), whose gradient is
        # then complete one product earlier, and, data-parallel, its all-reduce starts
        # while the input's cotangent is computed
        for pos in reversed(range(len(a))):
            if wanted[pos] and pos < len(cts) and cts[pos] is not None:
                add(a[pos], _emit(graph, cts[pos]))
        return
    if all(wanted) or not getattr(rule, "selective", False):
        g = graph.op("vjp", stmt.primitive, ct, stmt.out, *a, shape=(), hint="g")
    else:                    # the rule skips what no operand needs (a first layer's input)
        g = graph.op("vjp_of", stmt.primitive, wanted, ct, stmt.out, *a, shape=(), hint="g")
    for pos, operand in enumerate(a):
        _scatter_cotangent(graph, g, pos, operand, add)


def _emit(graph: Graph, value: Any) -> Any:
    """The statements computing a rule's equation tree (its operands are this program's
    variables and constants); the variable holding its value."""
    if not isinstance(value, Eq):
        return value
    args = [_emit(graph, arg) for arg in value.args]
    return graph.op(value.primitive, *args, shape=value.shape, hint="ct")


def _scatter_cotangent(graph: Graph, g: Var, pos: int, operand: Any, add) -> None:
    """Item ``pos`` of the cotangents ``g`` to ``operand``: a variable, or a list/tuple of
    them at any depth (item by item, as the rule returns them)."""
    if isinstance(operand, Var) and operand.active:
        add(operand, graph.op("slice", g, pos, shape=operand.shape, hint="ct"))
    elif isinstance(operand, (list, tuple)) and _active(operand):
        items = graph.op("slice", g, pos, shape=(), hint="cts")
        for i, item in enumerate(operand):
            _scatter_cotangent(graph, items, i, item, add)
