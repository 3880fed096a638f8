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

Two namespaces in the global scope.  The code of ``@Phylanx`` functions (compiled with
``linking`` on: ``compiler_state.compile_text(..., linked=True)``) binds the names the
frontend's linker gave them, their translated helpers and the Python values they read
(:attr:`GlobalScope.linked`): the Python source's bindings.  PhySL text sees those names
too (it calls a decorated function by name), but a PhySL ``define`` of one makes a
binding of PhySL's own: the decorated code keeps calling the helper its Python source
refers to (as Python resolves a name in the function's module, where a PhySL snippet is
another namespace); a PhySL ``store`` into such a binding is refused, located
(:meth:`GlobalScope.check_store`).  A decorated function's public name itself is no name
for PhySL to take over: :meth:`GlobalScope.check_define` refuses it, located
(docs/physl.md).

Per-evaluation globals.  The Python globals a ``@Phylanx`` function assigns (``global
x``) are loaded for each call, not into the shared global frame: their slots are marked
(:func:`mark_per_evaluation`, before the code using them is compiled) and read and
written in the *overlay* of the running evaluation (a dict slot -> value in the
evaluation's state, ``runtime/evaluation.py``), so two calls running at once on two
Python threads each see their own values.  Outside an evaluation that loaded them, a
read loads the current value from the Python module and a write stores it there.
(Globals a function only reads are loaded into the global frame at each call: a read
there is one list index, and any thread's load is the module's current value.)
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..runtime import evaluation


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
        # the decorated code's bindings (module doc): name -> slot, and the public names
        # of decorated functions -> what they are (for the error of a PhySL define)
        self.linked: dict[str, int] = {}
        self.public: dict[str, str] = {}
        # per thread: compiling decorated code, whose names resolve to ``linked`` (a
        # recording twin of a function compiles on the thread that differentiates it)
        self._linking = threading.local()

    @property
    def linking(self) -> bool:
        return getattr(self._linking, "on", False)

    @linking.setter
    def linking(self, on: bool) -> None:
        self._linking.on = on

    def lookup_local(self, name: str) -> int | None:
        if self.linking:
            slot = self.linked.get(name)
            if slot is not None:
                return slot
        return super().lookup_local(name)

    def declare(self, name: str) -> int:
        linked = self.linked.get(name)
        if self.linking:
            if linked is None:      # a slot of its own; PhySL text sees it unless it
                linked = self.linked[name] = self._new_slot()   # has one of that name
                self.slots.setdefault(name, linked)
            return linked
        private = self.private      # (a branch's own name: not the global binding)
        branch_local = private is not None and (name in private or self.in_loop)
        if linked is not None and self.slots.get(name) == linked and not branch_local:
            self.slots[name] = self._new_slot()     # PhySL's own binding from now on
        return super().declare(name)

    def check_define(self, name: str, loc: Any) -> None:
        """A located error if PhySL text (not decorated code) defines ``name``, the
        public name of a decorated function in this state: PhySL code calling it by
        name would then call another function than Python's ``name`` does."""
        what = self.public.get(name)
        if what is not None and not self.linking:
            from ..errors import PhylanxCompileError
            raise PhylanxCompileError(
                f"'{name}' is the decorated function {what} in this compiler state: "
                "PhySL text may call it but not define it again (choose another name, "
                "or compile the PhySL in a compiler state of its own)", loc, "define")

    def check_store(self, name: str, loc: Any) -> None:
        """A located error if PhySL text stores into ``name`` where it is still the
        decorated code's binding (a helper, a Python value): the store would change what
        the decorated code calls or reads; a PhySL ``define`` makes PhySL's own."""
        slot = self.linked.get(name)
        if slot is not None and not self.linking and self.lookup_local(name) == slot:
            from ..errors import PhylanxCompileError
            raise PhylanxCompileError(
                f"'{name}' is bound by the code of decorated functions in this compiler "
                f"state: PhySL text may not store into it (define({name}, ...) makes a "
                "variable of PhySL's own)", loc, "store")

    def linked_slot(self, name: str) -> int:
        """The slot decorated code binds ``name`` to (KeyError if none)."""
        slot = self.linked.get(name)
        return self.slots[name] if slot is None else slot

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


class _PerEvaluation:
    """Slot 0 of a global frame that has per-evaluation slots: for each, how to load
    its current value and, if the program assigns it, how to store one (module doc).
    Outside an evaluation that loaded them it stands for the frame: ``self[slot]``
    loads, ``self[slot] = value`` stores (Python's live module globals)."""

    __slots__ = ("loads", "stores", "frame")

    def __init__(self, frame: list) -> None:
        self.frame = frame
        self.loads: dict[int, Callable[[], Any]] = {}
        self.stores: dict[int, Callable[[Any], None]] = {}

    def __getitem__(self, slot: int) -> Any:
        return self.loads[slot]()

    def __setitem__(self, slot: int, value: Any) -> None:
        store = self.stores.get(slot)
        if store is None:
            self.frame[slot] = value
        else:
            store(value)


_UNSET = object()


def mark_per_evaluation(globals_frame: list, loads: dict[int, Callable[[], Any]],
                        stores: dict[int, Callable[[Any], None]]) -> None:
    """Read and write the global slots ``loads`` names in the evaluation's overlay
    (module doc); ``loads[slot]()`` is the slot's current value and ``stores[slot](v)``
    assigns it, where no evaluation loaded it (a lazy variable of the function
    evaluated by itself)."""
    marks = globals_frame[0]
    if not isinstance(marks, _PerEvaluation):
        marks = globals_frame[0] = _PerEvaluation(globals_frame)
    marks.loads.update(loads)
    marks.stores.update(stores)


def is_per_evaluation(globals_frame: list, slot: int) -> bool:
    marks = globals_frame[0]
    return isinstance(marks, _PerEvaluation) and slot in marks.loads


def overlay_key(globals_frame: list) -> tuple:
    """The key of ``globals_frame``'s overlay in an evaluation's state."""
    return ("globals", id(globals_frame))


def _overlay_reader(g: list, i: int) -> Callable[[list], Any]:
    key = overlay_key(g)
    load = g[0].loads[i]

    def read(frame):
        overlay = evaluation.lookup(key)
        if overlay is not None:
            value = overlay.get(i, _UNSET)
            if value is not _UNSET:
                return value
        return load()
    return read


def reader(where: tuple[int | None, int], globals_frame: list) -> Callable[[list], Any]:
    """A closure reading the slot ``where`` from the current frame."""
    depth, i = where
    if depth is None:
        g = globals_frame
        if is_per_evaluation(g, i):
            return _overlay_reader(g, i)
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
    depth, i = where
    if depth is None:
        g = globals_frame
        if is_per_evaluation(g, i):
            key = overlay_key(g)

            live = g[0]

            def overlay_or_global(frame):
                overlay = evaluation.lookup(key)
                return live if overlay is None else overlay
            return overlay_or_global
        return lambda frame: g
    if depth == 0:
        return lambda frame: frame

    def up(frame):
        for _ in range(depth):
            frame = frame[0]
        return frame
    return up
