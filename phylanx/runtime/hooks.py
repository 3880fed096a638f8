"""The instrumentation hook protocol: the only way the evaluator talks to instrumentation.

A hook is any object with ``on_eval(node, start_ns, end_ns, thread_id)``; it is
called after every evaluation of a *measured* node (``measure.enable``).  With
no measured nodes the evaluator pays nothing.
"""
from __future__ import annotations

from typing import Any, Protocol


class Hook(Protocol):
    def on_eval(self, node: Any, start_ns: int, end_ns: int, thread_id: int) -> None: ...


_hooks: list[Hook] = []


def install(hook: Hook) -> None:
    """Add an instrumentation hook (counters, tracer, timeline)."""
    if hook not in _hooks:
        _hooks.append(hook)


def remove(hook: Hook) -> None:
    if hook in _hooks:
        _hooks.remove(hook)


def active() -> list[Hook]:
    return _hooks
