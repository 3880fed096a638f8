"""Per-evaluation state: values that every thread working for one evaluation sees.

An evaluation (a call of a ``@Phylanx`` function from Python, a ``grad``) runs on the
calling thread and on worker threads, each working for a cancellation scope (a
:class:`~.cancel.Token`) linked to the evaluation's (tasks take the scope of the
thread that spawned them: ``executors.py``).  Values that belong to one evaluation — the
tape ``grad`` records on, the Python globals a decorated call loaded — hang on a scope
of that chain (``Token.state``), not in a process-global or thread-local variable: two
evaluations running at once, on two Python threads, never see each other's, and the
worker threads of one evaluation all see its own.

:func:`run_with` runs a function with values attached; :func:`lookup` finds the
nearest value of a key from the thread's current scope outwards (None outside).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cancel import close_token, context, open_token
from .forkjoin import evaluate


def lookup(key: Any) -> Any:
    """The value of ``key`` in the nearest enclosing scope that has one, else None."""
    token = context.token
    while token is not None:
        state = token.state
        if state is not None:
            value = state.get(key)
            if value is not None:
                return value
        token = token.parent
    return None


def run_with(state: dict, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a scope holding ``state``: a new evaluation (``forkjoin.evaluate``:
    its asyncs are waited for, its errors reported) when the thread is not working for
    one, else a scope nested in the current evaluation."""
    if context.token is None:
        return evaluate(_scoped, state, fn, args)
    return _scoped(state, fn, args)


def _scoped(state: dict, fn: Callable[..., Any], args: tuple) -> Any:
    ctx = context
    outer = ctx.token
    scope = open_token(outer)
    scope.state = state
    ctx.token = scope
    try:
        return fn(*args)
    finally:
        ctx.token = outer
        close_token(scope)
