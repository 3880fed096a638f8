"""The original's Python API (§1.8): compiler_state, compile, eval, code_for, variable..."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import PhylanxSession
from phylanx import execution_tree as et
from phylanx.errors import PhylanxError
from phylanx.exceptions import RuntimeAlreadyInitializedError


def test_compile_eval_and_code_for():
    state = et.compiler_state("api", "api.physl")
    assert et.compile(state, "api.physl", "axpy", "define(axpy, a, x, y, a * x + y)") == "axpy"
    x, y = np.arange(3.0), np.ones(3)
    np.testing.assert_array_equal(et.eval(state, "axpy", 2.0, x, y), 2 * x + y)
    # the original's four-argument form eval(state, file_name, code, *args)
    np.testing.assert_array_equal(et.eval(state, "api.physl", "axpy", 2.0, x, y), 2 * x + y)
    fn = et.code_for(state, "api.physl", "axpy")
    assert fn(1, 2, 3) == 5
    bound = et.bound_code_for(state, "api.physl", "axpy", 10)
    assert bound.eval(2, 3) == 23


def test_eval_of_a_block_returning_a_function():
    state = et.compiler_state("fib")
    code = "block(define(fib, n, if(n < 2, n, fib(n - 1) + fib(n - 2))), fib)"
    assert et.eval(state, code, 10) == 55


def test_values_in_and_out():
    state = et.compiler_state("values")
    et.compile(state, "<v>", "ident", "define(ident, x, x)")
    arr = np.arange(4.0)
    assert et.eval(state, "ident", arr) is arr  # no copy
    # Python numbers come back as the Python numbers they are, NumPy scalars as NumPy's
    assert type(et.eval(state, "ident", 3)) is int
    assert type(et.eval(state, "ident", 2.5)) is float
    assert type(et.eval(state, "ident", True)) is bool
    assert type(et.eval(state, "ident", np.float32(2.5))) is np.float32
    zero_d = np.array(7)
    assert et.eval(state, "ident", zero_d) is zero_d   # a 0-d array stays one (as NumPy's)
    assert et.eval(state, "ident", None) is None
    assert et.eval(state, "ident", "s") == "s"
    assert et.eval(state, "ident", (1, [2, 3])) == (1, [2, 3])   # a tuple stays a tuple
    assert et.eval(state, "ident", {"a": 1}) == {"a": 1}


def test_keyword_arguments_from_python():
    state = et.compiler_state("kw")
    et.compile(state, "<kw>", "f", "define(f, a, __arg(b, 2), a - b)")
    assert et.eval(state, "f", 10) == 8
    assert et.eval(state, "f", 10, b=5) == 5
    assert et.eval(state, "f", b=1, a=3) == 2
    with pytest.raises(phylanx.PhylanxError, match="no argument named 'c'"):
        et.eval(state, "f", 1, c=2)


def test_python_callable_as_argument():
    state = et.compiler_state("callable")
    et.compile(state, "<c>", "twice", "define(twice, f, x, f(f(x)))")
    assert et.eval(state, "twice", lambda v: v * 3, 2) == 18


def test_variable_lazy_arithmetic():
    a = et.variable(np.array([1.0, 2.0]), name="a")
    b = et.variable(np.array([3.0, 4.0]))
    expr = (a + b) * 2 - 1
    np.testing.assert_array_equal(expr.eval(), [7.0, 11.0])
    a += 1
    np.testing.assert_array_equal(a.eval(), [2.0, 3.0])
    # the original's rule (addendum B.4): an expression holds its operands'
    # expressions as they were when it was built
    np.testing.assert_array_equal(expr.eval(), [7.0, 11.0])
    assert a.dtype == "float64" and len(a) == 2
    a[0] = 10.0
    assert a[0].eval() == 10.0
    v = et.variable((2, 3))
    assert v._keras_shape == (2, 3) and v.eval() is None


def test_session_init_once(monkeypatch):
    monkeypatch.setattr(PhylanxSession, "is_initialized", False)
    from phylanx import config
    from phylanx.runtime import executors
    try:
        PhylanxSession.init(2)
        assert executors.get_executor().num_threads == 2
        with pytest.raises(RuntimeAlreadyInitializedError):
            PhylanxSession.init(1)
        with pytest.raises(RuntimeAlreadyInitializedError):
            PhylanxSession.config(["hpx.os_threads!=1"])
    finally:
        config.reset()
        executors.set_threads(0)
        config.reset()


def test_session_config_reads_ini_strings(monkeypatch):
    monkeypatch.setattr(PhylanxSession, "is_initialized", False)
    from phylanx import config
    from phylanx.runtime import executors
    try:
        PhylanxSession.config(["hpx.os_threads!=3", "phylanx.sync_execution!=1",
                               "hpx.parcel.tcp.enable!=0"])
        assert config.get("threads") == 3 and config.get("sync_execution") is True
        assert phylanx.evaluate("parallel_block(1, 2)") == 2
    finally:
        config.reset()
        executors.set_threads(0)
        config.reset()


def test_evaluate_entry_point_and_versions():
    assert phylanx.evaluate("lambda(x, y, x * y)", 6, 7) == 42
    assert phylanx.full_version() == phylanx.__version__
    assert phylanx.parallel.is_parallel_block()


def test_wrong_call_from_python_points_at_the_function_definition():
    state = et.compiler_state()
    with pytest.raises(PhylanxError) as info:
        et.eval(state, "block(1,\n  lambda(x, x + 1))", 1, 2)
    assert "takes 1 argument(s), got 2" in info.value.message
    assert (info.value.loc.line, info.value.loc.col) == (2, 3)


def test_settings_from_the_environment(monkeypatch):
    """An empty variable counts as unset; one a setting cannot take is an error naming
    the variable (not the code that happened to read the setting first)."""
    import pytest

    from phylanx import config
    try:
        monkeypatch.setenv("PHYLANX_TILE_ROWS", "")
        config.reset("tile_rows")
        assert config.get("tile_rows") == config.SETTINGS["tile_rows"].default
        monkeypatch.setenv("PHYLANX_TILE_ROWS", "12")
        config.reset("tile_rows")
        assert config.get("tile_rows") == 12
        monkeypatch.setenv("PHYLANX_TILE_ROWS", "many")
        config.reset("tile_rows")
        with pytest.raises(ValueError, match="PHYLANX_TILE_ROWS='many'"):
            config.get("tile_rows")
        monkeypatch.setenv("PHYLANX_OPTIMIZE", "off")
        config.reset("optimize")
        assert config.get("optimize") is False
        monkeypatch.setenv("PHYLANX_OPTIMIZE", "ture")      # not silently False
        config.reset("optimize")
        with pytest.raises(ValueError, match="PHYLANX_OPTIMIZE='ture'"):
            config.get("optimize")
    finally:
        monkeypatch.delenv("PHYLANX_TILE_ROWS")
        monkeypatch.delenv("PHYLANX_OPTIMIZE", raising=False)
        config.reset("tile_rows")
        config.reset("optimize")
