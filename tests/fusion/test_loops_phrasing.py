"""The compiled loop whatever the phrasing (issue 27 item 1): a helper ``def`` (nested or
at module level), float32 data, ``x += e``, a ``while`` loop with a counter and a
compound condition all get the compiled loop (``fusion/loops.py``) a plain ``for`` gets,
and equal the undecorated function (NumPy) in float32 and float64: dtypes, values, and
arrays changed in place seen through every name, as in Python."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx

from .test_loops import CALLS, compiled, compiled_loops, kernel_calls, same  # noqa: F401

pytest.importorskip("numba")
pytestmark = pytest.mark.usefixtures("compiled")
RNG = np.random.default_rng(27)
DTYPES = [np.float64, np.float32]


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lra_helper(x, y, alpha, iterations):
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        pred = sigmoid(x @ w)
        w = w - alpha * (x.T @ (pred - y))
    return w


def lra_nested(x, y, alpha, iterations):
    def step(w, g):
        return w - alpha * g
    w = np.zeros(x.shape[1], dtype=x.dtype)
    for _ in range(iterations):
        pred = sigmoid(x @ w)
        w = step(w, x.T @ (pred - y))
    return w


def lra_while(x, y, alpha, iterations):
    w = np.zeros(x.shape[1], dtype=x.dtype)
    i = 0
    while i < iterations:
        pred = 1.0 / (1.0 + np.exp(-(x @ w)))
        w -= alpha * (x.T @ (pred - y))
        i += 1
    return w


def cg(a, b, tol, maxit):
    x = np.zeros(b.shape[0], dtype=b.dtype)
    r = b - a @ x
    p = r                      # an alias: r -= ... changes p too in the first iteration
    rr = np.dot(r, r)
    i = 0
    while i < maxit and rr > tol:
        ap = a @ p
        alpha = rr / np.dot(p, ap)
        x += alpha * p
        r -= alpha * ap
        rr_new = np.dot(r, r)
        p = r + (rr_new / rr) * p
        rr = rr_new
        i += 1
    return x, i, rr


def lra_data(dtype, n=80, d=5):
    x = RNG.normal(size=(n, d)).astype(dtype)
    y = (RNG.random(n) > 0.5).astype(dtype)
    return x, y


def spd(dtype, n=24):
    m = RNG.normal(size=(n, n))
    return (m @ m.T + n * np.eye(n)).astype(dtype), RNG.normal(size=n).astype(dtype)


def check(fn, make_args, rtol):
    f = Phylanx(fn)
    for _ in range(CALLS):
        args = make_args()
        want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        got = f(*args)
        if not isinstance(want, tuple):
            got, want = (got,), (want,)
        for g, w in zip(got, want):
            if isinstance(w, np.ndarray):
                same(g, w, rtol)
            else:
                assert type(g) is type(w) and np.isclose(g, w, rtol=rtol)
    assert len(compiled_loops(f)) == 1
    assert kernel_calls(f) >= 2, "the compiled loop never ran"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [lra_helper, lra_nested, lra_while])
def test_logistic_regression_rewordings_get_the_compiled_loop(fn, dtype):
    x, y = lra_data(dtype)
    check(fn, lambda: (x, y, 0.1, 25), 1e-9 if dtype == np.float64 else 1e-4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_conjugate_gradient_while_and_counter(dtype):
    a, b = spd(dtype)
    # copies each call: x is returned; the tolerance stops it early for float64
    check(cg, lambda: (a, b.copy(), 1e-20, 40), 1e-7 if dtype == np.float64 else 1e-3)


def test_float32_stays_float32_with_python_scalars():
    def damp(v, m, steps):
        for _ in range(steps):
            v = 0.5 * v + 0.1 * np.tanh(m @ v) - 1e-3
            s = np.sum(v * v)
            v = v / np.sqrt(s + 1.0)
        return v, s
    m = RNG.normal(size=(6, 6)).astype(np.float32)
    v = RNG.normal(size=6).astype(np.float32)
    f = Phylanx(damp)
    for _ in range(CALLS):
        got, want = f(v, m, 9), damp(v, m, 9)
        assert got[0].dtype == want[0].dtype == np.float32
        assert type(got[1]) is type(want[1]) is np.float32
        same(got[0], want[0], 1e-4)
    assert kernel_calls(f) >= 2


def test_inplace_changes_the_callers_array_as_python_does():
    def accumulate(acc, g, steps):
        for _ in range(steps):
            acc += 0.5 * g
            g = g * 0.9
        return g
    f = Phylanx(accumulate)
    for _ in range(CALLS):
        g = RNG.normal(size=5)
        acc, acc_py = np.ones(5), np.ones(5)
        same(f(acc, g, 7), accumulate(acc_py, g, 7))
        same(acc, acc_py)               # the caller's array changed in place, as in Python
    assert kernel_calls(f) >= 2


def test_inplace_float32_target_keeps_its_dtype():
    def mixed(acc, g, steps):
        for _ in range(steps):
            acc += g * 0.25          # float64 into a float32 array: stays float32
        return acc
    f = Phylanx(mixed)
    for _ in range(CALLS):
        g = RNG.normal(size=4)
        acc = np.zeros(4, dtype=np.float32)
        got = f(acc, g, 5)
        want = mixed(np.zeros(4, dtype=np.float32), g, 5)
        assert got is acc and got.dtype == np.float32
        same(got, want, 1e-5)
    assert kernel_calls(f) >= 2


def test_a_shape_error_in_place_is_the_trees_and_leaves_the_arrays_as_the_tree_does():
    # a guard (passes without compiled in-place loops too): a kernel failing after
    # changing arrays in place restores them before the tree raises its located error
    def bad(acc, g, steps):
        for _ in range(steps):
            acc += g
        return acc
    f = Phylanx(bad)
    for _ in range(CALLS):
        f(np.zeros(3), np.ones(3), 2)
    acc = np.zeros(3)
    with pytest.raises(ValueError):
        f(acc, np.ones(4), 2)
    np.testing.assert_array_equal(acc, np.zeros(3))


def test_while_with_or_and_a_parameter_counter():
    def settle(v, m, k, tol):
        r = 1.0
        while k < 3 or r > tol:       # at least three steps, then until it settles
            v = np.tanh(m @ v)
            r = np.sum(np.abs(v - np.tanh(m @ v)))
            k += 1                    # a parameter: the frontend writes __inplace
        return v, k, r
    m = RNG.normal(size=(5, 5)) / 4
    f = Phylanx(settle)
    for dtype in DTYPES:
        for _ in range(CALLS):
            v = RNG.normal(size=5).astype(dtype)
            got, want = f(v, m.astype(dtype), 0, 1e-5), settle(v, m.astype(dtype), 0, 1e-5)
            same(got[0], want[0], 1e-4)
            assert got[1] == want[1] and type(got[1]) is int
            assert type(got[2]) is type(want[2])
    assert kernel_calls(f) >= 2
