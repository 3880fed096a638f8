"""PhySL primitives for the collectives: ``all_reduce``, ``all_gather``, ``broadcast``,
``gather``, ``scatter``, ``reduce``, ``barrier``, plus ``register_array``/``get_remote``.

The original has no PhySL-level collective besides ``all_gather_d`` (reference
§4.3), so the names and signatures are ours, matching the Python API of
``phylanx.distributed``.  Each waits for its result, running no other task meanwhile
(a spare worker stands in: ``distributed.collectives.wait``); ``async(all_reduce(x))``
starts one and returns, so it overlaps with computation (``_starts``).  The
optional ``name`` keys the collective: calls of one name must come in the same order
on every rank.  In a single process they return what the one rank contributed.

Loaded by ``phylanx/__init__`` (through ``phylanx.distributed.primitives``); importing it
does not import mpi4py.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .... import distributed as api
from ....errors import PhylanxTypeError
from ....primitives.registry import primitive
from ....values import type_name
from ... import lockstep

# every rank must issue collectives in one order: never reordered or spawned
_DIST = {"extension": True, "side_effects": True, "flags": {"ordered": True}}


def _starts(start) -> dict:
    """The options of a collective whose ``start(*args)`` begins it and returns its
    future: ``async(<collective>)`` returns that future's value without a task waiting
    for it (``Forward`` in ``runtime/futures.py``), the primitive itself waits."""
    start.with_plan = _with_plan(start)
    return {**_DIST, "flags": {**_DIST["flags"], "start": start}}


def _with_plan(start: Callable[..., Any]) -> Callable[[int], Callable[..., Any]]:
    """``with_plan(key)``: ``start`` as a node compiled under plan key ``key`` calls it
    (the compiler asks: ``Node.plan``): the collective's header carries the key
    (``agreement.PLAN_KEY``, in the header exchange a checked collective makes anyway),
    so ranks that compiled the calling program under different plan settings fail at
    it, every rank with the error naming the settings, instead of pairing collectives
    of two plans.  (An unchecked one, ``check=false``, exchanges no header: no key.)"""
    def with_plan(plan: int) -> Callable[..., Any]:
        if not plan:
            return start

        @functools.wraps(start)
        def planned(*args: Any, **kwargs: Any) -> Any:
            outer = lockstep.enter_plan(plan)
            try:
                return start(*args, **kwargs)
            finally:
                lockstep.leave_site(outer)
        return planned
    return with_plan


def _waits_for(start: Callable[..., Any]) -> Callable[[Callable], Callable]:
    """The primitive ``impl`` that waits for what ``start`` begins, given the
    ``with_plan`` of ``start`` (see :func:`_with_plan`)."""
    def mark(impl: Callable[..., Any]) -> Callable[..., Any]:
        def with_plan(plan: int) -> Callable[..., Any]:
            planned = start.with_plan(plan)
            if planned is start:
                return impl

            @functools.wraps(impl)
            def waiting(*args: Any, **kwargs: Any) -> Any:
                return _wait(planned(*args, **kwargs))
            return waiting
        impl.with_plan = with_plan
        return impl
    return mark


def _wait(future) -> Any:
    from ...collectives import wait
    return wait(future)


def _name(name: Any) -> str | None:
    return str(name) if name not in (None, "") else None


def _start_all_reduce(value, op="sum", name="", check=None):
    return api.all_reduce(value, str(op), _name(name), where=None, check=_check(check))


def _check(check: Any) -> bool | None:
    """nil, or a boolean (``"false"``, a string, is no boolean: it would be true)."""
    if check is None or isinstance(check, (bool, np.bool_)):
        return None if check is None else bool(check)
    raise PhylanxTypeError(f"all_reduce's check must be true, false or nil, got "
                           f"{type_name(check)} {check!r}")


@primitive("all_reduce",
           'all_reduce(_1, __arg(_2_op, "sum"), __arg(_3_name, ""), __arg(_4_check, nil))',
           **_starts(_start_all_reduce), example='all_reduce(3, "max")', result="3",
           no_oracle="collective over localities", differentiable=True)
@_waits_for(_start_all_reduce)
def all_reduce(value, op="sum", name="", check=None):
    """Every locality's value combined with ``op``, on every locality.

    ``op``: sum, prod, min, max, land, lor, lxor, band, bor or bxor.  ``check``: false
    skips the header exchange that makes disagreeing localities fail at once (nil: the
    setting ``check_collectives``); every locality must pass the same, else MPI sees
    mismatched calls: at best the collective fails after ``collective_timeout``.
    """
    return _wait(_start_all_reduce(value, op, name, check))


def _start_reduce(value, op="sum", root=0, name=""):
    return api.reduce(value, str(op), root, _name(name), where=None)


@primitive("reduce", 'reduce(_1, __arg(_2_op, "sum"), __arg(_3_root, 0), __arg(_4_name, ""))',
           **_starts(_start_reduce), example='reduce([1, 2], "sum", 0)', result="[1, 2]",
           no_oracle="collective over localities")
@_waits_for(_start_reduce)
def reduce(value, op="sum", root=0, name=""):
    """Like ``all_reduce``, but only locality ``root`` gets the result (the others nil)."""
    return _wait(_start_reduce(value, op, root, name))


def _start_all_gather(value, name=""):
    return api.all_gather(value, _name(name), where=None)


@primitive("all_gather", 'all_gather(_1, __arg(_2_name, ""))', **_starts(_start_all_gather),
           example="all_gather(find_here())", result="list(0)",
           no_oracle="collective over localities")
@_waits_for(_start_all_gather)
def all_gather(value, name=""):
    """List of every locality's value (in locality order), on every locality."""
    return _wait(_start_all_gather(value, name))


def _start_gather(value, root=0, name=""):
    return api.gather(value, root, _name(name), where=None)


@primitive("gather", 'gather(_1, __arg(_2_root, 0), __arg(_3_name, ""))', **_starts(_start_gather),
           example="gather(7, 0)", result="list(7)", no_oracle="collective over localities")
@_waits_for(_start_gather)
def gather(value, root=0, name=""):
    """List of every locality's value on locality ``root``; nil elsewhere."""
    return _wait(_start_gather(value, root, name))


def _start_broadcast(value, root=0, name=""):
    return api.broadcast(value, root, _name(name), where=None)


@primitive("broadcast", 'broadcast(_1, __arg(_2_root, 0), __arg(_3_name, ""))',
           **_starts(_start_broadcast), example="broadcast([1, 2], 0)", result="[1, 2]",
           no_oracle="collective over localities")
@_waits_for(_start_broadcast)
def broadcast(value, root=0, name=""):
    """Locality ``root``'s value on every locality (the others' value is ignored)."""
    return _wait(_start_broadcast(value, root, name))


def _start_scatter(value, root=0, name=""):
    return api.scatter(value, root, _name(name), where=None)


@primitive("scatter", 'scatter(_1, __arg(_2_root, 0), __arg(_3_name, ""))',
           **_starts(_start_scatter), example="scatter(list(5), 0)", result="5",
           no_oracle="collective over localities")
@_waits_for(_start_scatter)
def scatter(value, root=0, name=""):
    """Item i of ``root``'s list (or block i of its array) on locality i.

    An array is split along its first axis as ``numpy.array_split`` does.
    """
    return _wait(_start_scatter(value, root, name))


def _start_barrier(name=""):
    return api.barrier(_name(name), where=None)


@primitive("barrier", 'barrier(__arg(_1_name, ""))', **_starts(_start_barrier),
           example="barrier()", result="nil", no_oracle="collective over localities")
@_waits_for(_start_barrier)
def barrier(name=""):
    """Wait until every locality has reached this barrier; returns nil."""
    return _wait(_start_barrier(name))


@primitive("register_array", "register_array(_1_name, _2_array)", **_DIST,
           example='register_array("t", [1, 2])',
           result="nil", no_oracle="publishes an array to other localities")
def register_array(name, array):
    """Let other localities read ``array`` with ``get_remote(locality, name, ...)``."""
    api.register_array(str(name), array)


@primitive("get_remote", 'get_remote(_1_locality, _2_name, __arg(_3_index, nil))',
           **_DIST,
           example='block(register_array("t", [1, 2, 3]), get_remote(0, "t", 1))', result="2",
           no_oracle="reads another locality's registered array")
def get_remote(locality, name, index=None):
    """Copy of the array registered as ``name`` on ``locality`` (owner not involved).

    ``index`` selects a row, or rows with ``list(start, stop)``.
    """
    if isinstance(index, list) and len(index) == 2:
        index = slice(int(index[0]), int(index[1]))
    elif index is not None:
        index = int(index)
    return _wait(api.get_remote(int(locality), str(name), index, where=None))
