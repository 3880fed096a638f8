"""Recovering the Python source of a function to translate.

``@Phylanx`` translates the function's source text, not its bytecode, so it
needs the text and where it stands in its file (errors point at the user's
lines).  :func:`function_source` finds the ``def`` (or the ``lambda``) and
:func:`docstring_source` the PhySL held by a ``doc_src`` function's docstring.
"""
from __future__ import annotations

import ast
import inspect
import linecache
import re
import textwrap

from ..errors import PhylanxTypeError
from . import checks


def function_source(fn) -> tuple[ast.AST, str, int, int, str]:
    """(def or lambda node, file, line offset, column shift, dedented source)."""
    lines, first = inspect.getsourcelines(fn)
    source = "".join(lines)
    indent = len(lines[0]) - len(lines[0].lstrip())
    text = textwrap.dedent(source)
    file = inspect.getsourcefile(fn) or fn.__code__.co_filename
    if fn.__name__ != "<lambda>":
        tree = ast.parse(text)
        node = tree.body[0]
        if not isinstance(node, ast.FunctionDef):
            raise PhylanxTypeError(f"@Phylanx needs a function, got {type(node).__name__}")
        return node, file, first - 1, indent, text
    found = _lambda_in_file(fn, file)
    if found is not None:
        return found
    # a lambda: parse the smallest enclosing statement text and find it by its parameters
    params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    for candidate in (text, text.strip().rstrip(",)") + "\n", "(" + text.strip() + ")"):
        try:
            tree = ast.parse(candidate)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == params:
                return node, file, first - 1, indent, text
    raise PhylanxTypeError("cannot find the source of this lambda; define it with def")


def _lambda_in_file(fn, file: str):
    """The lambda node of ``fn`` found by where its code starts in the file (two lambdas
    with the same parameters on one line, ``f(lambda x: x + 1, lambda x: 2 * x)``, are told
    apart by column), or None when positions or the file's source are not available."""
    starts = [(line, col) for line, _, col, end in fn.__code__.co_positions()
              if line is not None and col is not None and end is not None and end > col]
    lines = linecache.getlines(file)
    if not starts or not lines:
        return None
    text = "".join(lines)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    start = min(starts)
    params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    for node in ast.walk(tree):
        if (isinstance(node, ast.Lambda) and (node.body.lineno, node.body.col_offset) == start
                and [a.arg for a in node.args.args] == params):
            return node, file, 0, 0, text
    return None


_STRING_OPENING = re.compile(r"[rRuU]?(\"\"\"|'''|\"|')")


def docstring_source(fn):
    """(docstring node, file, PhySL text, locator) of a ``doc_src`` function; the text
    stands at the docstring's own lines and columns, so PhySL errors point into the file."""
    node, file, offset, indent, _ = function_source(fn)
    locator = checks.Locator(file, offset, None, indent)
    doc = node.body[0] if node.body else None
    if not (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
            and isinstance(doc.value.value, str)):
        raise locator.error(node, "@Phylanx(doc_src=True) needs a docstring holding the "
                                  "PhySL source, e.g. \"\"\"define(f, x, x + 1)\"\"\"")
    line, col = doc.lineno + offset, doc.col_offset + indent
    opening = _STRING_OPENING.match(linecache.getline(file, line)[col:])
    col += opening.end() if opening else 0
    return doc, file, "\n" * (line - 1) + " " * col + doc.value.value, locator
