"""``clip`` at its bounds (user44): NumPy's ``clip(x, lo, hi)`` is ``minimum(maximum(x,
lo), hi)``, and at a tie the rules take the mean of the one-sided derivatives, as JAX
(rules_arithmetic.py's convention, which ``maximum``/``minimum`` follow).  ``clip`` gave
the whole cotangent to ``x`` at ``x == lo`` or ``x == hi`` (JAX: half to ``x``, half to
the bound; ``np.clip(w, 0.0, 1.0)`` of weights starting at 0 is such a tie), and with
``lo > hi`` (NumPy's answer: ``hi``) gave it to ``lo``; its second derivatives too."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

W = np.array([1.0, 2.0, 2.0, -1.0, 0.0, 3.0])


@pytest.mark.parametrize("lo, hi", [(-1.0, 2.0), (0.0, 0.0), (2.0, -1.0), (None, 2.0),
                                    (-1.0, None)])
def test_the_gradient_at_the_bounds_is_jax_s(lo, hi):
    got = phylanx.grad(lambda w: np.sum(np.clip(w, lo, hi) ** 2 * w))(W)
    want = jax.grad(lambda w: jnp.sum(jnp.clip(w, lo, hi) ** 2 * w))(W)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12)


def test_the_bounds_gradients_and_the_hessian_at_the_bounds_are_jax_s():
    lo, hi = np.array([-1.0, 0.0, 2.0, -1.0, 0.5, 1.0]), 2.0
    got = phylanx.grad(lambda w, lo: np.sum(np.clip(w, lo, hi) * W), argnums=(0, 1))(W, lo)
    want = jax.grad(lambda w, lo: jnp.sum(jnp.clip(w, lo, hi) * W), argnums=(0, 1))(W, lo)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-12)
    hess = phylanx.hessian(lambda w: np.sum(np.clip(w, -1.0, 2.0) ** 2))(W)
    np.testing.assert_allclose(hess, jax.hessian(lambda w: jnp.sum(jnp.clip(w, -1.0, 2.0)
                                                                   ** 2))(W), rtol=1e-12)


SPELLINGS = {
    "method-min": (lambda w: w.clip(0.0), lambda w: jnp.clip(w, 0.0)),
    "method-max-keyword": (lambda w: w.clip(max=2.0), lambda w: jnp.clip(w, max=2.0)),
    "method-min-keyword": (lambda w: w.clip(min=0.0), lambda w: jnp.clip(w, min=0.0)),
    "np-min-keyword": (lambda w: np.clip(w, min=0.0), lambda w: jnp.clip(w, min=0.0)),
    "np-max-keyword": (lambda w: np.clip(w, max=2.0), lambda w: jnp.clip(w, max=2.0)),
    "np-both-keywords": (lambda w: np.clip(w, min=0.0, max=2.0),
                         lambda w: jnp.clip(w, 0.0, 2.0)),
    "np-no-bound": (lambda w: np.clip(w), lambda w: w),
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_clip_takes_the_spellings_numpy_takes(spelling):
    """adb50: ``x.clip(0)`` (one bound) failed to compile ("missing argument 3"), and
    ``min=``/``max=`` keywords (NumPy 2.1+) were refused; values against the undecorated
    function, gradients and Hessian against JAX."""
    clipped, jax_clipped = SPELLINGS[spelling]
    np.testing.assert_array_equal(phylanx.Phylanx(clipped)(W), clipped(W))
    got = phylanx.grad(lambda w: np.sum(clipped(w) ** 2 * w))(W)
    want = jax.grad(lambda w: jnp.sum(jax_clipped(w) ** 2 * w))(W)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12)
    hess = phylanx.hessian(lambda w: np.sum(clipped(w) ** 3))(W)
    np.testing.assert_allclose(hess, jax.hessian(lambda w: jnp.sum(jax_clipped(w) ** 3))(W),
                               rtol=1e-12)
