"""Faults never hang a job: an error on one rank, or a rank leaving early, ends every rank.

Under MPI, a rank that dies of an exception would leave the others waiting in
a collective forever.  :func:`install` wraps ``sys.excepthook`` and
``threading.excepthook``: the error is printed once, by the failing rank, as
``[rank R] file:line:col: message``, then ``MPI_Abort`` makes the launcher end
every rank with a non-zero status.  (A rank killed by a signal, or ended by
``os._exit``, says nothing: ``mpiexec`` ends the job, the tests check it; for a
launcher that does not, the service thread checks that the ranks on its host live.)

A rank whose program ends (normally or by ``sys.exit(n)``) tells the others, with
its exit status (``active_messages.LEAVING``); a collective another rank waits in,
and that the departed rank never started, fails at once with a
:class:`~phylanx.distributed.errors.PhylanxPeerLeftError` naming it, and the job
ends with the departed rank's status when that is not 0 (:func:`abort_status`).

The exit status.  Python does not tell ``atexit`` handlers the status it will exit
with, so :func:`install` has ``sys.exit`` (and the ``exit``/``quit`` builtins) keep
the ``SystemExit`` they raise in the main thread, and keeps the script's top-level
frame; :func:`exit_status` asks that frame how it ended: by its last instruction (a
return: the script ran to its end, status 0, whatever ``SystemExit`` was caught on
the way), else by an exception, which was a ``SystemExit`` (any other went to the
excepthook, which ended the job) or a ``KeyboardInterrupt`` (the excepthook saw it);
the ``SystemExit`` kept gives the status if it is the one that unwound the frame
(also through a ``with`` or ``finally`` at the top level: it counted as 0 before).  A
bare ``raise SystemExit(n)`` leaves no trace Python shows an ``atexit`` handler (it
frees the exception before), but the frame stopped at that ``raise``: when its operand
is a literal or a name (``raise SystemExit(3)``, ``raise SystemExit(status)``,
``raise SystemExit``), the status is read from the code and the module's variables
(:func:`_raised_status`); any other operand (a call, an expression: evaluating it
again could do anything) leaves it :data:`UNKNOWN_STATUS`, said so in the others'
messages (it was reported as 0).  ``phylanx run`` knows the status itself.
"""
from __future__ import annotations

import builtins
import dis
import os
import sys
import threading
import time
import traceback
from typing import Any

from ..errors import PhylanxError
from . import settings

_reported = threading.Lock()
_exits: list[Any] = []          # [the SystemExit sys.exit() raised in the main thread]
_known_status: list[int] = []   # [the status phylanx run saw]
_main_frame: list[Any] = []     # [the script's top-level frame, found by install]
_interrupted: list[bool] = []   # [True] once a KeyboardInterrupt ended the main thread

#: the exit status of a script ended by a bare ``raise SystemExit(n)``: not known (see
#: the module docstring); the others say so, and the job ends with status 1
UNKNOWN_STATUS = -1
#: the status of a process ended by an uncaught KeyboardInterrupt (Python kills itself
#: with SIGINT: 128 + 2 to the shell)
_INTERRUPTED_STATUS = 130
_RETURNS = frozenset(dis.opmap[n] for n in ("RETURN_VALUE", "RETURN_CONST") if n in dis.opmap)
_RERAISE = dis.opmap.get("RERAISE")

#: seconds a rank that waited in a collective when another left waits for a lower
#: rank to report the same departure (the job then ends with one message), before it
#: reports it itself
_DEFER_TO_LOWER_RANK = 3.0



def status_code(code: Any) -> int:
    """The process exit status Python gives ``SystemExit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    return 1


def set_exit_status(status: int) -> None:
    """The program ended with ``status`` (``phylanx run`` caught its ``SystemExit``)."""
    _known_status[:] = [status]


def exit_status() -> int:
    """The status this process is exiting with, as far as it can be known (see above):
    :data:`UNKNOWN_STATUS` for a bare ``raise SystemExit``."""
    if _known_status:
        return _known_status[0]
    main = _main_frame[0] if _main_frame else None
    ended = _ended_by_exception(main) if main is not None else None
    if ended is None:       # (no top-level frame known: the traceback alone tells)
        return status_code(_exits[0].code) if _exits and _ended_the_script(_exits[0]) else 0
    if not ended:
        return 0
    if _interrupted:
        return _INTERRUPTED_STATUS
    if _exits and _unwound(_exits[0], main):
        return status_code(_exits[0].code)
    return _raised_status(main)


#: the instructions of a call that do not change what ``_raised_status`` reads
_CALL_PARTS = frozenset(("PUSH_NULL", "PRECALL", "CACHE", "KW_NAMES"))
_LOADS = frozenset(("LOAD_NAME", "LOAD_GLOBAL"))


def _raised_status(main: Any) -> int:
    """The status of the ``raise SystemExit(...)`` the top-level frame ``main`` stopped
    at, read from its code when the operand is a literal or a module variable (which
    still holds it: nothing ran in that frame since); :data:`UNKNOWN_STATUS` for
    anything else (a call would have to run again)."""
    code = main.f_code
    steps = [i for i in dis.get_instructions(code) if i.offset <= main.f_lasti
             and i.opname not in _CALL_PARTS]
    if not steps or steps[-1].offset != main.f_lasti or steps[-1].opname != "RAISE_VARARGS" \
            or steps[-1].arg != 1:
        return UNKNOWN_STATUS
    tail = [i.opname for i in steps[-4:-1]]
    names = main.f_globals

    def is_system_exit(instruction: Any) -> bool:
        return (instruction.opname in _LOADS and instruction.argval == "SystemExit"
                and names.get("SystemExit", builtins.SystemExit) is SystemExit)
    if len(steps) >= 2 and is_system_exit(steps[-2]):              # raise SystemExit
        return 0
    if len(steps) >= 3 and tail[-1:] == ["CALL"] and steps[-2].arg == 0 and \
            is_system_exit(steps[-3]):                              # raise SystemExit()
        return 0
    if len(steps) < 4 or tail[-1] != "CALL" or steps[-2].arg != 1 or \
            not is_system_exit(steps[-4]):
        return UNKNOWN_STATUS
    operand = steps[-3]
    if operand.opname == "LOAD_CONST":
        return status_code(operand.argval)
    if operand.opname in _LOADS and operand.argval in names:
        value = names[operand.argval]
        if value is None or type(value) in (int, bool, str):
            return status_code(value)
    return UNKNOWN_STATUS


def _ended_by_exception(frame: Any) -> bool | None:
    """Did the finished top-level ``frame`` end by an exception (not by returning)?
    None if it cannot tell (its last instruction is unknown).  (Asked at exit: the
    frame ran to its end, or was unwound.)"""
    code, last = frame.f_code.co_code, frame.f_lasti
    if not 0 <= last < len(code):
        return None
    return code[last] not in _RETURNS


def _unwound(error: BaseException, main: Any) -> bool:
    """Is ``error`` the exception that unwound the top-level frame ``main``?  Nothing
    caught it (its traceback ends at our wrapper: Python 3.11 adds the frames an
    exception passes only where a handler takes it), or its traceback reaches that
    frame (it was not caught in a function) at the line where the frame stopped, or
    the frame stopped re-raising it (the end of a ``with`` or ``finally``); one caught
    at the top level, the script going on to end by another exception, stopped the
    frame elsewhere."""
    tb = error.__traceback__
    if tb is None:
        return False
    if tb.tb_frame.f_code is _WRAPPER_CODE:
        return True
    if tb.tb_frame is not main:
        return False
    return tb.tb_lineno == main.f_lineno or main.f_code.co_code[main.f_lasti] == _RERAISE


def job_status(status: int | None) -> int:
    """The status a job ends with when a rank that left with ``status`` ends it: a
    known non-zero one, else 1."""
    return status if status is not None and status > 0 else 1


def _top_level_frame() -> Any:
    """The script's top-level frame (``__main__``'s module code) on this thread's stack,
    if the script is running it (None: imported elsewhere, or not run as a script)."""
    frame, found = sys._getframe(1), None
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == "__main__":
            found = frame
        frame = frame.f_back
    return found


def _ended_the_script(error: BaseException) -> bool:
    """Did this ``SystemExit`` end the script, or was it caught?  A caught exception's
    traceback reaches the frame that caught it; an uncaught one's reaches no further
    than our wrapper (Python 3.11 adds the frames it unwinds only when it is caught),
    or the script's top level, stopped at the line where it passed (later Pythons)."""
    tb = error.__traceback__
    if tb is None:
        return False
    frame = tb.tb_frame
    if frame.f_code is _WRAPPER_CODE:
        return True
    return (frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == "__main__"
            and frame.f_lineno == tb.tb_lineno)


def _recording(exit_function):
    def exit(*args):  # noqa: A001 - stands for sys.exit / the exit builtin
        try:
            exit_function(*args)
        except SystemExit as e:
            if threading.current_thread() is threading.main_thread():
                _exits[:] = [e]
            raise
    exit.__doc__ = exit_function.__doc__
    exit.__wrapped__ = exit_function
    return exit


_WRAPPER_CODE = _recording(None).__code__


def _peer_left(error: BaseException | None):
    """The PhylanxPeerLeftError ``error`` is, or was raised from, if any."""
    from .errors import PhylanxPeerLeftError
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, PhylanxPeerLeftError):
            return error
        error = error.__cause__ or error.__context__
    return None


def abort_status(error: BaseException) -> int:
    """The job's exit status when ``error`` ends it: a departed rank's non-zero status
    (it is the rank that failed), else 1."""
    left = _peer_left(error)
    return job_status(left.exit_status) if left is not None else 1


def describe(error: BaseException, rank: int) -> str:
    """``[rank R] where: message`` for any exception (located ones keep their excerpt)."""
    if isinstance(error, PhylanxError):
        return f"[rank {rank}] {error}"
    frames = traceback.extract_tb(error.__traceback__)
    where = f"{frames[-1].filename}:{frames[-1].lineno}: " if frames else ""
    return f"[rank {rank}] {where}{type(error).__name__}: {error}"


def report_and_abort(error: BaseException, rank: int, size: int, world: Any = None) -> None:
    """Print the error once and end the whole job (never returns)."""
    if not _reported.acquire(blocking=False):   # a second failing thread: the first reports
        threading.Event().wait(30)
        os._exit(1)
    status = abort_status(error)
    try:
        _defer_to_lower_rank(error, rank)
        sys.stdout.flush()
        if not isinstance(error, PhylanxError):
            stack = "".join(traceback.format_tb(error.__traceback__))
            if stack:
                sys.stderr.write(f"[rank {rank}] Traceback (most recent call last):\n{stack}")
        sys.stderr.write(describe(error, rank) + "\n")
        sys.stderr.flush()
    finally:
        end_job(world, size, status)


def end_job(world: Any, size: int, status: int) -> None:
    """End the whole job with ``status`` once this rank's report is written (never
    returns).  The launcher stops forwarding output when ``MPI_Abort`` tears the job
    down, and may handle the abort before the bytes already in its pipe: give it a
    moment to pass on what was just written (without it, a line went missing on a busy
    machine)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):   # a closed or broken stream must not stop the end
            pass
    if world is not None and size > 1:
        time.sleep(0.2)
        world.Abort(status)
    os._exit(status)


def _defer_to_lower_rank(error: BaseException, rank: int) -> None:
    """Every rank waiting when one left fails the same way, as every rank raises an
    agreed error: let the lowest of them report it (its abort ends this process
    meanwhile), and a rank that died the
    launcher's tear-down first (``died_rank_grace``: a rank that failed printed its own
    located error and called ``MPI_Abort``, and the tear-down, slower on a busy machine,
    should end this process first), so the job prints it once."""
    left = _peer_left(error)
    if left is None:
        if rank > 0 and getattr(error, "agreed", False):
            # raised alike by every rank (``agreement.agreed``): rank 0 reports it (unless
            # its program caught it: then this rank does, a moment later)
            time.sleep(_DEFER_TO_LOWER_RANK)
        return
    delay = float(settings.get("died_rank_grace")) if left.exit_status is None else 0.0
    if any(r not in left.departed for r in range(rank)):
        delay += _DEFER_TO_LOWER_RANK
    time.sleep(delay)


def install(rank: int, size: int, world: Any) -> None:
    """Route uncaught exceptions (main thread and others) to :func:`report_and_abort`,
    and have ``sys.exit``/``exit``/``quit`` keep the status (see the module docstring)."""
    previous = sys.excepthook

    def excepthook(kind, error, tb):
        if issubclass(kind, KeyboardInterrupt):
            _interrupted[:] = [True]
        if issubclass(kind, (KeyboardInterrupt, SystemExit)):
            previous(kind, error, tb)
            return
        if error.__traceback__ is None:
            error = error.with_traceback(tb)
        report_and_abort(error, rank, size, world)

    def thread_excepthook(args):
        if args.exc_type is SystemExit:
            return
        report_and_abort(args.exc_value, rank, size, world)

    sys.excepthook = excepthook
    threading.excepthook = thread_excepthook
    if threading.current_thread() is threading.main_thread():
        _main_frame[:] = [frame] if (frame := _top_level_frame()) is not None else []
    if not hasattr(sys.exit, "__wrapped__"):
        sys.exit = _recording(sys.exit)
    for name in ("exit", "quit"):
        function = getattr(builtins, name, None)
        if function is not None and not hasattr(function, "__wrapped__"):
            setattr(builtins, name, _recording(function))
