"""Hand tests of matrixops creation and random primitives against NumPy.

Covers what the registry-driven oracle tests cannot: dtype defaults, float32,
empty results, nil arguments, the dtype-suffix variants, error messages, and
the random family (seed reproducibility, supports and moments of the
distributions).
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxError, PhylanxTypeError, PhylanxValueError

from .harness import assert_like_numpy

run = phylanx.evaluate


# -- eye / identity -------------------------------------------------------------------------

@pytest.mark.parametrize("code, expected", [
    ("eye(3)", np.eye(3)),
    ("eye(2, 4, -1)", np.eye(2, 4, -1)),
    ("eye(3, nil, 5)", np.eye(3, None, 5)),
    ("eye(2, 2, 0, \"float32\")", np.eye(2, dtype=np.float32)),
    ("eye(2, __arg(dtype, \"bool\"))", np.eye(2, dtype=bool)),
    ("eye(0)", np.eye(0)),
    ("identity(3, \"int\")", np.identity(3, dtype=np.int64)),
    ("identity(0)", np.identity(0)),
])
def test_eye_identity(code, expected):
    assert_like_numpy(run(code), expected)


def test_eye_negative_size_is_an_error():
    with pytest.raises(PhylanxValueError, match="N must be non-negative, got -1"):
        run("eye(-1)")


# -- arange ---------------------------------------------------------------------------------

@pytest.mark.parametrize("code, expected", [
    ("arange(4)", np.arange(4)),
    ("arange(2.5)", np.arange(2.5)),
    ("arange(1, 2, 0.25)", np.arange(1, 2, 0.25)),
    ("arange(5, 0, -2)", np.arange(5, 0, -2)),
    ("arange(3, 1)", np.arange(3, 1)),
    ("arange(0, 4, 1, \"float32\")", np.arange(0, 4, 1, dtype=np.float32)),
    ("arange(__arg(stop, 3))", np.arange(3)),
])
def test_arange(code, expected):
    assert_like_numpy(run(code), expected)


def test_arange_errors():
    with pytest.raises(ZeroDivisionError, match="step of arange must not be zero"):
        run("arange(0, 5, 0)")
    with pytest.raises(PhylanxValueError, match="at least a stop"):
        run("arange()")


# -- constant / full and their _like forms -----------------------------------------------------

@pytest.mark.parametrize("code, expected", [
    ("constant(0, list(2, 3))", np.zeros((2, 3))),
    ("constant(1, 3)", np.ones(3)),
    ("constant(7, list(2, 2), \"int\")", np.full((2, 2), 7, dtype=np.int64)),
    # the original maps any "float..." to float64; np.zeros(.., np.float32) -> __npconstant
    ("constant(1.5, list(1, 2, 1, 2), \"float32\")", np.full((1, 2, 1, 2), 1.5)),
    ("__npconstant(1.5, list(1, 2, 1, 2), \"float32\")", np.full((1, 2, 1, 2), 1.5, np.float32)),
    ("constant(1.5, 2, \"xyz\")", np.full(2, 1.5)),
    ("constant(2.5)", np.float64(2.5)),
    ("constant(3, nil, \"int\")", np.int64(3)),
    ("constant(1, list())", np.float64(1)),
    ("constant(1, list(0, 3))", np.ones((0, 3))),
    ("constant(true, 2, \"bool\")", np.ones(2, dtype=bool)),
])
def test_constant(code, expected):
    assert_like_numpy(run(code), expected)


def test_constant_nil_value_is_uninitialised_of_the_right_shape_and_dtype():
    out = run("constant(nil, list(2, 3), \"int\")")
    assert out.shape == (2, 3) and out.dtype == np.int64
    assert run("constant(nil, 4)").dtype == np.float64


def test_constant_shape_errors():
    with pytest.raises(PhylanxValueError, match=r"shape \[2, -3\] has a negative dimension"):
        run("constant(0, list(2, -3))")
    with pytest.raises(PhylanxTypeError, match="shape must be an integer"):
        run("constant(0, \"abc\")")


@pytest.mark.parametrize("code, args, expected", [
    # constant_like takes the value's dtype (the original, addendum A.3.6); what
    # np.zeros_like compiles to, __npconstant_like, takes a's
    ("lambda(a, constant_like(0, a))", (np.ones((2, 3), np.float32),),
     np.zeros((2, 3), np.int64)),
    ("lambda(a, __npconstant_like(0, a))", (np.ones((2, 3), np.float32),),
     np.zeros((2, 3), np.float32)),
    ("lambda(a, constant_like(1, a))", (np.arange(4),), np.ones(4, np.int64)),
    ("lambda(a, constant_like(2.7, a))", (np.arange(3),), np.full(3, 2.7)),
    ("lambda(a, __npconstant_like(2.7, a))", (np.arange(3),), np.full_like(np.arange(3), 2.7)),
    ("lambda(a, constant_like(1, a, \"float\"))", (np.arange(3),), np.ones(3)),
    ("lambda(a, constant_like(1, a))", (np.zeros((0, 2)),), np.ones((0, 2), np.int64)),
    ("lambda(a, __npconstant_like(1, a))", (np.zeros((0, 2)),), np.ones((0, 2))),
    ("lambda(a, full_like(a, 1.5))", (np.zeros(3, np.float32),), np.full(3, 1.5, np.float32)),
    ("lambda(a, full_like(a, 1.5, \"int\"))", (np.zeros(2),), np.ones(2, np.int64)),
    ("lambda(a, full(list(2, 3), a))", (np.arange(3.0),), np.full((2, 3), np.arange(3.0))),
    ("lambda(a, full(2, a))", (np.float32(2.5),), np.full(2, np.float32(2.5))),
])
def test_like_and_full(code, args, expected):
    assert_like_numpy(run(code, *args), expected)


def test_full_infers_dtype_from_the_value():
    assert_like_numpy(run("full(list(2), 3)"), np.full(2, 3))
    assert_like_numpy(run("full(list(2), true)"), np.full(2, True))
    assert_like_numpy(run("full(3, 1.0, \"float32\")"), np.full(3, 1.0, np.float32))


def test_constant_like_nil_value_keeps_shape_and_dtype():
    out = run("lambda(a, constant_like(nil, a))", np.ones((3, 2), np.float32))
    assert out.shape == (3, 2) and out.dtype == np.float32


# -- linspace / linearmatrix ------------------------------------------------------------------

@pytest.mark.parametrize("code, args, expected", [
    ("linspace(0, 1, 5)", (), np.linspace(0, 1, 5)),
    ("linspace(5, -5, 3)", (), np.linspace(5, -5, 3)),
    ("linspace(2, 3, 1)", (), np.linspace(2, 3, 1)),
    ("linspace(0, 1, 0)", (), np.linspace(0, 1, 0)),
    ("lambda(a, b, linspace(a, b, 4))", (np.float32(0), np.float32(1)),
     np.linspace(np.float32(0), np.float32(1), 4)),
    ("linspace__float(0, 1, 3)", (), np.linspace(0, 1, 3)),
    ("linspace__int(0, 10, 5)", (), np.linspace(0, 10, 5).astype(np.int64)),
])
def test_linspace(code, args, expected):
    assert_like_numpy(run(code, *args), expected)


def test_linspace_negative_num_is_an_error():
    with pytest.raises(PhylanxValueError, match="num must be non-negative"):
        run("linspace(0, 1, -2)")


def _linear(nx, ny, x0, dx, dy, dtype=np.float64):
    i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    return (x0 + j * dx + i * dy).astype(dtype)


@pytest.mark.parametrize("code, args, expected", [
    ("linearmatrix(2, 3, 1.0, 2.0, 3.0)", (), _linear(2, 3, 1.0, 2.0, 3.0)),
    ("linearmatrix(3, 2, 0, 1, 10)", (), _linear(3, 2, 0, 1, 10)),
    ("linearmatrix(0, 3, 0, 1, 1)", (), np.zeros((0, 3))),
    ("lambda(a, b, c, linearmatrix(2, 2, a, b, c))",
     (np.float32(0.5), np.float32(1), np.float32(2)), _linear(2, 2, 0.5, 1, 2, np.float32)),
    ("linearmatrix__int(2, 2, 1.0, 1.0, 2.0)", (), _linear(2, 2, 1, 1, 2, np.int64)),
])
def test_linearmatrix(code, args, expected):
    assert_like_numpy(run(code, *args), expected)


# -- random family --------------------------------------------------------------------------

def test_set_seed_makes_every_random_primitive_reproducible():
    code = ("block(set_seed({seed}), list(random(3), randn(2), random_sample(2), "
            "random_integers(1, 100, 3), random(2, \"uniform\"), shuffle([1, 2, 3, 4, 5])))")
    first = run(code.format(seed=7))
    again = run(code.format(seed=7))
    other = run(code.format(seed=8))
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])
    assert run("block(set_seed(123), get_seed())") == np.int64(123)
    assert isinstance(run("get_seed()"), np.int64)


def test_set_seed_rejects_a_negative_seed():
    with pytest.raises(PhylanxValueError, match="seed must be non-negative"):
        run("set_seed(-1)")


def test_random_default_is_standard_normal_float64():
    values = run("block(set_seed(1), random(list(200, 100)))")
    assert values.shape == (200, 100) and values.dtype == np.float64
    assert abs(values.mean()) < 0.03 and abs(values.std() - 1) < 0.03


def test_random_shapes_and_dtypes():
    assert isinstance(run("random(list())"), np.float64)
    assert run("random(4)").shape == (4,)
    assert run("random(list(2, 0))").shape == (2, 0)
    assert run("random(list(1, 2, 3, 4), \"uniform\")").shape == (1, 2, 3, 4)
    assert run("random(3, nil, \"float32\")").dtype == np.float32
    ints = run("random(50, list(\"uniform_int\", 0, 3), \"int\")")
    assert ints.dtype == np.int64


N = 4000


@pytest.mark.parametrize("dist, check", [
    ("list(\"uniform_int\", 2, 4)", lambda v: set(np.unique(v)) == {2, 3, 4}),
    ("list(\"uniform\", -1, 1)", lambda v: v.min() >= -1 and v.max() < 1 and abs(v.mean()) < .05),
    ("list(\"bernoulli\", 0.25)", lambda v: set(np.unique(v)) == {0, 1}
     and abs(v.mean() - .25) < .03),
    ("list(\"binomial\", 10, 0.5)", lambda v: v.min() >= 0 and v.max() <= 10
     and abs(v.mean() - 5) < .2),
    ("list(\"negative_binomial\", 3, 0.5)", lambda v: v.min() >= 0 and abs(v.mean() - 3) < .3),
    ("list(\"geometric\", 0.5)", lambda v: v.min() == 0 and abs(v.mean() - 1) < .1),
    ("list(\"poisson\", 4)", lambda v: v.min() >= 0 and abs(v.mean() - 4) < .2),
    ("list(\"exponential\", 2)", lambda v: v.min() >= 0 and abs(v.mean() - .5) < .05),
    ("list(\"gamma\", 2, 3)", lambda v: v.min() > 0 and abs(v.mean() - 6) < .4),
    ("list(\"weibull\", 1, 2)", lambda v: v.min() >= 0 and abs(v.mean() - 2) < .2),
    ("list(\"extreme_value\", 0, 1)", lambda v: abs(v.mean() - np.euler_gamma) < .1),
    ("list(\"normal\", 5, 2)", lambda v: abs(v.mean() - 5) < .15 and abs(v.std() - 2) < .15),
    ("list(\"truncated_normal\", 1, 0.5)", lambda v: np.abs(v - 1).max() <= 1.0
     and abs(v.mean() - 1) < .05),
    ("list(\"lognormal\", 0, 0.5)", lambda v: v.min() > 0 and abs(np.log(v).mean()) < .05),
    ("list(\"chi_squared\", 3)", lambda v: v.min() >= 0 and abs(v.mean() - 3) < .25),
    ("\"cauchy\"", lambda v: abs(np.median(v)) < .1),
    ("list(\"fisher_f\", 5, 10)", lambda v: v.min() > 0 and abs(np.median(v) - .93) < .1),
    ("list(\"student_t\", 5)", lambda v: abs(v.mean()) < .1),
    ("\"bernoulli\"", lambda v: abs(v.mean() - .5) < .05),
])
def test_random_distributions(dist, check):
    values = run(f"block(set_seed(11), random({N}, {dist}))")
    assert values.shape == (N,) and values.dtype == np.float64
    assert check(values)


def test_random_errors():
    with pytest.raises(PhylanxValueError, match="unknown distribution 'gauss'"):
        run("random(3, \"gauss\")")
    with pytest.raises(PhylanxValueError, match="'poisson' takes at most 1 parameter"):
        run("random(3, list(\"poisson\", 1, 2))")
    with pytest.raises(PhylanxTypeError, match="dist must be a distribution name"):
        run("random(3, 5)")
    with pytest.raises(PhylanxValueError, match="size .* negative"):
        run("random(list(2, -1))")
    with pytest.raises(PhylanxValueError, match="bad parameters"):
        run("random(3, list(\"binomial\", 5, 2))")


def test_random_sample_randn_random_integers():
    assert isinstance(run("random_sample()"), np.float64)
    sample = run("random_sample(list(3, 2))")
    assert sample.shape == (3, 2) and sample.min() >= 0 and sample.max() < 1
    assert isinstance(run("randn()"), np.float64)
    assert run("randn(2, 3, 4)").shape == (2, 3, 4)
    dice = run(f"random_integers(1, 6, {N})")
    assert dice.dtype == np.int64 and set(np.unique(dice)) == set(range(1, 7))
    low_only = run("random_integers(2, nil, 200)")
    assert set(np.unique(low_only)) == {1, 2}
    assert isinstance(run("random_integers(5)"), np.int64)
    with pytest.raises(PhylanxValueError, match=r"low \(5\) must not exceed high \(2\)"):
        run("random_integers(5, 2)")
    with pytest.raises(PhylanxValueError, match="non-negative"):
        run("randn(2, -1)")


def test_shuffle_permutes_rows_in_place():
    matrix = np.arange(20).reshape(10, 2)
    out = run("lambda(x, shuffle(x))", matrix)
    assert out is matrix
    assert sorted(map(tuple, out)) == [(2 * i, 2 * i + 1) for i in range(10)]
    shuffled_list = run("block(set_seed(3), shuffle(list(1, 2, 3, 4, 5, 6, 7, 8)))")
    assert sorted(shuffled_list) == list(range(1, 9)) and shuffled_list != list(range(1, 9))
    with pytest.raises(PhylanxValueError, match="0-d"):
        run("shuffle(3.0)")
    with pytest.raises(PhylanxError, match="needs an array or a list"):
        run("shuffle(\"abc\")")
