"""NumPy as scientists call it inside ``@Phylanx`` (element-wise math, reductions with
NumPy keywords, creation with shapes and dtypes, stacking, linalg, random), local names
that shadow NumPy/builtin names, and values in and out (no copies, in-place updates,
0-d results as NumPy scalars, containers, keyword arguments and defaults)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from phylanx import Phylanx

from .helpers import check

FEW = settings(max_examples=30, deadline=None)
matrices = hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=2,
                                                   max_side=5),
                      elements=st.floats(-10, 10))
positive = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=5),
                      elements=st.floats(0.01, 50))


# -- element-wise math and reductions -----------------------------------------------------
@Phylanx
def elementwise(x):
    return (np.exp(x), np.log(x), np.log10(x), np.log2(x), np.sqrt(x), np.sin(x), np.cos(x),
            np.tanh(x), np.abs(-x), np.floor(x), np.ceil(x), np.round(x, 1), np.around(x),
            np.fix(x - 5), np.trunc(x), np.sign(x - 1), np.square(x), np.power(x, 0.5),
            np.maximum(x, 1.0), np.minimum(x, 2), np.clip(x, 0.5, 2.5), np.where(x > 1, x, 0.0),
            np.isnan(x), np.isinf(x), np.isfinite(x), np.logical_and(x > 1, x < 4),
            np.logical_not(x > 1), np.exp(x) / np.sum(np.exp(x)), math.sqrt(2.0) * x,
            np.mod(x, 2), np.floor_divide(x, 2), np.divmod(x, 3))


@given(positive)
@FEW
def test_elementwise_numpy_functions(x):
    check(elementwise, x, strict=True)


@Phylanx
def reductions(x):
    return (np.sum(x), np.sum(x, axis=0), np.sum(x, 1), np.sum(x, axis=(0, 1)),
            np.mean(x, axis=-1), np.mean(x, 0), np.var(x), np.var(x, axis=0, ddof=1),
            np.std(x, ddof=1), x.std(axis=1, ddof=0), x.var(ddof=1, keepdims=True),
            np.max(x), np.max(x, axis=1, keepdims=True), np.min(x, axis=0), np.amax(x),
            np.argmax(x), np.argmax(x, axis=1), np.argmin(x, axis=0), np.prod(x, axis=1),
            np.cumsum(x, axis=0), np.cumprod(x[0]), np.all(x > -5, axis=0),
            np.any(x > 4, axis=1), np.count_nonzero(x > 2), np.count_nonzero(x, axis=0),
            np.trace(x), np.sort(x, axis=0), np.sort(x), np.argsort(-x[0]), x.argsort(),
            np.linalg.norm(x), np.linalg.norm(x, axis=1), np.linalg.norm(x[0], 1))


@given(matrices)
@FEW
def test_reductions_with_numpy_keywords(x):
    check(reductions, x, strict=True)


# -- creation, shapes and stacking -----------------------------------------------------
@Phylanx
def creation(n, m):
    return (np.zeros(n), np.zeros((n, m)), np.zeros((n, m), dtype=np.float32),
            np.ones((n, m), dtype=np.int64), np.ones(n, dtype=bool), np.full((n, m), 7.5),
            np.full(n, 3, dtype=int), np.eye(n), np.eye(n, m, k=1), np.eye(n, dtype=int),
            np.identity(n), np.arange(n), np.arange(1, n, 2), np.arange(n, dtype=float),
            np.arange(0.0, 1.0, 0.25), np.linspace(0, 1, n), np.linspace(0, 1, num=m),
            np.empty((n, m)).shape, np.array([1, 2, 3]), np.array([[1.0, 2.0], [3.0, 4.0]]),
            np.array([n, m]), np.array([1, 2], dtype=float), np.array((n, m, 1)),
            np.asarray([[1, 2], [3, 4.5]]), np.arange(n * m).reshape(n, m),
            np.zeros_like(np.ones((n, m))), np.ones_like(np.arange(n), dtype=np.float32),
            np.full_like(np.arange(m), 2), np.indices((n, m)),
            np.fromfunction(lambda i, j: i * m + j, (n, m)))


@given(st.integers(1, 5), st.integers(1, 5))
@FEW
def test_creation_functions_with_shapes_and_dtypes(n, m):
    check(creation, n, m, strict=True)


@Phylanx
def stacking(x):
    rows, cols = x.shape
    return (np.concatenate([x, x]), np.concatenate((x, x), axis=1), np.vstack([x, x[0]]),
            np.hstack((x, x)), np.stack([x[0], x[1]]), np.stack((x[0], x[1]), axis=1),
            np.dstack([x, x]), np.append(x, x[0]), np.append(x, x[:1], axis=0),
            np.expand_dims(x, axis=0), np.squeeze(x[:1]), np.transpose(x), np.reshape(x, -1),
            np.reshape(x, (cols, rows)), np.transpose(x, (1, 0)), np.flip(x, axis=0),
            np.tile(x, (2, 1)), np.repeat(x, 2, axis=0), x.repeat(2), np.pad(x, 1),
            np.diag(x), np.diag(x[0]), np.outer(x[0], x[1]), np.copy(x), np.shape(x),
            np.size(x), np.size(x, 1), np.ndim(x), x[:, np.newaxis].shape, x[..., 0],
            x[np.argmax(x[:, 0])], x[x[:, 0] > 0], x[[0, -1]])


@given(matrices)
@FEW
def test_stacking_reshaping_and_indexing(x):
    check(stacking, x, strict=True)


# -- linear algebra ------------------------------------------------------------------------
@Phylanx
def least_squares(a, b):
    gram = a.T @ a + 0.1 * np.eye(a.shape[1])
    w = np.linalg.solve(gram, a.T @ b)
    inv = np.linalg.inv(gram)
    return w, inv @ (a.T @ b), np.linalg.det(gram), np.linalg.norm(a @ w - b), \
        np.dot(a, w), np.matmul(a.T, a), np.outer(w, w), np.tensordot(a, a.T, axes=1)


@given(st.integers(2, 6), st.integers(1, 4), st.data())
@FEW
def test_linear_algebra(n, k, data):
    a = data.draw(hnp.arrays(np.float64, (n, k), elements=st.floats(-3, 3)))
    b = data.draw(hnp.arrays(np.float64, (n,), elements=st.floats(-3, 3)))
    check(least_squares, a, b)


# -- random numbers ----------------------------------------------------------------------
@Phylanx
def draws(n, seed):
    np.random.seed(seed)
    return [np.random.rand(n), np.random.rand(n, 2), np.random.randn(n, 3),
            np.random.random((n, 2)), np.random.random_sample(n),
            np.random.uniform(-1, 1, size=n), np.random.normal(5.0, 0.5, (n,)),
            np.random.randint(0, 10, size=n), np.random.randint(3, size=(n, 2)),
            np.random.standard_normal(n), np.random.poisson(4.0, n),
            np.random.binomial(10, 0.3, n), np.random.exponential(2.0, n),
            np.random.gamma(2.0, 3.0, n), np.random.geometric(0.5, n),
            np.random.lognormal(0.0, 0.5, n), np.random.chisquare(3, n)]


def test_random_shapes_dtypes_ranges_and_moments():
    n = 4000
    got = draws(n, 7)
    want = draws.python(n, 7)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype.kind == w.dtype.kind, (g, w)
    assert ((got[0] >= 0) & (got[0] < 1)).all() and ((got[5] >= -1) & (got[5] < 1)).all()
    assert set(np.unique(got[7])) <= set(range(10)) and set(np.unique(got[8])) <= {0, 1, 2}
    assert got[14].min() >= 1
    means = [0.5, 0.5, 0.0, 0.5, 0.5, 0.0, 5.0, 4.5, 1.0, 0.0, 4.0, 3.0, 2.0, 6.0, 2.0,
             np.exp(0.125), 3.0]
    for i, (g, mean) in enumerate(zip(got, means)):
        assert abs(g.mean() - mean) < 0.1 * max(1.0, abs(mean)), (i, g.mean(), mean)


def test_seeded_random_draws_repeat():
    a, b = draws(50, 3), draws(50, 3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(draws(50, 4)[0], a[0])


# -- local names never become constants or primitives -------------------------------------
@Phylanx
def shadowing(e, pi, sum, len, max, abs):
    array = e + pi
    add = array * 2
    exp = add - 1
    inf = exp / 2
    total = sum + len + max + abs
    nan = [e, pi]
    return array, add, exp, inf, total, nan, np.pi, np.e, math.e


@given(st.floats(-5, 5), st.floats(-5, 5), st.integers(-5, 5), st.integers(0, 5))
@FEW
def test_local_names_shadow_numpy_and_builtin_names(e, pi, s, n):
    check(shadowing, e, pi, s, n, 3, 4)


# -- values in and out -------------------------------------------------------------------
@Phylanx
def sgd_step(w, grad, lr=0.1):
    w -= lr * grad


@Phylanx
def aliases(x):
    y = x
    y += 1
    y[0] = -1.0
    total = 0.0
    for v in x:
        total += v
    return total


@Phylanx
def fill_and_sort(x, values):
    x.sort()
    values.sort(reverse=True)
    values.append(0)
    return values


def test_arrays_are_passed_without_copy_and_changed_in_place():
    w, grad = np.arange(4.0), np.ones(4)
    assert sgd_step(w, grad) is None
    np.testing.assert_allclose(w, np.arange(4.0) - 0.1)
    sgd_step(w, grad, lr=1.0)
    np.testing.assert_allclose(w, np.arange(4.0) - 1.1)
    x = np.arange(3.0)
    assert aliases(x) == aliases.python(np.arange(3.0))
    np.testing.assert_array_equal(x, [-1.0, 2.0, 3.0])
    x = np.array([3.0, 1.0, 2.0])
    assert fill_and_sort(x, [2, 5, 1]) == [5, 2, 1, 0]
    np.testing.assert_array_equal(x, [1.0, 2.0, 3.0])


def test_in_place_update_keeps_numpy_casting_rules():
    with pytest.raises(TypeError):
        sgd_step.python(np.arange(3), np.ones(3))
    with pytest.raises(TypeError, match="in place"):
        sgd_step(np.arange(3), np.ones(3))


@Phylanx
def results(kind, x):
    if kind == "sum":
        return np.sum(x)
    if kind == "mean":
        return x.mean()
    if kind == "item":
        return x[0]
    if kind == "count":
        return len(x)
    if kind == "float32":
        return np.float32(x[0]) * 2
    if kind == "dict":
        return {"n": len(x), "first": x[0], "name": kind}
    if kind == "nested":
        return [x, (kind, None), {"x": [1, 2]}]
    if kind == "flag":
        return bool(x[0] > 0)
    return None


@pytest.mark.parametrize("kind", ["sum", "mean", "item", "count", "float32", "dict", "nested",
                                  "flag", "none"])
@pytest.mark.parametrize("x", [np.arange(1, 4), np.arange(1.0, 4.0),
                               np.array([True, False])])
def test_results_are_numpy_scalars_and_python_containers(kind, x):
    got = check(results, kind, x, strict=True)
    if kind in ("sum", "mean", "item", "float32"):
        assert isinstance(got, np.generic)


@Phylanx
def options(x, scale=2.0, *, shift=0.0, label="x", weights=None):
    if weights is None:
        weights = np.ones_like(x)
    return label, (x * weights * scale + shift).sum()


@given(hnp.arrays(np.float64, st.integers(1, 5), elements=st.floats(-5, 5)),
       st.floats(-3, 3), st.floats(-3, 3))
@FEW
def test_keyword_arguments_and_defaults_from_python(x, scale, shift):
    check(options, x)
    check(options, x, scale)
    check(options, x, shift=shift, label="y")
    check(options, x=x, scale=scale, weights=x)
