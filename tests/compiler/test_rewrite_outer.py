"""Products with the rows' outer products (compiler/rewrite/outer.py +
primitives/matrixops/outer_products.py).

The oracle is the undecorated NumPy function.  Each test checks that the rewrite did (or
did not) happen and, where the values fit, that the fast form ran (not the fallback), so
a pass that silently stopped matching fails here.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx, config
from phylanx.autodiff import grad
from phylanx.compiler.rewrite import outer, patterns
from phylanx.compiler.through_ir import optimize_through_ir
from phylanx.language import parser
from phylanx.primitives.matrixops import outer_products

RNG = np.random.default_rng(17)


def rewritten_names(fn) -> set[str]:
    """The primitives of ``fn``'s program after the rewrites (the rule runs on the IR)."""
    program = optimize_through_ir(parser.parse(fn.get_physl_source()))
    return {e.func for top in program.body for e in patterns.walk_in_order(top)
            if type(e).__name__ == "Call"}


@pytest.fixture
def counted(monkeypatch):
    """How often the fast form and the fallback ran."""
    runs = {"fast": 0, "fallback": 0}
    fits = outer_products.fits

    def counting(a, v, shape):
        ok = fits(a, v, shape)
        runs["fast" if ok else "fallback"] += 1
        return ok
    monkeypatch.setattr(outer_products, "fits", counting)
    monkeypatch.setattr(outer_products, "MIN_FLOPS", 0)
    return runs


def assert_close(got, want):
    scale = float(np.max(np.abs(want), initial=1e-30))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * scale)


def als_half(mask, y, reg):
    """One side of ALS' sweep, as W3 writes it."""
    k = y.shape[1]
    yy = (y[:, :, None] * y[:, None, :]).reshape(y.shape[0], k * k)
    a = (mask @ yy).reshape(mask.shape[0], k, k) + reg * np.eye(k)
    return a


def transposed_order(a, v):
    vv = (v[:, None, :] * v[:, :, None]).reshape(v.shape[0], -1)
    return np.dot(a.T, vv)


def of_an_expression(a, v):
    return a @ ((2.0 * v)[:, :, None] * (2.0 * v)[:, None, :]).reshape(-1, v.shape[1] ** 2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_als_normal_equations_use_the_fast_form(counted, dtype):
    f = Phylanx(als_half)
    assert "__matmul_outer_rows" in rewritten_names(f)
    mask = (RNG.uniform(size=(30, 40)) < 0.4).astype(dtype)
    y = RNG.normal(size=(40, 6)).astype(dtype)
    got = f(mask, y, 0.1)
    assert counted == {"fast": 1, "fallback": 0}
    want = als_half(mask, y, 0.1)
    assert got.dtype == want.dtype
    scale = np.abs(want).max()
    np.testing.assert_allclose(got, want, rtol=0,
                               atol=(1e-5 if dtype == np.float32 else 1e-12) * scale)


@pytest.mark.parametrize("fn", [transposed_order, of_an_expression])
def test_other_spellings(counted, fn):
    f = Phylanx(fn)
    assert "__matmul_outer_rows" in rewritten_names(f)
    a, v = RNG.normal(size=(20, 20)), RNG.normal(size=(20, 5))
    assert_close(f(a, v), fn(a, v))
    assert counted["fast"] == 1


def shaped(a, v, rows, cols):
    return a @ (v[:, :, None] * v[:, None, :]).reshape(rows, cols)


def test_a_reshape_to_another_shape_runs_the_expression(counted):
    f = Phylanx(shaped)
    assert "__matmul_outer_rows" in rewritten_names(f)
    a, v = RNG.normal(size=(8, 12)), RNG.normal(size=(6, 4))
    assert_close(f(a, v, 12, 8), shaped(a, v, 12, 8))     # (6, 4, 4) read as (12, 8)
    assert counted == {"fast": 0, "fallback": 1}


def test_integers_and_small_products_run_the_expression(monkeypatch):
    calls = []
    monkeypatch.setattr(outer_products, "call", lambda g, *args: calls.append(1) or
                        __import__("phylanx.values", fromlist=["call"]).call(g, *args))
    f = Phylanx(transposed_order)
    a, v = RNG.integers(-3, 4, size=(7, 7)), RNG.integers(-3, 4, size=(7, 3))
    np.testing.assert_array_equal(f(a, v), transposed_order(a, v))
    small = RNG.normal(size=(7, 7)), RNG.normal(size=(7, 3))
    assert_close(f(*small), transposed_order(*small))   # below MIN_FLOPS
    assert len(calls) == 2


def different_bases(a, v, w):
    return a @ (v[:, :, None] * w[:, None, :]).reshape(v.shape[0], -1)


def not_full_slices(a, v):
    return a @ (v[1:, :, None] * v[1:, None, :]).reshape(v.shape[0] - 1, -1)


def same_axis(a, v):
    return a @ (v[:, :, None] * v[:, :, None]).reshape(v.shape[0], -1)


@pytest.mark.parametrize("fn", [different_bases, not_full_slices, same_axis])
def test_what_is_not_the_pattern_is_left_alone(fn):
    assert "__matmul_outer_rows" not in rewritten_names(Phylanx(fn))


def twice(a, v):
    vv = (v[:, :, None] * v[:, None, :]).reshape(v.shape[0], -1)
    return a @ vv, vv


def test_a_reshape_read_twice_stays_beside_the_rewritten_product(counted):
    """In SSA ``vv`` is one value: the product takes the fast form and ``vv`` is still
    computed for its other reader (v is read, never evaluated twice)."""
    assert {"__matmul_outer_rows", "reshape"} <= rewritten_names(Phylanx(twice))
    a, v = RNG.normal(size=(5, 5)), RNG.normal(size=(5, 3))
    for got, want in zip(Phylanx(twice)(a, v), twice(a, v)):
        assert_close(got, want)
    assert counted == {"fast": 1, "fallback": 0}


def test_the_setting_switches_it_off():
    config.set("symmetric_products", False)
    try:
        assert "__matmul_outer_rows" not in rewritten_names(Phylanx(als_half))
    finally:
        config.reset("symmetric_products")


def gram_loss(a, v):
    k = v.shape[1]
    g = a @ (v[:, :, None] * v[:, None, :]).reshape(v.shape[0], k * k)
    return np.sum(np.sin(g))


@pytest.mark.parametrize("argnum", [0, 1])
def test_gradient_through_the_rewritten_product(argnum):
    f = Phylanx(gram_loss)
    assert "__matmul_outer_rows" in rewritten_names(f)
    a, v = RNG.normal(size=(4, 6)), RNG.normal(size=(6, 3))
    got = grad(f, argnum)(a, v)
    args, eps = [a, v], 1e-6
    want = np.zeros_like(args[argnum])
    for i in np.ndindex(want.shape):
        plus = [x.copy() for x in args]
        minus = [x.copy() for x in args]
        plus[argnum][i] += eps
        minus[argnum][i] -= eps
        want[i] = (gram_loss(*plus) - gram_loss(*minus)) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7 * np.abs(want).max())


def invariant_in_loop(a, v, n):
    acc = np.zeros((a.shape[0], v.shape[1] * v.shape[1]))
    for _ in range(n):
        acc = acc + a @ (v[:, :, None] * v[:, None, :]).reshape(v.shape[0], -1)
    return acc


def test_a_loop_invariant_product_is_hoisted_then_rewritten(counted):
    """The pass runs after hoisting: the product leaves the loop as written, and is
    computed once, the fast way."""
    a, v = RNG.normal(size=(12, 15)), RNG.normal(size=(15, 4))
    assert_close(Phylanx(invariant_in_loop)(a, v, 10), invariant_in_loop(a, v, 10))
    assert counted == {"fast": 1, "fallback": 0}


def test_the_primitive_counts_as_pure():
    from phylanx.compiler.dependencies import primitive_is_pure
    assert primitive_is_pure(outer.PRIMITIVE)


def named_in_loop(x, r, iters):
    n, d = x.shape
    s = np.zeros((r.shape[0], d * d))
    for _ in range(iters):
        xx = (x[:, :, None] * x[:, None, :]).reshape(n, d * d)
        s = s + r @ xx
        x = x * 0.9
    return s


def test_a_product_named_first_in_a_loop_with_a_fixed_shape(counted):
    """The shape ``(n, d * d)`` is loop-invariant (hoisting would move it): the define
    is still inlined and every iteration takes the fast form."""
    x, r = RNG.normal(size=(15, 4)), RNG.normal(size=(6, 15))
    assert_close(Phylanx(named_in_loop)(x, r, 3), named_in_loop(x, r, 3))
    assert counted == {"fast": 3, "fallback": 0}
