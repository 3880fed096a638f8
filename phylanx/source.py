"""Source locations and excerpt formatting.

Every PhySL AST node, execution-tree node and error carries a :class:`SourceLoc`.
Errors print ``file:line:col: message`` followed by the source line and a caret,
so a user can find the spot without reading generated code.
"""
from __future__ import annotations

import linecache
import os
import sys
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SourceLoc:
    """A position in a source text: 1-based ``line``, 1-based ``col``.

    ``text`` is the whole source the position refers to when it is not a file
    on disk (PhySL given as a string); otherwise the line is read from ``file``.
    """

    file: str = "<physl>"
    line: int = 0
    col: int = 0
    text: str | None = None

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.col}"

    def source_line(self) -> str | None:
        """The text of the line this location points at, if it can be found."""
        if self.line <= 0:
            return None
        if self.text is not None:
            lines = self.text.splitlines()
            return lines[self.line - 1] if self.line <= len(lines) else None
        line = linecache.getline(self.file, self.line)
        return line.rstrip("\n") if line else None

    def excerpt(self) -> str:
        """The source line followed by a caret under ``col`` (empty if unknown)."""
        line = self.source_line()
        if line is None:
            return ""
        caret = " " * max(self.col - 1, 0) + "^"
        return f"    {line}\n    {caret}"

    def with_text(self, text: str | None) -> SourceLoc:
        return SourceLoc(self.file, self.line, self.col, text)


UNKNOWN = SourceLoc()


def format_located(loc: SourceLoc | None, message: str) -> str:
    """``file:line:col: message`` plus the source excerpt when there is one."""
    if loc is None or loc.line <= 0:
        prefix = f"{loc.file}: " if loc is not None and loc.file else ""
        return prefix + message
    out = f"{loc}: {message}"
    excerpt = loc.excerpt()
    return f"{out}\n{excerpt}" if excerpt else out


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_line() -> SourceLoc | None:
    """The first frame outside the phylanx and numpy packages: the user's line that called an
    API function (errors of Python-level calls point there), at its first character."""
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__") or ""
        # by module too: a dataclass's generated __init__ has no file of its own
        # numpy's too: an operator on a DistributedArray (x + t) calls it through
        # numpy.lib.mixins, and np.asarray(x) through numpy; the user's line is above
        # (and a thread's bootstrap: a stack of our worker threads has no user's line)
        ours = module in ("phylanx", "threading") or \
            module.startswith(("phylanx.", "numpy.")) or \
            os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE)
        if not ours:
            line = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
            column = len(line) - len(line.lstrip()) + 1 if line.strip() else 1
            return SourceLoc(frame.f_code.co_filename, frame.f_lineno, column)
        frame = frame.f_back
    return None
