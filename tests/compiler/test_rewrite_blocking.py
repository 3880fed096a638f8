"""Cache blocking (compiler/rewrite/gram_rows.py, row_blocks.py + primitives/matrixops/blocked.py).

The oracle is the undecorated NumPy function.  Every pattern is run with tiles of 7 rows
(uneven: the last tile is shorter), with tiles larger than the data (evaluated whole)
and in float32 and float64; each test also checks that the rewrite did (or did not)
happen, so a pass that silently stopped matching fails here.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx, config
from phylanx.autodiff import grad
from phylanx.compiler.rewrite import patterns
from phylanx.compiler.through_ir import optimize_through_ir
from phylanx.errors import PhylanxError
from phylanx.language import parser, to_physl
from phylanx.primitives import registry
from phylanx.primitives.matrixops import blocked

RNG = np.random.default_rng(11)
N, D, K = 103, 5, 4          # 103 = 14 tiles of 7 + 5


@pytest.fixture(autouse=True)
def blocking_on():
    """The gram pattern is off by default (measured slower, docs/performance.md): on here."""
    config.set("cache_blocking", True)
    config.set("blocking_gram", True)
    yield
    config.reset("cache_blocking")
    config.reset("blocking_gram")


@pytest.fixture(params=[7, 10_000], ids=["tiles-of-7", "whole"])
def tile_rows(request):
    config.set("tile_rows", request.param)
    yield request.param
    config.reset("tile_rows")


@pytest.fixture
def tiled(tile_rows, monkeypatch):
    """With tiles of 7 rows, evaluating the whole expression is a failure: the tiled
    path must have produced the result (it falls back to the whole one silently)."""
    if tile_rows < N:
        def whole(*args):
            raise AssertionError("evaluated whole, not tile by tile")
        monkeypatch.setattr(blocked, "_whole", whole)
    return tile_rows


def rewritten_names(fn) -> set[str]:
    """Names of the calls in ``fn``'s PhySL after the rewrite pipeline (the gram row pass
    and the argmin's row blocks are rules of the IR: ``through_ir``)."""
    return physl_names(optimize_through_ir(parser.parse(fn.get_physl_source())))


def physl_names(program) -> set[str]:
    return {e.func for top in program.body for e in patterns.walk_in_order(top)
            if type(e).__name__ == "Call"}


def assert_close(got, want, dtype=np.float64):
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    scale = float(np.max(np.abs(want), initial=1e-30))
    np.testing.assert_allclose(got, want, rtol=0, atol=rtol * scale)


# -- the workloads' patterns --------------------------------------------------------------

def lra(x, y, alpha, iterations):
    w = np.zeros(x.shape[1], dtype=x.dtype)
    for _ in range(iterations):
        pred = 1.0 / (1.0 + np.exp(-(x @ w)))
        w = w - alpha * (x.T @ (pred - y))
    return w


def kmeans_labels(points, centres):
    sq = np.sum(points * points, axis=1)
    dist = sq[:, None] - 2.0 * (points @ centres.T) + np.sum(centres * centres, axis=1)
    labels = np.argmin(dist, axis=1)
    return labels


def gram_matrix(x, w, b):
    return x.T @ np.tanh(x @ w + b)


def nearest_far(x, c):
    return np.argmax(x @ c, axis=-1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_logistic_regression_gradient_is_tiled_and_equals_numpy(tiled, dtype):
    f = Phylanx(lra)
    assert "__rows_gram" in rewritten_names(f)
    x = RNG.normal(size=(N, D)).astype(dtype)
    y = (RNG.uniform(size=N) > 0.5).astype(dtype)
    assert_close(f(x, y, 0.1, 3), lra(x, y, 0.1, 3), dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kmeans_labels_are_tiled_and_equal_numpy(tiled, dtype):
    f = Phylanx(kmeans_labels)
    assert "__rows_concat" in rewritten_names(f)
    centres = RNG.uniform(-20, 20, size=(K, D)).astype(dtype)
    points = (centres[RNG.integers(0, K, N)] + RNG.normal(size=(N, D))).astype(dtype)
    np.testing.assert_array_equal(f(points, centres), kmeans_labels(points, centres))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matrix_valued_gram_with_broadcast_operand(tiled, dtype):
    f = Phylanx(gram_matrix)
    assert "__rows_gram" in rewritten_names(f)
    x = RNG.normal(size=(N, D)).astype(dtype)
    w = RNG.normal(size=(D, K)).astype(dtype)
    b = RNG.normal(size=K).astype(dtype)            # (K,): broadcast, never tiled
    assert_close(f(x, w, b), gram_matrix(x, w, b), dtype)
    b_rows = RNG.normal(size=(N, K)).astype(dtype)  # (N, K): row-aligned, tiled
    assert_close(f(x, w, b_rows), gram_matrix(x, w, b_rows), dtype)
    b_row = RNG.normal(size=(1, K)).astype(dtype)   # (1, K): broadcast
    assert_close(f(x, w, b_row), gram_matrix(x, w, b_row), dtype)


def test_argmax_on_the_last_axis(tiled):
    f = Phylanx(nearest_far)
    assert "__rows_concat" in rewritten_names(f)
    x, c = RNG.normal(size=(N, D)), RNG.normal(size=(D, K))
    np.testing.assert_array_equal(f(x, c), nearest_far(x, c))


# -- operands that must not be tiled: evaluated whole, still NumPy's result ----------------

def gram_vector(x, w, v):
    return x.T @ (x @ w + v)


def gram_centred(x, w, y):
    return x.T @ (x @ w - np.sum(y))


def test_a_reduction_without_x_is_an_operand(tiled):
    f = Phylanx(gram_centred)
    assert "__rows_gram" in rewritten_names(f)
    x, w, y = RNG.normal(size=(N, D)), RNG.normal(size=D), RNG.normal(size=N)
    assert_close(f(x, w, y), gram_centred(x, w, y))


def test_an_operand_that_broadcasts_rows_against_columns_is_not_tiled(tile_rows):
    """(n,) + (n, 1) is an (n, n) matrix: the rows of x are not its rows alone."""
    f = Phylanx(gram_vector)
    assert "__rows_gram" in rewritten_names(f)
    x, w = RNG.normal(size=(N, D)), RNG.normal(size=D)
    for v in (RNG.normal(size=(N, 1)), 2.5, RNG.normal(size=N), RNG.normal(size=1)):
        assert_close(f(x, w, v), gram_vector(x, w, v))


def test_integer_and_stacked_operands_are_evaluated_whole(tile_rows):
    f = Phylanx(gram_vector)
    xi, wi = RNG.integers(-3, 4, size=(N, D)), RNG.integers(-3, 4, size=D)
    np.testing.assert_array_equal(f(xi, wi, 1), gram_vector(xi, wi, 1))
    x = RNG.normal(size=(N, D))
    stacked = RNG.normal(size=(2, D, 3))     # x @ stacked is (2, N, 3): rows on axis 1
    got = Phylanx(gram_matrix)(x, stacked, 0.0)
    assert_close(got, gram_matrix(x, stacked, 0.0))


def test_a_shape_error_is_the_untiled_expressions_error(tile_rows):
    f = Phylanx(gram_vector)
    x, w = RNG.normal(size=(N, D)), RNG.normal(size=D)
    with pytest.raises(PhylanxError) as tiled:
        f(x, w, RNG.normal(size=N + 1))
    with pytest.raises(ValueError):
        gram_vector(x, w, RNG.normal(size=N + 1))
    assert "103" in str(tiled.value) and "104" in str(tiled.value)


# -- patterns that must not be rewritten ---------------------------------------------------

def bare_x(x, w):
    return x.T @ (x @ w + x[:, 0])


def no_product(x, v):
    return x.T @ np.exp(v)


def reduction_inside(x, w, y):
    return x.T @ (x @ w - np.sum(x @ y))


def helper(z):
    return z * 2.0


def user_function_inside(x, w):
    return x.T @ helper(x @ w)


def argmin_rows(x, c):
    return np.argmin(x @ c, axis=0)


def used_twice(x, w, y):
    pred = np.exp(x @ w)
    g = x.T @ (pred - y)
    return g + np.sum(pred)


def other_matrix(x, z, w):
    return x.T @ (z @ w)


@pytest.mark.parametrize("fn, args", [
    (no_product, ((N, D), (N,))),
    (user_function_inside, ((N, D), (D,))),
    (argmin_rows, ((N, D), (D, K))),
    (other_matrix, ((N, D), (N, D), (D,))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_not_row_wise_is_not_rewritten(fn, args):
    f = Phylanx(fn)
    assert not rewritten_names(f) & {"__rows_gram", "__rows_concat"}
    values = [RNG.normal(size=s) for s in args]
    assert_close(f(*values), fn(*values))


@pytest.mark.parametrize("fn, args", [
    (bare_x, ((N, D), (D,))),
    (reduction_inside, ((N, D), (D,), (D,))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_value_of_x_outside_a_product_is_an_operand_computed_whole(fn, args, tiled):
    """A column of ``x`` (row-aligned) or a sum of ``x @ y`` (a number) is computed on the
    whole ``x`` before the tiles, as the row blocks of an argmin take it (ir41's
    04998e8): each row of ``f`` still reads its own row of ``x``."""
    f = Phylanx(fn)
    assert "__rows_gram" in rewritten_names(f)
    values = [RNG.normal(size=s) for s in args]
    assert_close(f(*values), fn(*values))


def test_a_define_used_twice_is_not_inlined(tile_rows):
    f = Phylanx(used_twice)
    names = rewritten_names(f)
    assert "__rows_gram" not in names and "define" in names
    x, w, y = RNG.normal(size=(N, D)), RNG.normal(size=D), RNG.normal(size=N)
    assert_close(f(x, w, y), used_twice(x, w, y))


def test_switched_off_by_config():
    config.set("cache_blocking", False)
    try:
        assert "__rows_gram" not in rewritten_names(Phylanx(lra))
    finally:
        config.set("cache_blocking", True)


def test_a_define_outside_functions_is_not_inlined():
    """A define at the top of a program (even in a block) may be read by later programs."""
    src = ("block(define(pred, exp(matmul(x, w))), matmul(transpose(x), pred - y))")
    names = physl_names(optimize_through_ir(parser.parse(src)))
    assert "__rows_gram" not in names and "define" in names


def test_a_store_between_define_and_use_blocks_inlining():
    """``w`` changes after ``pred`` is defined: inlining would read the new ``w``."""
    src = ("define(f, x, w, y, block(define(pred, exp(matmul(x, w))), store(w, w * 2.0), "
           "matmul(transpose(x), pred - y)))")
    assert "__rows_gram" not in physl_names(optimize_through_ir(parser.parse(src)))


# -- autodiff sees the expression the rewrite replaced -------------------------------------

def loss(w, x, y):
    z = x @ w
    g = x.T @ (np.tanh(z) - y)
    return np.sum(g * g)


def test_gradient_through_a_rewritten_function(tile_rows):
    f = Phylanx(loss)
    assert "__rows_gram" in rewritten_names(f)
    x, y, w = RNG.normal(size=(N, D)), RNG.normal(size=N), RNG.normal(size=D) * 0.1
    got = grad(f, 0)(w, x, y)
    eps = 1e-6
    want = np.array([(loss(w + eps * e, x, y) - loss(w - eps * e, x, y)) / (2 * eps)
                     for e in np.eye(D)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * np.abs(want).max())


def tanh_gram(x, w, y):
    return x.T @ (np.tanh(x @ w) - y)


def test_a_distributed_x_is_evaluated_as_written(tile_rows):
    """A tiled (distributed) array is not a NumPy array: no row tiles, the original
    expression runs through the execution tree (its distribution hooks) as without the
    rewrite."""
    from phylanx import distributed as dist
    f = Phylanx(tanh_gram)
    assert "__rows_gram" in rewritten_names(f)
    x, w, y = RNG.normal(size=(N, D)), RNG.normal(size=D), RNG.normal(size=N)
    # as written: the expression's primitives give NumPy's answer through their
    # distribution rules
    got = f(dist.tiled(x, name="blocking_x"), w, y)
    assert_close(got.gather() if isinstance(got, dist.DistributedArray) else got,
                 tanh_gram(x, w, y))
    assert_close(f(x, w, y), tanh_gram(x, w, y))


def test_the_tiled_gram_is_the_same_on_every_run(tiled):
    """Worker threads share the tiles out differently each run; the sum is in tile order."""
    f = Phylanx(gram_matrix)
    x, w, b = RNG.normal(size=(N, D)), RNG.normal(size=(D, K)), RNG.normal(size=(N, K))
    first = f(x, w, b)
    for _ in range(5):
        np.testing.assert_array_equal(f(x, w, b), first)


def test_for_a_row_pass_the_gram_stays_written_with_the_define_inlined(monkeypatch):
    """blocking_gram off, row passes on (numba there): no ``__rows_gram``, but the
    single-use ``pred`` is inlined so that fusion/rowpass.py sees x.T @ f(x @ w)."""
    from phylanx import fusion
    monkeypatch.setattr(fusion, "backend_available", lambda: True)
    config.set("blocking_gram", False)
    config.set("fusion_rows", True)
    try:
        program = optimize_through_ir(parser.parse(Phylanx(lra).get_physl_source()))
    finally:
        config.reset("fusion_rows")
    text = to_physl(program)
    assert "__rows_gram" not in text and "define(pred" not in text
    assert "matmul(transpose(x), 1.0 / (1.0 + exp(-matmul(x, w))) - y)" in text
    config.set("fusion_rows", False)
    try:
        assert "define(pred" in to_physl(optimize_through_ir(parser.parse(
            Phylanx(lra).get_physl_source())))
    finally:
        config.reset("fusion_rows")


# -- an error of the tiled path is raised, located: never answered by the whole -----------

def gram_exp(x, w):
    return x.T @ np.exp(x @ w)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_an_error_in_a_tile_is_raised_located_not_hidden_by_the_whole(dtype, monkeypatch):
    """A kernel of ``g`` failing on a tile (and only there: the whole expression would
    succeed) reports its own located error.  The tiled path used to swallow any exception
    and evaluate the whole expression again: a wrong path taken silently."""
    config.set("tile_rows", 7)
    monkeypatch.setattr(blocked, "_whole", lambda *a: pytest.fail("evaluated whole"))
    spec = registry.lookup("exp")
    kernel = spec.impl

    def exp_refusing_tiles(v, *rest):
        if np.shape(v)[:1] != (N,):
            raise ValueError(f"a tile of {np.shape(v)[0]} rows")
        return kernel(v, *rest)
    monkeypatch.setattr(spec, "impl", exp_refusing_tiles)     # bound when compiled
    f = Phylanx(gram_exp)
    assert "__rows_gram" in rewritten_names(f)
    x, w = RNG.normal(size=(N, D)).astype(dtype), RNG.normal(size=D).astype(dtype)
    try:
        with pytest.raises(PhylanxError) as info:
            f(x, w)
    finally:
        config.reset("tile_rows")
    assert isinstance(info.value, ValueError) and "rows" in str(info.value)
    assert info.value.primitive == "exp" and info.value.loc is not None
