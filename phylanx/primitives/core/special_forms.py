"""Declarations of the core special forms: ``define``, ``define_global``, ``lambda``,
``store`` and the ``__arg`` marker.

A special form is built by the compiler from the call's syntax, not called with
argument values, so its builder lives with the compiler
(``phylanx/compiler/special_forms.py``, table ``SPECIAL_FORMS``).  Here the registry
gets what every primitive has (name, pattern, documentation, example), so docs,
coverage, ``phylanx primitives`` and the contract tests list it like any other.
The functions below carry only that documentation; they are never called.
"""
from __future__ import annotations

from ..registry import primitive


@primitive("define", "define(__1)", special=True,
           example="block(define(sq, x, x * x), sq(4))", result="16",
           no_oracle="special form: binds a name")
def define():
    """Define a variable ``define(x, value)`` or a function ``define(f, a, b, body)``.

    Parameters may have defaults: ``define(f, a, __arg(b, 2), a + b)``.
    Functions are closures over the frame they are defined in; every call gets
    fresh locals, so recursion works.
    """


@primitive("define_global", "define_global(__1)", special=True,
           example="block(define_global(g, 2), g * 3)", result="6",
           no_oracle="special form: binds a name")
def define_global():
    """Like ``define``, in the outermost (global) scope."""


@primitive("lambda", "lambda(__1)", special=True,
           example="apply(lambda(a, b, a - b), list(5, 3))", result="2",
           no_oracle="special form: makes a function value")
def lambda_():
    """Anonymous function ``lambda(a1, ..., aN, body)``; a closure over the current frame."""


@primitive("store", "store(_1, _2)", special=True,
           example="block(define(x, [1, 2, 3]), store(slice(x, 0), 7), x)", result="[7, 2, 3]",
           no_oracle="special form: assignment", differentiable=True)
def store():
    """Assign to a variable, or into a slice of one: ``store(slice(x, 0, nil), v)``.

    ``slice_row``, ``slice_column``, ``slice_page`` and ``tuple_slice`` targets
    assign along that axis.  Storing into an undefined name is a compile error.
    Returns nil.
    """


@primitive("__arg", "__arg(_1, _2)", special=True,
           no_oracle="compiler-internal marker")
def arg_marker():
    """Keyword argument or parameter default marker ``__arg(name, value)``."""
