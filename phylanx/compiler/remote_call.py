"""``f{L#n}(...)`` and ``define{L#n}(x, ...)``: a call or a variable placed on locality n.

SPMD: every rank compiles the same program, so each rank has its own copy of every
node.  At compile time the placed call (or variable body) is *published* under a key
made of its name and source location; at run time the arguments are evaluated here
and ``here().run_on(n, Published(key), *args)`` asks locality n to run its own copy.
Only top-level functions and variables can be placed (a remote rank has no copy of
this rank's local frames).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..errors import PhylanxCompileError, PhylanxRuntimeError
from ..language import ast
from ..runtime.futures import resolve_deep
from ..runtime.locality import here
from ..values import call as call_value
from . import scopes
from .locating import located

#: key -> callable run on this rank when another rank asks for the key
_published: dict[str, Callable[..., Any]] = {}
_COMPILE_WAIT = 10.0    # seconds to wait for this rank to compile what another one calls


class Published:
    """A picklable reference to a published callable (the same key on every rank)."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.__name__ = key

    def __call__(self, *args: Any) -> Any:
        target = _published.get(self.key)
        deadline = time.monotonic() + _COMPILE_WAIT
        while target is None and time.monotonic() < deadline:
            time.sleep(0.005)     # SPMD ranks run at their own pace: it may compile it soon
            target = _published.get(self.key)
        if target is None:
            raise PhylanxRuntimeError(
                f"{self.key} was not compiled on locality {here().id()} (every locality "
                "must compile the same program)")
        return resolve_deep(target(*args))


def placement(call: ast.Call) -> int | None:
    """The locality of a ``{L#n}`` attribute (checked by the compiler), or None."""
    attr = (call.attribute or "").strip()
    return int(attr[2:]) if attr.startswith("L#") else None


def compile_placed_call(compiler, call: ast.Call, where, scope, target: int):
    """The node of ``f{L#target}(args...)`` or ``define{L#target}(x, body)``."""
    if call.func in ("define", "define_global"):
        return _placed_define(compiler, call, scope, target)
    key = f"{call.func}@{call.loc}"
    if where is None:      # a primitive: run its builtin value there
        spec_node = compiler.compile_name(call.func, call.loc, scope)
        fn_value = spec_node.run(None)
        _published[key] = fn_value
    else:
        if where[0] is not None:
            raise PhylanxCompileError(
                f"{call.func}{{L#{target}}}: only functions defined at the top level can run "
                "on another locality", call.loc, call.func)
        get = scopes.reader(where, compiler.globals.frame)
        _published[key] = lambda *args: call_value(get(None), *args)
    args = [compiler.compile(a, scope) for a in call.args]
    node = compiler.new_node("call-function", call.loc, args, instance=call.func)
    remote = Published(key)

    def run(frame):
        values = [resolve_deep(a.run(frame)) for a in args]
        # the request fails by itself after remote_timeout (active_messages), never hangs
        return here().run_on(target, remote, *values).result()
    return node.set_run(located(node, run))


def _placed_define(compiler, call: ast.Call, scope, target: int):
    if len(call.args) != 2 or not isinstance(scope, scopes.GlobalScope):
        raise PhylanxCompileError(
            f"{call.func}{{L#{target}}}: only a top-level variable, "
            f"{call.func}{{L#n}}(name, value), can be placed on another locality",
            call.loc, call.func)
    if not isinstance(call.args[0], ast.Identifier):
        raise PhylanxCompileError(
            f"{call.func}{{L#{target}}}: the first argument must be the variable's name",
            call.loc, call.func)
    name = call.args[0].name
    slot = scopes.root(scope).declare(name)
    body = compiler.compile(call.args[1], scope)
    frame = compiler.globals.frame
    key = f"{call.func} {name}@{call.loc}"
    # the other rank evaluates its copy of the body; the variable is set here
    _published[key] = lambda: body.run(frame)
    node = compiler.new_node("define-variable", call.loc, (body,), instance=name)
    remote = Published(key)

    def run(frame_):
        value = frame[slot] = here().run_on(target, remote).result()
        return value
    return node.set_run(located(node, run))
