"""Python globals as a decorated function sees them: read when an evaluation starts,
lazy ones too; those a call assigns written back as Python would leave them."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx, PhylanxTypeError, execution_tree

_K = 2.0


@Phylanx
def _times_k(x):
    return x * _K


@Phylanx
def _calls_its_argument(f, x):
    return f(x)


def test_a_lazy_evaluation_reads_the_globals_as_python_does_when_it_runs():
    # lazy().eval(x) called the compiled function without loading the globals: nil
    # before any ordinary call, then the value the last ordinary call loaded
    global _K
    try:
        lazy = _times_k.lazy()
        _K = 3.0
        assert lazy.eval(2.0) == _times_k.python(2.0) == 6.0
        _K = 10.0
        assert lazy.eval(3.0) == 30.0
        assert execution_tree.variable(lazy).eval(1.0) == 10.0
        assert _times_k(1.0) == 10.0
        _K = 4.0
        assert lazy.lazy(np.array([1.0, 2.0])).eval().tolist() == [4.0, 8.0]
        _K = 6.0
        assert _calls_its_argument(lazy, 2.0) == 12.0    # a lazy function passed
        bound = _times_k.lazy(5.0)
        _K = 0.5
        assert bound.eval() == 2.5
    finally:
        _K = 2.0


@Phylanx
def _k_alone():
    return _K


@Phylanx
def _calls_the_first(fs, x):
    return fs[0](x)


def test_a_lazy_function_reaching_physl_otherwise_reads_the_globals_of_its_call():
    # lazy()'s value (eval() without arguments, v(), the variable given to PhySL) was
    # the compiled function value, which ran with the globals some earlier call loaded
    # (nil before any; in a list passed to a decorated function, a stale value)
    global _K
    lazy = _times_k.lazy()
    paths = {
        "eval(), called later": lambda: lazy.eval()(3.0),
        "v(), called later": lambda: lazy()(3.0),
        "invoke": lambda: execution_tree.invoke(lazy.eval(), (3.0,), {}),
        "evaluate": lambda: phylanx.evaluate("lambda(f, x, f(x))", lazy, 3.0),
        "fmap": lambda: phylanx.evaluate("lambda(f, xs, fmap(f, xs))", lazy, [3.0])[0],
        "in a list": lambda: _calls_the_first([lazy], 3.0),
        "passed": lambda: _calls_its_argument(lazy, 3.0),
        "no parameters": lambda: _k_alone.lazy().eval()() * 3.0,
    }
    try:
        for k, (what, run) in enumerate(paths.items()):
            _calls_its_argument(_times_k, 1.0)    # (loads _K: the value a stale read sees)
            _K = 7.0 + k
            assert run() == _times_k.python(3.0) == _k_alone.python() * 3.0, what
    finally:
        _K = 2.0


def test_a_lazy_call_that_cannot_bind_is_located_at_the_eval():
    lazy = _times_k.lazy()
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(PhylanxTypeError, match=f"test_globals.py:{line}:.*takes 1 positional"):
        lazy.eval(1.0, 2.0)
    bound = _times_k.lazy(1.0)
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(PhylanxTypeError, match=f"test_globals.py:{line}:.*takes 1 positional"):
        bound.eval(2.0)


_LIST = [1, 2]
_DICT = {"a": 1}
_VARIABLES = [execution_tree.variable(np.array([1.0]))]


@Phylanx
def _appends(x):
    global _LIST, _DICT
    _LIST.append(x)
    _DICT["b"] = x
    return len(_LIST)


@Phylanx
def _reads_variables():
    global _VARIABLES
    return len(_VARIABLES)


@Phylanx
def _appends_to_variables(x):
    global _VARIABLES
    _VARIABLES.append(x)
    return len(_VARIABLES)


@Phylanx
def _rebinds(x):
    global _LIST
    _LIST = [x]
    return x


def test_a_global_list_a_call_changes_in_place_stays_the_same_object():
    # written back as a converted copy, the list was no longer the one Python code
    # held (``L is alias`` False): a change made after the call was lost to the alias
    global _LIST, _DICT
    _LIST, _DICT = [1, 2], {"a": 1}
    lst, dct = _LIST, _DICT
    assert _appends(3) == 3
    assert _LIST is lst and lst == [1, 2, 3]
    assert _DICT is dct and dct == {"a": 1, "b": 3}
    assert _reads_variables() == 1
    assert isinstance(_VARIABLES[0], execution_tree.variable)   # not converted
    variables = _VARIABLES      # passed as a converted copy: changed in place, copied in
    assert _appends_to_variables(2.0) == 2 and _VARIABLES is variables
    assert variables[1] == 2.0 and variables[0].tolist() == [1.0]
    assert _rebinds(7) == 7 and _LIST == [7] and lst == [1, 2, 3]   # rebound: a new list


@Phylanx
def _assigns_if_positive(x):
    global _MADE_IF_POSITIVE
    if x > 0:
        _MADE_IF_POSITIVE = x
    return x


def test_a_global_a_call_did_not_assign_is_not_created():
    # the write-back stored the nil it had loaded: the module got the name, as None
    assert _assigns_if_positive(-1) == -1 and "_MADE_IF_POSITIVE" not in globals()
    try:
        assert _assigns_if_positive(2) == 2 and globals()["_MADE_IF_POSITIVE"] == 2
    finally:
        globals().pop("_MADE_IF_POSITIVE", None)
