"""Kernel closures that test each operand against several kinds (runtime/nodes.py).

``nodes.build_eager`` gives a node whose operands can only be of one kind its kernel
does not take (a tiled array) closures testing it with one ``is``.  When an operand may
also be a future (a call's value, a local bound to an ``async`` value), the closures
here test ``type(x) in kinds``, a few nanoseconds more per operand, and hand an operand
of any of the kinds to ``nodes.dispatch_operands`` before the kernel runs.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .nodes import Node, dispatch_operands, node_failed, resolve_args


def testing_kinds(node: Node, impl: Callable[..., Any], kinds: frozenset) -> Callable:
    """The closure of ``node`` when an operand may be of one of several ``kinds`` (a
    future besides a tiled array): each non-literal operand is tested with one
    ``type(x) in kinds``.  The same shapes as ``nodes.build_eager``'s closures, which
    test one kind with ``is`` (a few nanoseconds cheaper per operand)."""
    children = node.children
    n = len(children)
    consts = [c.is_const for c in children]
    dynamic = n - sum(consts)

    if n == 0:
        def run(frame):
            try:
                return impl()
            except Exception as e:  # also ControlSignal: node_failed passes it on
                return node_failed(node, impl, (), e)
    elif n == 1 and children[0].slot is not None:
        i = children[0].slot

        def run(frame):
            x = frame[i]
            if type(x) in kinds:
                return dispatch_operands(node, impl, (x,))
            try:
                return impl(x)
            except Exception as e:  # also ControlSignal: node_failed passes it on
                return node_failed(node, impl, (x,), e)
    elif n == 1 and not consts[0]:
        a = children[0].choice

        def run(frame):
            x = a.call(frame)
            if type(x) in kinds:
                return dispatch_operands(node, impl, (x,))
            try:
                return impl(x)
            except Exception as e:  # also ControlSignal: node_failed passes it on
                return node_failed(node, impl, (x,), e)
    elif n == 2 and children[0].slot is not None and children[1].slot is not None:
        i, j = children[0].slot, children[1].slot

        def run(frame):
            x, y = frame[i], frame[j]
            if type(x) in kinds or type(y) in kinds:
                return dispatch_operands(node, impl, (x, y))
            try:
                return impl(x, y)
            except Exception as e:  # also ControlSignal: node_failed passes it on
                return node_failed(node, impl, (x, y), e)
    elif n == 2 and consts[1] and children[0].slot is not None:
        # the commonest operator shape in loops and recursion: ``n - 1``, ``i < n``
        i, bv = children[0].slot, children[1].value

        def run(frame):
            x = frame[i]
            if type(x) in kinds:
                return dispatch_operands(node, impl, (x, bv))
            try:
                return impl(x, bv)
            except Exception as e:  # also ControlSignal: node_failed passes it on
                return node_failed(node, impl, (x, bv), e)
    elif n == 2 and dynamic == 2:
        a, b = children[0].choice, children[1].choice
        me = node.choice

        def run(frame):
            if me.async_children:
                x, y = resolve_args(node, frame)
            else:
                x = a.call(frame)
                y = b.call(frame)
            if type(x) in kinds or type(y) in kinds:
                return dispatch_operands(node, impl, (x, y))
            try:
                return impl(x, y)
            except Exception as e:  # also ControlSignal: node_failed passes it on
                return node_failed(node, impl, (x, y), e)
    elif n == 2 and consts[1] and not consts[0]:
        a, bv = children[0].choice, children[1].value

        def run(frame):
            x = a.call(frame)
            if type(x) in kinds:
                return dispatch_operands(node, impl, (x, bv))
            try:
                return impl(x, bv)
            except Exception as e:  # also ControlSignal: node_failed passes it on
                return node_failed(node, impl, (x, bv), e)
    elif n == 2 and consts[0] and not consts[1]:
        av, b = children[0].value, children[1].choice

        def run(frame):
            y = b.call(frame)
            if type(y) in kinds:
                return dispatch_operands(node, impl, (av, y))
            try:
                return impl(av, y)
            except Exception as e:  # also ControlSignal: node_failed passes it on
                return node_failed(node, impl, (av, y), e)
    else:
        entries = tuple(c.choice for c in children)
        me = node.choice

        def run(frame):
            if me.async_children:
                args = resolve_args(node, frame)
            else:
                args = [c.call(frame) for c in entries]
            for x in args:
                if type(x) in kinds:
                    return dispatch_operands(node, impl, args)
            try:
                return impl(*args)
            except Exception as e:  # also ControlSignal: node_failed passes it on
                return node_failed(node, impl, args, e)
    return run
