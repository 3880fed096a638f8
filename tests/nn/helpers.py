"""Shared helpers of the nn tests: the gradient a compiled training step computes, and
the loss it reports, evaluated in float64 so that finite differences are meaningful."""
from __future__ import annotations

import numpy as np

from phylanx import nn


def step_loss_and_gradient(model, x, y, params, seed=0):
    """(loss, gradients) of the model's compiled train step at ``params`` (float64),
    read from one plain-SGD update with learning rate 1: new = params - gradient."""
    step = model._program("train")
    fixed = [w.value.astype(np.float64) for w in step.fixed]
    nn.set_seed(seed)                     # the same dropout mask at every evaluation
    loss, _, new, _, _ = step(*params, *fixed, x, y, np.float64(1.0), np.float64(1.0))
    return float(loss), [p - n for p, n in zip(params, new)]


def numerical_gradient(model, x, y, params, index, eps=1e-6, seed=0):
    """Central differences of the step's loss for parameter ``index``."""
    p = params[index]
    grad = np.zeros_like(p)
    for pos in np.ndindex(p.shape):
        values = []
        for sign in (1, -1):
            moved = [q.copy() for q in params]
            moved[index][pos] += sign * eps
            values.append(step_loss_and_gradient(model, x, y, moved, seed)[0])
        grad[pos] = (values[0] - values[1]) / (2 * eps)
    return grad
