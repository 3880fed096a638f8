"""``settings.Cached`` (a setting read from an attribute on the small collectives' path)
never keeps a value older than the last ``config.set``/``reset``, also when another
thread changes the setting while it is being read."""
from __future__ import annotations

import threading

from phylanx import config
from phylanx.distributed import settings


def test_a_change_during_a_read_is_not_overwritten_by_the_older_value(monkeypatch):
    cached = settings.Cached("check_collectives")
    old = config.get("check_collectives")
    reading, changed = threading.Event(), threading.Event()

    def slow_get(name):
        value = config.get(name)    # the value before the change ...
        reading.set()
        changed.wait(0.2)           # ... the change made meanwhile (or blocked: a lock)
        return value

    def change():
        reading.wait(5)
        config.set("check_collectives", not old)
        changed.set()

    monkeypatch.setattr(settings, "get", slow_get)
    other = threading.Thread(target=change)
    other.start()
    try:
        assert cached.read() == old     # (read before the change: that value, once)
        other.join(5)
        assert cached.value in (None, not old), cached.value
        monkeypatch.setattr(settings, "get", config.get)
        assert cached.read() == (not old)
    finally:
        other.join(5)
        config.reset("check_collectives")
    assert cached.value is None and cached.read() == old
