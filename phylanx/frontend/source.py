"""Recovering the Python source of a function to translate.

``@Phylanx`` translates the function's source text, not its bytecode, so it
needs the text and where it stands in its file (errors point at the user's
lines).  :func:`function_source` finds the ``def`` (or the ``lambda``) and
:func:`docstring_source` the PhySL held by a ``doc_src`` function's docstring.

The text comes from, in order: the ``source=`` option; the file, or the
``linecache`` entry registered under the code's file name (IPython and
Jupyter register every cell there, and so can ``exec`` users:
``linecache.cache[name] = (size, None, lines, name)`` then
``exec(compile(text, name, "exec"))``).  A function typed at the plain
interactive prompt, read from stdin or ``exec``-ed from a bare string has
none of these: that is a located :class:`SourceUnavailableError` saying how
to proceed, never a bare ``OSError``.
"""
from __future__ import annotations

import ast
import inspect
import linecache
import re
import textwrap
from dataclasses import dataclass

from ..errors import PhylanxError, PhylanxTypeError
from ..source import SourceLoc
from . import checks


class SourceUnavailableError(PhylanxError):
    """The source text of a function to translate cannot be found."""


@dataclass
class Source:
    """A function's parsed source and how its positions map to the user's text."""

    node: ast.AST        # the FunctionDef or Lambda
    file: str
    offset: int          # added to parsed line numbers to give file lines
    indent: int          # added to parsed columns (indentation removed before parsing)
    text: str            # the (dedented) text parsed
    own_text: str | None = None   # the text locations refer to, when not the file's

    def locator(self) -> checks.Locator:
        return checks.Locator(self.file, self.offset, self.own_text, self.indent)


def _unavailable(fn) -> SourceUnavailableError:
    code = fn.__code__
    name = "<lambda>" if fn.__name__ == "<lambda>" else f"'{fn.__name__}'"
    return SourceUnavailableError(
        f"could not get the source code of {name} (defined in {code.co_filename}): "
        "define it in a file, or pass Phylanx(source=...) with its source text",
        SourceLoc(code.co_filename, code.co_firstlineno, 1))


def function_source(fn, source: str | None = None) -> Source:
    """The parsed source of ``fn`` (from ``source`` when given)."""
    if source is not None:
        return _given_source(fn, source)
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        raise _unavailable(fn) from None
    text = textwrap.dedent("".join(lines))
    indent = len(lines[0]) - len(lines[0].lstrip())
    file = inspect.getsourcefile(fn) or fn.__code__.co_filename
    if fn.__name__ != "<lambda>":
        node = ast.parse(text).body[0]
        if not isinstance(node, ast.FunctionDef):
            raise PhylanxTypeError(f"@Phylanx needs a function, got {type(node).__name__}")
        return Source(node, file, first - 1, indent, text)
    found = _lambda_in_file(fn, file)
    if found is not None:
        return found
    # a lambda: parse the smallest enclosing statement text and find it by its parameters
    for candidate in (text, text.strip().rstrip(",)") + "\n", "(" + text.strip() + ")"):
        try:
            tree = ast.parse(candidate)
        except SyntaxError:
            continue
        node = _find(tree, fn)
        if node is not None:
            return Source(node, file, first - 1, indent, text)
    raise PhylanxTypeError("cannot find the source of this lambda; define it with def")


def _params(fn) -> list[str]:
    code = fn.__code__
    return list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])


def _node_params(node) -> list[str]:
    a = node.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]


def _find(tree: ast.AST, fn):
    """The def named like ``fn`` (or the lambda with its parameters) in ``tree``."""
    want_lambda = fn.__name__ == "<lambda>"
    for node in ast.walk(tree):
        if want_lambda and isinstance(node, ast.Lambda) and _node_params(node) == _params(fn):
            return node
        if not want_lambda and isinstance(node, ast.FunctionDef) and node.name == fn.__name__:
            return node
    return None


def _given_source(fn, source: str) -> Source:
    """``Phylanx(source=text)``: locations count lines and columns within ``text``."""
    text = textwrap.dedent(source)
    file = fn.__code__.co_filename
    where = checks.Locator(file, 0, text)
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        raise SourceUnavailableError(f"the source= text is not valid Python: {e.msg}",
                                     SourceLoc(file, e.lineno or 0, e.offset or 0, text)) \
            from None
    node = _find(tree, fn)
    what = "a lambda" if fn.__name__ == "<lambda>" else f"'def {fn.__name__}'"
    if node is None:
        raise SourceUnavailableError(f"the source= text has no {what} to translate",
                                     where(None))
    if _node_params(node) != _params(fn):
        raise SourceUnavailableError(
            f"the source= text defines {what} with parameters ({', '.join(_node_params(node))})"
            f" but the function takes ({', '.join(_params(fn))})", where(node))
    return Source(node, file, 0, 0, text, text)


def _lambda_in_file(fn, file: str) -> Source | None:
    """The lambda of ``fn`` found by where its code starts in the file (two lambdas
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
    params = _params(fn)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Lambda) and (node.body.lineno, node.body.col_offset) == start
                and _node_params(node) == params):
            return Source(node, file, 0, 0, text)
    return None


_STRING_OPENING = re.compile(r"[rRuU]?(\"\"\"|'''|\"|')")


def docstring_source(fn, source: str | None = None):
    """(docstring node, file, PhySL text, locator) of a ``doc_src`` function; the text
    stands at the docstring's own lines and columns, so PhySL errors point into the file."""
    src = function_source(fn, source)
    locator = src.locator()
    node = src.node
    doc = node.body[0] if node.body else None
    if not (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
            and isinstance(doc.value.value, str)):
        raise locator.error(node, "@Phylanx(doc_src=True) needs a docstring holding the "
                                  "PhySL source, e.g. \"\"\"define(f, x, x + 1)\"\"\"")
    line, col = doc.lineno + src.offset, doc.col_offset + src.indent
    text_line = (src.own_text.splitlines()[line - 1] if src.own_text is not None
                 else linecache.getline(src.file, line))
    opening = _STRING_OPENING.match(text_line[col:])
    col += opening.end() if opening else 0
    return doc, src.file, "\n" * (line - 1) + " " * col + doc.value.value, locator
