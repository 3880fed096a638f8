"""Canonical PhySL printer: AST -> text, the inverse of :func:`~.parser.parse`.

Law: ``parse(to_physl(tree)) == tree`` for every tree whose floats are finite
(and whose names are valid identifiers).  The canonical form is ``f(a, b)``,
``f{L#1}(a)``, ``__arg(k, v)``, ``'(a, b)``, binary operators between single
spaces with the fewest parentheses that keep the tree, ``-x``/``!x``/``+x`` with
the operand parenthesised when it is a number or a binary operation
(``UnaryOp('-', Literal(3))`` prints ``-(3)``), floats always with ``.`` or an
exponent.  Top-level statements go on separate lines; a statement after the
first that would begin with a sign is wrapped in parentheses so it cannot be
read as continuing the previous one.

Non-finite floats print as ``inf``/``-inf``/``nan``, which parse back as the
identifiers naming those constants (not as literals).  Trees that no PhySL text
can denote (an identifier ``"1x"``, an attribute containing ``}``, a
:class:`Call` of ``__arg``, an :class:`Identifier` named ``true``) raise
``ValueError``.  Printing is iterative, so any tree depth is fine.
"""
from __future__ import annotations

import math
import numbers
import re

from .ast import (
    BINARY_OPS,
    UNARY_OPS,
    ArrayLiteral,
    BinOp,
    Call,
    Identifier,
    KeywordArg,
    Literal,
    Program,
    QuotedList,
    UnaryOp,
)

__all__ = ["to_physl", "format_float", "format_string"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RESERVED = frozenset({"true", "false", "nil"})
_ESCAPE = {
    "\\": "\\\\", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n",
    "\r": "\\r", "\t": "\\t", "\v": "\\v",
}


def format_float(value: float) -> str:
    """A strict float literal (always with ``.`` or an exponent)."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = repr(float(value))
    return text if ("." in text or "e" in text) else text + ".0"


def format_string(value: str) -> str:
    """A double-quoted string literal with PhySL escapes."""
    out = []
    for ch in value:
        esc = _ESCAPE.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch < " " or ch == "\x7f":
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _name(name: object, what: str, reserved: bool = True) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"{what} {name!r} is not a valid PhySL identifier")
    if reserved and name in _RESERVED:
        raise ValueError(f"{what} {name!r} would print as a literal")
    return name


def _literal(value: object) -> str:
    if value is None:
        return "nil"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return format_float(float(value))
    if isinstance(value, str):
        return format_string(value)
    raise ValueError(f"cannot print a literal of type {type(value).__name__}")


def _array(node: ArrayLiteral) -> str:
    kind, ndim = node.kind, node.ndim
    if kind == "bool":
        def leaf(v: object) -> str:
            if not isinstance(v, bool):
                raise ValueError(f"bool array literal holds {v!r}")
            return "true" if v else "false"
    elif kind == "int":
        def leaf(v: object) -> str:
            if not isinstance(v, int) or isinstance(v, bool):
                raise ValueError(f"int array literal holds {v!r}")
            return str(v)
    elif kind == "float":
        def leaf(v: object) -> str:
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise ValueError(f"float array literal holds {v!r}")
            return format_float(float(v))
    else:
        raise ValueError(f"unknown array literal kind {kind!r}")
    if not isinstance(ndim, int) or not 1 <= ndim <= 4:
        raise ValueError(f"array literal ndim must be 1..4, not {ndim!r}")

    def level(value: object, dims: int) -> str:
        if not isinstance(value, tuple):
            raise ValueError(f"array literal value must be nested tuples, found {value!r}")
        if dims == 1:
            return "[" + ", ".join(leaf(v) for v in value) + "]"
        if not value:
            raise ValueError(f"an empty array literal of ndim {ndim} cannot be printed: only "
                             "its last dimension may be 0 (e.g. [[]] is ((),))")
        return "[" + ", ".join(level(v, dims - 1) for v in value) + "]"

    return level(node.value, ndim)


def _children(node: object) -> tuple | None:
    """Sub-expressions printed recursively, or ``None`` for leaves."""
    if isinstance(node, Call):
        return tuple(node.args)
    if isinstance(node, QuotedList):
        return tuple(node.items)
    if isinstance(node, Program):
        return tuple(node.body)
    if isinstance(node, KeywordArg):
        return (node.value,)
    if isinstance(node, UnaryOp):
        return (node.operand,)
    if isinstance(node, BinOp):
        return (node.left, node.right)
    return None


def _leaf(node: object) -> str:
    if isinstance(node, Literal):
        return _literal(node.value)
    if isinstance(node, Identifier):
        return _name(node.name, "identifier")
    if isinstance(node, ArrayLiteral):
        return _array(node)
    raise ValueError(f"cannot print {type(node).__name__} as PhySL")


def _is_number(node: object) -> bool:
    return (isinstance(node, Literal) and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool))


def _combine(node: object, parts: list[str]) -> str:
    if isinstance(node, Call):
        func = _name(node.func, "function name", reserved=False)
        if func == "__arg":
            raise ValueError("a Call of '__arg' cannot be printed (it parses as a KeywordArg)")
        attr = ""
        if node.attribute is not None:
            if "}" in node.attribute:
                raise ValueError(f"attribute {node.attribute!r} contains '}}'")
            attr = "{" + node.attribute + "}"
        return f"{func}{attr}(" + ", ".join(parts) + ")"
    if isinstance(node, QuotedList):
        return "'(" + ", ".join(parts) + ")"
    if isinstance(node, Program):
        lines = parts[:1]
        lines += [f"({p})" if p[:1] in "-+" else p for p in parts[1:]]
        return "\n".join(lines)
    if isinstance(node, KeywordArg):
        return f"__arg({_name(node.name, 'keyword name')}, {parts[0]})"
    if isinstance(node, UnaryOp):
        if node.op not in UNARY_OPS:
            raise ValueError(f"unknown unary operator {node.op!r}")
        operand = parts[0]
        if _is_number(node.operand) or isinstance(node.operand, BinOp):
            operand = f"({operand})"
        return node.op + operand
    assert isinstance(node, BinOp)
    if node.op not in BINARY_OPS:
        raise ValueError(f"unknown binary operator {node.op!r}")
    prec = BINARY_OPS[node.op][0]
    left, right = parts
    if isinstance(node.left, BinOp) and BINARY_OPS.get(node.left.op, (99,))[0] < prec:
        left = f"({left})"
    if isinstance(node.right, BinOp) and BINARY_OPS.get(node.right.op, (99,))[0] <= prec:
        right = f"({right})"
    return f"{left} {node.op} {right}"


def to_physl(node: object) -> str:
    """Print an AST node (or a :class:`Program`, one statement per line) as PhySL."""
    results: list[str] = []
    work: list[tuple[object, bool]] = [(node, False)]
    while work:
        item, ready = work.pop()
        children = _children(item)
        if children is None:
            results.append(_leaf(item))
        elif not ready:
            work.append((item, True))
            work.extend((child, False) for child in reversed(children))
        else:
            count = len(children)
            parts = results[len(results) - count:] if count else []
            del results[len(results) - count:]
            results.append(_combine(item, parts))
    return results[0]
