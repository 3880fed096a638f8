"""Errors in work that sends no message: agreed by every rank before one is raised.

Most rules on tiled arrays send nothing (a row-tiled ``x @ w`` with a plain ``w``,
element-wise operations, stores with a plain value, subscripts of one's own tile): each
rank decides alone, from the layouts every rank holds *and* its own plain operands.
Plain operands stand for one array, the same on every rank, but nothing checks it
where no message is sent: a ``w`` whose contraction length differs on one rank makes
that rank alone raise inside the product while the others go on.  A program that
catches the error would then run different code on different ranks (one probe hung
in a collective until its timeout, another went on silently).  The rule is that a
result is right, or a located error, *on every rank*.

So an error raised by a tiled operand's rule (``darray.dispatch``) or by a store into
a tiled array, with more than one locality, is agreed before anyone raises it,
through the active-message service (``active_messages.py``: answered by the other
ranks' service threads, whatever their programs do meanwhile), and costs nothing
when nothing fails but one lock and a dictionary update per evaluation.  Each such
evaluation is numbered per *site* (its primitive and source location: the ``k``-th
evaluation of that site is the same on every rank, SPMD), and every rank notes how
many evaluations of each site it ended and which ones failed.  A failing rank asks
every other rank how its evaluation ``k`` of that site ended, waiting for one that
has not got there yet (up to ``collective_timeout``, asking again every half
``remote_timeout``: a late rank is not one that cannot be asked):

* every rank failed: every rank raises the same located error (the lowest rank's
  text when they differ, naming the ranks), and the program may catch it: the ranks
  are in step;
* some rank got a result (it has gone on, computing with it): the ranks cannot all
  raise, so the failing rank ends the job at once with its located error, naming the
  ranks that went on (``faults.report_and_abort``: one message, every rank ends,
  non-zero).  A rank that never gets there within ``collective_timeout`` ends it too,
  and so, at once, does one that waits in a collective the failing rank never called
  (it cannot get there: ``outcome``'s ``"stuck"``, issue 28 "Bad input").

Errors already agreed (``agreement.agreed``: decided from exchanged data, raised by
every rank alike) need nothing.  Evaluations in subtrees the evaluation policy
runs concurrently (two calls of one helper in ``f(a) + f(b)``) are numbered in
program order, as collectives start (``runtime/comm_order.py``), not in the order
they happen to end on each rank.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from .. import distributed as api
from ..errors import PhylanxError
from ..runtime.comm_order import my_turn
from ..values import ControlSignal
from .agreement import agreed, full_name, ranks_error, ranks_text

#: guards the tables below; notified when an evaluation ends (``outcome`` waits on it)
_lock = threading.Condition()
_ended: dict[Any, int] = {}                     # site -> evaluations ended on this rank
_failed: dict[tuple[Any, int], tuple[str, str]] = {}   # (site, k) -> (class, text)
_told: dict[tuple[Any, int], int] = {}   # (site, k) -> the ranks told it failed here


def guarded(site: Any, locate: Callable[[BaseException], PhylanxError],
            fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``; its error, located by ``locate``, agreed with every rank first
    (module doc).  ``site``: the same on every rank for the same program point (the
    primitive and its source location).  The evaluations of a site are numbered in
    program order: one run in a thunk the evaluation policy spawned ends only at its
    turn (``comm_order.my_turn``: when the work before it in program order has
    finished), whichever of the concurrent calls of a helper finished first on this
    rank; after a failure before it, it is not counted at all (``CancelledError``),
    as on a rank that ran the same work in sequence and never got there."""
    if api.num_localities() == 1:
        return fn(*args)
    try:
        result = fn(*args)
    except ControlSignal:
        my_turn()
        _end(site, None)
        raise
    except Exception as raw:  # noqa: BLE001 - every rank must hear of it
        my_turn()
        if getattr(raw, "agreed", False):   # raised alike by every rank already
            _end(site, None)
            raise
        error = locate(raw)
        if _departed(raw):
            # a rank left the program while this one waited for it: it cannot be asked,
            # and the job ends (as for a collective called from Python: its status)
            _end(site, error)
            if error is raw:
                raise
            raise error from raw    # (the departed rank's status stays known: faults.py)
        decided = locate(_agree(site, _end(site, error), error))
        if decided is raw:
            raise
        raise decided from None
    my_turn()
    _end(site, None)
    return result


def _departed(error: BaseException) -> bool:
    """Is ``error`` a rank's departure (``PhylanxPeerLeftError``), or raised from one?"""
    from .faults import _peer_left
    return _peer_left(error) is not None


def passed(site: Any) -> None:
    """An evaluation of ``site`` that ended without error and was not run through
    :func:`guarded` (a fused region on tiles stands for its operations' rules, which
    count their evaluations: ``fused_tiles.py``): counted as :func:`guarded` counts it."""
    if api.num_localities() == 1:
        return
    my_turn()
    _end(site, None)


def _end(site: Any, error: PhylanxError | None) -> int:
    """Note that an evaluation of ``site`` ended (with ``error``); its number."""
    with _lock:
        k = _ended.get(site, 0)
        _ended[site] = k + 1
        if error is not None:
            _failed[(site, k)] = (full_name(type(error)), error.message)
        _lock.notify_all()      # (an ``outcome`` may wait for this evaluation)
    return k


def outcome(site: Any, k: int, timeout: float, started: dict[str, int] | None = None) -> tuple:
    """Run on this rank for another (by its service): how this rank's ``k``-th
    evaluation of ``site`` ended: ``("failed", class, text)``, ``("passed",)``, or
    ``("absent",)`` if it did not end it within ``timeout`` seconds.  A failure is
    forgotten once every other rank was told of it: each asks once, and only if it
    failed there too (a rank that got a result never asks; the job ends then).

    ``started``: the asking rank's count of collectives called per name (it failed,
    and calls no more until the ranks agree).  A collective of ours it never called
    cannot complete, so an evaluation waiting in it never ends: ``("stuck", what)``
    at once, naming the collective (the asking rank ends the job), rather than
    ``"absent"`` after ``collective_timeout`` (a rule that failed on one rank before
    its collective, the others waiting in it: 60 s, then every rank raised)."""
    deadline = time.monotonic() + timeout
    while True:
        with _lock:
            answer = _ended_as(site, k)
            if answer is not None:
                return answer
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return ("absent",)
            if started is None:
                _lock.wait(remaining)   # (woken by _end when an evaluation ends)
                continue
        waiting = _waiting_without(started)
        with _lock:
            answer = _ended_as(site, k)     # (it may have ended meanwhile)
            if answer is not None:
                return answer
            if waiting is not None:
                return ("stuck", waiting)
            # (no notice when a collective starts: looked at again shortly)
            _lock.wait(min(remaining, _STUCK_POLL))


#: seconds between two looks at this rank's collectives while another waits for it
_STUCK_POLL = 0.05


def _ended_as(site: Any, k: int) -> tuple | None:
    """:func:`outcome`'s answer if this rank ended evaluation ``k`` of ``site``, else
    None (under ``_lock``)."""
    if (site, k) in _failed:
        answer = ("failed", *_failed[(site, k)])
        _told[(site, k)] = _told.get((site, k), 0) + 1
        if _told[(site, k)] == api.num_localities() - 1:
            del _failed[(site, k)], _told[(site, k)]
        return answer
    if _ended.get(site, 0) > k:
        return ("passed",)
    return None


def _waiting_without(started: dict[str, int]) -> str | None:
    """A collective this rank waits in that a rank which called ``started`` never
    called (``Collectives.waiting_without``), or None."""
    locality = api._mpi()
    return None if locality is None else locality.collectives.waiting_without(started)


def _agree(site: Any, k: int, error: PhylanxError) -> PhylanxError:
    """The error every rank raises (``error`` itself if every rank failed alike), or
    end the job if some rank got a result (module doc)."""
    from . import settings
    here, size = api.find_here(), api.num_localities()
    deadline = time.monotonic() + float(settings.get("collective_timeout"))
    answers = {here: ("failed", full_name(type(error)), error.message)}
    for r in range(size):
        if r == here:
            continue
        if any(a[0] != "failed" for a in answers.values()) and \
                (r > here or any(answers[q][0] == "failed" for q in answers if q < here)):
            # the job ends: the others need not be waited for, but for the ranks below
            # this one until one of them failed too (then it reports, this one defers:
            # ``_abort``), as every failing rank but the lowest learns, so one reports
            break
        answers[r] = _ask(r, site, k, deadline)
    went_on = [r for r, a in answers.items() if a[0] != "failed"]
    if went_on:
        _abort(error, site, went_on, answers)
    texts: dict[tuple[str, str], list[int]] = {}
    for r in sorted(answers):
        texts.setdefault(answers[r][1:], []).append(r)
    if len(texts) == 1:
        return agreed(error)
    return agreed(ranks_error(texts, PhylanxError))


def _ask(rank: int, site: Any, k: int, deadline: float) -> tuple:
    """How ``rank``'s evaluation ``k`` of ``site`` ended (:func:`outcome`), waiting for
    it until ``deadline``: asked again while it has not got there, each ask waiting at
    most half a remote call's time (``remote_timeout``, usually shorter than
    ``collective_timeout``) so that a late rank is not taken for one that cannot be
    asked.  ``("unknown", why)`` if it cannot be asked."""
    from . import settings
    remote = float(settings.get("remote_timeout"))
    while True:
        wait = max(0.0, min(deadline - time.monotonic(), remote / 2))
        try:
            answer = api.run_on(rank, outcome, site, k, wait, _started()).result(
                timeout=remote + 10.0)
        except Exception as failure:  # noqa: BLE001 - a rank we cannot ask: end the job
            return ("unknown", str(failure))
        if answer[0] != "absent" or time.monotonic() >= deadline:
            return answer


def _started() -> dict[str, int]:
    """This rank's collectives called per name (``Collectives.started``)."""
    locality = api._mpi()
    return {} if locality is None else locality.collectives.started()


def _abort(error: PhylanxError, site: Any, went_on: list[int], answers: dict) -> None:
    """Some rank got a result where this one failed: end the job with ``error``."""
    from . import faults
    absent = [r for r in went_on if answers[r][0] == "absent"]
    unknown = [r for r in went_on if answers[r][0] == "unknown"]
    stuck = [r for r in went_on if answers[r][0] == "stuck"]
    passed = [r for r in went_on if answers[r][0] == "passed"]
    why = []
    if passed:
        why.append(f"{ranks_text(passed)} got a result there")
    for r in stuck:
        why.append(f"rank {r} waits in {answers[r][1]}, which locality {api.find_here()} "
                   "never called")
    if absent:
        why.append(f"{ranks_text(absent)} did not get there within collective_timeout")
    if unknown:
        why.append(f"{ranks_text(unknown)} could not be asked ({answers[unknown[0]][1]})")
    failed = sorted(r for r, a in answers.items() if a[0] == "failed")
    where = f"locality {failed[0]}" if len(failed) == 1 else \
        f"localities {', '.join(map(str, failed))}"
    error.message = (f"{error.message} (on {where} only: "
                     f"{'; '.join(why)}, so the ranks cannot all raise it: ending the job; "
                     f"a plain operand must be the same on every rank)")
    if any(a[0] == "failed" for r, a in answers.items() if r < api.find_here()):
        # a lower rank failed here too and ends the job as this one does: its message
        # is the job's one (its abort ends this process meanwhile)
        time.sleep(faults._DEFER_TO_LOWER_RANK)
    locality = api._mpi()
    faults.report_and_abort(error, api.find_here(), api.num_localities(),
                            getattr(locality, "world", None))


def end_job_alone(error: PhylanxError) -> None:
    """A collective a statement started (``runtime/started.py``) failed on this rank
    only at its wait (a rank late beyond ``collective_timeout``, or gone): its
    evaluation ended here without an error already, as it did on the others, which
    went on; so the ranks cannot all raise it: end the job with ``error`` (never
    returns), as :func:`guarded` does for a blocking collective's failure."""
    from . import faults
    error.message = (f"{error.message} (on locality {api.find_here()} only, at the wait "
                     f"for a collective its statement started, so the ranks cannot all "
                     f"raise it: ending the job)")
    locality = api._mpi()
    faults.report_and_abort(error, api.find_here(), api.num_localities(),
                            getattr(locality, "world", None))
