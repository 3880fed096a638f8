"""A training step is one compiled tree: compiled once for every batch and epoch, and its
results equal a NumPy implementation of the same model and optimizer step."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import execution_tree, nn
from phylanx.autodiff import recording

RNG = np.random.default_rng(7)


def _mlp(seed=0):
    nn.set_seed(seed)
    return nn.Sequential([nn.Input((6,)), nn.Dense(8, activation="relu"),
                          nn.Dense(5, activation="tanh"), nn.Dense(3, activation="softmax")])


def _numpy_forward_backward(ws, x, labels):
    """Loss and gradients of the 6-8-5-3 MLP with mean sparse categorical cross-entropy."""
    w1, b1, w2, b2, w3, b3 = ws
    z1 = x @ w1 + b1
    h1 = np.maximum(z1, 0)
    h2 = np.tanh(h1 @ w2 + b2)
    z3 = h2 @ w3 + b3
    e = np.exp(z3 - z3.max(1, keepdims=True))
    p = e / e.sum(1, keepdims=True)
    n = len(x)
    onehot = np.eye(3)[labels]
    loss = -np.mean(np.log(np.clip(p, 1e-7, 1 - 1e-7))[np.arange(n), labels])
    dz3 = (p - onehot) / n
    dh2 = dz3 @ w3.T
    dz2 = dh2 * (1 - h2 ** 2)
    dh1 = dz2 @ w2.T
    dz1 = dh1 * (z1 > 0)
    grads = [x.T @ dz1, dz1.sum(0), h1.T @ dz2, dz2.sum(0), h2.T @ dz3, dz3.sum(0)]
    return loss, grads


def _numpy_training(ws, x, y, optimizer, batch, epochs):
    ws = [w.astype(np.float64) for w in ws]
    slots = [np.zeros_like(w) for w in ws], [np.zeros_like(w) for w in ws]
    t = 0
    losses = []
    for _ in range(epochs):
        for start in range(0, len(x), batch):
            loss, grads = _numpy_forward_backward(ws, x[start:start + batch],
                                                  y[start:start + batch])
            losses.append(loss)
            t += 1
            for i, g in enumerate(grads):
                ws[i] = _numpy_update(optimizer, ws[i], g, slots[0], slots[1], i, t)
    return ws, losses


def _numpy_update(opt, w, g, s0, s1, i, t):
    if isinstance(opt, nn.SGD):
        s0[i] = opt.momentum * s0[i] - opt.learning_rate * g
        if opt.nesterov:
            return w + opt.momentum * s0[i] - opt.learning_rate * g
        return w + s0[i] if opt.momentum else w - opt.learning_rate * g
    if isinstance(opt, nn.Adam):
        s0[i] = opt.beta_1 * s0[i] + (1 - opt.beta_1) * g
        s1[i] = opt.beta_2 * s1[i] + (1 - opt.beta_2) * g * g
        alpha = opt.learning_rate * np.sqrt(1 - opt.beta_2 ** t) / (1 - opt.beta_1 ** t)
        return w - alpha * s0[i] / (np.sqrt(s1[i]) + opt.epsilon)
    s0[i] = opt.rho * s0[i] + (1 - opt.rho) * g * g
    return w - opt.learning_rate * g / np.sqrt(s0[i] + opt.epsilon)


OPTIMIZERS = [lambda: nn.SGD(0.1), lambda: nn.SGD(0.05, momentum=0.9),
              lambda: nn.SGD(0.05, momentum=0.9, nesterov=True), lambda: nn.Adam(0.01),
              lambda: nn.RMSprop(0.01)]


@pytest.mark.parametrize("make", OPTIMIZERS, ids=["sgd", "momentum", "nesterov", "adam",
                                                   "rmsprop"])
def test_training_matches_numpy(make):
    x = RNG.normal(size=(40, 6)).astype(np.float32)
    y = RNG.integers(0, 3, 40)
    model = _mlp()
    start = model.get_weights()
    model.compile(make(), "sparse_categorical_crossentropy")
    history = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)
    expected, losses = _numpy_training(start, x.astype(np.float64), y, make(), 16, 3)
    for got, want in zip(model.get_weights(), expected):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5)
    # History's loss is the epoch's mean over samples of the batch losses
    sizes = np.array([16, 16, 8] * 3)
    per_epoch = (np.array(losses) * sizes).reshape(3, 3).sum(1) / 40
    np.testing.assert_allclose(history.history["loss"], per_epoch, rtol=1e-5)


def test_the_step_is_compiled_once_for_all_batches_and_epochs(monkeypatch):
    compiled, recorded = [], []
    original = execution_tree.compiler_state.compile_text
    monkeypatch.setattr(execution_tree.compiler_state, "compile_text",
                        lambda self, *a, **k: compiled.append(1) or original(self, *a, **k))
    monkeypatch.setattr(recording.RecordingCompiler, "__init__",
                        lambda *a, **k: recorded.append(1))
    x = RNG.normal(size=(50, 6)).astype(np.float32)
    y = RNG.integers(0, 3, 50)
    model = _mlp()
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    before = dict(nn.COMPILATIONS)
    # 40 training samples in batches of 16, 16 and 8 over 4 epochs; then 50 in batches
    # of 7 (seven of 7 and one of 1) over 2 epochs: batch sizes never recompile
    model.fit(x, y, batch_size=16, epochs=4, verbose=0, validation_split=0.2)
    model.fit(x, y, batch_size=7, epochs=2, verbose=0)
    model.evaluate(x, y, verbose=0)
    assert nn.COMPILATIONS["train"] - before.get("train", 0) == 1
    assert nn.COMPILATIONS["test"] - before.get("test", 0) == 1
    assert len(compiled) == 2            # the train and the test function, nothing else
    assert recorded == []                # no tape: the backward pass is part of the tree
    assert model.optimizer.iterations == 4 * 3 + 2 * 8


def test_the_step_holds_forward_backward_and_update_in_one_function():
    model = _mlp()
    model.compile(nn.SGD(momentum=0.5), "sparse_categorical_crossentropy")
    model.fit(np.zeros((4, 6)), np.zeros(4, int), verbose=0)
    text = model._program("train").text
    assert text.startswith("define(train_step, ")
    assert text.count("define(train_step") == 1
    # forward (dense products), backward (generated dot and vjp statements), update
    assert "vjp_of(\"softmax_crossentropy\"" in text and "transpose(param4)" in text
    assert "velocity" in text and "learning_rate" in text


def test_independent_products_of_the_backward_pass_are_separate_statements():
    """d kernel and d input of a Dense layer are two statements, so the block's overlap
    planner can run them concurrently."""
    from phylanx.compiler.dependencies import overlap_plan
    model = _mlp()
    model.compile("sgd", "sparse_categorical_crossentropy")
    model.fit(np.zeros((4, 6)), np.zeros(4, int), verbose=0)
    fn = model._program("train").function
    block = fn.body if fn.body.primitive == "block" else fn.body.children[0]
    stmts = list(block.children)
    plan = overlap_plan(stmts)
    overlapping = [stmts[i].instance for i in plan]
    assert any("_ct" in name for name in overlapping), overlapping


def test_float32_throughout():
    model = _mlp()
    model.compile("adam", "sparse_categorical_crossentropy")
    model.fit(RNG.normal(size=(8, 6)), RNG.integers(0, 3, 8), verbose=0)
    assert all(w.dtype == np.float32 for w in model.get_weights())
    assert all(s.dtype == np.float32 for s in model.optimizer.state["m"])
    assert model.predict(RNG.normal(size=(3, 6))).dtype == np.float32
    assert phylanx.evaluate("1.0") == 1.0


def test_a_first_conv_layer_asks_for_its_kernels_cotangents_only(monkeypatch):
    """The input batch needs no cotangent: the first Conv1D's rule gets ``wanted`` and
    skips the input's (``vjp_of``); training equals the step with every cotangent."""
    from phylanx.autodiff import rules_keras

    def model():
        nn.set_seed(3)
        m = nn.Sequential([nn.Input((20, 9)), nn.Conv1D(8, 3, activation="relu"),
                           nn.Conv1D(4, 3), nn.Flatten(), nn.Dense(2, activation="softmax")])
        m.compile(nn.SGD(0.1), "sparse_categorical_crossentropy")
        return m
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(16, 20, 9)).astype(np.float32), rng.integers(0, 2, 16)
    seen = []
    rule = rules_keras._conv_vjp

    def spying(*args, wanted=None, **kwargs):
        seen.append(wanted)
        return rule(*args, wanted=wanted, **kwargs)
    spying.selective = True
    monkeypatch.setitem(rules_keras.VJP._rules, "conv1d", spying)
    skipping = model()
    skipping.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    assert 'vjp_of("conv1d", list(false, true, false' in skipping._program("train").text
    assert {w[:2] for w in seen} == {(False, True), (True, True)}   # first, second layer
    monkeypatch.setattr(spying, "selective", False)      # every cotangent, through vjp
    every = model()
    every.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    assert 'vjp_of("conv1d"' not in every._program("train").text
    for a, b in zip(skipping.get_weights(), every.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6 * np.abs(b).max())


def test_vjp_of_needs_one_flag_per_operand():
    from phylanx.errors import PhylanxValueError
    with pytest.raises(PhylanxValueError, match="2 wanted flags for 3 operands"):
        phylanx.evaluate('vjp_of("__add", list(true, false), 1.0, 3.0, 1.0, 1.0, 1.0)')
    assert phylanx.evaluate('vjp_of("__mul", list(false, true), 1.0, 6.0, 2.0, 3.0)') == \
        [None, 2.0]
