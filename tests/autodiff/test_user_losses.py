"""Twenty-five loss functions a new user would write, differentiated by ``grad``,
``value_and_grad``, ``hessian``, ``jacobian``, ``has_aux`` and grad of grad, against JAX
(float64) on ordinary and edge inputs: repeated indices, ties, kinks, NaN in an untaken
``where`` branch, loops with ``break``, recursion, 0-d, empty and float32 inputs,
pytrees, linear algebra at a singular matrix (ad50, issue 29 item 3).

Where NumPy and JAX mean different things (``y[i] += v`` with a repeated ``i`` is
buffered in NumPy, ``.at[i].add`` is not), the oracle is central differences of the
undecorated function.  docs/autodiff.md ("Kinks") lists where phylanx deliberately
differs from JAX; ``norm_at_zero`` below is one of them.
"""
from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import phylanx

from .helpers import numeric_grad

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(2950)
X4 = RNG.standard_normal(4)
M23 = RNG.standard_normal((2, 3))
A3 = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
W = RNG.standard_normal(4)          # an array the losses close over
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


def _loop_increment(x):
    y = np.zeros(3)
    for i in range(3):
        y[i] += x[i] * x[i + 1]
    return np.sum(y * y)


def _loop_increment_jax(x):
    y = jnp.zeros(3)
    for i in range(3):
        y = y.at[i].add(x[i] * x[i + 1])
    return jnp.sum(y * y)


def _early_break(x):
    s = 0.0
    for i in range(4):
        if s > 1.0:
            break
        s = s + x[i] ** 2
    return s


def _grow_until(x):
    y = x
    while np.sum(y * y) < 10.0:
        y = y * 1.5
    return np.sum(y)


def _nested_sin(x, n):
    if n == 0:
        return x
    return np.sin(_nested_sin(x, n - 1))


def _nested_sin_jax(x, n):
    return x if n == 0 else jnp.sin(_nested_sin_jax(x, n - 1))


def _helper(v):
    return v * np.tanh(v)


def _buffered_increment(x):
    y = np.zeros(3)
    y[[0, 0, 2]] += x[:3]          # NumPy: the second write to 0 wins (buffered)
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


def _store_then_sum(x):
    y = np.zeros(4)
    y[[1, 3]] = x[:2] * 2.0
    return np.sum(y * x)


def _math_scalars(x):
    return math.sqrt(x[0] ** 2 + 1.0) * math.exp(x[1]) + float(x[2]) * x[3]


# (name, loss, JAX's loss or None for central differences, arguments, extra checks)
CASES = [
    ("repeated_gather", lambda x: np.sum(x[[0, 0, 1]] ** 3),
     lambda x: jnp.sum(x[jnp.array([0, 0, 1])] ** 3), (X4,), ("hessian",)),
    ("store_then_sum", _store_then_sum,
     lambda x: jnp.sum(jnp.zeros(4).at[jnp.array([1, 3])].set(x[:2] * 2.0) * x), (X4,), ()),
    ("buffered_increment", _buffered_increment, None, (X4,), ()),
    ("where_nan_untaken", lambda x: np.sum(np.where(x > 0, np.sqrt(x), 0.0)),
     lambda x: jnp.sum(jnp.where(x > 0, jnp.sqrt(x), 0.0)), (np.array([1.0, 0.0, 4.0]),),
     ("nan",)),
    ("double_where", lambda x: np.sum(np.where(x > 0, np.sqrt(np.where(x > 0, x, 1.0)), 0.0)),
     lambda x: jnp.sum(jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)),
     (np.array([1.0, -1.0, 0.0, 4.0]),), ()),
    ("max_ties", lambda m: np.sum(np.max(m, axis=1) ** 2) + np.max(m),
     lambda m: jnp.sum(jnp.max(m, axis=1) ** 2) + jnp.max(m),
     (np.array([[1.0, 1.0, 0.0], [2.0, 3.0, 3.0]]),), ()),
    ("argmax_pick_tie", lambda x: x[np.argmax(x)] ** 2, lambda x: x[jnp.argmax(x)] ** 2,
     (np.array([1.0, 3.0, 3.0, 2.0]),), ()),
    ("abs_sqrt_clip_kinks",
     lambda x: np.sum(np.abs(x) + np.sqrt(x * x + 1.0) + np.clip(x, -1.0, 1.0) * x),
     lambda x: jnp.sum(jnp.abs(x) + jnp.sqrt(x * x + 1.0) + jnp.clip(x, -1.0, 1.0) * x),
     (np.array([0.0, -0.0, 1.0, -1.0, 2.0]),), ()),
    ("sort_take_along_axis",
     lambda m: np.sum(np.take_along_axis(m, np.argsort(m, axis=1), axis=1)[:, :2] ** 2)
     + np.sum(np.sort(m, axis=0)[0]),
     lambda m: jnp.sum(jnp.take_along_axis(m, jnp.argsort(m, axis=1), axis=1)[:, :2] ** 2)
     + jnp.sum(jnp.sort(m, axis=0)[0]), (M23,), ()),
    ("reversed_cumsum_cumprod_zero",
     lambda x: np.sum(np.cumsum(x[::-1])[::-1] ** 2) + np.sum(np.cumprod(x - x[1])),
     lambda x: jnp.sum(jnp.cumsum(x[::-1])[::-1] ** 2) + jnp.sum(jnp.cumprod(x - x[1])),
     (X4,), ()),
    ("einsum_repeated_indices",
     lambda a: np.einsum("ii->", a) ** 2 + np.sum(np.einsum("ij,ij->i", a, a[::-1]) ** 2),
     lambda a: jnp.einsum("ii->", a) ** 2 + jnp.sum(jnp.einsum("ij,ij->i", a, a[::-1]) ** 2),
     (A3,), ()),
    ("softmax_keepdims",
     lambda m: np.sum(np.exp(m - np.max(m, axis=1, keepdims=True))
                      / np.sum(np.exp(m - np.max(m, axis=1, keepdims=True)), axis=1,
                               keepdims=True) * np.arange(3.0)),
     lambda m: jnp.sum(jax.nn.softmax(m, axis=1) * jnp.arange(3.0)), (M23,), ()),
    ("loop_increment", _loop_increment, _loop_increment_jax, (X4,), ()),
    ("early_break", _early_break, None, (np.array([0.5, 0.9, 0.3, 2.0]),), ()),
    ("data_dependent_while", _grow_until, None, (np.array([0.5, 0.3]),), ()),
    ("recursion", lambda x: np.sum(_nested_sin(x, 3)),
     lambda x: jnp.sum(_nested_sin_jax(x, 3)), (X4,), ()),
    ("helper_closure_lambda", lambda x: np.sum(_helper(x) ** 2) + np.sum((x * W) ** 2),
     lambda x: jnp.sum((x * jnp.tanh(x)) ** 2) + jnp.sum((x * W) ** 2), (X4,), ()),
    ("float32", lambda x: np.sum(np.sin(x) * x) + np.sum(x * 0.1),
     lambda x: jnp.sum(jnp.sin(x) * x) + jnp.sum(x * 0.1), (X4.astype(np.float32),), ()),
    ("zero_d", lambda x: np.exp(x) * x, lambda x: jnp.exp(x) * x, (np.array(0.7),),
     ("hessian", "grad_of_grad")),
    ("empty", lambda m: np.sum(m ** 2) + 1.0, lambda m: jnp.sum(m ** 2) + 1.0,
     (np.zeros((0, 3)),), ()),
    ("argnums_tuple", lambda a, b, c: np.sum(a * b) + c * np.sum(b),
     lambda a, b, c: jnp.sum(a * b) + c * jnp.sum(b), (X4, W, 1.5), ("argnums",)),
    ("pytree", lambda p: np.sum(p["w"] * p["b"][0]) + p["b"][1] ** 2,
     lambda p: jnp.sum(p["w"] * p["b"][0]) + p["b"][1] ** 2,
     ({"w": X4, "b": [np.array(0.5), np.array(2.0)]},), ()),
    ("linalg", lambda a: np.sum(np.linalg.inv(a) ** 2) + np.linalg.det(a)
     + np.linalg.slogdet(a)[1] + np.sum(np.linalg.solve(a, a[0])),
     lambda a: jnp.sum(jnp.linalg.inv(a) ** 2) + jnp.linalg.det(a)
     + jnp.linalg.slogdet(a)[1] + jnp.sum(jnp.linalg.solve(a, a[0])), (A3,), ()),
    ("det_singular", lambda a: np.linalg.det(a) + np.linalg.det(a * 2.0)[()],
     lambda a: jnp.linalg.det(a) + jnp.linalg.det(a * 2.0), (SINGULAR,), ()),
    ("logsumexp_large", lambda x: np.max(x) + np.log(np.sum(np.exp(x - np.max(x)))),
     lambda x: jax.nn.logsumexp(x), (np.array([1000.0, 1001.0, 1000.5]),), ()),
    ("math_and_float", _math_scalars,
     lambda x: jnp.sqrt(x[0] ** 2 + 1.0) * jnp.exp(x[1]) + x[2] * x[3], (X4,), ()),
]


def close(got, want, rtol=1e-9):
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        assert np.shape(g) == np.shape(w)
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name, loss, loss_jax, args, checks", CASES,
                         ids=[c[0] for c in CASES])
def test_loss_gradient_equals_jax(name, loss, loss_jax, args, checks):
    rtol = 1e-5 if np.asarray(args[0]).dtype == np.float32 else 1e-9
    if loss_jax is None:           # NumPy semantics JAX does not share
        value, got = phylanx.value_and_grad(loss)(*args)
        assert value == loss(*[np.array(a) for a in args])
        np.testing.assert_allclose(got, numeric_grad(loss, list(args)), rtol=1e-6, atol=1e-7)
        return
    argnums = (2, 0) if "argnums" in checks else 0
    with warnings.catch_warnings():
        if "nan" in checks:        # JAX's NaN: 0 (untaken) * inf (sqrt' at 0), NumPy warns
            warnings.simplefilter("ignore", RuntimeWarning)
        value, got = phylanx.value_and_grad(loss, argnums)(*args)
    want_value, want = jax.value_and_grad(loss_jax, argnums)(*args)
    close(value, want_value, rtol)
    close(got, want, rtol)
    if "hessian" in checks:
        close(phylanx.hessian(loss)(*args), jax.hessian(loss_jax)(*args))
    if "grad_of_grad" in checks:
        close(phylanx.grad(phylanx.grad(loss))(*args), jax.grad(jax.grad(loss_jax))(*args))


def test_has_aux_and_jacobian_of_a_loss_with_ties():
    def loss(x):
        return np.sum(np.maximum(x, 0.5) ** 2), np.argmax(x)

    def loss_jax(x):
        return jnp.sum(jnp.maximum(x, 0.5) ** 2), jnp.argmax(x)

    x = np.array([0.5, 2.0, 2.0, -1.0])
    (value, aux), got = phylanx.value_and_grad(loss, has_aux=True)(x)
    (want_value, want_aux), want = jax.value_and_grad(loss_jax, has_aux=True)(x)
    close((value, got), (want_value, want))
    assert aux == want_aux
    close(phylanx.jacobian(lambda x: np.cumsum(np.maximum(x, 0.5)))(x),
          jax.jacrev(lambda x: jnp.cumsum(jnp.maximum(x, 0.5)))(x))


def test_norm_at_zero_is_the_documented_zero_not_jaxs_nan():
    got = phylanx.grad(lambda x: np.linalg.norm(x))(np.zeros(3))
    assert np.isnan(jax.grad(jnp.linalg.norm)(np.zeros(3))).all()
    np.testing.assert_array_equal(got, np.zeros(3))


@pytest.mark.parametrize("fn, fn_jax, arg", [
    (lambda x: x[:0] * 2.0, lambda x: x[:0] * 2.0, X4),
    (lambda p: p["a"][:0] * p["b"], lambda p: p["a"][:0] * p["b"],
     {"a": X4, "b": np.float32(2.0)}),
], ids=["array", "pytree"])
def test_jacobian_of_an_empty_result_has_zero_rows(fn, fn_jax, arg):
    """Until ad50 an unlocated IndexError (no element to seed the reverse pass with)."""
    close(phylanx.jacobian(fn)(arg), jax.jacrev(fn_jax)(arg))


def test_math_functions_without_a_rule_are_a_located_error():
    with pytest.raises(phylanx.PhylanxError, match="math.pow") as caught:
        phylanx.grad(lambda x: math.pow(x[0] ** 2, 1.5))(X4)
    assert caught.value.loc is not None and caught.value.loc.file == __file__
