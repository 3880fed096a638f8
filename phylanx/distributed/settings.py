"""The distributed settings, added to ``phylanx.config`` (``PHYLANX_<NAME>`` env vars),
and the agreement of the ranks on those their messages depend on.

They live here rather than in ``config.py`` so that the configuration of a
single-process run does not list them unless the distributed layer is loaded.

**Protocol settings** (:data:`PROTOCOL`: ``check_collectives``, whether an unchecked
collective exchanges headers) must be equal on every rank: a rank sending a header
where another sends data reads garbage or waits forever.  So must the **plan settings**
(:data:`PLAN`: ``optimize``, ``fusion``, ...): ranks compiling one program to different
plans may call its collectives in another order (``disable_rules`` is compared as the
set of rules it names).  So must the facts of the installation that change a plan
(``config.PLAN_FACTS``: numba's version, or none).  The ranks exchange all of them at
start-up, in the one collective the MPI locality runs anyway, with the MPI facts that
shape the messages likewise (named communicators, persistent header exchanges); a
difference is the same error on every rank, naming the setting and the ranks.  Once
several ranks run, ``config.set``/``reset`` refuses to change a protocol setting (a
located error naming it): :func:`set_on_every_rank` changes it collectively.  A script
may still change a plan setting after start-up with ``config.set`` (each rank runs it
for itself: alike on every rank, nothing differs), and the nodes of a program compiled
afterwards carry the plan key it was compiled under
(``config.plan_key``), which travels in the header of every message of their
distributed operations (``lockstep.py``): ranks that compiled one program under
different plan settings fail at its first message, every rank with the same located
error naming the settings changed since start-up and the ranks.  The others
(timeouts, ``progress_polling``: how this rank completes its requests) are each rank's.
"""
from __future__ import annotations

import sys
import threading
from typing import Any

from .. import config
from ..config import Setting, _bool, choice, seconds

_SETTINGS = (
    Setting("collective_timeout", 60.0, float,
            "seconds a collective may wait for the other ranks before it fails",
            valid=seconds(zero=False)),
    Setting("remote_timeout", 60.0, float,
            "seconds a request to another locality (run_on, get_remote) may take",
            valid=seconds(zero=False)),
    Setting("shutdown_timeout", 60.0, float,
            "seconds a finished rank waits for the others to finish before it exits",
            valid=seconds(zero=True)),
    Setting("failed_exit_grace", 5.0, float,
            "seconds a rank exiting with a non-zero status while others still run waits "
            "for them to report its departure before it ends the job itself",
            valid=seconds(zero=True)),
    Setting("died_rank_grace", 2.0, float,
            "seconds a rank that saw another rank's process die waits for the launcher "
            "to end the job (the failed rank printed its own error) before reporting it",
            valid=seconds(zero=True)),
    Setting("check_collectives", True, _bool,
            "exchange a header before each collective to report disagreeing ranks"),
    Setting("progress_polling", "wait", choice("wait", "thread"),
            "how MPI requests are completed: 'wait' (a thread waiting for a collective "
            "tests its requests itself, other waiting threads poll too; the faster) or "
            "'thread' (progress thread only)"),
)

for _setting in _SETTINGS:
    config.SETTINGS.setdefault(_setting.name, _setting)


#: a setting's value (``config.get`` itself: it sits on every collective's path)
get = config.get


class Cached:
    """A setting's value kept in an attribute, for the path of every small collective
    (a read there instead of a call of ``config.get``); forgotten at every
    ``config.set``/``reset``, read again by the next :meth:`read`.

    A read and a forget take turns (``_turn``): a read that fetched the value before
    another thread's ``config.set`` would otherwise store it after that set's forget,
    and the old value would stay until the next change."""

    __slots__ = ("name", "value", "_turn")

    def __init__(self, name: str) -> None:
        self.name = name
        self.value = None       # (None: not read since the last change; settings read
        self._turn = threading.Lock()   # through it are never None)
        config.on_change(self.forget)

    def forget(self) -> None:
        with self._turn:
            self.value = None

    def read(self):
        with self._turn:
            self.value = value = get(self.name)
        return value


#: ``check_collectives``: ``check_collectives.value``, or ``.read()`` when that is None
check_collectives = Cached("check_collectives")


#: settings whose values must be equal on every rank for their messages to match
PROTOCOL = ("check_collectives",)

#: settings that change the plan a program compiles to (``config.PLAN``, whose comment
#: says which and why): compared at start-up with :data:`PROTOCOL` and the facts of the
#: installation that change a plan too (``config.PLAN_FACTS``: numba's version)
#: (tests/distributed/test_protocol_settings.py checks every rewrite rule's setting is
#: here)
PLAN = config.PLAN

#: several ranks exchanged their protocol settings (:func:`agree_at_start`): from now
#: on they change only collectively (:func:`set_on_every_rank`)
_ranks_running = False
_collectively = threading.local()


def protocol_values(**facts: Any) -> tuple:
    """This rank's protocol and plan settings (``disable_rules`` as its set of rule
    names: ``config.plan_values``), the facts of its installation that change a plan
    (``config.plan_facts``) and ``facts`` (``name=value``), as ``(name, value)`` pairs; a
    setting whose environment variable cannot be read is the error's text (every rank
    must then hear of it, not only this one)."""
    values = []
    for name in PROTOCOL:
        try:
            values.append((name, get(name)))
        except ValueError as e:
            values.append((name, f"<{e}>"))
    return tuple(values) + config.plan_values() + config.plan_facts() + \
        tuple(sorted(facts.items()))


def protocol_problem(values_by_rank: list) -> str | None:
    """The text naming the protocol settings the ranks disagree on (``values_by_rank[r]``
    is rank r's :func:`protocol_values`), or None."""
    from .agreement import disagreement
    names = list(dict.fromkeys(name for values in values_by_rank for name, _ in values))
    differ = [disagreement([dict(values).get(name) for values in values_by_rank],
                           _label(name)) for name in names]
    differ = [d for d in differ if d is not None]
    if not differ:
        return None
    return ("the ranks disagree on settings their messages or their compiled programs "
            "depend on (every rank must have the same: the variable in every rank's "
            "environment alike, "
            "phylanx.distributed.set_on_every_rank to change it): " + "; ".join(differ))


def _label(name: str) -> str:
    if name in PROTOCOL + PLAN:
        return f"setting {name!r} ({config.SETTINGS[name].env})"
    if name in config.PLAN_FACTS:
        return f"{name} ({config.PLAN_FACTS[name]})"
    return name


def agree_at_start(values_by_rank: list) -> None:
    """At the MPI locality's start: raise the same error on every rank if the ranks'
    protocol settings differ; from then on they change only collectively."""
    global _ranks_running
    problem = protocol_problem(values_by_rank)
    if problem is not None:
        from .agreement import agreed
        from .errors import PhylanxCollectiveMismatchError
        raise agreed(PhylanxCollectiveMismatchError(problem, None, "start-up"))
    _ranks_running = len(values_by_rank) > 1
    if _ranks_running:      # (a plan setting changed from now on is marked: plan_key)
        config.plan_at_start = config.plan_values()


def _refuse_alone(name: str, value: Any) -> None:
    """``config``'s guard: once several ranks run, a protocol setting changes only
    through :func:`set_on_every_rank`."""
    if not _ranks_running or name not in PROTOCOL or getattr(_collectively, "on", False):
        return
    if value == get(name):
        return
    from ..errors import PhylanxValueError
    from ..source import SourceLoc
    frame = sys._getframe(1)        # (the line that called config.set or reset)
    while frame.f_back is not None and frame.f_code.co_filename in (config.__file__,
                                                                     __file__):
        frame = frame.f_back
    raise PhylanxValueError(
        f"setting {name!r} must be equal on every rank (the ranks' messages depend on "
        f"it): change it on every rank at once with "
        f"phylanx.distributed.set_on_every_rank({name!r}, {value!r}), not on this rank "
        "alone", SourceLoc(frame.f_code.co_filename, frame.f_lineno, 1), "config.set")


config.before_change(_refuse_alone)

#: stands for "drop the override" (``config.reset``) in :func:`set_on_every_rank`
RESET: Any = object()


def set_on_every_rank(name: str, value: Any = RESET, where: Any = None) -> None:
    """Collective: ``config.set(name, value)`` (``config.reset(name)`` without a value)
    on every rank, which must all pass the same; the same located error on every rank
    naming the ranks that differ, and then no rank changes it.  Call it where no other
    collective is in flight on this rank (a protocol setting is read as a collective
    starts)."""
    from . import check_same, num_localities
    setting = config.SETTINGS.get(name)
    if setting is None:
        config.set(name, value)         # (the KeyError naming the known ones)
    try:
        new = config._without_override(name) if value is RESET else \
            config._checked(setting, value)
    except ValueError as e:     # (after the exchange: the others must not wait for us)
        new, invalid = f"<{e}>", e
    else:
        invalid = None
    if num_localities() > 1:
        check_same({f"the new value of setting {name!r}": new}, "set_on_every_rank",
                   "phylanx_settings", where=where)
    if invalid is not None:
        raise invalid
    _collectively.on = True
    try:
        if value is RESET:
            config.reset(name)
        else:
            config.set(name, new)
    finally:
        _collectively.on = False
