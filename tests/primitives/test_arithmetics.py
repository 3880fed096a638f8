"""Hand tests of the arithmetics primitives (elementwise_math.py, cumulative_and_tests.py)
against NumPy: dtypes and ranks, empty and float32 inputs, NaN/inf, dtype arguments and suffixes,
axis handling and error messages."""
from __future__ import annotations

from functools import reduce

import numpy as np
import pytest
import scipy.special

import phylanx
from phylanx import Phylanx
from phylanx.errors import PhylanxError

from .harness import assert_like_numpy, call

ev = phylanx.evaluate


UNARY = {
    "absolute": np.absolute, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "rint": np.rint, "conj": np.conjugate, "real": np.real, "imag": np.imag,
    "sqrt": np.sqrt, "invsqrt": lambda x: 1 / np.sqrt(x), "cbrt": np.cbrt,
    "invcbrt": lambda x: 1 / np.cbrt(x), "exp": np.exp, "exp2": np.exp2,
    "exp10": scipy.special.exp10, "log": np.log, "log2": np.log2, "log10": np.log10,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "arcsin": np.arcsin, "arccos": np.arccos, "arctan": np.arctan,
    "arcsinh": np.arcsinh, "arccosh": np.arccosh, "arctanh": np.arctanh,
    "erf": scipy.special.erf, "erfc": scipy.special.erfc, "square": np.square,
    "sign": np.sign,
}

INPUTS = [
    np.array([-2.5, -0.5, 0.0, 0.3, 1.0, 4.0]),
    np.array([[0.25, -3.0], [9.0, 0.5]], dtype=np.float32),
    np.arange(-3, 9).reshape(2, 3, 2),
    np.arange(16.0).reshape(2, 2, 2, 2) / 7 - 1,
    np.array([np.nan, np.inf, -np.inf, -0.0]),
    np.array([], dtype=np.float64),
    np.zeros((2, 0), dtype=np.int64),
    np.float64(0.75),
    np.int64(-4),
    np.array([True, False, True]),
    np.float32(2.0),
    np.array([-3, 0, 5], dtype=np.int8), np.array([0, 7, 200], dtype=np.uint8),
    np.array([-300, 2], dtype=np.int16), np.array([0.5, -2.0], dtype=np.float16),
    np.array([1 + 2j, -0.5j], dtype=np.complex64),
]


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("x", INPUTS, ids=lambda x: f"{np.asarray(x).dtype}{np.shape(x)}")
def test_unary_math_matches_numpy(name, x):
    fn = UNARY[name]
    if name == "sign" and np.asarray(x).dtype == np.bool_:
        with pytest.raises(PhylanxError, match="not bool"):
            call(name, x)
        return
    with np.errstate(all="ignore"):
        try:
            expected = fn(x)
        except TypeError:   # no loop for this dtype in NumPy (floor of complex): same class
            with pytest.raises(TypeError):
                call(name, x)
            return
        got = call(name, x)
    assert_like_numpy(got, expected)


def test_types_follow_numpy():
    assert call("sqrt", np.array([4, 9])).dtype == np.float64
    assert call("sqrt", np.array([4.0], dtype=np.float32)).dtype == np.float32
    assert type(call("exp", np.float32(0.0))) is np.float32
    assert call("floor", np.array([3, -2])).dtype == np.int64          # NumPy 2 keeps ints
    assert call("square", np.array([True, False])).dtype == np.int8    # NumPy's, not widened
    assert call("exp", np.array([1], dtype=np.int16)).dtype == np.float32
    assert call("erf", np.array([True])).dtype == scipy.special.erf(np.array([True])).dtype
    assert type(ev("sqrt(4)")) is np.float64


def test_real_returns_a_copy():
    x = np.array([1.0, 2.0])
    r = call("real", x)
    r[0] = 99.0
    assert x[0] == 1.0


@pytest.mark.parametrize("code, expected", [
    ("sqrt([4, 9], \"float32\")", np.sqrt(np.array([4, 9]), dtype=np.float32)),
    ("exp([0.0, 1.0], __arg(dtype, \"float32\"))", np.exp([0.0, 1.0], dtype=np.float32)),
    ("absolute([-1.7, 2.2], \"int\")", np.absolute([-1.7, 2.2]).astype(np.int64)),
    ("floor([-1.5, 2.5], \"int64\")", np.floor([-1.5, 2.5]).astype(np.int64)),
    ("sign([-2, 0, 3], \"float\")", np.sign([-2.0, 0.0, 3.0])),
    ("sin([0.0, 1.0], \"bool\")", np.sin([0.0, 1.0]).astype(bool)),
    ("cbrt(27, \"float32\")", np.float32(3.0)),
    ("invsqrt([4.0, 16.0], \"float32\")", np.array([0.5, 0.25], dtype=np.float32)),
    ("exp10(2, \"int\")", np.int64(100)),
])
def test_dtype_argument(code, expected):
    assert_like_numpy(ev(code), expected)


def test_bad_dtype_and_argument_errors():
    with pytest.raises(PhylanxError, match="unknown dtype 'quux'"):
        ev("sqrt([1.0], \"quux\")")
    with pytest.raises(PhylanxError, match="must be a number or an array, got a string"):
        ev("exp(\"abc\")")
    with pytest.raises(PhylanxError, match="got a nil"):
        ev("log(nil)")


def test_domain_errors_warn_like_numpy():
    with pytest.warns(RuntimeWarning, match="invalid value"):
        got = ev("sqrt([-1.0, 4.0])")
    np.testing.assert_array_equal(got, [np.nan, 2.0])
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        assert ev("log(0.0)") == -np.inf


def test_math_accepts_physl_lists():
    assert_like_numpy(ev("sqrt(list(1, 4, 9))"), np.array([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("fn, name", [(np.cumsum, "cumsum"), (np.cumprod, "cumprod")])
@pytest.mark.parametrize("x, axis", [
    (np.arange(1, 7).reshape(2, 3), None), (np.arange(1, 7).reshape(2, 3), np.int64(0)),
    (np.arange(1, 7).reshape(2, 3), np.int64(-1)), (np.ones((2, 3, 2), np.float32), 1),
    (np.array([True, True, False]), None), (np.array([], dtype=np.float64), 0),
    (np.zeros((2, 0)), -1), (np.arange(24.0).reshape(1, 2, 3, 4) / 5, -2),
    (np.float64(2.5), None), (np.array([1.0, np.nan, 2.0]), 0),
])
def test_cumulative(fn, name, x, axis):
    assert_like_numpy(call(name, x, axis), fn(x, axis=axis))


def test_cumulative_dtype_keyword_and_0d_axis():
    x = np.array([[1, 2], [3, 4]])
    assert_like_numpy(ev("lambda(x, cumsum(x, __arg(dtype, \"float32\")))", x),
                      np.cumsum(x, dtype=np.float32))
    assert_like_numpy(ev("lambda(x, cumprod(x, 1, \"float\"))", x),
                      np.cumprod(x, axis=1, dtype=float))
    assert_like_numpy(ev("cumsum(5, 0)"), np.cumsum(np.int64(5), axis=0))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumulative_bad_axis(name):
    with pytest.raises(PhylanxError, match=r"axis 2 is out of bounds for a 2-d array"):
        call(name, np.ones((2, 3)), np.int64(2))
    with pytest.raises(PhylanxError, match=r"axis -3 is out of bounds"):
        call(name, np.ones((2, 3)), np.int64(-3))
    with pytest.raises(PhylanxError, match="axis must be an integer"):
        call(name, np.ones(3), 0.5)


@pytest.mark.parametrize("x", [
    np.array([3.0, 4.0]), np.array([1, 2, 2]), np.array([[1.0, 2.0], [2.0, 4.0]], np.float32),
    np.float64(-2.5), np.arange(1.0, 9.0).reshape(2, 2, 2),
])
def test_normalize(x):
    expected = x / np.linalg.norm(x) if np.asarray(x).dtype.kind == "f" else x / np.linalg.norm(
        x.astype(float))
    assert_like_numpy(call("normalize", x), expected)


def test_normalize_dtype_and_zero_vector():
    assert_like_numpy(ev("normalize([3, 4], \"float32\")"), np.array([0.6, 0.8], np.float32))
    with pytest.warns(RuntimeWarning, match="invalid value"):
        got = ev("normalize([0.0, 0.0])")
    assert np.isnan(got).all()


@pytest.mark.parametrize("x", [
    np.arange(9).reshape(3, 3), np.ones((2, 3), np.float32), np.arange(24.0).reshape(2, 3, 4),
    np.eye(3, dtype=bool), np.zeros((0, 0)), np.arange(16).reshape(2, 2, 2, 2),
])
def test_trace(x):
    assert_like_numpy(call("trace", x), np.trace(x))


@pytest.mark.parametrize("offset", [1, -1, 2, 5, -4])
def test_trace_offset(offset):
    x = np.arange(24.0).reshape(2, 3, 4)
    assert_like_numpy(call("trace", x[0], None, offset), np.trace(x[0], offset))
    assert_like_numpy(call("trace", x, None, offset), np.trace(x, offset))


def test_trace_offset_by_numpys_position_and_refused_floats():
    """``np.trace(x, 1)`` passes the offset by position, as NumPy's signature has it: it
    was refused as "unknown keyword argument 'offset'" (user49)."""
    x = np.arange(12.0).reshape(3, 4)
    assert_like_numpy(Phylanx(_trace_above)(x), np.trace(x, 1))
    assert_like_numpy(Phylanx(_trace_below_named)(x), np.trace(x, offset=-1))
    with pytest.raises(PhylanxError, match="offset must be an integer"):
        call("trace", x, None, 1.5)


def _trace_above(x):
    return np.trace(x, 1)


def _trace_below_named(x):
    return np.trace(x, offset=-1)


def test_trace_dtype_and_errors():
    assert_like_numpy(ev("trace([[1, 2], [3, 4]], \"float32\")"), np.float32(5))
    with pytest.raises(PhylanxError, match="at least 2 dimensions, got a 1-d"):
        ev("trace([1, 2])")
    with pytest.raises(PhylanxError, match="got a 0-d"):
        ev("trace(3.0)")


ARGS = [
    (np.array([1, 5, 2]), np.int64(3)),
    (np.array([[1.5], [-2.0]]), np.array([0.0, 1.0, np.nan], np.float32)),
    (np.array([1.0, 5.0, np.nan], np.float32), np.array([2.0, np.nan, 1.0], np.float32)),
    (np.array([True, False]), np.array([False, False]), np.array([True, True])),
    (np.arange(6).reshape(2, 3), np.array([3, 0, 4]), np.int64(2), np.float64(1.5)),
    (np.zeros((0, 2)), np.array([1.0, -1.0])),
    (np.int64(3), np.float64(-1.0)),
]


@pytest.mark.parametrize("fn, name", [(np.maximum, "maximum"), (np.minimum, "minimum")])
@pytest.mark.parametrize("args", ARGS, ids=range(len(ARGS)))
def test_extremum(fn, name, args):
    assert_like_numpy(call(name, *args), reduce(fn, args))


@pytest.mark.parametrize("suffix, dtype", [("__int", np.int64), ("__float", np.float64),
                                           ("__bool", np.bool_)])
def test_extremum_dtype_variants(suffix, dtype):
    a, b = np.array([1.7, -2.2, 0.0]), np.array([0.5, -3.9, 0.4])
    cast = [v.astype(dtype) for v in (a, b)]
    assert_like_numpy(call("maximum" + suffix, a, b), np.maximum(*cast).astype(dtype))
    assert_like_numpy(call("minimum" + suffix, a, b, np.float64(-1.0)),
                      np.minimum(np.minimum(*cast), np.asarray(-1.0).astype(dtype)).astype(dtype))


# Python numbers (literals, numbers passed from Python) are weak scalars in NumPy's promotion:
# combined with a float32 array they keep it float32, in any argument position.
@pytest.mark.parametrize("name, fn", [("maximum", np.maximum), ("minimum", np.minimum)])
def test_extremum_keeps_python_numbers_weak(name, fn):
    x = np.array([0.5, 3.0], dtype=np.float32)
    for args in [(2, x, x), (x, 2, x), (x, 2.5), (2, x)]:
        assert_like_numpy(call(name, *args), reduce(fn, args))


def test_extremum_errors():
    with pytest.raises(PhylanxError, match="at least two arguments"):
        ev("maximum([1, 2])")
    with pytest.raises(PhylanxError):
        ev("minimum([1, 2, 3], [1, 2])")


TESTS = {"isnan": np.isnan, "isinf": np.isinf, "isneginf": np.isneginf,
         "isposinf": np.isposinf, "isfinite": np.isfinite}
TEST_INPUTS = [
    np.array([1.0, np.nan, np.inf, -np.inf, -0.0]),
    np.array([[np.nan, 1.0], [-np.inf, np.inf]], np.float32),
    np.arange(6).reshape(1, 2, 3), np.array([True, False]), np.array([]),
    np.float64(np.nan), np.float64(-np.inf), np.int64(7), np.ones((1, 1, 2, 2)),
]


@pytest.mark.parametrize("name", sorted(TESTS))
@pytest.mark.parametrize("x", TEST_INPUTS, ids=lambda x: f"{np.asarray(x).dtype}{np.shape(x)}")
def test_is_functions(name, x):
    assert_like_numpy(call(name, x), TESTS[name](x))


def test_is_function_dtype_variants():
    x = np.array([1.0, np.nan, np.inf])
    assert_like_numpy(call("isnan__float", x), np.isnan(x).astype(np.float64))
    assert_like_numpy(call("isfinite__float", x), np.isfinite(x).astype(np.float64))
    # a variant computes in its type: the input is cast first (inf -> True is no +inf), and
    # nan -> int is undefined in NumPy, so only finite inputs for __int
    assert_like_numpy(call("isposinf__bool", x), np.isposinf(x.astype(bool)))
    assert_like_numpy(call("isinf__int", np.array([2.5, -1.0])), np.array([0, 0]))
    assert_like_numpy(call("isnan__int", np.array([2.5, -1.0])), np.array([0, 0]))
