"""Model losses: logistic regression, a small MLP (matmul + relu + softmax cross-entropy)
and a convolution with pooling, against central finite differences and JAX (installed by
``.[all]``: these run in ``make test``), and, when installed, torch.autograd too."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from phylanx import Phylanx
from phylanx.autodiff import grad, value_and_grad
from phylanx.ops import conv1d, max_pool2d, relu, softmax

from .helpers import assert_grad_close, numeric_grad

RNG = np.random.default_rng(3)
X = RNG.standard_normal((8, 5))
Y01 = (RNG.uniform(size=8) > 0.5).astype(np.float64)
LABELS = np.eye(3)[RNG.integers(0, 3, 8)]
W = RNG.standard_normal(5) * 0.5
W1, B1 = RNG.standard_normal((5, 6)) * 0.5, RNG.standard_normal(6) * 0.1
W2, B2 = RNG.standard_normal((6, 3)) * 0.5, RNG.standard_normal(3) * 0.1


@Phylanx
def logistic_loss(w, x, y):
    p = 1.0 / (1.0 + np.exp(-(x @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


@Phylanx
def mlp_loss(w1, b1, w2, b2, x, labels):
    h = np.maximum(x @ w1 + b1, 0.0)
    z = h @ w2 + b2
    shifted = z - np.max(z, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(labels * log_probs) / x.shape[0]


@Phylanx
def mlp_loss_keras(w1, b1, w2, b2, x, labels):
    h = relu(x @ w1 + b1)            # PhySL keras_support primitives, from phylanx.ops
    probs = softmax(h @ w2 + b2)
    return np.mean(-np.sum(labels * np.log(probs), axis=1))


MLP_ARGS = [W1, B1, W2, B2, X, LABELS]


def test_logistic_regression_against_finite_differences():
    value, g = value_and_grad(logistic_loss)(W, X, Y01)
    assert np.isclose(value, logistic_loss.python(W, X, Y01))
    assert_grad_close(g, numeric_grad(logistic_loss.python, [W, X, Y01]))


@pytest.mark.parametrize("loss", [mlp_loss, mlp_loss_keras], ids=["numpy", "keras"])
def test_mlp_against_finite_differences(loss):
    grads = grad(loss, argnums=(0, 1, 2, 3))(*MLP_ARGS)
    for i, g in enumerate(grads):
        assert_grad_close(g, numeric_grad(mlp_loss.python, MLP_ARGS, i))


jax.config.update("jax_enable_x64", True)


def test_logistic_regression_against_jax():
    def loss(w, x, y):
        p = jax.nn.sigmoid(x @ w)
        return -jnp.mean(y * jnp.log(p) + (1.0 - y) * jnp.log(1.0 - p))

    value, g = value_and_grad(logistic_loss)(W, X, Y01)
    want_value, want = jax.value_and_grad(loss)(W, X, Y01)
    assert np.isclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("loss", [mlp_loss, mlp_loss_keras], ids=["numpy", "keras"])
def test_mlp_against_jax(loss):
    def expected(w1, b1, w2, b2):
        logits = jax.nn.relu(X @ w1 + b1) @ w2 + b2
        picked = jnp.take_along_axis(jax.nn.log_softmax(logits), LABELS.argmax(1)[:, None], 1)
        return -jnp.mean(picked)

    value, grads = value_and_grad(loss, argnums=(0, 1, 2, 3))(*MLP_ARGS)
    want_value, want = jax.value_and_grad(expected, (0, 1, 2, 3))(W1, B1, W2, B2)
    assert np.isclose(value, want_value, rtol=1e-12)
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


def test_convolution_and_pooling_against_jax():
    x, kernel = RNG.standard_normal((2, 6, 3)), RNG.standard_normal((3, 3, 4))

    def expected(x, kernel):
        # channels-last conv1d with "same" padding, then max-pooling pairs of positions
        y = lax.conv_general_dilated(x, kernel, (1,), "SAME",
                                     dimension_numbers=("NWC", "WIO", "NWC"))
        pooled = lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 1), (1, 2, 1), "VALID")
        return jnp.sum(pooled ** 2)

    value, (gx, gk) = value_and_grad(conv_loss, (0, 1))(x, kernel)
    want_value, (wx, wk) = jax.value_and_grad(expected, (0, 1))(x, kernel)
    assert np.isclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(gx, wx, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gk, wk, rtol=1e-9, atol=1e-12)


def _torch():
    return pytest.importorskip("torch")


def test_logistic_regression_against_torch():
    torch = _torch()
    w = torch.tensor(W, requires_grad=True)
    x, y = torch.tensor(X), torch.tensor(Y01)
    loss = torch.nn.functional.binary_cross_entropy(torch.sigmoid(x @ w), y)
    loss.backward()
    value, g = value_and_grad(logistic_loss)(W, X, Y01)
    assert np.isclose(value, loss.item())
    np.testing.assert_allclose(g, w.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("loss", [mlp_loss, mlp_loss_keras], ids=["numpy", "keras"])
def test_mlp_against_torch(loss):
    torch = _torch()
    params = [torch.tensor(p, requires_grad=True) for p in (W1, B1, W2, B2)]
    w1, b1, w2, b2 = params
    logits = torch.relu(torch.tensor(X) @ w1 + b1) @ w2 + b2
    target = torch.tensor(LABELS.argmax(axis=1))
    expected = torch.nn.functional.cross_entropy(logits, target)
    expected.backward()
    value, grads = value_and_grad(loss, argnums=(0, 1, 2, 3))(*MLP_ARGS)
    assert np.isclose(value, expected.item())
    for g, p in zip(grads, params):
        np.testing.assert_allclose(g, p.grad.numpy(), rtol=1e-9, atol=1e-12)


@Phylanx
def conv_loss(x, kernel):
    y = conv1d(x, kernel, "same")
    # (batch, length, 1, channels): pool pairs of positions along the length
    pooled = max_pool2d(np.reshape(y, (2, 6, 1, 4)), [2, 1], "valid", [2, 1])
    return np.sum(pooled ** 2)


def test_convolution_and_pooling_against_torch():
    torch = _torch()
    x, kernel = RNG.standard_normal((2, 6, 3)), RNG.standard_normal((3, 3, 4))
    tx = torch.tensor(x, requires_grad=True)
    tk = torch.tensor(kernel, requires_grad=True)
    # channels-last conv1d with "same" padding of an odd kernel is torch's padding=1
    y = torch.nn.functional.conv1d(tx.permute(0, 2, 1), tk.permute(2, 1, 0), padding=1)
    pooled = torch.nn.functional.max_pool1d(y, 2)
    (pooled ** 2).sum().backward()
    value, (gx, gk) = value_and_grad(conv_loss, (0, 1))(x, kernel)
    assert np.isclose(value, (pooled ** 2).sum().item())
    np.testing.assert_allclose(gx, tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gk, tk.grad.numpy(), rtol=1e-9, atol=1e-12)
