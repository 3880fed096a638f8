"""Issue 29's autodiff reach, end to end through ``@Phylanx`` and ``grad``, against JAX:
the primitives that had no rule (log1p, expm1, einsum, broadcast_to, tril/triu, roll,
split, sort, np.vdot), zero gradients of piecewise-constant functions (floor, ceil,
round, rint, sign, trunc, //) as JAX gives them, and the coverage report (100%)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import phylanx
from phylanx import Phylanx
from phylanx.cli.primitives import coverage_text
from phylanx.primitives import registry
from phylanx.primitives.rules import VJP

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(29)
X = RNG.standard_normal((3, 4))
Y = RNG.standard_normal((4, 3))


@Phylanx
def smooth_loss(x, y):
    a = np.sum(np.log1p(x * x) * np.expm1(0.5 * x))
    b = np.sum(np.einsum("ij,jk->ik", x, y) ** 2) + np.sum(np.einsum("ii", x @ y))
    c = np.sum(np.broadcast_to(y[0], (5, 3)) * 2.0)
    d = np.sum(np.tril(x @ y) * 3.0 + np.triu(x @ y, 1) ** 2)
    e = np.sum(np.roll(x, 2, axis=1) * x)
    parts = np.split(y, 2)
    f = np.sum(parts[0] * parts[1] ** 2)
    g = np.sum(np.sort(x, axis=1) * np.arange(4.0)) + np.sum(np.sort(y, axis=None)[:3])
    return a + b + c + d + e + f + g + np.vdot(x, y.T)


def smooth_loss_jax(x, y):
    a = jnp.sum(jnp.log1p(x * x) * jnp.expm1(0.5 * x))
    b = jnp.sum(jnp.einsum("ij,jk->ik", x, y) ** 2) + jnp.sum(jnp.einsum("ii", x @ y))
    c = jnp.sum(jnp.broadcast_to(y[0], (5, 3)) * 2.0)
    d = jnp.sum(jnp.tril(x @ y) * 3.0 + jnp.triu(x @ y, 1) ** 2)
    e = jnp.sum(jnp.roll(x, 2, axis=1) * x)
    parts = jnp.split(y, 2)
    f = jnp.sum(parts[0] * parts[1] ** 2)
    g = jnp.sum(jnp.sort(x, axis=1) * jnp.arange(4.0)) + jnp.sum(jnp.sort(y, axis=None)[:3])
    return a + b + c + d + e + f + g + jnp.vdot(x, y.T)


def test_the_new_rules_end_to_end_equal_jax():
    value, (gx, gy) = phylanx.value_and_grad(smooth_loss, (0, 1))(X, Y)
    want_value, (wx, wy) = jax.value_and_grad(smooth_loss_jax, (0, 1))(X, Y)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(gx, wx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gy, wy, rtol=1e-10, atol=1e-12)


def test_np_vdot_translates_and_differentiates():
    @Phylanx
    def f(a, b):
        return np.vdot(a, b)

    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal(6)
    assert np.isclose(f(a, b), np.vdot(a, b))
    ga, gb = phylanx.grad(f, (0, 1))(a, b)
    np.testing.assert_allclose(ga, b.reshape(2, 3))
    np.testing.assert_allclose(gb, a.ravel())
    with pytest.raises(phylanx.PhylanxError, match="same size"):
        f(a, np.ones(5))


@Phylanx
def stepped(x, w):
    s = np.floor(x * w) + np.ceil(x) + np.round(x * 3.0, 1) + np.rint(w * x) + np.sign(x)
    t = np.trunc(x * 2.0) + (x * w) // 0.5 + np.fix(x)
    picked = x[np.argmax(x * w)]                 # an index computed from x
    mask = (x * w > 0.1) * 1.0                   # a comparison's value
    return np.sum(s * w + t) + picked * 2.0 + np.sum(mask * w)


def stepped_jax(x, w):
    s = jnp.floor(x * w) + jnp.ceil(x) + jnp.round(x * 3.0, 1) + jnp.rint(w * x) + jnp.sign(x)
    t = jnp.trunc(x * 2.0) + (x * w) // 0.5 + jnp.trunc(x)    # np.fix is trunc
    picked = x[jnp.argmax(x * w)]
    mask = (x * w > 0.1) * 1.0
    return jnp.sum(s * w + t) + picked * 2.0 + jnp.sum(mask * w)


def test_piecewise_constant_functions_have_zero_gradients_as_in_jax():
    x, w = RNG.uniform(-2, 2, 7), RNG.uniform(-2, 2, 7)
    got = phylanx.grad(stepped, (0, 1))(x, w)
    want = jax.grad(stepped_jax, (0, 1))(x, w)
    for g, v in zip(got, want):
        np.testing.assert_allclose(g, v, rtol=1e-12, atol=0)


def test_zero_gradient_is_declared_with_a_reason_and_excludes_a_rule():
    zero = {s.name: s.zero_gradient for s in registry.all_specs() if s.zero_gradient}
    assert {"floor", "ceil", "trunc", "rint", "sign", "__npround", "__floordiv"} <= set(zero)
    for name, reason in zero.items():
        assert "constant" in reason, name
        assert not registry.lookup(name).differentiable and VJP.get(name) is None, name


def test_coverage_lists_every_differentiable_primitive_at_100_percent():
    text = coverage_text()
    flagged = [s.name for s in registry.all_specs() if s.differentiable]
    header = (f"Gradients: {len(flagged)} of {len(flagged)} differentiable primitives have "
              "a VJP rule (100%)")
    assert header in text
    listed = next(line for line in text.splitlines() if "with a VJP rule:" in line)
    assert set(listed.split(":", 1)[1].split()) == set(flagged)
    assert "WITHOUT a VJP rule" not in text
    assert "floor" in next(line for line in text.splitlines() if "integer steps" in line)
    assert VJP.missing() == []


def test_maximum_and_minimum_share_the_gradient_between_ties_as_jax():
    x = np.array([1.0, 2.0, -0.5, 3.0], np.float32)
    y = np.array([1.0, 1.5, -0.5, 4.0], np.float32)

    @Phylanx
    def extremes(x, y):
        return np.sum(np.maximum(x, y) * 3.0 + np.minimum(x, y) + np.maximum(x, 0.0) ** 2)

    got = phylanx.grad(extremes, (0, 1))(x, y)
    want = jax.grad(lambda x, y: jnp.sum(jnp.maximum(x, y) * 3.0 + jnp.minimum(x, y)
                                         + jnp.maximum(x, 0.0) ** 2), (0, 1))(x, y)
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=1e-6)
