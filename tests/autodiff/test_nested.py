"""Nested reverse mode against JAX: ``grad`` of ``grad`` (second and third derivatives),
``hessian`` and Hessian-vector products (``hvp``), the outer tape recording the inner
reverse pass (``tape._recorded_rule``); every equation form of a rule
(``rules_recordable.py``) equals its kernel rule; a rule without one is a located error,
never a missing second-derivative term."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import phylanx
from phylanx import Phylanx
from phylanx.autodiff import VJP, PhylanxGradientError, grad, hessian, hvp, jacobian
from phylanx.autodiff.equations import evaluate
from phylanx.autodiff.tape import fit
from phylanx.ops import avg_pool2d, conv1d, conv2d, max_pool2d, relu
from phylanx.primitives import registry

from .cases import CASES

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(2929)
X = RNG.standard_normal((6, 3))
Y = (RNG.uniform(size=6) > 0.5) * 1.0
W = RNG.standard_normal(3)


def close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def logistic(w, x, y):
    p = 1.0 / (1.0 + np.exp(-(x @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def logistic_jax(w, x, y):
    p = 1.0 / (1.0 + jnp.exp(-(x @ w)))
    return -jnp.mean(y * jnp.log(p) + (1.0 - y) * jnp.log(1.0 - p))


@Phylanx
def tanh_layer(w, x):
    h = np.tanh(np.dot(x, w))
    return np.sum(h * h) / 2.0 + np.sum(np.sqrt(w * w + 1.0))


def tanh_layer_jax(w, x):
    h = jnp.tanh(jnp.dot(x, w))
    return jnp.sum(h * h) / 2.0 + jnp.sum(jnp.sqrt(w * w + 1.0))


def reductions(w):
    m = np.reshape(w, (3, 3))
    return np.sum(np.mean(m ** 3, axis=1) * np.sum(np.sin(m), axis=0)) - np.sum(m.T @ m)


def reductions_jax(w):
    m = jnp.reshape(w, (3, 3))
    return jnp.sum(jnp.mean(m ** 3, axis=1) * jnp.sum(jnp.sin(m), axis=0)) - jnp.sum(m.T @ m)


@pytest.mark.parametrize(("fn", "peer", "args"), [
    (logistic, logistic_jax, (W, X, Y)),
    (tanh_layer, tanh_layer_jax, (W, X)),
    (reductions, reductions_jax, (RNG.standard_normal(9),)),
], ids=["logistic", "tanh-layer", "reductions"])
def test_hessian_equals_jax(fn, peer, args):
    close(hessian(fn)(*args), jax.hessian(peer)(*args))


def test_hessian_of_another_argument_and_hvp_equal_jax():
    close(hessian(tanh_layer, 1)(W, X), jax.hessian(tanh_layer_jax, 1)(W, X))
    v = RNG.standard_normal(3)
    close(hvp(logistic)(W, X, Y, v), jax.hessian(logistic_jax)(W, X, Y) @ v)
    close(phylanx.hvp(tanh_layer)(W, X, v), jax.hessian(tanh_layer_jax)(W, X) @ v)


def test_grad_of_grad_and_third_derivatives_of_a_scalar_function():
    def f(t):
        return np.exp(t) * np.cos(t) / (1.0 + t * t)

    def f_jax(t):
        return jnp.exp(t) * jnp.cos(t) / (1.0 + t * t)

    second, third = phylanx.grad(phylanx.grad(f)), grad(grad(grad(f)))
    close(second(0.4), jax.grad(jax.grad(f_jax))(0.4))
    close(third(0.4), jax.grad(jax.grad(jax.grad(f_jax)))(0.4))


def test_jacobian_of_grad_is_the_hessian():
    close(jacobian(grad(logistic))(W, X, Y), jax.hessian(logistic_jax)(W, X, Y))


def test_a_rule_without_equations_is_a_located_error_in_nested_grad(monkeypatch):
    @Phylanx
    def curved(x):
        return np.sum(np.linalg.pinv(np.outer(x, x + 2.0)) * x)

    # every rule meant for nested grad has a form since ad46 (arctan until ad44, sort
    # until ad45, pinv until ad46): the engine's error path, with pinv's form taken away
    monkeypatch.delattr(VJP.get("pinv"), "recordable")
    assert grad(curved)(W).shape == W.shape            # first order: the kernel rule
    with pytest.raises(PhylanxGradientError, match="derivative of 'pinv'") as info:
        hessian(curved)(W)
    assert info.value.loc is not None and "np.linalg.pinv" in str(info.value)


RECORDABLE = [(n, k) for n in sorted(CASES) if getattr(VJP.get(n), "recordable", None)
              for k in range(len(CASES[n]))]


def test_the_common_rules_have_equation_forms():
    assert {"__add", "__sub", "__mul", "__div", "power", "exp", "log", "sin", "cos", "tanh",
            "sum", "mean", "transpose", "reshape", "matmul", "maximum", "minimum", "relu",
            "__subscript", "__subscript_adjoint", "conv1d", "conv2d", "max_pool2d",
            "avg_pool2d", "max_pool3d", "avg_pool3d", "where", "__npwhere", "absolute"} <= {
        n for n, _ in RECORDABLE}
    # the adjoints they record are equation rules themselves: derivatives of any order
    assert all(getattr(VJP.get(n), "equations", None) for n in (
        "__conv_input_adjoint", "__conv_kernel_adjoint", "__pool_adjoint", "__pool_gather"))


#: forms covering a list operand or a list result (ad44): compared item by item
LIST_FORMS = {"concatenate", "slogdet", "__npstack", "__nphstack", "__npvstack", "__npdstack",
              "column_stack", "hstack", "vstack", "dstack", "stack", "split", "array_split",
              "hsplit", "vsplit", "__array", "__pylist", "__pytuple", "__tolist", "__pysum",
              "eig", "eigh", "qr", "svd", "lstsq"}

#: cases a form does not cover (None: a located error in nested grad, as the kernel's
#: formula there is not written as equations), with the reason
NOT_COVERED = {
    ("diag", 1): "the diagonal of a non-square matrix",
    ("flatten", 1): "Fortran order", ("ravel", 1): "Fortran order",
    ("outer", 1): "operands that are not vectors",
    ("prod", 1): "an operand with a zero (the kernel's exclusive products)",
    ("solve", 2): "a stack of matrices", ("solve", 3): "a stack of matrices",
    ("concatenate", 2): "axis None (the operands flattened)",
    ("concatenate", 3): "an array operand (its rows joined)",
    ("concatenate", 4): "an array operand (its rows joined)",
    ("slogdet", 1): "a stack of matrices",
    **{("cumprod", k): "an operand with a zero (the kernel's exact rule)" for k in (2, 3, 4)},
    ("determinant", 1): "a singular matrix (the kernel's SVD cofactors)",
    ("determinant", 2): "a singular matrix (the kernel's SVD cofactors)",
    ("determinant", 3): "a stack of matrices",
    ("cross", 3): "a 2-vector with a 3-vector",
    ("qr", 2): "mode r (the form would compute Q again)",
    # (the spectral norms of the last two axes record their svd since ad46)
    **{("__npnorm", k): "a spectral matrix norm over axes other than the last two"
       for k in (18, 19)},
    **{("convolve", k): "mode same or valid (adb50: the kernel rule only)" for k in (1, 2, 3, 4)},
}


def _compare(form, want, operand, where):
    if type(operand) is list:
        for j, (f, w) in enumerate(zip(form, want)):
            _compare(f, w, operand[j], f"{where} item {j}")
        return
    np.testing.assert_allclose(fit(evaluate(form), operand), fit(want, operand),
                               rtol=1e-12, atol=1e-12, err_msg=where)


@pytest.mark.parametrize(("name", "k"), RECORDABLE, ids=[f"{n}-{k}" for n, k in RECORDABLE])
def test_equation_form_equals_the_kernel_rule(name, k):
    args = list(CASES[name][k])
    rule = VJP.get(name)
    value = registry.lookup(name).impl(*args)
    rng = np.random.default_rng(k)
    if name not in LIST_FORMS and (isinstance(value, (list, tuple)) or any(
            isinstance(a, list) and any(isinstance(v, np.ndarray) for v in a) for a in args)):
        # Python's list + list, list * n, copies of lists: not covered (an error)
        assert rule.recordable(value, value, *args, wanted=None) is None
        return
    if isinstance(value, (list, tuple)):
        ct = [rng.standard_normal(np.shape(v)) for v in value]
    else:
        ct = rng.standard_normal(np.shape(value))
    equations = rule.recordable(ct, value, *args, wanted=None)
    # (until issue 29: __div of three operands, matmul of stacks, transpose with axes
    # had none)
    if (name, k) in NOT_COVERED:
        assert equations is None, f"{name} case {k}: covered now, remove it from NOT_COVERED"
        return
    assert equations is not None, f"{name} case {k}: no equation form"
    kernel = rule(ct, value, *args)
    for i, (form, want) in enumerate(zip(equations, kernel[:len(args)])):
        if want is None or form is None or not isinstance(args[i], (np.ndarray, float, list)):
            assert (form is None) == (want is None) or not isinstance(args[i], np.ndarray)
            continue
        _compare(form, want, args[i], f"{name} case {k} op {i}")


def test_hessian_and_hvp_take_one_position_and_hvp_checks_the_vector():
    with pytest.raises(phylanx.PhylanxTypeError, match="one position"):
        hessian(logistic, (0, 1))
    with pytest.raises(phylanx.PhylanxTypeError, match="one position"):
        hvp(logistic, (0, 1))
    with pytest.raises(phylanx.PhylanxValueError, match="the vector has shape"):
        hvp(logistic)(W, X, Y, np.ones(4))


# -- issue 29: indexing, relu / maximum with 0, three-operand division, transposes with
# axes and stacks of matrices under nested derivatives

def indexed(w):
    m = np.reshape(w, (2, 3))
    picked = m[1] * m[0, ::-1] + m[:, np.array([2, 0, 2])].sum()
    return np.sum(np.sin(picked) * w[3]) + w[0] ** 3


def indexed_jax(w):
    m = jnp.reshape(w, (2, 3))
    picked = m[1] * m[0, ::-1] + m[:, jnp.array([2, 0, 2])].sum()
    return jnp.sum(jnp.sin(picked) * w[3]) + w[0] ** 3


def rectified(w, x):
    h = np.maximum(x @ w, 0.0)
    return np.sum(h * h * h) / x.shape[0] + np.sum(np.minimum(w, 0.2) ** 2)


def rectified_jax(w, x):
    h = jnp.maximum(x @ w, 0.0)
    return jnp.sum(h * h * h) / x.shape[0] + jnp.sum(jnp.minimum(w, 0.2) ** 2)


STACK = RNG.standard_normal((2, 3, 4))


def stacked(w):
    m = np.reshape(w, (2, 2, 3))
    t = np.transpose(STACK, (0, 2, 1)) @ np.transpose(m, (0, 2, 1))
    return np.sum(np.exp(t / w[1] / (1.5 + w[2] * w[2])))


def stacked_jax(w):
    m = jnp.reshape(w, (2, 2, 3))
    t = jnp.transpose(STACK, (0, 2, 1)) @ jnp.transpose(m, (0, 2, 1))
    return jnp.sum(jnp.exp(t / w[1] / (1.5 + w[2] * w[2])))


@pytest.mark.parametrize(("fn", "peer", "args"), [
    (indexed, indexed_jax, (RNG.standard_normal(6),)),
    (rectified, rectified_jax, (W, X)),
    (stacked, stacked_jax, (RNG.uniform(0.5, 1.0, 12),)),
], ids=["indexing", "relu-maximum", "stacks-transpose-division"])
def test_hessian_through_indexing_relu_and_stacks_equals_jax(fn, peer, args):
    close(hessian(fn)(*args), jax.jit(jax.hessian(peer))(*args))


W6, V6 = RNG.standard_normal(6), RNG.standard_normal(6)


def along(t):
    """indexed(W6 + t V6): a scalar function, for third derivatives through indexing."""
    w = W6 + t * V6
    m = np.reshape(w, (2, 3))
    picked = m[1] * m[0, ::-1] + m[:, np.array([2, 0, 2])].sum()
    return np.sum(np.sin(picked) * w[3]) + w[0] ** 3


def test_third_derivative_through_indexing_equals_jax():
    def along_jax(t):
        return indexed_jax(W6 + t * V6)

    close(grad(grad(grad(along)))(0.3), jax.jit(jax.grad(jax.grad(jax.grad(along_jax))))(0.3))


def test_hessian_of_a_keras_relu_equals_jax():
    @Phylanx
    def layer(w, x):
        return np.sum(relu(x @ w) ** 3)

    def layer_jax(w, x):
        return jnp.sum(jax.nn.relu(x @ w) ** 3)

    close(hessian(layer)(W, X), jax.jit(jax.hessian(layer_jax))(W, X))


# -- dl30: convolutions and pooling under nested derivatives (their adjoints are primitives)

def _conv_jax(x, k, padding, layout):
    ones = [1] * (k.ndim - 2)
    return jax.lax.conv_general_dilated(x, k, ones, padding, dimension_numbers=layout)


def _window_jax(y, kind, size, strides, padding):
    window, step = (1, *size, 1), (1, *strides, 1)
    if kind == "max":
        return jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, window, step, padding)
    total = jax.lax.reduce_window(y, 0.0, jax.lax.add, window, step, padding)
    return total / jax.lax.reduce_window(jnp.ones_like(y), 0.0, jax.lax.add, window, step,
                                         padding)


@Phylanx
def conv_net(x, k2, k1):
    y = conv2d(x, k2, "valid")
    p = max_pool2d(y * y, [2, 2], "same", [2, 2]) + avg_pool2d(y, [2, 2], "same", [2, 2])
    z = conv1d(np.reshape(p, (1, 2, 2)), k1, "causal", 1, 1)
    return np.sum(np.tanh(z)) + np.sum(avg_pool2d(y, [2, 1], "valid", [1, 1]) ** 3)


def conv_net_jax(x, k2, k1):
    y = _conv_jax(x, k2, "VALID", ("NHWC", "HWIO", "NHWC"))
    p = _window_jax(y * y, "max", (2, 2), (2, 2), "SAME") + \
        _window_jax(y, "avg", (2, 2), (2, 2), "SAME")
    z = _conv_jax(jnp.pad(jnp.reshape(p, (1, 2, 2)), ((0, 0), (1, 0), (0, 0))), k1, "VALID",
                  ("NWC", "WIO", "NWC"))
    return jnp.sum(jnp.tanh(z)) + jnp.sum(_window_jax(y, "avg", (2, 1), (1, 1), "VALID") ** 3)


CONV_ARGS = (RNG.standard_normal((1, 4, 3, 1)), RNG.standard_normal((2, 2, 1, 2)),
             RNG.standard_normal((2, 2, 1)))
DIRECTION = RNG.standard_normal((2, 2, 1, 2))


@jax.jit
def conv_net_hessian_jax(x, k2, k1):
    """Every block of JAX's Hessian, in one compilation (JAX's compile, not phylanx, is
    what takes the time here)."""
    return jax.hessian(conv_net_jax, (0, 1, 2))(x, k2, k1)


def test_hessian_jacobian_of_grad_and_third_derivative_through_convolutions_equal_jax():
    """Second derivatives through conv2d, conv1d, max and average pooling (each block of
    the Hessian over input, conv2d kernel and conv1d kernel: the mixed ones are the
    kernel adjoint's own derivative with respect to the input), as ``hessian`` and as
    ``jacobian(grad)``, against JAX; a third derivative along a line against central
    differences of the second (the adjoints' own adjoints)."""
    blocks = conv_net_hessian_jax(*CONV_ARGS)
    for i in range(3):
        np.testing.assert_allclose(hessian(conv_net, i)(*CONV_ARGS), blocks[i][i],
                                   rtol=1e-8, atol=1e-10, err_msg=f"block {i}")
    np.testing.assert_allclose(jacobian(grad(conv_net, 1), 0)(*CONV_ARGS), blocks[1][0],
                               rtol=1e-8, atol=1e-10)
    x, k2, k1 = CONV_ARGS

    def along(t):
        return conv_net(x, k2 + t * DIRECTION, k1)

    second = grad(grad(along))
    step = 1e-5
    numeric = (second(0.2 + step) - second(0.2 - step)) / (2 * step)
    np.testing.assert_allclose(grad(grad(grad(along)))(0.2), numeric, rtol=1e-5, atol=1e-6)


@Phylanx
def strided_net(x, k):
    y = conv2d(x, k, "same", [2, 2], [1, 1]) + conv2d(x, k, "valid", [1, 1], [2, 1])[:, :2]
    return np.sum(max_pool2d(y * y, [3, 2], "same", [1, 2])) \
        + np.sum(avg_pool2d(np.tanh(y), [2, 2], "same", [1, 1]) ** 3)


def strided_net_jax(x, k):
    layout = ("NHWC", "HWIO", "NHWC")
    same = jax.lax.conv_general_dilated(x, k, (2, 2), "SAME", dimension_numbers=layout)
    dilated = jax.lax.conv_general_dilated(x, k, (1, 1), "VALID", rhs_dilation=(2, 1),
                                           dimension_numbers=layout)
    y = same + dilated[:, :2]
    return jnp.sum(_window_jax(y * y, "max", (3, 2), (1, 2), "SAME")) \
        + jnp.sum(_window_jax(jnp.tanh(y), "avg", (2, 2), (1, 1), "SAME") ** 3)


def test_hessian_through_strided_dilated_convolutions_and_overlapping_pools_equals_jax():
    """Guard of dl30's adjoints (passes at 91c15ea; before it, 392732a refused nested
    grad through pooling; the test above has stride 1 and windows equal to their
    strides): a strided "same" and a dilated convolution, max pooling
    with overlapping windows and "same" padding (strides != pool size), and average
    pooling counting the padded edge cells out; the Hessian over the kernel."""
    x, k = RNG.standard_normal((1, 4, 3, 2)), RNG.standard_normal((2, 2, 2, 2))
    want = jax.jit(jax.hessian(strided_net_jax, 1))(x, k)
    np.testing.assert_allclose(hessian(strided_net, 1)(x, k), want, rtol=1e-8, atol=1e-10)
