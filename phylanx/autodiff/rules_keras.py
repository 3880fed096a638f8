"""VJP rules of the keras_support kernels: activations, softmax, bias_add, l2_normalize,
the cross-entropy losses, convolutions and pooling.

Convolutions and pooling: their VJPs are their adjoints, which are primitives too
(``primitives/keras_support/adjoints.py``: the kernels, a loop over the kernel taps) whose
own rules, written as equations here, are each other's: nested ``grad`` records them.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.special

from ..errors import PhylanxValueError
from ..primitives.keras_support.conv import conv1d_keeping, conv2d_keeping
from .equations import eq, equation_rule, shape_of
from .rule_helpers import (
    POOLS,
    arr,
    class_labels,
    conv_cotangents,
    is_wanted,
    log_softmax,
    masked,
    pool_cotangent,
    reduced_axes,
    selective,
    stable_softmax,
    to_bool,
)
from .saved import KEEPING, Keeping
from .table import VJP

EPSILON = 1e-7      # Keras' clipping of probabilities, as in the loss kernels


@VJP.register("sigmoid")
def sigmoid_vjp(ct, out, x):
    s = np.asarray(out)
    return (ct * s * (1.0 - s),)


@VJP.register("softplus")
def softplus_vjp(ct, out, x):
    return (ct * scipy.special.expit(arr(x)),)


@VJP.register("softsign")
def softsign_vjp(ct, out, x):
    return (ct / (1.0 + np.abs(arr(x))) ** 2,)


@VJP.register("hard_sigmoid")
def hard_sigmoid_vjp(ct, out, x):
    inner = 0.2 * arr(x) + 0.5
    return (np.where((inner > 0) & (inner < 1), 0.2 * np.asarray(ct), 0.0),)


NOT_AN_OPERAND = object()   # relu's alpha left at its default: no cotangent wanted for it


@VJP.register("relu")
def relu_vjp(ct, out, x, alpha=NOT_AN_OPERAND, max_value=None, threshold=0.0):
    x = arr(x)
    ct = np.asarray(ct)
    wants_alpha = alpha is not NOT_AN_OPERAND
    alpha = alpha if wants_alpha else 0.0
    if max_value is None and float(alpha) == 0.0 and ct.shape == x.shape:
        # the plain relu of a layer: ct masked, in its own dtype (the general
        # form below multiplies by a float64 slope array, many passes, and promotes
        # float32); d/d alpha = sum over x < threshold of ct * (x - threshold), one dot,
        # computed only when alpha was an operand (a layer's relu(x) does not pass it);
        # d/d threshold = -alpha * ... = 0; slope 1 above max(threshold, 0) (values
        # at or above a negative threshold are clamped at 0); at the kink the slope
        # from below, 0 (jax.nn.relu's, TensorFlow's, PyTorch's; until ad46 1)
        passed = masked(x > max(float(threshold), 0.0), ct)   # (rule_helpers.masked)
        if not wants_alpha:
            return (passed,)
        d_alpha = np.vdot(ct, np.minimum(x - float(threshold), 0)) if x.size else 0.0
        return (passed, d_alpha, None, 0.0)
    below = x <= float(threshold)        # at the threshold: the slope from below, alpha
    capped = np.zeros(x.shape, bool) if max_value is None else x >= float(max_value)
    clamped = ~below & (x <= 0)          # at or above a negative threshold: 0 (the original)
    # the slopes in the cotangent's float dtype: a float32 layer's stays float32
    dtype = np.result_type(ct.dtype, x.dtype, np.float16)
    slope = np.where(below, np.asarray(alpha, dtype), np.asarray(1, dtype))
    slope[capped | clamped] = 0
    leak = below & ~capped
    return (ct * slope,
            np.sum(np.where(leak, ct * (x - float(threshold)), 0.0)),
            None if max_value is None else np.sum(np.where(capped, ct, 0.0)),
            np.sum(np.where(leak, -float(alpha) * ct, 0.0)))


@VJP.register("elu")
def elu_vjp(ct, out, x, alpha):
    x = arr(x)
    ct = np.asarray(ct)
    negative = np.expm1(np.minimum(x, 0))
    return (ct * np.where(x > 0, 1.0, float(alpha) * (negative + 1.0)),
            np.sum(np.where(x > 0, 0.0, ct * negative)))


@VJP.register("softmax")
def softmax_vjp(ct, out, x, axis=-1):
    s = np.asarray(out)
    ct = np.asarray(ct)
    if s.ndim == 0:
        return (np.zeros_like(ct),)
    ax = int(axis) % s.ndim
    return (s * (ct - np.sum(ct * s, axis=ax, keepdims=True)),)


@VJP.register("bias_add")
def bias_add_vjp(ct, out, x, bias):
    ct = np.asarray(ct)
    lead = ct.ndim - np.ndim(bias)
    return ct, ct.sum(axis=tuple(range(lead)))


@VJP.register("l2_normalize")
def l2_normalize_vjp(ct, out, x, axis=None):
    v = arr(x)
    axes = reduced_axes(axis, v.ndim) or None
    square_sum = np.sum(v * v, axis=axes, keepdims=True)
    norm = np.sqrt(np.maximum(square_sum, 1e-12))
    ct = np.asarray(ct)
    # below the floor the norm is a constant: only the division by it remains
    projected = np.where(square_sum > 1e-12, np.sum(ct * v, axis=axes, keepdims=True), 0.0)
    return (ct / norm - v * projected / norm ** 3,)


@VJP.register("binary_crossentropy")
def binary_crossentropy_vjp(ct, out, target, output, from_logits=False):
    t, o = arr(target), arr(output)
    ct = np.asarray(ct)
    if to_bool(from_logits):
        return ct * -o, ct * (scipy.special.expit(o) - t)
    p = np.clip(o, EPSILON, 1 - EPSILON)
    inside = (o > EPSILON) & (o < 1 - EPSILON)          # clipped values are constants
    d_output = np.where(inside, -(t / p) + (1 - t) / (1 - p), 0.0)
    return ct * -(np.log(p) - np.log1p(-p)), ct * d_output


@VJP.register("categorical_crossentropy")
def categorical_crossentropy_vjp(ct, out, target, output, from_logits=False, axis=-1):
    """The result is ``list(loss, output')``; only the loss may carry a gradient.  The
    0-d form is the loss alone, ``-target * log(1 - eps)`` (one class: the normalised
    output is 1, clipped, so it carries no gradient)."""
    if arr(output).ndim == 0:
        per_target = 0.0 if to_bool(from_logits) else -math.log(1 - EPSILON)  # (weak)
        ct = np.asarray(ct)
        zero = np.zeros_like(ct, dtype=np.result_type(ct, 0.0))
        return ct * per_target, zero
    ct_loss, ct_probs = ct
    if ct_probs is not None and np.any(np.asarray(ct_probs)):
        raise PhylanxValueError("the gradient of the second result of "
                                "categorical_crossentropy (the clipped output) is not computed")
    t, o = arr(target), arr(output)
    ax = int(axis) % o.ndim
    if ct_loss is None:
        return None, None
    g = np.expand_dims(np.asarray(ct_loss), ax)
    if to_bool(from_logits):
        log_probs = log_softmax(o, ax)
        probs = np.exp(log_probs)
        return (-g * log_probs,
                g * (probs * np.sum(t, axis=ax, keepdims=True) - t))
    total = np.sum(o, axis=ax, keepdims=True)
    q = o / total
    probs = np.clip(q, EPSILON, 1 - EPSILON)
    inside = (q > EPSILON) & (q < 1 - EPSILON)
    d_q = np.where(inside, -t / probs, 0.0)              # d loss / d (o / sum o)
    d_output = (d_q - np.sum(d_q * q, axis=ax, keepdims=True)) / total
    return -g * np.log(probs), g * d_output


@VJP.register("softmax_crossentropy")
@selective
def softmax_crossentropy_vjp(ct, out, target, logits, sparse=False, wanted=None):
    """``ct * (softmax(z) * sum(t) - t) / samples`` for the logits (sparse: ``t`` one-hot),
    ``ct * -log_softmax(z) / samples`` for dense targets."""
    z = arr(logits)
    scale = np.asarray(ct, dtype=z.dtype) / max(1, z.size // max(1, z.shape[-1]))
    probs = stable_softmax(z, -1)                      # a new array: updated in place
    d_target = None
    if to_bool(sparse):
        labels = class_labels(target, z)
        rows = probs.reshape(-1, z.shape[-1])          # a view: probs is our own array
        rows[np.arange(rows.shape[0]), labels.reshape(-1)] -= 1
        d_logits = probs
    else:
        t = arr(target)
        d_logits = probs * np.sum(t, axis=-1, keepdims=True) - t
        if is_wanted(wanted, 0):              # the exact log-softmax, not log(probs)
            d_target = -scale * log_softmax(z, -1)
    if not is_wanted(wanted, 1):
        return d_target, None
    d_logits *= scale
    return d_target, d_logits


# -- convolutions and pooling: kernels in primitives/keras_support/adjoints.py ---------------
@selective
def _conv_vjp(ct, out, x, kernel, padding="valid", strides=1, dilation_rate=1, *,
              wanted=None, saved=None):
    """``saved``: the forward's window matrix (``saved.py``), for the kernel's cotangent."""
    return conv_cotangents(x, kernel, ct, padding, strides, dilation_rate,
                           is_wanted(wanted, 0), is_wanted(wanted, 1), windows=saved)


VJP.register("conv1d", "conv2d")(_conv_vjp)
# the kernel's cotangent multiplies the forward's window matrix again: keep it
KEEPING["conv1d"] = Keeping(conv1d_keeping, arrays=(0, 1), for_operands=(1,))
KEEPING["conv2d"] = Keeping(conv2d_keeping, arrays=(0, 1), for_operands=(1,))


def _pool_vjp(name: str):
    def rule(ct, out, x, pool_size, padding="valid", strides=None):
        return (pool_cotangent(ct, x, out, name, pool_size, padding, strides),)
    rule.__name__ = f"{name}_vjp"
    return rule


for _name in POOLS:
    VJP.defrule(_name, _pool_vjp(_name))


# the adjoints as primitives (nested grad): each other's VJPs, written as equations
CONVOLUTIONS = {3: "conv1d", 4: "conv2d"}      # by the kernel's rank


@VJP.register("__conv_input_adjoint")
@equation_rule
def conv_input_adjoint_vjp(ct, out, g, kernel, like, padding="valid", strides=1,
                           dilation_rate=1, wanted=None):
    """out = A_k^T g, so <ct, out> = sum(conv(ct, k) * g): g's cotangent conv(ct, k), the
    kernel's that of the kernel in that convolution."""
    conv = CONVOLUTIONS[len(shape_of(kernel))]
    settings = (padding, strides, dilation_rate)
    return (eq(conv, ct, kernel, *settings) if is_wanted(wanted, 0) else None,
            eq("__conv_kernel_adjoint", ct, g, kernel, *settings)
            if is_wanted(wanted, 1) else None, None)


@VJP.register("__conv_kernel_adjoint")
@equation_rule
def conv_kernel_adjoint_vjp(ct, out, x, g, like, padding="valid", strides=1,
                            dilation_rate=1, wanted=None):
    """<ct, out> = sum(conv(x, ct) * g): x's cotangent is the input adjoint of g through
    the kernel ct, g's the convolution conv(x, ct)."""
    conv = CONVOLUTIONS[len(shape_of(like))]
    settings = (padding, strides, dilation_rate)
    return (eq("__conv_input_adjoint", g, ct, x, *settings) if is_wanted(wanted, 0) else None,
            eq(conv, x, ct, *settings) if is_wanted(wanted, 1) else None, None)


@VJP.register("__pool_adjoint")
@equation_rule
def pool_adjoint_vjp(ct, out, g, x, name, pool_size, padding="valid", strides=None,
                     wanted=None):
    """Linear in g, x only chooses the routes (constant almost everywhere): g's
    cotangent is ct read through the same routes."""
    return (eq("__pool_gather", ct, x, name, pool_size, padding, strides)
            if is_wanted(wanted, 0) else None, None)


@VJP.register("__pool_gather")
@equation_rule
def pool_gather_vjp(ct, out, g, x, name, pool_size, padding="valid", strides=None,
                    wanted=None):
    return (eq("__pool_adjoint", ct, x, name, pool_size, padding, strides)
            if is_wanted(wanted, 0) else None, None)
