"""The distributed settings, added to ``phylanx.config`` (``PHYLANX_<NAME>`` env vars).

They live here rather than in ``config.py`` so that the configuration of a
single-process run does not list them unless the distributed layer is loaded.
"""
from __future__ import annotations

import threading

from .. import config
from ..config import Setting, _bool, seconds

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
    Setting("progress_polling", "wait", str,
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
