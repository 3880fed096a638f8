"""Compile-time scopes: names -> frame slots, and the nodes that read and write them.

The global scope belongs to a compiler state and owns a growable list (the
global frame) shared by every snippet compiled in that state.  A function
scope numbers its parameters 1..n and its locals after them; slot 0 of a
frame links to the frame the function was created in, so a name defined
``depth`` functions out is ``frame[0][0]...[i]``.  Blocks and loop bodies do
not open scopes (Python semantics).

Branch-local slots.  The branches of ``parallel_block`` and ``async`` run in
the enclosing frame, concurrently.  So that two branches never share loop
state, the compiler gives every branch a ``private`` overlay of names: inside
a branch, ``declare`` — a ``for_each`` loop variable, ``for``'s init, any
``define`` — allocates a fresh slot of the same frame, visible only to that
branch (and not after the block).  One exception keeps ``with parallel:``
working: a branch that *is* ``define(a, ...)`` (``a = ...``) defines an
ordinary variable, visible after the block.  Variables that exist before the
block are shared: ``store`` into one from two branches is a data race, as in
Python threads.  (``parallel_map`` needs none of this: its function gets a
fresh frame per call.)
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


class _Scope:
    """Name lookup with the branch-private overlay (see the module docstring)."""

    slots: dict[str, int]
    private: dict[str, int] | None = None   # names private to the branch being compiled
    in_loop = False                          # new names go to ``private`` (in a branch)

    def lookup_local(self, name: str) -> int | None:
        private = self.private
        if private and name in private:
            return private[name]
        return self.slots.get(name)

    def declare(self, name: str) -> int:
        private = self.private
        if private is not None:
            if name in private:
                return private[name]
            if self.in_loop:
                private[name] = slot = self._new_slot()
                return slot
        if name not in self.slots:
            self.slots[name] = self._new_slot()
        return self.slots[name]

    def _new_slot(self) -> int:
        raise NotImplementedError


class GlobalScope(_Scope):
    def __init__(self) -> None:
        self.slots: dict[str, int] = {}
        self.frame: list[Any] = [None]   # slot 0 unused: globals have no enclosing frame

    def _new_slot(self) -> int:
        self.frame.append(None)
        return len(self.frame) - 1


class FunctionScope(_Scope):
    def __init__(self, parent: GlobalScope | FunctionScope, name: str, params: list[str]):
        self.parent = parent
        self.name = name
        self.slots: dict[str, int] = {p: i + 1 for i, p in enumerate(params)}
        self.size = len(params) + 1
        self.has_return = False
        # locals that never hold a future: parameters (the call waits for an ``async``
        # argument) and variables the body binds only to values no kernel gives as a
        # future (special_forms.future_free_names); reads of them need no future test
        self.future_free: frozenset[str] = frozenset()

    def _new_slot(self) -> int:
        self.size += 1
        return self.size - 1


Scope = GlobalScope | FunctionScope


def root(scope: Scope) -> GlobalScope:
    while isinstance(scope, FunctionScope):
        scope = scope.parent
    return scope


def resolve(scope: Scope, name: str) -> tuple[int | None, int] | None:
    """``(depth, slot)`` for a local at ``depth`` functions out, ``(None, slot)`` for a
    global, None if unknown."""
    depth = 0
    while isinstance(scope, FunctionScope):
        slot = scope.lookup_local(name)
        if slot is not None:
            return depth, slot
        scope, depth = scope.parent, depth + 1
    slot = scope.lookup_local(name)
    return (None, slot) if slot is not None else None


def reader(where: tuple[int | None, int], globals_frame: list) -> Callable[[list], Any]:
    """A closure reading the slot ``where`` from the current frame."""
    depth, i = where
    if depth is None:
        g = globals_frame
        return lambda frame: g[i]
    if depth == 0:
        return lambda frame: frame[i]
    if depth == 1:
        return lambda frame: frame[0][i]
    if depth == 2:
        return lambda frame: frame[0][0][i]

    def deep(frame):
        for _ in range(depth):
            frame = frame[0]
        return frame[i]
    return deep


def owner(where: tuple[int | None, int], globals_frame: list) -> Callable[[list], list]:
    """A closure returning the frame (list) that holds the slot ``where``."""
    depth, _ = where
    if depth is None:
        g = globals_frame
        return lambda frame: g
    if depth == 0:
        return lambda frame: frame

    def up(frame):
        for _ in range(depth):
            frame = frame[0]
        return frame
    return up
