"""A float32 model's training step computes its cotangents in float32.

Every cotangent a VJP rule returns inside the compiled step (the ``vjp`` primitives,
before they fit it to the operand) is checked: a float64 one means a rule upcast the
backward pass, which then paid for float64 arrays and a cast back.  The model has the
layers whose rules did so before: relu, dropout (a boolean mask and a Python-float
scale), a softmax output.
"""
from __future__ import annotations

import numpy as np

from phylanx import nn
from phylanx.primitives.keras_support import gradients


def _leaves(value):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, np.ndarray):
        yield value


def test_a_float32_steps_cotangents_are_float32(monkeypatch):
    seen = []
    apply = gradients.apply_vjp

    def recording(rule, ct, out, operands, wanted):
        grads = apply(rule, ct, out, operands, wanted)
        seen.extend((getattr(rule, "__name__", "?"), g.dtype, g.shape)
                    for g in _leaves(list(grads)))
        return grads

    monkeypatch.setattr(gradients, "apply_vjp", recording)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 8)).astype(np.float32)
    y = rng.integers(0, 3, 32)
    nn.set_seed(0)
    model = nn.Sequential([nn.Input((8,)), nn.Dense(16, activation="relu"),
                           nn.Dropout(0.5), nn.Dense(3, activation="softmax")])
    model.compile(nn.SGD(0.1), "sparse_categorical_crossentropy")
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    assert {name for name, _, _ in seen} >= {"mul_vjp"}, "the dropout's rules did not run"
    upcast = [s for s in seen if s[1] != np.float32 and len(s[2]) > 0]
    assert not upcast, f"float64 cotangents in a float32 step: {upcast}"
    assert all(w.dtype == np.float32 for w in model.get_weights())
