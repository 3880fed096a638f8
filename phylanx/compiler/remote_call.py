"""``f{L#n}(...)`` and ``define{L#n}(x, ...)``: a call or a variable placed on locality n.

SPMD: every rank compiles the same program, so each rank has its own copy of every
node.  At compile time the placed call (or variable body) is *published* under a key
made of its name, its source location and how many times this rank compiled that
location before (the k-th compilation of a program here answers the k-th there: a
loop evaluating a program again never reaches another iteration's copy); at run time
the arguments are evaluated here and ``here().run_on(n, Published(key), *args)`` asks
locality n to run its own copy.  Only top-level functions and variables can be placed
(a remote rank has no copy of this rank's local frames).

Ranks run at their own pace, so locality n may get the call before it compiled that
program (it waits, up to ``remote_timeout``), or before (or after) it ran the
``define`` of the function.  So the call carries the function the caller sees: every
top-level function ``define`` is published too (:func:`publish_definition`), and the
call names it; locality n builds its own copy from that definition.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from ..errors import PhylanxCompileError, PhylanxRuntimeError
from ..language import ast
from ..runtime.futures import resolve_deep
from ..runtime.locality import here
from ..values import Function
from ..values import call as call_value
from . import scopes
from .locating import located

#: key -> callable run on this rank when another rank asks for the key
_published: dict[str, Callable[..., Any]] = {}
#: base key (name@location) -> how many times this rank compiled it
_compiled: dict[str, int] = {}
_lock = threading.Lock()
#: the copies kept per location: a caller more than this many evaluations of one program
#: behind this rank gets a located error, never another evaluation's copy
_KEEP = 256
_POLL = 0.005           # seconds between looks while waiting for this rank to catch up


def _wait_limit() -> float:
    """How long a rank waits to catch up with a caller: as long as the caller waits."""
    from ..config import SETTINGS, get
    return float(get("remote_timeout")) if "remote_timeout" in SETTINGS else 60.0


def _publish(base: str, target: Callable[..., Any]) -> str:
    """Publish ``target`` as the next copy of ``base`` on this rank; returns its key."""
    with _lock:
        n = _compiled.get(base, 0)
        _compiled[base] = n + 1
        key = f"{base}#{n}"
        _published[key] = target
        _published.pop(f"{base}#{n - _KEEP}", None)
    return key


def publish_definition(name: str, loc: Any, make: Callable[[list], Any],
                       frame: list) -> str | None:
    """Publish a top-level function's definition (``make(frame)`` builds its value), so
    that a placed call carries the function the caller sees, by key: the target builds
    its own copy, whether or not it ran that ``define`` yet (a ``define`` of the same name
    later in the program cannot stand in for it).  None in a single process."""
    if here().count() == 1:
        return None
    return _publish(f"define {name}@{loc}", lambda: make(frame))


def _lookup(key: str) -> Callable[..., Any]:
    """The callable published here under ``key``, once this rank has compiled it."""
    base, _, n = key.rpartition("#")
    deadline = time.monotonic() + _wait_limit()
    while True:
        target = _published.get(key)
        if target is not None:
            return target
        if _compiled.get(base, 0) > int(n):
            raise PhylanxRuntimeError(
                f"{base} (evaluation {int(n) + 1}) was dropped on locality {here().id()}: "
                f"it is more than {_KEEP} evaluations of this program ahead")
        if time.monotonic() > deadline:
            raise PhylanxRuntimeError(
                f"{base} (evaluation {int(n) + 1}) was not compiled on locality "
                f"{here().id()} (every locality must compile the same program)")
        time.sleep(_POLL)     # SPMD ranks run at their own pace: it may compile it soon


class Published:
    """A picklable reference to a published callable (the same key on every rank)."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.__name__ = key

    def __call__(self, *args: Any) -> Any:
        return resolve_deep(_lookup(self.key)(*args))


def _origin(value: Any) -> str | None:
    """The published definition of a function value (see :func:`publish_definition`)."""
    if not isinstance(value, Function):
        return None
    return getattr(value.body.function_source, "placed_key", None)


def _function(name: str, get: Callable[[], Any], origin: str | None) -> Any:
    """The function the caller sees: this rank's copy of its definition (``origin``),
    else (not a top-level ``define``) this rank's global ``name`` once it is defined."""
    if origin is not None:
        return _lookup(origin)()
    deadline = time.monotonic() + _wait_limit()
    while True:
        value = get()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            raise PhylanxRuntimeError(f"{name} is not defined on locality {here().id()}")
        time.sleep(_POLL)


def placement(call: ast.Call) -> int | None:
    """The locality of a ``{L#n}`` attribute (checked by the compiler), or None."""
    attr = (call.attribute or "").strip()
    return int(attr[2:]) if attr.startswith("L#") else None


def compile_placed_call(compiler, call: ast.Call, where, scope, target: int):
    """The node of ``f{L#target}(args...)`` or ``define{L#target}(x, body)``."""
    if call.func in ("define", "define_global"):
        return _placed_define(compiler, call, scope, target)
    base = f"{call.func}@{call.loc}"
    get = None
    if where is None:      # a primitive: run its builtin value there
        spec_node = compiler.compile_name(call.func, call.loc, scope)
        fn_value = spec_node.choice.call(None)
        key = _publish(base, lambda origin, *args: call_value(fn_value, *args))
    else:
        if where[0] is not None:
            raise PhylanxCompileError(
                f"{call.func}{{L#{target}}}: only functions defined at the top level can run "
                "on another locality", call.loc, call.func)
        read = scopes.reader(where, compiler.globals.frame)
        get = lambda: read(None)  # noqa: E731
        key = _publish(base, lambda origin, *args: call_value(
            _function(call.func, get, origin), *args))
    args = [compiler.compile(a, scope) for a in call.args]
    node = compiler.new_node("call-function", call.loc, args, instance=call.func)
    remote = Published(key)

    def run(frame):
        values = [resolve_deep(a.choice.call(frame)) for a in args]
        # the function this rank sees travels by key: the target runs its copy of it
        origin = _origin(get()) if get is not None else None
        # the request fails by itself after remote_timeout (active_messages), never hangs
        return here().run_on(target, remote, origin, *values).result()
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
    scopes.root(scope).check_define(name, call.loc)
    slot = scopes.root(scope).declare(name)
    body = compiler.compile(call.args[1], scope)
    frame = compiler.globals.frame
    # the other rank evaluates its copy of the body; the variable is set here
    key = _publish(f"{call.func} {name}@{call.loc}", lambda: body.choice.call(frame))
    node = compiler.new_node("define-variable", call.loc, (body,), instance=name)
    remote = Published(key)

    def run(frame_):
        value = frame[slot] = here().run_on(target, remote).result()
        return value
    return node.set_run(located(node, run))
