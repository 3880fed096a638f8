"""Reject Python the frontend cannot translate, before translating anything.

Every rejection is a :class:`PhylanxSyntaxError` located at the user's file,
line and column, showing the line with a caret, and saying what to write
instead.  Runs at decoration time, so a bad function fails where it is defined.
"""
from __future__ import annotations

import ast

from ..errors import PhylanxCompileError, PhylanxSyntaxError
from ..primitives.registry import lookup
from ..source import SourceLoc
from .tables import SUGGESTIONS


class PhylanxNameError(PhylanxCompileError, NameError):
    """A free name of a decorated function that Python could not resolve either.

    Also a ``NameError``, with Python's message, so ``except NameError`` works.
    """

    def __init__(self, message: str, loc: SourceLoc | None = None, name: str | None = None):
        super().__init__(message, loc)
        self.name = name


class Locator:
    """Turns Python AST positions into :class:`SourceLoc` of the user's file."""

    def __init__(self, file: str, line_offset: int = 0, text: str | None = None,
                 col_shift: int = 0):
        self.file = file
        self.line_offset = line_offset
        self.text = text
        self.col_shift = col_shift   # indentation removed before parsing a nested def

    def __call__(self, node: ast.AST | None) -> SourceLoc:
        if node is None or not hasattr(node, "lineno"):
            return SourceLoc(self.file, 0, 0, self.text)
        return SourceLoc(self.file, node.lineno + self.line_offset,
                         node.col_offset + 1 + self.col_shift, self.text)

    def error(self, node: ast.AST | None, message: str) -> PhylanxSyntaxError:
        return PhylanxSyntaxError(message, self(node))

    def name_error(self, node: ast.AST, name: str) -> PhylanxNameError:
        message = f"name '{name}' is not defined"
        spec = lookup(name)
        if spec is not None and spec.internal:
            message += (f" (Phylanx's primitive '{name}' is internal: written by its "
                        "compiler, never called by name from a function)")
        return PhylanxNameError(message, self(node), name)


def _describe(node: ast.AST) -> str:
    names = {
        ast.Try: "try statement", ast.ClassDef: "class definition", ast.Yield: "yield",
        ast.YieldFrom: "yield from", ast.Await: "await", ast.AsyncFunctionDef: "async def",
        ast.AsyncFor: "async for", ast.AsyncWith: "async with", ast.Import: "import",
        ast.ImportFrom: "import", ast.Delete: "del statement", ast.Set: "set literal",
        ast.SetComp: "set comprehension", ast.Match: "match statement",
    }
    return names.get(type(node), type(node).__name__)


def check_function(fn: ast.FunctionDef | ast.Lambda, loc: Locator) -> None:
    """Raise on the first construct of ``fn`` that cannot be translated."""
    _check_arguments(fn.args, loc)
    for node in ast.walk(fn):
        kind = type(node)
        suggestion = SUGGESTIONS.get(kind)
        if suggestion is not None:
            raise loc.error(node, f"unsupported Python construct: {_describe(node)}. "
                                  f"{suggestion}")
        if kind in (ast.FunctionDef, ast.Lambda) and node is not fn:
            _check_arguments(node.args, loc)
        elif kind is ast.NamedExpr:
            raise loc.error(node, "assignment expressions (:=) are not supported; assign the "
                                  "value on its own line first")
        elif kind is ast.GeneratorExp:
            continue  # accepted as a list comprehension (checked by the translator)
        elif kind in (ast.Global, ast.Nonlocal):
            continue
        elif kind is ast.Starred and not _starred_ok(fn, node):
            raise loc.error(node, "'*' unpacking is only supported in assignment targets "
                                  "(a, *rest = x); pass the arguments explicitly")
        elif kind in (ast.Assign, ast.AugAssign, ast.AnnAssign):
            targets = node.targets if kind is ast.Assign else [node.target]
            for t in targets:
                _check_target(t, loc)
        elif kind is ast.Constant and isinstance(node.value, bytes):
            raise loc.error(node, f"{type(node.value).__name__} literals are not supported")


def _check_arguments(args: ast.arguments, loc: Locator) -> None:
    if args.vararg is not None:
        raise loc.error(args.vararg, f"'*{args.vararg.arg}' parameters are not supported; "
                                     "list the parameters explicitly or pass a list")
    if args.kwarg is not None:
        raise loc.error(args.kwarg, f"'**{args.kwarg.arg}' parameters are not supported; "
                                    "list the keyword parameters explicitly")


def _check_target(target: ast.AST, loc: Locator) -> None:
    if isinstance(target, ast.Attribute):
        raise loc.error(target, "assigning to an attribute is not supported; PhySL values "
                                "have no attributes to set (use a dict or a separate variable)")
    if isinstance(target, (ast.Tuple, ast.List)):
        stars = [e for e in target.elts if isinstance(e, ast.Starred)]
        if len(stars) > 1:
            raise loc.error(stars[1], "only one '*' target is allowed")
        for e in target.elts:
            _check_target(e.value if isinstance(e, ast.Starred) else e, loc)


def _starred_ok(fn: ast.AST, star: ast.Starred) -> bool:
    # a Starred node is acceptable only as an element of an assignment or loop target
    for node in ast.walk(fn):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.For, ast.comprehension)):
            targets = [node.target]
        for t in targets:
            if isinstance(t, (ast.Tuple, ast.List)) and star in t.elts:
                return True
    return False
