"""``config.set`` takes a value of the setting's kind or a string read as its
environment variable is; anything else is an error naming the setting, never a value
quietly taken for another (``"false"`` was truthy), and a ``get`` racing a ``set``
never keeps the old value."""
from __future__ import annotations

import pathlib
import threading

import numpy as np
import pytest

from phylanx import config


@pytest.fixture(autouse=True)
def _reset():
    yield
    config.reset()


@pytest.mark.parametrize("name,value,expected", [
    ("sync_execution", "false", False), ("sync_execution", "on", True),
    ("sync_execution", np.True_, True), ("sync_execution", 0, False),
    ("threads", "3", 3), ("threads", np.int64(2), 2),
    ("trace_threshold_us", 5, 5.0), ("fusion_compile_cost_ms", "auto", "auto"),
    ("fusion_compile_cost_ms", 2, 2.0), ("pipeline", "tree", "ast"),
    ("fusion_cache_dir", pathlib.Path("/tmp/x"), "/tmp/x"),
])
def test_values_of_the_settings_kind_and_strings_are_taken(name, value, expected):
    config.set(name, value)
    got = config.get(name)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("name,value", [
    ("sync_execution", "maybe"), ("sync_execution", 2), ("sync_execution", None),
    ("threads", 2.5), ("threads", True), ("threads", "two"),
    ("trace_threshold_us", True), ("fusion_compile_cost_ms", "soon"),
    ("pipeline", "jit"), ("fusion_cache_dir", 3),
])
def test_other_values_are_errors_naming_the_setting(name, value):
    before = config.get(name)
    with pytest.raises(ValueError, match=repr(name)):
        config.set(name, value)
    assert config.get(name) == before


def test_a_get_racing_sets_ends_with_the_last_value():
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            config.get("eval_count_threshold")

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        for i in range(2000):
            config.set("eval_count_threshold", i)
            assert config.get("eval_count_threshold") == i
    finally:
        stop.set()
        for t in threads:
            t.join()
