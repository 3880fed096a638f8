"""``PhylanxSession``: start-up configuration, compatible with the original (§1.2).

There is no separate runtime to start: the thread pool is created on first
use.  ``init(num_threads)`` sets its size; ``config(list)`` accepts the
original's ini strings (``hpx.os_threads!=4``, ``phylanx.sync_execution!=1``,
``phylanx.eval_count_threshold!=5`` ...).
"""
from __future__ import annotations

from . import config
from .exceptions import RuntimeAlreadyInitializedError
from .runtime import executors
from .runtime.policy import Thresholds

_INI_KEYS = {
    "hpx.os_threads": "threads",
    "phylanx.sync_execution": "sync_execution",
    "phylanx.eval_count_threshold": "eval_count_threshold",
    "phylanx.exec_time_upper_threshold": "exec_time_upper_threshold",
    "phylanx.exec_time_lower_threshold": "exec_time_lower_threshold",
}


class PhylanxSession:
    """Process-wide session settings (class attributes are decorator defaults)."""

    is_initialized = False
    startatlineone = False
    print_progress = False
    debug = False
    disable_decorator = False
    cfg = [
        "hpx.run_hpx_main!=1", "hpx.commandline.allow_unknown!=1",
        "hpx.commandline.aliasing!=0", "hpx.os_threads!=1",
        "hpx.diagnostics_on_terminate!=0", "hpx.parcel.tcp.enable!=0",
    ]

    @classmethod
    def init(cls, num_threads: int = 1) -> None:
        """Start with ``num_threads`` worker threads (once per process)."""
        if cls.is_initialized:
            raise RuntimeAlreadyInitializedError()
        executors.set_threads(int(num_threads))
        cls.is_initialized = True

    @classmethod
    def config(cls, cfg_list: list[str]) -> None:
        """Start with a list of ``key!=value`` (or ``key=value``) ini strings."""
        if cls.is_initialized:
            raise RuntimeAlreadyInitializedError()
        for entry in cfg_list:
            key, sep, value = entry.replace("!=", "=").partition("=")
            name = _INI_KEYS.get(key.strip())
            if not sep or name is None:
                continue  # HPX-only keys have no meaning here
            setting = config.SETTINGS[name]
            config.set(name, setting.parse(value.strip()))
        Thresholds.reload()
        executors.set_threads(int(config.get("threads")))
        cls.is_initialized = True
