"""The kernel closures of ``nodes.build_eager``, generated from one table of shapes.

A node's closure evaluates its operands, tests each that is not a literal against the
kinds its kernel does not take (``nodes.operand_kinds``), hands such an operand to
``nodes.dispatch_operands`` and otherwise calls the kernel once, locating its error
(``nodes.node_failed``).  The closures are specialised by shape (arity, which operands
are literals or locals read from the frame: the hot path of every program) and by the
test: ``type(x) is kind`` when one kind is left (a few nanoseconds cheaper per operand),
``type(x) in kinds`` when an operand may also be a future.

Both tests of every shape come from the one template below (:data:`SHAPES`, rendered by
:func:`_render`): the closures are the same Python functions a hand-written copy would
be, without writing each shape twice.  Compiling the rendered factories costs about
3 ms of CPU, paid by a program's first call when it was done on first use; so they are
compiled as a module's bytecode is: once, their code objects kept beside this module's
own ``.pyc`` (``importlib.util.cache_from_source``, so ``PYTHONPYCACHEPREFIX`` and
``sys.dont_write_bytecode`` apply), stamped with this file's size and modification time
and the bytecode version, and loaded (about 0.1 ms) by the first closure a process
builds.  Nothing of it runs at ``import phylanx``.  Their source is registered with
``linecache`` (rendered only if a traceback asks), so a traceback through one shows
its lines.
"""
from __future__ import annotations

import importlib.util
import linecache
import marshal
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import atomic
from .nodes import Node, dispatch_operands, node_failed, resolve_args


@dataclass(frozen=True)
class Shape:
    """One closure shape: what the factory binds from the node, how the closure gets
    its operands, which of them may be of a tested kind (the rest are literals)."""

    binds: str          # statements of the factory (read ``node``, ``children``)
    fetch: str          # statements of the closure binding the operands
    operands: str       # the operands as passed to the kernel: "x, bv", "*args"
    tested: tuple       # the operands tested ("args": each of the list ``args``)


_ASYNC_PAIR = """if me.async_children:
    x, y = resolve_args(node, frame)
else:
    x = a.call(frame)
    y = b.call(frame)"""
_ASYNC_ANY = """if me.async_children:
    args = resolve_args(node, frame)
else:
    args = [c.call(frame) for c in entries]"""

#: every shape of closure, by name (chosen by :func:`shape_of`)
SHAPES: dict[str, Shape] = {
    "nullary": Shape("", "", "", ()),
    "local": Shape("i = children[0].slot", "x = frame[i]", "x", ("x",)),
    "child": Shape("a = children[0].choice", "x = a.call(frame)", "x", ("x",)),
    "local_local": Shape("i, j = children[0].slot, children[1].slot",
                         "x, y = frame[i], frame[j]", "x, y", ("x", "y")),
    # the commonest operator shape in loops and recursion: ``n - 1``, ``i < n``
    "local_literal": Shape("i, bv = children[0].slot, children[1].value",
                           "x = frame[i]", "x, bv", ("x",)),
    "child_child": Shape("a, b = children[0].choice, children[1].choice\nme = node.choice",
                         _ASYNC_PAIR, "x, y", ("x", "y")),
    "child_literal": Shape("a, bv = children[0].choice, children[1].value",
                           "x = a.call(frame)", "x, bv", ("x",)),
    "literal_child": Shape("av, b = children[0].value, children[1].choice",
                           "y = b.call(frame)", "av, y", ("y",)),
    "any": Shape("entries = tuple(c.choice for c in children)\nme = node.choice",
                 _ASYNC_ANY, "*args", ("args",)),
}


def shape_of(node: Node) -> str:
    """The name of the shape of ``node``'s closure in :data:`SHAPES`."""
    children = node.children
    n = len(children)
    if n == 0:
        return "nullary"
    if n == 1:
        if children[0].slot is not None:
            return "local"
        return "any" if children[0].is_const else "child"
    if n == 2:
        a, b = children
        if a.slot is not None and b.slot is not None:
            return "local_local"
        if b.is_const and a.slot is not None:
            return "local_literal"
        if not a.is_const and not b.is_const:
            return "child_child"
        if b.is_const and not a.is_const:
            return "child_literal"
        if a.is_const and not b.is_const:
            return "literal_child"
    return "any"


def _render(shape: Shape, test: str) -> str:
    """The factory's source: ``build_eager(node, impl, kind)`` returning the closure
    ``run(frame)``; ``test`` is ``is`` (``kind`` a class) or ``in`` (a set of them)."""
    def indent(text: str, spaces: int) -> str:
        return "".join(" " * spaces + line + "\n" for line in text.splitlines())

    if shape.operands == "*args":
        packed = "args"
    elif "," in shape.operands or not shape.operands:
        packed = f"({shape.operands})"
    else:
        packed = f"({shape.operands},)"
    if shape.tested == ("args",):
        check = (f"for x in args:\n    if type(x) {test} kind:\n"
                 f"        return dispatch_operands(node, impl, args)\n")
    elif shape.tested:
        condition = " or ".join(f"type({v}) {test} kind" for v in shape.tested)
        check = f"if {condition}:\n    return dispatch_operands(node, impl, {packed})\n"
    else:
        check = ""
    body = (shape.fetch + "\n" if shape.fetch else "") + check + (
        f"try:\n    return impl({shape.operands})\n"
        "except Exception as e:  # also ControlSignal: node_failed passes it on\n"
        f"    return node_failed(node, impl, {packed}, e)\n")
    return ("def build_eager(node, impl, kind):\n"
            "    children = node.children\n"
            + indent(shape.binds, 4)
            + "    def run(frame):\n"
            + indent(body, 8)
            + "    return run\n")


_factories: dict[tuple[str, str], Callable] = {}
_factories_lock = threading.Lock()
_NAMESPACE = {"dispatch_operands": dispatch_operands, "node_failed": node_failed,
              "resolve_args": resolve_args}
_TESTS = ("is", "in")
#: the code objects of every factory, by (shape, test), once loaded or compiled
_codes: dict[tuple[str, str], Any] = {}


def _filename(name: str, test: str) -> str:
    # not "<...>": linecache renders a lazily registered source only for other names
    return f"phylanx.runtime.operand_tests[{name}, {test}]"


class _Template:
    """What ``linecache`` asks for the source of one factory (rendered on demand)."""

    def __init__(self, name: str, test: str):
        self.name, self.test = name, test

    def get_source(self, _module: str) -> str:
        return _render(SHAPES[self.name], self.test)


def _stamp() -> tuple:
    """What the kept code objects were compiled from: this file (its template) and the
    interpreter's bytecode version, as a ``.pyc`` is checked."""
    st = os.stat(__file__)
    return (importlib.util.MAGIC_NUMBER, st.st_size, st.st_mtime_ns)


def _kept_path() -> str | None:
    try:
        return importlib.util.cache_from_source(
            os.path.join(os.path.dirname(__file__), "operand_tests_closures.py"))
    except NotImplementedError:      # an interpreter without bytecode caching
        return None


def _load_codes() -> dict:
    """Every factory's code object: those kept beside this module's bytecode if their
    stamp matches, else compiled now (all of them) and kept for the next process."""
    stamp, path = _stamp(), _kept_path()
    if path is not None:
        try:
            with open(path, "rb") as f:
                kept_stamp, codes = marshal.load(f)
            if kept_stamp == stamp and set(codes) == {(n, t) for n in SHAPES for t in _TESTS}:
                return codes
        except (OSError, EOFError, ValueError, TypeError):
            pass                     # none yet, unreadable or another format: compile
    codes = {(n, t): compile(_render(SHAPES[n], t), _filename(n, t), "exec")
             for n in SHAPES for t in _TESTS}
    if path is not None and not sys.dont_write_bytecode:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            atomic.write_bytes(path, marshal.dumps((stamp, codes)))
        except OSError:
            pass                     # a read-only install: compiled in each process
    return codes


def _factory(name: str, test: str) -> Callable:
    key = (name, test)
    factory = _factories.get(key)
    if factory is None:
        with _factories_lock:
            factory = _factories.get(key)
            if factory is None:
                if not _codes:
                    _codes.update(_load_codes())
                filename = _filename(name, test)
                linecache.lazycache(filename, {"__name__": filename,
                                               "__loader__": _Template(name, test)})
                namespace = dict(_NAMESPACE)
                exec(_codes[key], namespace)  # noqa: S102 - defines build_eager
                factory = _factories[key] = namespace["build_eager"]
    return factory


def kernel_closure(node: Node, impl: Callable[..., Any], kinds: frozenset,
                   no_kind: type) -> Callable:
    """The closure of ``node`` calling ``impl``: operands of ``kinds`` go to
    ``dispatch_operands`` (tested with one ``is`` when there is one kind, ``no_kind``
    when there is none)."""
    name = shape_of(node)
    if len(kinds) > 1:
        return _factory(name, "in")(node, impl, kinds)
    return _factory(name, "is")(node, impl, next(iter(kinds), no_kind))
