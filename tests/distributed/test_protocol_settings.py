"""The guard of the settings the ranks' messages depend on (``distributed/settings.py``,
issue 28 item 1), in one process pretending several ranks run: ``config.set`` and
``config.reset`` refuse to change one, located at the caller; ``set_on_every_rank``
changes it; the start-up comparison names the setting, its variable and the ranks.
Under MPI: ``programs/agreement.py`` (group ``settings``)."""
from __future__ import annotations

import pytest

from phylanx import config
from phylanx import distributed as dist
from phylanx.distributed import settings
from phylanx.errors import PhylanxValueError


@pytest.fixture
def ranks_running(monkeypatch):
    monkeypatch.setattr(settings, "_ranks_running", True)
    yield
    config.reset("check_collectives")


def test_a_protocol_setting_changes_only_on_every_rank(ranks_running, monkeypatch):
    old = config.get("check_collectives")
    with pytest.raises(PhylanxValueError, match="set_on_every_rank") as caught:
        config.set("check_collectives", not old)
    assert caught.value.loc.file == __file__
    assert config.get("check_collectives") is old
    config.set("check_collectives", old)        # (no change: allowed)
    config.set("collective_timeout", 7.0)       # (not a protocol setting: this rank's)
    config.reset("collective_timeout")
    dist.set_on_every_rank("check_collectives", not old)
    assert config.get("check_collectives") is (not old)
    with pytest.raises(PhylanxValueError, match="check_collectives"):
        config.reset()                          # (would drop the override: a change)
    assert config.get("check_collectives") is (not old)
    dist.set_on_every_rank("check_collectives")
    assert config.get("check_collectives") is old
    monkeypatch.setattr(settings, "_ranks_running", False)
    config.set("check_collectives", not old)    # (one rank: anything goes)


def test_the_start_up_comparison_names_setting_variable_and_ranks():
    alike = (("check_collectives", True), ("named_communicators", True))
    assert [n for n, _ in settings.protocol_values(named_communicators=True)] == \
        ["check_collectives", *settings.PLAN, *config.PLAN_FACTS, "named_communicators"]
    assert settings.protocol_problem([alike, alike, alike]) is None
    off = (("check_collectives", False),) + alike[1:]
    problem = settings.protocol_problem([alike, off, alike])
    assert "setting 'check_collectives' (PHYLANX_CHECK_COLLECTIVES) differs: ranks 0, 2: " \
        "True; rank 1: False" in problem, problem
    other = alike[:-1] + (("named_communicators", False),)
    assert "named_communicators differs: rank 0: True; rank 1: False" in \
        settings.protocol_problem([alike, other])


def test_a_value_the_setting_cannot_take_is_refused(ranks_running):
    with pytest.raises(ValueError, match="check_collectives"):
        dist.set_on_every_rank("check_collectives", "maybe")
    with pytest.raises(KeyError, match="no_such_setting"):
        dist.set_on_every_rank("no_such_setting", 1)


def test_reset_drops_an_override_whose_variable_is_unreadable(monkeypatch):
    monkeypatch.setenv("PHYLANX_COLLECTIVE_TIMEOUT", "abc")
    config.set("collective_timeout", 2.0)
    config.reset()                  # (was: the variable's ValueError, override kept)
    assert "collective_timeout" not in config._overrides
    with pytest.raises(ValueError, match="PHYLANX_COLLECTIVE_TIMEOUT"):
        config.get("collective_timeout")


def test_reset_to_an_unreadable_variable_is_a_change_of_a_protocol_setting(
        ranks_running, monkeypatch):
    dist.set_on_every_rank("check_collectives", False)
    monkeypatch.setenv("PHYLANX_CHECK_COLLECTIVES", "maybe")
    with pytest.raises(PhylanxValueError, match="set_on_every_rank"):
        config.reset("check_collectives")
    assert config.get("check_collectives") is False
    monkeypatch.delenv("PHYLANX_CHECK_COLLECTIVES")
    dist.set_on_every_rank("check_collectives")


def test_the_start_up_comparison_names_a_plan_setting_and_its_ranks():
    # optimize or fusion differing: the ranks compiled one program to two plans and
    # could call its collectives in another order (was not compared)
    alike = settings.protocol_values(named_communicators=True)
    assert ("optimize", config.get("optimize")) in alike and \
        ("fusion", config.get("fusion")) in alike
    off = tuple((k, (not v) if k == "fusion" else v) for k, v in alike)
    problem = settings.protocol_problem([alike, alike, off])
    assert "setting 'fusion' (PHYLANX_FUSION) differs: ranks 0, 1: " \
        f"{config.get('fusion')}; rank 2: {not config.get('fusion')}" in problem, problem
    assert "optimize" not in problem


def test_every_setting_a_rewrite_reads_is_a_plan_setting():
    from phylanx.compiler import rewrite

    read = {rule.setting for _, rule in rewrite.rules() if rule.setting}
    assert read and read <= set(settings.PLAN), read - set(settings.PLAN)
    assert set(settings.PLAN) <= set(config.SETTINGS)


@pytest.mark.parametrize("name", ["fusion_count_threshold", "fusion_min_size"])
def test_the_settings_deciding_when_a_fused_region_goes_hot_are_compared(name):
    # a region of tiled leaves goes hot after fusion_count_threshold big evaluations of
    # fusion_min_size elements, counted alike on every rank (fusion/hot.py), and then
    # evaluates its leaves first: ranks with other values ran its collectives out of
    # step, and the values were not compared
    alike = settings.protocol_values(named_communicators=True)
    off = tuple((k, v + 1 if k == name else v) for k, v in alike)
    problem = settings.protocol_problem([alike, off])
    assert problem is not None and \
        f"setting {name!r} ({config.SETTINGS[name].env}) differs" in problem, problem


def test_a_loop_translation_changes_only_speed_and_may_differ_between_ranks():
    # a translated loop holds plain values only and computes the tree's values bit for
    # bit (compiler/scalar_loops.py): no collective of it can run out of step
    names = [n for n, _ in settings.protocol_values(named_communicators=True)]
    assert not {"scalar_loops", "array_loops", "loop_invariants", "loop_versions"} & \
        set(names), names


def test_disable_rules_is_compared_as_the_set_of_rules_it_names():
    # "a,b" and "b, a" leave out the same rules: compared by spelling, ranks whose
    # scripts listed them in another order could not start
    from phylanx.compiler import rewrite
    a, b = [rule.name for _, rule in rewrite.rules()][:2]
    spellings = [f"{a},{b}", f" {b}, {a}", f"{a},,{b},{a}"]
    seen = []
    try:
        for spelling in spellings:
            config.set("disable_rules", spelling)
            seen.append(settings.protocol_values(named_communicators=True))
        assert settings.protocol_problem(seen) is None
        config.set("disable_rules", a)
        problem = settings.protocol_problem(
            [seen[0], settings.protocol_values(named_communicators=True)])
    finally:
        config.reset("disable_rules")
    assert f"setting 'disable_rules' (PHYLANX_DISABLE_RULES) differs: rank 0: " \
        f"'{min(a, b)},{max(a, b)}'; rank 1: '{a}'" in problem, problem


def test_whether_numba_is_installed_and_its_version_are_compared_at_start_up():
    # without numba the gram pattern is not rewritten (gram_rows.gram_wanted) and no
    # region fuses: ranks compiled one program to two plans, and nothing compared it
    alike = settings.protocol_values(named_communicators=True)
    assert ("numba", config.plan_facts()[0][1]) in alike
    for other in (None, "0.1.0"):
        off = tuple((k, other if k == "numba" else v) for k, v in alike)
        problem = settings.protocol_problem([alike, alike, off])
        assert problem is not None and "numba (the numba version installed" in problem \
            and f"rank 2: {other!r}" in problem, problem


def test_the_plan_key_names_the_plan_settings_changed_since_start_up(monkeypatch):
    # a plan setting changed after start-up on one rank: the programs it compiles then
    # carry another key in their messages, and the ranks' error names the setting
    import numpy as np

    from phylanx.distributed import agreement as ag
    monkeypatch.setattr(config, "plan_at_start", config.plan_values())
    start = config.plan_key()
    assert config.plan_changes(start) == []
    config.set("fusion_min_size", config.get("fusion_min_size") + 1)
    try:
        changed = config.plan_key()
    finally:
        config.reset("fusion_min_size")
    assert config.plan_changes(changed) == ["fusion_min_size"]
    assert config.plan_key() == start

    def message(key):
        return ag.header("all_gather", "phylanx_tiles", None, None, ag.NOTHING,
                         tag=(7, 1, 1, 0, 0, key))
    headers = np.stack([message(start), message(changed), message(start)])
    with pytest.raises(dist.PhylanxCollectiveMismatchError) as caught:
        ag.check(headers, "phylanx_tiles", False)
    text = str(caught.value)
    assert "different plan settings" in text and "ranks 0, 2: as at start-up" in text \
        and "rank 1: 'fusion_min_size' changed since start-up" in text, text
    # a message of no compiled node (key 0) is left to the other checks
    assert ag.plans_differ(np.stack([message(start), message(0)])) is None
    # a collective a program calls by name: untagged, its node's key in the same column
    named = np.stack([ag.header("all_reduce", "n", "sum", None, ag.NOTHING, plan=key)
                      for key in (start, changed)])
    assert (named[:, ag.TAG:ag.PLAN_KEY] == 0).all()
    with pytest.raises(dist.PhylanxCollectiveMismatchError, match="rank 1: 'fusion_min_size'"):
        ag.check(named, "n", True)
