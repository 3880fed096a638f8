"""The instrumentation hook protocol: the only way the evaluator talks to instrumentation.

A hook is any object with ``on_eval(node, start_ns, end_ns, thread_id)``; it is
called after every evaluation of a *measured* node (``measure.enable``).  With
no measured nodes the evaluator pays nothing.

Two more slots serve the timeline (``phylanx.instrumentation.timeline``):
``recorder`` is the recording in progress (None otherwise: the executors and futures
test it once per task, the distributed layer once per collective or remote call, nothing
per node), and ``programs``
holds every compiled program's statements weakly, so that a recording started
later reaches code compiled before it.

``local_work`` is set by a distributed run of several ranks (``mpi_locality.py``):
``local_work(seconds)`` is a context held around a long local step that a peer's
collective may wait for (a kernel's compile, its host-lock wait): the peers are told,
so that their collectives wait for it (up to ``seconds``) instead of timing out.
"""
from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any, Protocol


class Hook(Protocol):
    def on_eval(self, node: Any, start_ns: int, end_ns: int, thread_id: int) -> None: ...


_hooks: list[Hook] = []

#: the timeline recording now, or None
recorder: Any = None
#: the top-level statements of every compiled program (weakly: they die with their state)
programs: weakref.WeakSet = weakref.WeakSet()
#: the context telling the other ranks of a long local step, or None (one process)
local_work: Any = None


def install(hook: Hook) -> None:
    """Add an instrumentation hook (counters, tracer, timeline)."""
    if hook not in _hooks:
        _hooks.append(hook)


def remove(hook: Hook) -> None:
    if hook in _hooks:
        _hooks.remove(hook)


def active() -> list[Hook]:
    return _hooks


def compiled(statements: Iterable[Any]) -> None:
    """The compiler built these statements (once per compile, not per evaluation)."""
    rec = recorder
    for node in statements:
        programs.add(node)
        if rec is not None:
            rec.add_tree(node)
