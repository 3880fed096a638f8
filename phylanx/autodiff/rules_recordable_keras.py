"""Equation forms of the Keras rules without a one-line derivative: ``elu`` (its
``alpha`` gets a cotangent) and the cross-entropy losses (for nested differentiation;
the element-wise activations are in :mod:`.rules_recordable`).

Each is its kernel rule's formula written with primitives.  What the kernel decides
from the primal values only to select (``elu``'s sign of ``x``, the probabilities
clipped at Keras' epsilon, a sparse target's one-hot rows) is a constant of the
derivative, as in the kernel rule; ``clip`` itself is recorded (its form keeps the
clipped values constant).  ``tests/autodiff/test_second_order.py`` checks them.
"""
from __future__ import annotations

import math

import numpy as np

from . import rules_keras  # noqa: F401 (the rules)
from .equations import eq
from .rule_helpers import arr, class_labels, is_wanted, to_bool
from .rules_keras import EPSILON
from .rules_recordable import recordable


@recordable("elu")
def elu_equations(ct, out, x, alpha, wanted=None):
    v = arr(x)
    positive = (v > 0).astype(np.result_type(v, 1.0))
    negative = 1.0 - positive
    curve = eq("exp", eq("minimum", x, 0.0))        # exp(x) where x <= 0
    slope = eq("__add", positive, eq("__mul", negative, eq("__mul", alpha, curve)))
    return (eq("__mul", ct, slope),
            eq("sum", eq("__mul", eq("__mul", ct, negative), eq("__sub", curve, 1.0))))


def _log_odds(p):
    return eq("__sub", eq("log", p), eq("log", eq("__sub", 1.0, p)))


@recordable("binary_crossentropy")
def binary_crossentropy_equations(ct, out, target, output, from_logits=False, wanted=None):
    if to_bool(from_logits):
        return (eq("__mul", ct, eq("__minus", output)),
                eq("__mul", ct, eq("__sub", eq("sigmoid", output), target)))
    o = arr(output)
    inside = ((o > EPSILON) & (o < 1 - EPSILON)).astype(np.result_type(o, 1.0))
    p = eq("clip", output, EPSILON, 1 - EPSILON)
    d_output = eq("__sub", eq("__div", eq("__sub", 1.0, target), eq("__sub", 1.0, p)),
                  eq("__div", target, p))
    return (eq("__mul", ct, eq("__minus", _log_odds(p))),
            eq("__mul", ct, eq("__mul", inside, d_output)))


@recordable("categorical_crossentropy")
def categorical_crossentropy_equations(ct, out, target, output, from_logits=False, axis=-1,
                                       wanted=None):
    o = arr(output)
    if o.ndim == 0:                 # the 0-d form: -target log(1 - eps) (the kernel's)
        per_target = 0.0 if to_bool(from_logits) else -math.log(1 - EPSILON)
        return eq("__mul", ct, per_target), None
    ct_loss, ct_probs = ct
    if ct_probs is not None and np.any(np.asarray(ct_probs)):
        return None                 # the clipped output's gradient: the kernel refuses it
    if ct_loss is None:
        return None, None
    ax = int(axis) % o.ndim
    g = eq("expand_dims", ct_loss, ax)
    if to_bool(from_logits):
        log_probs = eq("__sub", output, eq("logsumexp", output, ax, True))
        return (eq("__mul", eq("__minus", g), log_probs),
                eq("__mul", g, eq("__sub", eq("__mul", eq("exp", log_probs),
                                              eq("sum", target, ax, True)), target)))
    total = eq("sum", output, ax, True)
    q = eq("__div", output, total)
    q_value = o / np.sum(o, axis=ax, keepdims=True)
    inside = ((q_value > EPSILON) & (q_value < 1 - EPSILON)).astype(np.result_type(o, 1.0))
    probs = eq("clip", q, EPSILON, 1 - EPSILON)
    d_q = eq("__mul", inside, eq("__minus", eq("__div", target, probs)))
    d_output = eq("__div", eq("__sub", d_q, eq("sum", eq("__mul", d_q, q), ax, True)), total)
    return eq("__mul", eq("__minus", g), eq("log", probs)), eq("__mul", g, d_output)


@recordable("softmax_crossentropy")
def softmax_crossentropy_equations(ct, out, target, logits, sparse=False, wanted=None):
    z = arr(logits)
    scale = eq("__div", ct, float(max(1, z.size // max(1, z.shape[-1]))))
    probs = eq("softmax", logits, -1)
    if to_bool(sparse):
        labels = class_labels(target, z)
        one_hot = np.eye(z.shape[-1], dtype=np.result_type(z, 1.0))[labels]
        return None, eq("__mul", scale, eq("__sub", probs, one_hot))
    d_target = None
    if is_wanted(wanted, 0):        # the exact log-softmax, not log(probs)
        d_target = eq("__mul", eq("__minus", scale),
                      eq("__sub", logits, eq("logsumexp", logits, -1, True)))
    d_logits = eq("__mul", scale, eq("__sub", eq("__mul", probs, eq("sum", target, -1, True)),
                                     target))
    return d_target, d_logits if is_wanted(wanted, 1) else None
