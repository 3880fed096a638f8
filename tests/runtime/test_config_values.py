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
    ("fusion_cache_wait", 0, 0.0), ("fusion_cache_wait", "inf", float("inf")),
    ("helper_cache", "0", 0),
])
def test_values_of_the_settings_kind_and_strings_are_taken(name, value, expected):
    config.set(name, value)
    got = config.get(name)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("name,value", [
    ("sync_execution", "maybe"), ("sync_execution", 2), ("sync_execution", None),
    ("threads", 2.5), ("threads", True), ("threads", "two"),
    ("trace_threshold_us", True), ("fusion_compile_cost_ms", "soon"),
    ("pipeline", "jit"), ("fusion_cache_dir", 3), ("helper_cache", -1),
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


@pytest.mark.parametrize("name,value", [
    ("collective_timeout", float("nan")), ("collective_timeout", "nan"),
    ("collective_timeout", -3), ("collective_timeout", 0), ("remote_timeout", -1.0),
    ("shutdown_timeout", float("nan")), ("failed_exit_grace", -5),
    ("died_rank_grace", "nan"), ("fusion_cache_wait", float("nan")),
    ("fusion_cache_wait", -1),
])
def test_waits_in_seconds_are_not_nan_or_negative(name, value):
    # a NaN collective_timeout never expired (every deadline test was False): ranks
    # calling collectives of one name in another order waited forever instead of
    # failing; -3 failed every collective at once "within -3 s"
    import phylanx.distributed.settings  # noqa: F401 - registers the settings

    before = config.get(name)
    with pytest.raises(ValueError, match=repr(name)):
        config.set(name, value)
    assert config.get(name) == before


def test_a_nan_wait_in_the_environment_is_refused(monkeypatch):
    import phylanx.distributed.settings  # noqa: F401

    monkeypatch.setenv("PHYLANX_COLLECTIVE_TIMEOUT", "nan")
    config.reset("collective_timeout")
    with pytest.raises(ValueError, match="PHYLANX_COLLECTIVE_TIMEOUT"):
        config.get("collective_timeout")
    monkeypatch.delenv("PHYLANX_COLLECTIVE_TIMEOUT")
    config.reset("collective_timeout")


@pytest.mark.parametrize("value", [float("inf"), "inf", 0.5])
def test_an_infinite_or_positive_timeout_is_taken(value):
    import phylanx.distributed.settings  # noqa: F401

    config.set("collective_timeout", value)
    assert config.get("collective_timeout") == float(value)


def test_the_distributed_settings_are_known_before_the_distributed_layer_is_used():
    # docs/distributed.md lists them among phylanx.config's; a fresh process's
    # config.set("collective_timeout", 5) was "unknown phylanx setting" until something
    # had imported phylanx.distributed.settings
    import subprocess
    import sys

    code = ("import phylanx, sys\n"
            "phylanx.config.set('collective_timeout', 5)\n"
            "phylanx.config.reset('check_collectives')\n"
            "assert phylanx.config.get('check_collectives') is True\n"
            "assert phylanx.config.get('collective_timeout') == 5.0\n"
            "assert 'mpi4py' not in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_refused_value_is_located_at_the_callers_line():
    # it was a bare ValueError: a script's "[rank 0] .../phylanx/config.py:254:
    # ValueError: ..." named phylanx's line, not the user's config.set
    from phylanx.errors import PhylanxValueError

    with pytest.raises(PhylanxValueError) as caught:
        config.set("threads", 2.5)
    assert caught.value.loc is not None and caught.value.loc.file == __file__
    assert "'threads'" in str(caught.value) and isinstance(caught.value, ValueError)


def _registry() -> dict:
    import phylanx.distributed.settings  # noqa: F401 - registers the distributed ones

    return dict(config.SETTINGS)


def _refused(setting) -> list:
    """Values ``setting`` must refuse, from its kind alone: every setting of a kind is
    validated alike (a new int setting without its count test fails here)."""
    default = setting.default
    choices = getattr(setting.parse, "choices", None)
    if isinstance(default, bool):
        return ["maybe", 2, 0.5, None]
    if isinstance(default, int):
        return [-1, "-1", 2.5, True, "nan"]
    if isinstance(default, float) or setting.name == "fusion_compile_cost_ms":
        return [float("nan"), "nan", -1.0, "-1", True, "soon"]
    if choices is not None:
        return ["bogus", 3, pathlib.Path("bogus")]
    return [3, None, 1.5]      # free text (a path, a list of rule names)


_REFUSALS = [(name, value) for name, s in _registry().items() for value in _refused(s)]


@pytest.mark.parametrize("name,value", _REFUSALS, ids=[f"{n}={v!r}" for n, v in _REFUSALS])
def test_every_setting_refuses_what_its_kind_does_not_take(name, value):
    # a negative count was taken: threads=-1 ran one thread per core, a negative
    # tile_rows or fusion_min_size silently meant "from tile_bytes" or "always";
    # progress_polling took any word and ran as 'thread'
    before = config.get(name)
    with pytest.raises(ValueError, match=repr(name)):
        config.set(name, value)
    assert config.get(name) == before


_ENV_REFUSALS = [(n, v) for n, v in _REFUSALS if isinstance(v, str)]


@pytest.mark.parametrize("name,text", _ENV_REFUSALS,
                         ids=[f"{n}={v!r}" for n, v in _ENV_REFUSALS])
def test_every_setting_refuses_the_same_text_in_its_environment_variable(
        name, text, monkeypatch):
    env = config.SETTINGS[name].env
    monkeypatch.setenv(env, text)
    with pytest.raises(ValueError, match=env):
        config.reset(name)      # (a listener reading it at once refuses it there)
        config.get(name)
    monkeypatch.delenv(env)
    config.reset(name)


def test_every_choice_setting_takes_its_words():
    for name, s in _registry().items():
        for word in getattr(s.parse, "choices", ()):
            config.set(name, word.upper())
            assert config.get(name) == word


@pytest.mark.parametrize("text", ["fold_literal_arithmetc", "cse",
                                  "update_in_place, share_common_subexpresions"])
def test_a_misspelt_rule_to_disable_is_an_error_naming_it_and_the_known_ones(
        text, monkeypatch):
    # a misspelt name was ignored: the rule meant to be off stayed on, silently
    from phylanx.compiler import rewrite

    unknown = [n.strip() for n in text.split(",")][-1]
    known = [rule.name for _, rule in rewrite.rules()]
    with pytest.raises(ValueError, match="'disable_rules'") as caught:
        config.set("disable_rules", text)
    assert caught.value.loc is not None and caught.value.loc.file == __file__
    assert repr(unknown) in str(caught.value) and all(n in str(caught.value) for n in known)
    assert config.get("disable_rules") == ""
    monkeypatch.setenv("PHYLANX_DISABLE_RULES", text)
    config.reset("disable_rules")
    with pytest.raises(ValueError, match="PHYLANX_DISABLE_RULES") as caught:
        config.get("disable_rules")
    assert repr(unknown) in str(caught.value) and known[0] in str(caught.value)
    monkeypatch.delenv("PHYLANX_DISABLE_RULES")
    config.reset("disable_rules")


def test_rules_to_disable_by_their_names():
    config.set("disable_rules", " update_in_place,fold_literal_arithmetic ,")
    assert config.get("disable_rules") == " update_in_place,fold_literal_arithmetic ,"
    from phylanx.compiler.rewrite.engine import disabled_rules
    assert disabled_rules() == {"update_in_place", "fold_literal_arithmetic"}
