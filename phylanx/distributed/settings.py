"""The distributed settings, added to ``phylanx.config`` (``PHYLANX_<NAME>`` env vars).

They live here rather than in ``config.py`` so that the configuration of a
single-process run does not list them unless the distributed layer is loaded.
"""
from __future__ import annotations

from .. import config
from ..config import Setting, _bool

_SETTINGS = (
    Setting("collective_timeout", 60.0, float,
            "seconds a collective may wait for the other ranks before it fails"),
    Setting("remote_timeout", 60.0, float,
            "seconds a request to another locality (run_on, get_remote) may take"),
    Setting("shutdown_timeout", 60.0, float,
            "seconds a finished rank waits for the others to finish before it exits"),
    Setting("failed_exit_grace", 5.0, float,
            "seconds a rank exiting with a non-zero status while others still run waits "
            "for them to report its departure before it ends the job itself"),
    Setting("died_rank_grace", 2.0, float,
            "seconds a rank that saw another rank's process die waits for the launcher "
            "to end the job (the failed rank printed its own error) before reporting it"),
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
    ``config.set``/``reset``, read again by the next :meth:`read`."""

    __slots__ = ("name", "value")

    def __init__(self, name: str) -> None:
        self.name = name
        self.value = None       # (None: not read since the last change; settings read
        config.on_change(self.forget)   # through it are never None)

    def forget(self) -> None:
        self.value = None

    def read(self):
        self.value = value = get(self.name)
        return value


#: ``check_collectives``: ``check_collectives.value``, or ``.read()`` when that is None
check_collectives = Cached("check_collectives")
