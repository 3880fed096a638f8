"""The instrumentation hook protocol: the only way the evaluator talks to instrumentation.

A hook object may implement any of ``on_compile(tree)``, ``on_eval(node, ns, direct)``
and ``on_task(node, start_ns, end_ns, thread)``.  With no hooks installed the
evaluator pays nothing: nodes only call ``on_eval`` while measuring is enabled.
"""
from __future__ import annotations

from typing import Any, Protocol


class Hook(Protocol):
    def on_eval(self, node: Any, duration_ns: int, direct: bool) -> None: ...


_hooks: list[Any] = []


def install(hook: Any) -> None:
    """Add an instrumentation hook (counters, tracer, timeline)."""
    if hook not in _hooks:
        _hooks.append(hook)


def remove(hook: Any) -> None:
    if hook in _hooks:
        _hooks.remove(hook)


def active() -> list[Any]:
    return _hooks


def emit(event: str, *args: Any) -> None:
    for hook in _hooks:
        fn = getattr(hook, event, None)
        if fn is not None:
            fn(*args)
