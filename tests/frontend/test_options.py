"""Decorator options: each one works or is refused with a located error."""
from __future__ import annotations

import inspect
import types

import numpy as np
import pytest

from phylanx import Phylanx, PhylanxError, execution_tree
from phylanx.frontend import options
from phylanx.frontend.decorator import PhylanxDecorator


def _line(text: str) -> int:
    """The line of this file holding ``text`` (the test's own decorator line)."""
    lines = inspect.getsource(inspect.getmodule(_line)).splitlines()
    return next(i for i, ln in enumerate(lines, 1) if text in ln and "_line(" not in ln)


def scaled(x):
    return x * SCALE + offset(x)  # noqa: F821 - resolved in fglobals


def bump():
    global COUNTER
    COUNTER = COUNTER + 1  # noqa: F821
    return COUNTER


def test_fglobals_replaces_the_function_globals_for_free_names():
    fglobals = {"SCALE": 3.0, "offset": lambda x: x - 1, "np": np}
    oracle = types.FunctionType(scaled.__code__, fglobals)   # Python with those globals
    f = Phylanx(fglobals=fglobals)(scaled)
    assert f(2.0) == oracle(2.0) == 7.0
    fglobals["SCALE"] = 10.0   # read afresh at every call, like a global
    assert f(2.0) == oracle(2.0) == 21.0


def test_fglobals_without_the_name_is_a_name_error_as_in_python():
    fglobals = {"SCALE": 3.0}
    with pytest.raises(NameError, match="name 'offset' is not defined"):
        types.FunctionType(scaled.__code__, fglobals)(2.0)
    with pytest.raises(NameError, match="name 'offset' is not defined") as info:
        Phylanx(fglobals=fglobals)(scaled)(2.0)
    assert isinstance(info.value, PhylanxError)


def test_global_statements_write_to_fglobals():
    fglobals = {"COUNTER": 5}
    f = Phylanx(fglobals=fglobals)(bump)
    assert f() == 6 and fglobals["COUNTER"] == 6
    assert "COUNTER" not in globals()


@pytest.mark.parametrize("value", [None, 1])
def test_one_locality_is_accepted(value):
    @Phylanx(localities=value)
    def twice(x):
        return 2 * x

    assert twice(3) == 6 and twice.localities == value


@pytest.mark.parametrize("bad, message", [
    ({"localities": 2}, "several localities is not supported yet"),
    ({"localities": [0, 1]}, "several localities is not supported yet"),
    ({"target": "OpenSCoP"}, "only 'PhySL' is supported"),
    ({"fglobals": [1]}, "fglobals must be a dict"),
    ({"compiler_state": "mine"}, "compiler_state must be a phylanx.execution_tree"),
])
def test_unsupported_option_values_are_refused_at_the_decorator(bad, message):
    with pytest.raises(options.UnsupportedOptionError, match=message) as info:
        Phylanx(**bad)   # refused here: the decorator line
    assert isinstance(info.value, PhylanxError) and isinstance(info.value, NotImplementedError)
    assert (info.value.loc.file, info.value.loc.line) == (__file__, _line("Phylanx(**bad)"))

    def plain(x):
        return x
    with pytest.raises(options.UnsupportedOptionError, match=message) as info:
        PhylanxDecorator(plain, **bad)   # as @Phylanx(...) does
    assert info.value.loc.line == plain.__code__.co_firstlineno   # at the definition


def test_an_unknown_option_is_located_at_the_call():
    with pytest.raises(NotImplementedError, match="Unknown Phylanx argument 'bogus'") as info:
        Phylanx(bogus=True)
    assert info.value.loc.line == _line("Phylanx(bogus=True)")


def test_a_compiler_state_option_is_used():
    state = execution_tree.compiler_state("options")

    @Phylanx(compiler_state=state)
    def inc(x):
        return x + 1

    assert inc(1) == 2 and state.lookup(inc.state_name) is inc._function


def test_every_option_is_documented():
    for name in options.OPTIONS:
        assert f"``{name}``" in options.__doc__, name
