"""The kernel closures of ``nodes.build_eager``, generated from one table of shapes.

A node's closure evaluates its operands, tests each that is not a literal against the
kinds its kernel does not take (``nodes.operand_kinds``), hands such an operand to
``nodes.dispatch_operands`` and otherwise calls the kernel once, locating its error
(``nodes.node_failed``).  The closures are specialised by shape (arity, which operands
are literals or locals read from the frame: the hot path of every program) and by the
test: ``type(x) is kind`` when one kind is left (a few nanoseconds cheaper per operand),
``type(x) in kinds`` when an operand may also be a future.

Both tests of every shape come from the one template below (:data:`SHAPES`, rendered by
:func:`_factory` and compiled once per process per shape and test, on first use): the
closures are the same Python functions a hand-written copy would be, without writing
each shape twice.  Their source is registered with ``linecache``, so a traceback through
one shows its lines.
"""
from __future__ import annotations

import linecache
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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


def _factory(name: str, test: str) -> Callable:
    key = (name, test)
    factory = _factories.get(key)
    if factory is None:
        with _factories_lock:
            factory = _factories.get(key)
            if factory is None:
                source = _render(SHAPES[name], test)
                filename = f"<phylanx.runtime.operand_tests: {name}, {test}>"
                linecache.cache[filename] = (len(source), None,
                                             source.splitlines(True), filename)
                namespace = dict(_NAMESPACE)
                exec(compile(source, filename, "exec"), namespace)  # noqa: S102
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
