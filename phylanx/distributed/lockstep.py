"""Keeping the ranks in step on the tiles channel: tagged messages and collective errors.

Every distributed primitive (``@lockstep`` under its ``@primitive``), and the Python
API's ``tiled`` and ``DistributedArray.gather``, is one *operation*: the ranks run it
in the same order (SPMD), numbered 1, 2, ... on each rank.  Each message of the
tiles channel (``tiles.py``) carries a tag in its collective header
(``agreement.header``): a checksum of the operation's label (the primitive and its
arrays' names with generations and global shapes, and the static id of the plan's
node that runs it: its primitive and source location, :func:`enter_site`), the
operation's number and the message's number within it, and the key of the plan
settings that node was compiled under (``config.plan_key``).  Ranks whose tags differ
fail at once, all with the same error naming them, instead of reading each other's
data; ranks whose plan keys differ, with the error naming the plan settings changed
since start-up (a plan explains any other difference: the same program compiled to
two plans may run its operations in another order).

**Errors are collective.**  When an operation ends on a rank, that rank sends an
end message (one exchange of header slots): nothing, or its error's class and
text.  Every rank reads the same slots, so every rank decides alike
(``agreement.step_outcome``): all ended without error, or every rank raises the
same error, of the failing rank's class, naming it (``on locality 1: ...``).  A
rank that is still communicating when another's end message arrives (the failing
rank skipped the rest of the operation) meets it in its next exchange, which then
counts as its end message too.  So a program that catches the error goes on with
every rank in step.  Errors that every rank raised from the same exchanged data
(marked ``agreed``: a layout problem, a disagreement, the decided outcome itself)
need no end message.

**What it costs.**  The end message is one more exchange of header slots.  Most
operations need none: an operation whose last message is an all_gather after which
every rank only computes on what all ranks received (a reduction's partial results,
the tiles' boxes of a new array, a gather) sends that message as its end message
(``final``: the flag rides in its header; a failing rank's end message meets it as
any other).  Operations that do not communicate (``@lockstep(local=True)``:
``shape_d``, ``transpose_d``, ``slice_row_d``, ``slice_column_d``) decide from the
layout every rank holds, so they fail on every rank or on none: they are numbered
but send nothing.  An end message of its own costs the operations that compute on
their own tile after their last message (``dot_d`` of row tiles, ``retile_d`` ...).
On one locality nothing is sent.
"""
from __future__ import annotations

import functools
import os
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .. import distributed as api
from .agreement import combine

#: the collective name of the tiles channel (one communicator for all tiled arrays)
CHANNEL = "phylanx_tiles"


class _State:
    """This rank's operation counter, and the current operation's label and messages."""

    def __init__(self) -> None:
        self.seq = 0            # operations begun (the same count on every rank)
        self.step = 0           # messages sent in the current operation
        self.label = 0          # checksum of the current operation's label
        self.ended: BaseException | None = None    # the decided outcome, once received
        self.plain: tuple = ()  # the plain operands its messages carry (label_of)
        self.digest = 0         # their digest (agreement.DIGEST)
        self.plan = 0           # the plan key of its node (agreement.PLAN_KEY)
        self.final = False      # the current operation sent its final message
        self.local = threading.local()             # nesting depth, per thread
        self.cleanups: list[Callable[[], None]] = []   # run when the operation ended


_state = _State()


class OperationLabel(str):
    """An operation's label, with what its tiled arrays carry of the plain operands
    they were computed with (``DistributedArray.plain``): their digests go in the
    header of every message of the operation (``agreement.DIGEST``)."""

    plain: tuple = ()       # ((digest, name), ...)


def label_of(what: str, args: tuple = ()) -> str:
    """``dot_d(x_transposed/1(3, 4), x(4,))``: the operation and the names and global
    shapes of its tiled arrays.  The shape is in the label because a tiled array made
    by a local operation from a plain operand (``x @ w``: no message) takes its global
    shape from that rank's ``w``: ranks whose ``w`` disagree in shape then hold arrays
    of one name but different shapes, and their tags differ at the next exchange.
    Likewise their values: such an array carries the digests of the plain operands it
    was computed with, and the label takes them to the next exchange."""
    from .darray import DistributedArray
    tiled = [a for a in args if type(a) is DistributedArray]
    label = OperationLabel(
        f"{what}({', '.join(f'{a.full_name}{tuple(a.shape)}' for a in tiled)})")
    label.plain = tuple(p for a in tiled for p in a.plain)
    return label


#: the plain operands of the rule running in this thread (``darray.dispatch``, stores):
#: ((digest, name), ...), checked in the messages of the operations it runs.  A rule
#: replaces its caller's (a rule's operands are its own), and an operation sets them
#: aside while it waits for its turn: the thread may run another task meanwhile
#: (``comm_order.my_turn``), whose operations must not carry them
_rule = threading.local()


@contextmanager
def plain_operands_of_rule(plain: tuple) -> Iterator[None]:
    """The body (a rule given ``plain`` operands beside tiled ones, or none) runs
    operations whose messages carry their digests."""
    outer = getattr(_rule, "plain", ())
    _rule.plain = plain
    try:
        yield
    finally:
        _rule.plain = outer


def plain_operands() -> list[str]:
    """The names of the plain operands the current operation's messages carry."""
    return list(dict.fromkeys(name for _, name in _state.plain))


class _Site(threading.local):
    #: the program point (a node of the compiled plan: its primitive, source location
    #: and plan key) whose evaluation runs the operations of this thread, set by
    #: ``darray.dispatch``; None: the Python API's.  (A class default: on a thread that
    #: never entered a site, ``getattr(local, name, None)`` raised and caught an
    #: AttributeError, 0.6 us on every collective reading :func:`site_plan`.)
    at: tuple | None = None


_site = _Site()
#: the same, for the collectives' entry points, which read ``SITE.at`` inline (as
#: :func:`site_plan` does: no Python call more on an 8-byte collective's path)
SITE = _site


def enter_site(primitive: str, loc: Any, plan: int = 0) -> Any:
    """This thread's operations are from now on those of the plan's node ``primitive``
    at ``loc``, compiled under plan settings ``plan`` (``Node.plan``, 0: not known);
    returns the site to restore (:func:`leave_site`).  The site's static id joins their
    label, so ranks whose plans reach one operation from different equations (diverged
    control flow that happened to meet the same primitive on the same arrays) fail at
    that exchange, each located at its own; ``plan`` rides in their headers
    (``agreement.PLAN_KEY``), so ranks that compiled the program under different plan
    settings fail at its first message, naming the settings.  (Plain assignments, not a
    context manager: it runs on every dispatch of a tiled operand.)"""
    outer = _site.at
    _site.at = (primitive, loc, plan)
    return outer


def enter_plan(plan: int) -> Any:
    """This thread's operations are from now on those of a node compiled under plan
    settings ``plan``, at the site entered before (a distributed primitive called by
    its own node: :func:`lockstep`'s ``with_plan``); returns the site to restore."""
    outer = _site.at
    _site.at = ("", None, plan) if outer is None else (outer[0], outer[1], plan)
    return outer


def leave_site(outer: Any) -> Any:
    """Restore the site :func:`enter_site` returned; returns the one it replaces."""
    current = _site.at
    _site.at = outer
    return current


def site_id() -> str:
    """The static id of the program point running this thread's operations ("" when
    they are the Python API's)."""
    at = _site.at
    return "" if at is None or at[1] is None else _site_text(at[0], at[1])


def site_plan() -> int:
    """The plan key of the node running this thread's operations (0: none known)."""
    at = _site.at
    return 0 if at is None else at[2]


@functools.lru_cache(maxsize=4096)
def _site_text(primitive: str, loc: Any) -> str:
    """``@sum:train.py:7:12``: the file by its name alone, not its directory: ranks may
    run one program from copies at different paths (node-local copies, another mount
    point or install prefix on another host), and must agree on its sites.  Formatted
    once per site (every operation of a loop's iterations reads it)."""
    where = os.path.basename(loc.file)
    return f"@{primitive}:{where}:{loc.line}:{loc.col}" if loc.line > 0 else \
        f"@{primitive}:{where}"


@contextmanager
def operation(label: str, local: bool = False) -> Iterator[None]:
    """Run the body as one lockstep operation (nested ones are part of the outer).
    ``local``: the body does not communicate and fails alike on every rank."""
    here = _state.local
    if getattr(here, "depth", 0) or api.num_localities() == 1:
        here.depth = getattr(here, "depth", 0) + 1
        try:
            yield
        finally:
            here.depth -= 1
        return
    from ..runtime import started
    from ..runtime.comm_order import my_turn
    site, plan = site_id(), site_plan()
    rule = getattr(_rule, "plain", ())
    # set aside while waiting: this thread may run another task meanwhile, whose
    # operations must carry neither these plain operands nor this site, nor leave
    # their collectives in flight as this rule may (runtime/started.py)
    _rule.plain, outer_site = (), leave_site(None)
    outer_start = started.set_aside()
    try:
        my_turn()   # the work before it in program order has ended (concurrent subtrees)
    finally:
        _rule.plain = rule
        leave_site(outer_site)
        started.leave_rule(outer_start)
    here.depth = 1
    _state.seq += 1
    _state.step = 0
    _state.label = zlib.crc32((label + site).encode())
    _state.plan = plan
    _state.plain = getattr(label, "plain", ()) + rule
    _state.digest = combine(d for d, _ in _state.plain) if _state.plain else 0
    _state.ended, _state.final = None, False
    try:
        yield
    except Exception as error:  # noqa: BLE001 - every rank must hear of it
        here.depth = 0
        if _state.ended is not None:
            raise _state.ended from None    # decided (the body may have swallowed it)
        if local or _state.final or getattr(error, "agreed", False):
            raise   # raised alike on every rank (see the module doc)
        _end(error)
        raise   # (not reached: _end raises the decided error)
    else:
        here.depth = 0
        if _state.ended is not None:      # the body caught the decided error: still it
            raise _state.ended from None
        if not (local or _state.final):
            _end(None)
    finally:
        here.depth = 0
        cleanups, _state.cleanups = _state.cleanups, []
        for cleanup in cleanups:
            cleanup()


def _end(error: BaseException | None) -> None:
    """The end message of the current operation; raises the decided error, if any."""
    from .collectives import wait
    tag = (_state.label, _state.seq, _state.step + 1, _state.plan)
    future = api._mpi().collectives.end(error, CHANNEL, tag)
    try:
        wait(future)
    except Exception as decided:  # noqa: BLE001
        _state.ended = decided
        if error is not None and decided is not error:
            raise decided from error
        raise


def tag(final: bool = False) -> tuple[int, int, int, int, int, int]:
    """The tag of the next message of the current operation.  ``final``: the message
    is the operation's end message, if the caller runs the operation itself (not a
    part of an enclosing one): after it, every rank computes only on what all
    received, so nothing can fail on one rank only."""
    _state.step += 1
    final = final and getattr(_state.local, "depth", 0) == 1
    _state.final = _state.final or final
    from .agreement import END
    return (_state.label, _state.seq, _state.step, END if final else 0, _state.digest,
            _state.plan)


def outermost() -> bool:
    """True inside an operation that is not part of an enclosing one: its final
    message (``tag(final=True)``) ends it, and nothing is sent after it."""
    return getattr(_state.local, "depth", 0) == 1


def after_operation(cleanup: Callable[[], None]) -> None:
    """Run ``cleanup`` once the current operation has ended here (its outcome agreed:
    e.g. unregister a tile the others may still read until then); at once outside
    an operation with several localities."""
    if getattr(_state.local, "depth", 0) and api.num_localities() > 1:
        _state.cleanups.append(cleanup)
    else:
        cleanup()


def next_name() -> str:
    """``<operation>.<message>`` of the next message: a name every rank in step gives
    the same thing (e.g. a tile registered for remote reads)."""
    return f"{_state.seq}.{_state.step + 1}"


def received(error: BaseException) -> None:
    """Note an error from a message of the tiles channel: if it decided the current
    operation's end, the operation must not send an end message of its own, and
    raises this error even if the body catches it."""
    if getattr(error, "step_end", None) is not None:
        _state.ended = error


def lockstep(fn: Callable[..., Any] | None = None, *, local: bool = False,
             same_plain: bool = False) -> Any:
    """Decorator (under ``@primitive``): ``fn`` is one lockstep operation;
    ``@lockstep(local=True)`` for one that does not communicate (module doc).
    ``same_plain``: its plain operands (a kernel, a replicated matrix, the padding)
    must be the same on every rank, as they are part of the global answer: their
    digests ride in the operation's tagged messages and the tiled result carries
    them (``DistributedArray.plain``) to its next exchange, so ranks that passed
    different ones fail there, naming them, instead of each holding a tile computed
    with its own (an end message does not carry them)."""
    if fn is None:
        return functools.partial(lockstep, local=local, same_plain=same_plain)
    what = fn.__name__

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        # (else its plain arguments are its own: a tile given to annotate_d is each rank's)
        plain = ()
        if same_plain and api.num_localities() > 1:
            from .darray import plain_operands
            plain = plain_operands((*args, *kwargs.values()), what, None)
        with plain_operands_of_rule(plain), operation(label_of(what, args), local):
            result = fn(*args, **kwargs)
        from .darray import DistributedArray, merged
        if plain and type(result) is DistributedArray and not any(result is a for a in args):
            result.plain = merged(result.plain, plain)
        return result
    run.lockstep = True  # type: ignore[attr-defined]

    def with_plan(plan: int) -> Callable[..., Any]:
        """``run`` as the kernel of a node compiled under plan key ``plan`` (the
        compiler asks, ``compiler.py``: ``Node.plan``): its messages carry it."""
        if not plan:
            return run

        @functools.wraps(fn)
        def planned(*args: Any, **kwargs: Any) -> Any:
            outer = enter_plan(plan)
            try:
                return run(*args, **kwargs)
            finally:
                leave_site(outer)
        planned.lockstep = True  # type: ignore[attr-defined]
        return planned
    run.with_plan = with_plan  # type: ignore[attr-defined]
    return run
