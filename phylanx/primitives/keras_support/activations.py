"""Keras-support activations: sigmoid, hard_sigmoid, softplus, softsign, relu, elu, softmax.

Element-wise, computed in floating point: bool/int inputs give float64, float32 stays
float32 (``relu`` keeps integers when its parameters are integral).  Every form is
numerically stable: no overflow for large ``|x|``.
"""
from __future__ import annotations

import numpy as np

from ...values import scalarize
from ..dtypes import to_axis
from ..lazy_modules import lazy_attribute, lazy_module
from ..registry import primitive
from ._windows import as_array, as_float_array, to_float

# SciPy loads on first use (``import phylanx`` stays fast)
scipy = lazy_module("scipy")


@primitive("sigmoid", "sigmoid(_1)", elementwise=True,
           differentiable=True, oracle=lazy_attribute("scipy.special", "expit"),
           example="sigmoid([0., 2.])", result="[0.5, 0.8807970779778823]")
def sigmoid(x):
    """Logistic function 1/(1+exp(-x))."""
    return scalarize(scipy.special.expit(as_float_array(x, "x")))


@primitive("hard_sigmoid", "hard_sigmoid(_1)", elementwise=True,
           differentiable=True,
           oracle=lambda x: np.clip(0.2 * np.asarray(x, dtype=np.result_type(x, 0.0)) + 0.5,
                                    0, 1),
           example="hard_sigmoid([-3., 0., 1., 3.])", result="[0., 0.5, 0.7, 1.]")
def hard_sigmoid(x):
    """Piece-wise linear sigmoid (Keras): clip(0.2*x + 0.5, 0, 1)."""
    return scalarize(np.clip(0.2 * as_float_array(x, "x") + 0.5, 0.0, 1.0))


@primitive("softplus", "softplus(_1)", elementwise=True,
           differentiable=True,
           oracle=lambda x: np.logaddexp(0, np.asarray(x, dtype=np.result_type(x, 0.0))),
           example="softplus([0.])", result="[0.6931471805599453]")
def softplus(x):
    """log(1 + exp(x)), evaluated as logaddexp(0, x) so that large x do not overflow."""
    return scalarize(np.logaddexp(0, as_float_array(x, "x")))


@primitive("softsign", "softsign(_1)", elementwise=True,
           differentiable=True,
           oracle=lambda x: (lambda f: f / (1 + np.abs(f)))(
               np.asarray(x, dtype=np.result_type(x, 0.0))),
           example="softsign([-3., 1.])", result="[-0.75, 0.5]")
def softsign(x):
    """x / (1 + |x|)."""
    f = as_float_array(x, "x")
    return scalarize(f / (1 + np.abs(f)))


def _relu_oracle(x, alpha=0.0, max_value=None, threshold=0.0):
    # Parameters as Python floats: a float32 input keeps its type (Keras computes in it).
    x = np.asarray(x, dtype=np.result_type(x, 0.0))
    alpha, threshold = float(alpha), float(threshold)
    # the original clamps the values at or above the threshold below at 0 (A.2)
    out = np.where(x >= threshold, np.maximum(x, 0), alpha * (x - threshold))
    if max_value is None:
        return out
    return np.where(x >= max_value, np.asarray(max_value, out.dtype), out)


@primitive("relu", "relu(_1, __arg(_2_alpha, 0.), __arg(_3_max_value, nil), "
           "__arg(_4_threshold, 0.))",
           elementwise=True, differentiable=True,
           oracle=_relu_oracle,
           example="relu([-2., 1., 8.], 0.5, 6.)", result="[-1., 1., 6.]")
def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """Rectified linear unit with a leak, a cap and a threshold (Keras).

    ``max_value`` for x >= max_value, ``max(x, 0)`` for threshold <= x < max_value, and
    ``alpha * (x - threshold)`` below the threshold.  As in the original: int and bool
    input gives float64, and values at or above a negative threshold are clamped at 0
    (Keras keeps them).
    """
    arr = as_array(x, "x")
    params = [to_float(alpha, "alpha"), to_float(threshold, "threshold")]
    if max_value is not None:
        params.append(to_float(max_value, "max_value"))
    # float64 for int and bool input, always, as the original (compat addendum A.2)
    arr = as_float_array(arr, "x")
    alpha_, threshold_ = params[:2]
    if max_value is None and alpha_ == 0.0 and threshold_ == 0.0:
        # the plain relu of every Dense/Conv layer: one pass (the general form makes four)
        # with the same value, NaN included (-inf gives 0 here, NaN = 0 * -inf there)
        return scalarize(np.maximum(arr, arr.dtype.type(0)))
    out = np.where(arr >= threshold_, np.maximum(arr, 0), alpha_ * (arr - threshold_)).astype(
        np.result_type(arr, *params), copy=False)
    if max_value is not None:
        out = np.where(arr >= params[2], np.asarray(params[2], out.dtype), out)
    return scalarize(out)


@primitive("elu", "elu(_1, _2)", elementwise=True,
           differentiable=True,
           oracle=lambda x, alpha: np.where(np.asarray(x) > 0, x, alpha * np.expm1(
               np.minimum(np.asarray(x, dtype=np.result_type(x, 0.0)), 0))),
           example="elu([-1., 2.], 1.)", result="[-0.6321205588285577, 2.]")
def elu(x, alpha):
    """Exponential linear unit: x for x > 0, alpha*(exp(x) - 1) otherwise."""
    f = as_float_array(x, "x")
    a = to_float(alpha, "alpha")
    # expm1 of min(x, 0): the unused branch must not overflow for large positive x.
    return scalarize(np.where(f > 0, f, a * np.expm1(np.minimum(f, 0))))


def stable_softmax(values: np.ndarray, axis: int) -> np.ndarray:
    """Softmax of a float array along ``axis``, shifted by the maximum against overflow."""
    if values.size == 0:
        return values.copy()
    # array methods and an in-place division: small softmaxes (a training step's output
    # layer, right after large products) are mostly the calls' overhead
    exp = np.exp(values - values.max(axis=axis, keepdims=True))
    exp /= exp.sum(axis=axis, keepdims=True)
    return exp


def log_softmax(values: np.ndarray, axis: int) -> np.ndarray:
    """``log(softmax(values))`` along ``axis``, exact (no log of an underflowed 0)."""
    shifted = values - values.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


@primitive("softmax", "softmax(_1)", "softmax(_1, _2)",
           differentiable=True,
           oracle=lambda x, axis=-1: scipy.special.softmax(
               np.asarray(x, dtype=np.result_type(x, 0.0)), axis=axis),
           example="softmax([[1., 1.], [0., 0.]])", result="[[0.5, 0.5], [0.5, 0.5]]")
def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along ``axis`` (default the last), numerically stable."""
    f = as_float_array(x, "x")
    if f.ndim == 0:
        to_axis(axis, 0)
        return scalarize(stable_softmax(f.reshape(1), 0).reshape(()))
    return stable_softmax(f, to_axis(axis, f.ndim))
