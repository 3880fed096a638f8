"""Keras-support tensor helpers: one_hot, bias_add, switch, l2_normalize, batch_dot.

Semantics of the Keras backend (TensorFlow flavour, channels-last).
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import scalarize
from ..dtypes import to_axes, to_int
from ..registry import primitive
from ._windows import as_array, as_float_array


def _one_hot_oracle(indices, num_classes):
    idx = np.asarray(indices)
    if idx.dtype.kind != "i":
        raise TypeError("integer indices only")
    return (idx[..., None] == np.arange(num_classes)).astype(np.float64)


@primitive("one_hot", "one_hot(_1,_2)",
           oracle=_one_hot_oracle,
           example="one_hot([0, 2], 3)", result="[[1., 0., 0.], [0., 0., 1.]]")
def one_hot(indices, num_classes):
    """One-hot encoding of integer ``indices``: shape ``indices.shape + (num_classes,)``.

    The result is float64 0/1 and the indices must be integers, as in the original
    (compat addendum A.2); an index outside ``[0, num_classes)`` gives a row of zeros
    (as TensorFlow's ``one_hot``).
    """
    idx = as_array(indices, "indices")
    if idx.dtype.kind not in "iu":
        raise PhylanxTypeError(f"one_hot: the indices do not hold an integer value type "
                               f"(got {idx.dtype}); convert them with astype(int)")
    depth = to_int(num_classes, "num_classes")
    if depth < 0:
        raise PhylanxValueError(f"num_classes must not be negative, got {depth}")
    return (idx[..., np.newaxis] == np.arange(depth)).astype(np.float64)


def _bias_add_oracle(x, bias):
    x, bias = np.asarray(x), np.asarray(bias)
    if bias.ndim not in (1, x.ndim - 1) or bias.shape[-1] != x.shape[-1]:
        raise ValueError("bad bias")
    if bias.ndim != 1 and bias.shape != x.shape[1:]:
        raise ValueError("bad bias")
    return x + bias if x.dtype.kind == "f" else x.astype(np.float64) + bias


@primitive("bias_add", "bias_add(_1, _2)", differentiable=True,
           oracle=_bias_add_oracle,
           example="bias_add([[1, 2], [3, 4]], [10, 20])", result="[[11., 22.], [13., 24.]]")
def bias_add(x, bias):
    """Add ``bias`` along the last (channels) axis of ``x``.

    ``bias`` is a vector of length ``x.shape[-1]``, or an array of shape ``x.shape[1:]``
    (one bias per position, as Keras allows).
    """
    arr = as_float_array(x, "x")   # float64 for int/bool, as the original (A.2)
    b = as_array(bias, "bias")
    if arr.ndim < 1:
        raise PhylanxValueError("x must be an array with a channels axis, got a scalar")
    if b.ndim == 1 and b.shape[0] == arr.shape[-1]:
        return arr + b
    if arr.ndim > 2 and b.shape == arr.shape[1:]:
        return arr + b
    raise PhylanxValueError(
        f"bias must have shape ({arr.shape[-1]},) or {arr.shape[1:]} to be added to an "
        f"array of shape {arr.shape}, got {b.shape}")


def _switch_oracle(condition, then_expression, else_expression):
    cond = np.asarray(condition).astype(bool)
    then_expression, else_expression = _float(then_expression), _float(else_expression)
    if cond.ndim == 0:
        return then_expression if cond else else_expression
    rank = max(np.ndim(then_expression), np.ndim(else_expression))
    return np.where(cond.reshape(cond.shape + (1,) * (rank - cond.ndim)),
                    then_expression, else_expression)


def _float(value):
    """The original computes switch in float64 (compat addendum A.2); float32 stays."""
    arr = np.asarray(value)
    return value if arr.dtype.kind == "f" else scalarize(arr.astype(np.float64))


def _value(value, what: str):
    # Python floats stay weak in NumPy's promotion (a float32 array with 2.5 stays float32)
    return float(value) if type(value) in (bool, int, float) else as_float_array(value, what)


@primitive("switch", "switch(_1, _2, _3)",
           oracle=_switch_oracle,
           example="switch([true, false], [1, 2], [3, 4])", result="[1., 4.]")
def switch(condition, then_expression, else_expression):
    """Select element-wise between two values by ``condition`` (Keras ``switch``).

    The result is float64 for int and bool values, as in the original (compat addendum
    A.2; it did not turn an inf in the unselected value into NaN, we do not either).
    A scalar condition picks one value whole.  An array condition of lower rank than
    ``then_expression`` applies to its leading axes (it is broadcast over the trailing
    ones); the results are broadcast as ``where`` does.
    """
    cond = as_array(condition, "condition").astype(bool)
    if cond.ndim == 0:
        return _float(then_expression if cond else else_expression)
    then_ = _value(then_expression, "then_expression")
    else_ = _value(else_expression, "else_expression")
    rank = max(np.ndim(then_), np.ndim(else_))
    if cond.ndim > rank:
        raise PhylanxValueError(
            f"condition has rank {cond.ndim}, more than the rank {rank} of the values")
    # the condition covers the leading axes of the value of the highest rank
    cond = cond.reshape(cond.shape + (1,) * (rank - cond.ndim))
    try:
        return scalarize(np.where(cond, then_, else_))
    except ValueError:
        raise PhylanxValueError(
            f"condition of shape {cond.shape} does not match values of shapes "
            f"{np.shape(then_)} and {np.shape(else_)}") from None


_L2_EPSILON = 1e-12


def _l2_oracle(x, axis=None):
    f = np.asarray(x, dtype=np.result_type(x, 0.0))
    return f / np.sqrt(np.maximum(np.sum(f * f, axis=axis, keepdims=True), 1e-12))


@primitive("l2_normalize", "l2_normalize(_1)", "l2_normalize(_1,_2)",
           oracle=_l2_oracle,
           example="l2_normalize([3., 4.])", result="[0.6, 0.8]", differentiable=True)
def l2_normalize(x, axis=None):
    """x / sqrt(max(sum(x**2, axis), 1e-12)): unit L2 norm along ``axis`` (nil: all)."""
    f = as_float_array(x, "x")
    axes = to_axes(axis, f.ndim)
    if f.ndim == 0:
        axes = None
    square_sum = np.sum(f * f, axis=axes, keepdims=True)
    return scalarize(f / np.sqrt(np.maximum(square_sum, _L2_EPSILON)))


def _batch_axes(axes, x_ndim: int, y_ndim: int) -> tuple[int, int]:
    """Keras' batch_dot axes: nil -> (last of x, y's second-last or last if y is 2-d)."""
    if axes is None:
        pair = [x_ndim - 1, y_ndim - 1 if y_ndim == 2 else y_ndim - 2]
    else:
        if isinstance(axes, np.ndarray):
            axes = axes.tolist() if axes.ndim else axes[()]
        items = list(axes) if isinstance(axes, (list, tuple)) else [axes, axes]
        if len(items) != 2:
            raise PhylanxValueError(f"axes must be an integer or a list of two, got {axes}")
        pair = [to_int(items[0], "axes[0]"), to_int(items[1], "axes[1]")]
    for i, ndim in enumerate((x_ndim, y_ndim)):
        if not -ndim <= pair[i] < ndim:
            raise PhylanxValueError(f"axes[{i}] = {pair[i]} is out of bounds for a "
                                    f"{ndim}-d array")
        pair[i] %= ndim
    if 0 in pair:
        raise PhylanxValueError("batch_dot cannot reduce over axis 0 (the batch axis)")
    return pair[0], pair[1]


@primitive("batch_dot", "batch_dot(_1, _2)", "batch_dot(_1, _2, _3)",
           no_oracle="Keras semantics with no NumPy counterpart; checked against "
           "per-sample tensordot in tests/primitives/test_keras_support.py",
           example="batch_dot([[1, 2], [3, 4]], [[5, 6], [7, 8]])", result="[[17], [53]]")
def batch_dot(x, y, axes=None):
    """Per-sample dot product over axis 0 (Keras ``batch_dot``).

    For each ``i``, ``tensordot(x[i], y[i])`` over ``axes = (ax, ay)`` (an integer means
    the same axis of both; nil means x's last and y's second-last axis, or y's last if
    y is 2-d).  The result has x's remaining axes then y's; a result with only the
    batch axis left gets shape ``(batch, 1)``.
    """
    a = as_array(x, "x")
    b = as_array(y, "y")
    if a.ndim < 2 or b.ndim < 2:
        raise PhylanxValueError(f"batch_dot needs arrays of rank >= 2, got shapes {a.shape} "
                                f"and {b.shape}")
    if a.shape[0] != b.shape[0]:
        raise PhylanxValueError(f"batch sizes differ: {a.shape[0]} and {b.shape[0]}")
    ax, ay = _batch_axes(axes, a.ndim, b.ndim)
    if a.shape[ax] != b.shape[ay]:
        raise PhylanxValueError(f"cannot reduce axis {ax} of length {a.shape[ax]} of x "
                                f"with axis {ay} of length {b.shape[ay]} of y")
    a_moved = np.moveaxis(a, ax, -1)            # (B, *rest_x, K)
    b_moved = np.moveaxis(b, ay, 1)             # (B, K, *rest_y)
    rest_x, rest_y = a_moved.shape[1:-1], b_moved.shape[2:]
    batch, depth = a.shape[0], a.shape[ax]
    product = np.matmul(a_moved.reshape(batch, int(np.prod(rest_x)), depth),
                        b_moved.reshape(batch, depth, int(np.prod(rest_y))))
    result = product.reshape((batch, *rest_x, *rest_y))
    return result.reshape(batch, 1) if result.ndim == 1 else result
