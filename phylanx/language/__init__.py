"""The PhySL language: AST classes, lexer, parser and canonical printer.

``parse(text)`` gives a :class:`Program`, ``parse_expr(text)`` a single
expression, and ``to_physl(tree)`` prints a tree back so that
``parse(to_physl(tree)) == tree``.
"""
from .ast import (
    BINARY_OPS,
    UNARY_OPS,
    UNARY_PRECEDENCE,
    ArrayLiteral,
    BinOp,
    Call,
    Expr,
    Identifier,
    KeywordArg,
    Literal,
    Program,
    QuotedList,
    UnaryOp,
)
from .parser import MAX_DEPTH, parse, parse_expr
from .printer import to_physl

__all__ = [
    "BINARY_OPS",
    "UNARY_OPS",
    "UNARY_PRECEDENCE",
    "MAX_DEPTH",
    "ArrayLiteral",
    "BinOp",
    "Call",
    "Expr",
    "Identifier",
    "KeywordArg",
    "Literal",
    "Program",
    "QuotedList",
    "UnaryOp",
    "parse",
    "parse_expr",
    "to_physl",
]
