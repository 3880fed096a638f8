"""The options of ``@Phylanx(...)``: which exist, and what values each accepts.

Every option either does something or is refused with an error saying so;
none is accepted and silently ignored.  Errors are located at the decorator
(the ``@Phylanx(...)`` line, or the line calling ``Phylanx(...)``).

=====================  =====================================================
``debug``              translate at decoration and print the PhySL
``performance``        fill ``f.__perfdata__`` after each call
``startatlineone``     number lines from the ``def`` line
``print_progress``     print "physl: compiling ..." messages
``disable_decorator``  calls go to the Python function
``doc_src``            the docstring is the PhySL source
``compiler_state``     an ``execution_tree.compiler_state`` to compile into
``target``             ``"PhySL"`` (the only backend)
``fglobals``           the globals dict free names are resolved in
``localities``         ``None`` or ``1``: one locality (several: not yet)
``source``             the function's source text, when Python cannot find it
=====================  =====================================================
"""
from __future__ import annotations

import linecache
import sys
from typing import Any

from ..exceptions import InvalidDecoratorArgumentError
from ..execution_tree import compiler_state
from ..source import SourceLoc

OPTIONS = ("debug", "performance", "startatlineone", "print_progress", "disable_decorator",
           "doc_src", "compiler_state", "localities", "target", "fglobals", "source")


class UnknownOptionError(InvalidDecoratorArgumentError, NotImplementedError):
    """``@Phylanx(bad=...)``: an option the decorator does not know."""

    def __init__(self, message: str, loc: SourceLoc | None = None):
        super().__init__(message)
        self.loc = loc


class UnsupportedOptionError(InvalidDecoratorArgumentError, NotImplementedError):
    """A known option given a value it does not (yet) support."""

    def __init__(self, message: str, loc: SourceLoc | None = None):
        super().__init__(message)
        self.loc = loc


def caller_loc(depth: int) -> SourceLoc:
    """Where the caller ``depth`` frames up stands (``Phylanx(...)`` called there)."""
    frame = sys._getframe(depth + 1)
    return _line_loc(frame.f_code.co_filename, frame.f_lineno)


def definition_loc(fn) -> SourceLoc:
    """The first line of ``fn``'s definition: its first decorator, or the ``def``."""
    code = fn.__code__
    return _line_loc(code.co_filename, code.co_firstlineno)


def _line_loc(file: str, line: int) -> SourceLoc:
    text = linecache.getline(file, line)
    return SourceLoc(file, line, len(text) - len(text.lstrip()) + 1)


def check_options(options: dict[str, Any], loc: SourceLoc) -> None:
    """Raise on an unknown option or a value an option does not accept."""
    for key in options:
        if key not in OPTIONS:
            raise UnknownOptionError(f"Unknown Phylanx argument '{key}'.", loc)
    target = options.get("target", "PhySL")
    if target != "PhySL":
        raise UnsupportedOptionError(f"Unknown target {target!r}: only 'PhySL' is supported",
                                     loc)
    localities = options.get("localities")
    if localities is not None and not (
            type(localities) is int and localities == 1):
        raise UnsupportedOptionError(
            f"localities={localities!r}: running a decorated function on several localities "
            "is not supported yet; leave 'localities' out (or pass 1) to run it here", loc)
    fglobals = options.get("fglobals")
    if fglobals is not None and not isinstance(fglobals, dict):
        raise UnsupportedOptionError(
            f"fglobals must be a dict of globals (like f.__globals__), not "
            f"{type(fglobals).__name__}", loc)
    source = options.get("source")
    if source is not None and not isinstance(source, str):
        raise UnsupportedOptionError("source must be the function's source text (a str), "
                                     f"not {type(source).__name__}", loc)
    state = options.get("compiler_state")
    if state is not None:
        if not isinstance(state, compiler_state):
            raise UnsupportedOptionError(
                "compiler_state must be a phylanx.execution_tree.compiler_state, not "
                f"{type(state).__name__}", loc)
