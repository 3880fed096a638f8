"""Multi-locality execution over MPI: the Python API.

A locality is an MPI rank; every rank runs the same program (SPMD).  In a process
that no launcher started everything here still works, as locality 0 of 1, and
mpi4py is never imported.  Start several with ``phylanx run -n 4 script.py`` (or
``mpiexec``/``srun``); see ``docs/distributed.md``.

Collectives return ``Future``\\ s (call ``.result()``); the same name must be used
in the same order on every rank (see ``collectives.py``)::

    from phylanx import distributed as dist
    total = dist.all_reduce(np.ones(3), op="sum").result()
    dist.run_on(1, np.linalg.norm, x).result()
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..runtime import comm_order
from ..runtime import locality as _locality
from ..runtime.futures import Future, ready
from ..runtime.locality import here
from ..source import SourceLoc
from . import agreement
from .by_name import ByName, find_function
from .errors import (
    PhylanxCollectiveMismatchError,
    PhylanxDistributedError,
    PhylanxDistributionError,
    PhylanxPeerLeftError,
    PhylanxPerformanceWarning,
    PhylanxRemoteError,
)

__all__ = [
    "PhylanxCollectiveMismatchError", "PhylanxDistributedError", "PhylanxDistributionError",
    "PhylanxPeerLeftError", "PhylanxPerformanceWarning",
    "PhylanxRemoteError",
    "all_gather", "all_reduce", "barrier", "broadcast", "find_all_localities", "find_here",
    "check_same", "gather", "get_remote", "hostname", "num_localities", "reduce", "register_array",
    "register_function", "run_on", "scatter", "set_on_every_rank", "unregister_array",
]


#: default of ``where``: the Python line that called the API function
CALLER: Any = object()


def _caller(where: Any = CALLER) -> SourceLoc | None:
    """Where errors of this communication point: the user's Python line that called
    us, unless the caller (a PhySL primitive: None, its node locates) says otherwise."""
    if where is not CALLER:
        return where
    frame = sys._getframe(2)
    code = frame.f_code
    entry = _CALLER_LOCS.get((id(code), frame.f_lasti))
    if entry is None or entry[0] is not code:
        entry = _remember_caller(frame)
    return entry[1]


def _remember_caller(frame: Any) -> tuple[Any, SourceLoc]:
    """The entry of :data:`_CALLER_LOCS` of the call ``frame`` is making, made."""
    code = frame.f_code
    if len(_CALLER_LOCS) >= 4096:      # (bounded: a program has few such calls)
        _CALLER_LOCS.clear()
    entry = _CALLER_LOCS[(id(code), frame.f_lasti)] = (
        code, SourceLoc(code.co_filename, frame.f_lineno, 1))
    return entry


#: (id of the calling code, its instruction) -> (that code, the call's SourceLoc): a
#: SourceLoc is immutable, so shared (building one costs as much as an 8-byte
#: collective's whole MPI part, and a loop calls from the same place).  Keyed by the
#: instruction, not the line: ``f_lineno`` scans the code's line table, 9-20 us per
#: call from a script's 400-line top level (loaded machine), where the instruction is at
#: hand; the code is kept with it, so that its id names no other code meanwhile.
_CALLER_LOCS: dict[tuple[int, int], tuple[Any, SourceLoc]] = {}


def _mpi() -> Any:
    """The MPI locality, or None in a single process."""
    locality = here()
    return None if type(locality).__name__ != "MPILocality" else locality


# -- where am I -------------------------------------------------------------------
def _mpi_in_order() -> Any:
    """:func:`_mpi` for a collective: first wait until the work before it in program
    order has ended (``runtime/comm_order.py``), so every rank starts its collectives in
    the same order, whatever ran concurrently."""
    locality = _locality._current or here()
    if type(locality).__name__ != "MPILocality":
        return None
    if _turn_state.waits:       # (else no work before it to wait for)
        comm_order.my_turn()
    return locality


_turn_state = comm_order.turn_state


def _mpi_at_caller(where: Any) -> tuple[Any, SourceLoc | None]:
    """:func:`_mpi_in_order` and :func:`_caller` in one call, for the collectives a
    program calls in loops (all_reduce, broadcast, all_gather: a Python call fewer on
    their path); ``(None, None)`` in a single process."""
    locality = _locality._current or here()
    if type(locality).__name__ != "MPILocality":
        return None, None
    if _turn_state.waits:       # (else no work before it to wait for)
        comm_order.my_turn()
    if where is not CALLER:
        return locality, where
    frame = sys._getframe(2)
    code = frame.f_code
    entry = _CALLER_LOCS.get((id(code), frame.f_lasti))
    if entry is None or entry[0] is not code:
        entry = _remember_caller(frame)
    return locality, entry[1]


def find_here() -> int:
    """This locality's id (the MPI rank)."""
    return here().id()


def num_localities() -> int:
    return here().count()


def find_all_localities() -> list[int]:
    return list(range(here().count()))


def hostname() -> str:
    return here().hostname()


# -- collectives ------------------------------------------------------------------
def all_reduce(value: Any, op: str | Callable = "sum", name: str | None = None, *,
               where: Any = CALLER, check: bool | None = None) -> Future:
    """Combine every rank's value with ``op`` (sum, prod, min, max, land, lor, lxor,
    band, bor, bxor, or a Python function); every rank gets the result.

    ``check=False`` skips the exchange of headers that makes disagreeing ranks fail at
    once (``check_collectives``, whose value None stands for) for an array: for a
    program that guarantees the agreement (data-parallel training, whose gradients have
    the shapes of weights broadcast with checks); every rank must pass the same, else
    MPI sees mismatched calls: at best the collective fails after
    ``collective_timeout``."""
    mpi, located = _mpi_at_caller(where)
    if mpi is None:
        if isinstance(op, str):
            agreement.op_name(op, _caller(where))
        return ready(value)
    if type(op) is str:     # (the locality only maps or folds a Python function)
        return mpi.collectives.all_reduce(value, op, name, located, check=check)
    return mpi.all_reduce(value, op, name, located, check=check)


def reduce(value: Any, op: str | Callable = "sum", root: int = 0,
           name: str | None = None, *, where: Any = CALLER) -> Future:
    """Like :func:`all_reduce`, but only ``root`` gets the result (the others None)."""
    mpi = _mpi_in_order()
    return ready(value) if mpi is None else mpi.reduce(value, op, root, name, _caller(where))


def all_gather(value: Any, name: str | None = None, *, where: Any = CALLER) -> Future:
    """The list of every rank's value, on every rank."""
    mpi, located = _mpi_at_caller(where)
    return ready([value]) if mpi is None else mpi.collectives.all_gather(value, name, located)


def gather(value: Any, root: int = 0, name: str | None = None, *, where: Any = CALLER) -> Future:
    """The list of every rank's value on ``root``; None elsewhere."""
    mpi = _mpi_in_order()
    return ready([value]) if mpi is None else mpi.gather(value, root, name, _caller(where))


def broadcast(value: Any, root: int = 0, name: str | None = None, *, where: Any = CALLER,
              check: bool | None = None) -> Future:
    """``root``'s value on every rank (the others' ``value`` is ignored).  ``check``:
    as for :func:`all_reduce` (unchecked, one ``Ibcast`` for up to 1 KiB)."""
    mpi, located = _mpi_at_caller(where)
    return ready(value) if mpi is None else mpi.collectives.broadcast(
        value, root, name, located, check=check)


def scatter(value: Any, root: int = 0, name: str | None = None, *, where: Any = CALLER) -> Future:
    """Rank i gets item i of ``root``'s list, or block i of its array split along
    the first axis (``numpy.array_split``); the others' ``value`` is ignored."""
    mpi = _mpi_in_order()
    if mpi is None:
        if isinstance(value, (list, tuple)) and len(value) == 1:
            return ready(value[0])
        return ready(value)
    return mpi.scatter(value, root, name, _caller(where))


def barrier(name: str | None = None, *, where: Any = CALLER) -> Future:
    """Completes when every rank has reached it."""
    mpi = _mpi_in_order()
    return ready(None) if mpi is None else mpi.barrier(name, _caller(where))


def check_same(values: dict[str, Any], what: str, name: str = "check_same", *,
               where: Any = CALLER, show: Callable[[Any], str] = repr) -> None:
    """Collective: every rank passes ``values`` (label -> value) that must be the same
    on all ranks (arrays compare by dtype, shape and bytes; pass a checksum for big
    ones: :func:`agreement.checksum`).  If any differ, every rank raises the same
    :class:`PhylanxCollectiveMismatchError`, located at ``where``, naming the labels
    and which ranks have which value."""
    where = _caller(where)
    if _mpi() is None:
        return
    from .collectives import wait
    gathered = wait(all_gather(values, name, where=where))
    differ = [agreement.disagreement([g.get(label) for g in gathered], label, show)
              for label in gathered[0]]
    differ = [d for d in differ if d is not None]
    if differ:
        raise agreement.agreed(PhylanxCollectiveMismatchError(
            "the ranks disagree: " + "; ".join(differ), where, what))


def set_on_every_rank(name: str, *value: Any, where: Any = CALLER) -> None:
    """Collective: ``config.set(name, value)`` on every rank (``config.reset(name)``
    without a value), which must all pass the same, else every rank raises the same
    located error naming the ranks and none changes it.  The way to change a setting
    the ranks' messages depend on (``check_collectives``) once several run
    (``distributed/settings.py``); any other setting may be changed so too."""
    from . import settings
    if len(value) > 1:
        raise TypeError("set_on_every_rank(name[, value])")
    settings.set_on_every_rank(name, value[0] if value else settings.RESET, _caller(where))


# -- remote execution -------------------------------------------------------------
def run_on(locality: int, fn: Callable[..., Any] | str, *args: Any) -> Future:
    """Run ``fn(*args)`` on ``locality``: a picklable function, or a name registered
    with :func:`register_function` (or defined in the script) on every rank."""
    loc = here()
    where = _caller()
    if isinstance(fn, str):
        fn = ByName(fn) if _mpi() is not None else _local_function(fn, where)
    if _mpi() is None:
        return _run_here(locality, fn, args)
    return loc.run_on(locality, fn, *args, where=where)


def _local_function(name: str, where: SourceLoc | None) -> Callable[..., Any]:
    try:
        return find_function(_functions, name, 0)
    except KeyError as e:
        raise PhylanxRemoteError(e.args[0], where, "run_on") from None


def _run_here(locality: int, fn: Callable[..., Any], args: tuple) -> Future:
    if locality != 0:
        raise PhylanxRemoteError(f"locality {locality} does not exist (1 locality)",
                                 None, "run_on")
    future = Future()
    try:
        value = fn(*args)
    except Exception as e:  # noqa: BLE001 - delivered to the waiter
        future.set_exception(e)
    else:
        future.set_result(value)
    # a KeyboardInterrupt or SystemExit is not stored where nobody may look: it
    # propagates to the caller, which is the thread that ran ``fn`` (cancel.py)
    return future


_functions: dict[str, Callable[..., Any]] = {}
_arrays: dict[str, Any] = {}


def register_function(name: str, fn: Callable[..., Any]) -> None:
    """Make ``fn`` callable by name from other localities (call it on every rank)."""
    mpi = _mpi()
    (mpi.service.functions if mpi is not None else _functions)[name] = fn


def register_array(name: str, array: Any, *, unchanged: bool = False) -> None:
    """Let other localities read ``array`` with :func:`get_remote` (no code of ours runs).
    ``unchanged``: the caller does not change ``array`` until every read of it has
    been received (a tile kept until an operation's last barrier): a read of a
    contiguous part is sent from the array itself, without a copy."""
    mpi = _mpi()
    if mpi is not None:
        mpi.service.register_array(name, array, unchanged=unchanged)
    else:
        _arrays[name] = array


def unregister_array(name: str) -> None:
    mpi = _mpi()
    if mpi is not None:
        mpi.service.unregister_array(name)
    else:
        _arrays.pop(name, None)


def get_remote(locality: int, name: str, index: Any = None, *, where: Any = CALLER,
               wait: bool = False) -> Future:
    """A copy of ``array[index]`` (the whole array if None) registered as ``name`` on
    ``locality``; the owner's program does not take part.  ``wait``: if ``name`` is
    not registered there yet, wait for it (up to ``remote_timeout``) instead of failing."""
    mpi = _mpi()
    if mpi is not None:
        return mpi.get_remote(locality, name, index, _caller(where), wait=wait)
    if locality != 0 or name not in _arrays:
        raise PhylanxRemoteError(f"no array registered as {name!r} on locality {locality}",
                                 _caller(where), "get_remote")
    array = _arrays[name]
    return ready(array.copy() if index is None else array[index].copy())


# -- tiled arrays (darray.py, tiles.py, tiling.py; PhySL: constant_d, annotate_d ...) ---
from .darray import DistributedArray  # noqa: E402


def annotate(local: Any, name: str, tile: Any = None) -> DistributedArray:
    """Collective: ``local`` as this rank's tile of the distributed array ``name``;
    ``tile`` is the PhySL ``list("tile", ...)`` as a Python list, e.g.
    ``["tile", ["rows", 0, 2], ["columns", 0, 3]]`` (None: the whole array)."""
    from .primitives.core.annotation import annotate_d
    with _located(_caller(), "annotate"):
        return annotate_d(local, name, tile)


def tiled(array: Any, tiling_type: str = "sym", intersection: Any = None,
          name: str = "") -> DistributedArray:
    """Collective: every rank passes the same whole ``array``; each keeps its tile of
    the ``tiling_type`` tiling (sym, row, column, page) with overlap ``intersection``.
    The ranks check that they passed the same: shape, dtype and a checksum of the
    bytes (an error on every rank names the ranks that differ)."""
    import numpy as np

    from ..errors import PhylanxValueError
    from ..values import plain_array
    from .lockstep import operation
    from .primitives._support import auto_name, box_slices, create
    name = auto_name(name, "array")
    # (the name is agreed with the tiles, ``create``: not in the label, where ranks
    # naming the array differently met a bare "ranks disagree in collective")
    with _located(_caller(), "tiled"), operation("tiled"):
        # inside the operation: a rank whose input is no array fails with every rank
        # (it raised NumPy's ValueError alone, and the others went on out of step)
        if array is None:
            raise PhylanxValueError("the array to tile is None")
        try:
            # a masked array or np.matrix is an error, never its bare values tiled
            whole = plain_array(array) if isinstance(array, np.ndarray) else np.asarray(array)
        except ValueError as e:     # a ragged list
            raise PhylanxValueError(f"the array to tile is not an array: {e}") from None
        return create(name, whole.shape, None, None, tiling_type, intersection,
                      lambda box: whole[box_slices(box)].copy(), replicated=whole)


@contextmanager
def _located(where: SourceLoc | None, what: str) -> Iterator[None]:
    """Errors of a collective called from Python point at the caller's line."""
    from ..errors import PhylanxError
    try:
        yield
    except PhylanxError as e:
        if e.loc is None:
            e.loc = where
        if e.primitive is None:
            e.primitive = what
        raise


__all__ += ["DistributedArray", "annotate", "tiled"]
