"""PhySL abstract syntax tree: frozen dataclasses, each with a structured location.

Locations do not take part in equality, so ``parse(print(tree)) == tree`` holds
even though printing moves things around.  Infix expressions are kept as
:class:`BinOp`/:class:`UnaryOp` with precedence already applied by the parser;
the compiler maps them onto the operator primitives (``+`` -> ``__add``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..source import UNKNOWN, SourceLoc

#: binary operator -> (precedence, primitive); higher binds tighter (§2.2)
BINARY_OPS: dict[str, tuple[int, str]] = {
    "||": (3, "__or"),
    "&&": (4, "__and"),
    "==": (8, "__eq"),
    "!=": (8, "__ne"),
    "<": (9, "__lt"),
    "<=": (9, "__le"),
    ">": (9, "__gt"),
    ">=": (9, "__ge"),
    "+": (11, "__add"),
    "-": (11, "__sub"),
    "*": (12, "__mul"),
    "/": (12, "__div"),
    "%": (12, "__mod"),
}
#: unary operator -> primitive (``+x`` is ``x`` itself)
UNARY_OPS: dict[str, str | None] = {"-": "__minus", "!": "__not", "+": None}
UNARY_PRECEDENCE = 13


def _loc() -> SourceLoc:
    return field(default=UNKNOWN, compare=False, repr=False)  # type: ignore[return-value]


@dataclass(frozen=True)
class Literal:
    """int, float, str, bool or nil (``None``)."""

    value: int | float | str | bool | None
    loc: SourceLoc = _loc()


@dataclass(frozen=True)
class ArrayLiteral:
    """``[1, 2]``, ``[[1., 2.], [3., 4.]]``: nested tuples of one element kind.

    ``kind`` is ``"bool"``, ``"int"`` or ``"float"``; ``ndim`` (1..4) keeps the
    rank of empty literals such as ``[[]]``.
    """

    value: tuple
    kind: str
    ndim: int
    loc: SourceLoc = _loc()


@dataclass(frozen=True)
class Identifier:
    name: str
    loc: SourceLoc = _loc()


@dataclass(frozen=True)
class Call:
    """``func(args...)``, optionally with an attribute ``func{L#1}(...)``."""

    func: str
    args: tuple[Expr, ...] = ()
    attribute: str | None = None
    loc: SourceLoc = _loc()


@dataclass(frozen=True)
class KeywordArg:
    """``__arg(name, value)``: a keyword argument or a parameter default."""

    name: str
    value: Expr
    loc: SourceLoc = _loc()


@dataclass(frozen=True)
class QuotedList:
    """``'(e1, e2, ...)``: a list value."""

    items: tuple[Expr, ...] = ()
    loc: SourceLoc = _loc()


@dataclass(frozen=True)
class UnaryOp:
    op: str
    operand: Expr
    loc: SourceLoc = _loc()


@dataclass(frozen=True)
class BinOp:
    op: str
    left: Expr
    right: Expr
    loc: SourceLoc = _loc()


Expr = Literal | ArrayLiteral | Identifier | Call | KeywordArg | QuotedList | UnaryOp | BinOp


@dataclass(frozen=True)
class Program:
    """A sequence of top-level expressions; the value of the last is the result."""

    body: tuple[Expr, ...] = ()
    loc: SourceLoc = _loc()


def children(e) -> tuple:
    """The direct sub-expressions of ``e`` (none for a leaf): what every pass walks."""
    t = type(e)
    if t is Call:
        return e.args
    if t is BinOp:
        return (e.left, e.right)
    if t is UnaryOp:
        return (e.operand,)
    if t is KeywordArg:
        return (e.value,)
    if t is QuotedList:
        return e.items
    return ()


def _as_physl(node: Expr) -> str:
    """``str(node)``: its PhySL text, as the original's AST classes printed."""
    from .printer import to_physl  # the printer is built on this module
    return to_physl(node)


for _node_class in (Literal, ArrayLiteral, Identifier, Call, KeywordArg, QuotedList, UnaryOp,
                    BinOp):
    _node_class.__str__ = _as_physl   # repr() stays the dataclass's, for debugging
del _node_class
