"""Optimizer options, learning-rate schedules, regularizers, sample weights and the
``*_on_batch`` methods beyond what test_keras_training.py compares with Keras: the
``lr=`` alias, callable learning rates, return forms, and bad input refused with a
located error before any training step (the weights and step count untouched)."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import nn
from phylanx.errors import PhylanxTypeError, PhylanxValueError

RNG = np.random.default_rng(5)
X = RNG.standard_normal((20, 4)).astype(np.float32)
Y = RNG.integers(0, 3, 20)


def _model(optimizer="sgd", metrics=None, **dense):
    nn.clear_session()
    nn.set_seed(4)
    model = nn.Sequential([nn.Input((4,)), nn.Dense(5, activation="relu", **dense),
                           nn.Dense(3, activation="softmax")])
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy",
                  metrics=metrics)
    return model


def _trained_weights(optimizer, **fit):
    model = _model(optimizer)
    model.fit(X, Y, batch_size=5, epochs=2, shuffle=False, verbose=0, **fit)
    return model.get_weights()


def _assert_untrained(model, before):
    assert model.optimizer.iterations == 0
    for a, b in zip(model.get_weights(), before):
        np.testing.assert_array_equal(a, b)


# -- learning rates ---------------------------------------------------------------------
def test_lr_alias_warns_and_trains_as_learning_rate():
    with pytest.deprecated_call(match="lr argument is deprecated"):
        aliased = nn.SGD(lr=0.3)
    assert aliased.learning_rate == 0.3
    for a, b in zip(_trained_weights(aliased), _trained_weights(nn.SGD(learning_rate=0.3))):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("form", ["step", "no_argument"])
def test_callable_learning_rate_is_the_schedule_it_computes(form):
    schedule = nn.schedules.ExponentialDecay(0.3, decay_steps=2, decay_rate=0.5)
    if form == "step":
        rate = lambda step: 0.3 * 0.5 ** (step / 2)     # noqa: E731
    else:   # Keras 3's form: called with nothing; reads the optimizer's step itself
        holder = {}
        rate = lambda: 0.3 * 0.5 ** (holder["opt"].iterations / 2)     # noqa: E731
    optimizer = nn.SGD(learning_rate=rate)
    if form != "step":
        holder["opt"] = optimizer
    ours = _trained_weights(optimizer)
    for a, b in zip(ours, _trained_weights(nn.SGD(learning_rate=schedule))):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    # and the schedule did something: a constant rate ends elsewhere
    constant = _trained_weights(nn.SGD(learning_rate=0.3))
    assert max(np.abs(a - b).max() for a, b in zip(ours, constant)) > 1e-4


def test_schedule_values_follow_keras_formulas():
    s = nn.schedules
    exp = s.ExponentialDecay(0.1, 4, 0.5, staircase=True)
    assert [exp(t) for t in (0, 3, 4, 9)] == pytest.approx([0.1, 0.1, 0.05, 0.025])
    pw = s.PiecewiseConstantDecay([2, 5], [1.0, 0.5, 0.1])
    assert [pw(t) for t in (0, 2, 3, 5, 6)] == pytest.approx([1.0, 1.0, 0.5, 0.5, 0.1])
    inv = s.InverseTimeDecay(1.0, 2, 0.5)
    assert inv(4) == pytest.approx(1 / (1 + 0.5 * 2))
    cos = s.CosineDecay(0.0, 10, alpha=0.0, warmup_target=1.0, warmup_steps=5)
    assert [cos(t) for t in (0, 2, 5, 10, 15, 99)] == pytest.approx(
        [0.0, 0.4, 1.0, 0.5, 0.0, 0.0], abs=1e-6)


def test_a_scheduled_learning_rate_cannot_be_set_to_a_number():
    optimizer = nn.Adam(nn.schedules.ExponentialDecay(0.1, 2, 0.5))
    with pytest.raises(PhylanxTypeError, match="schedule") as info:
        optimizer.learning_rate = 0.01
    assert info.value.loc is not None and info.value.loc.file == __file__


@pytest.mark.parametrize("make", [
    lambda sched: nn.SGD(momentum=sched),
    lambda sched: nn.Adam(beta_1=sched),
    lambda sched: nn.SGD(weight_decay=sched),
    lambda sched: nn.RMSprop(clipnorm=sched),
    lambda sched: nn.SGD(clipvalue=lambda: 0.1),
])
def test_a_schedule_where_only_a_number_goes_is_a_located_error(make):
    with pytest.raises(PhylanxTypeError) as info:
        make(nn.schedules.ExponentialDecay(0.1, 2, 0.5))
    assert "only learning_rate takes one" in info.value.message
    assert info.value.loc is not None and info.value.loc.file == __file__


@pytest.mark.parametrize("options, message", [
    ({"clipnorm": -1.0}, "clipnorm must be a number > 0"),
    ({"clipnorm": 0.0}, "clipnorm must be a number > 0"),
    ({"clipvalue": -0.5}, "clipvalue must be"),
    ({"global_clipnorm": float("nan")}, "global_clipnorm must be"),
    ({"weight_decay": -0.1}, "weight_decay must be a number >= 0"),
    ({"clipnorm": 1.0, "clipvalue": 1.0}, "only one of clipnorm, clipvalue"),
])
def test_bad_optimizer_options_are_located_errors(options, message):
    with pytest.raises(PhylanxValueError, match=message) as info:
        nn.SGD(**options)
    assert info.value.loc is not None and info.value.loc.file == __file__


def test_adamw_needs_a_weight_decay_and_is_adam_with_decay():
    with pytest.raises(PhylanxValueError, match="weight_decay"):
        nn.AdamW(weight_decay=None)
    for a, b in zip(_trained_weights(nn.AdamW(0.01, weight_decay=0.2)),
                    _trained_weights(nn.Adam(0.01, weight_decay=0.2))):
        np.testing.assert_array_equal(a, b)


def test_exclude_from_weight_decay_leaves_those_weights_to_the_plain_update():
    """One step from the same weights (same gradients): the kernels decay as with no
    exclusion, the biases move as with no decay."""
    def one_step(optimizer):
        model = _model(optimizer, bias_initializer="ones")
        model.train_on_batch(X, Y)
        return model.get_weights()

    excluding = nn.SGD(0.1, weight_decay=0.5)
    excluding.exclude_from_weight_decay(var_names=["bias"])
    ours = one_step(excluding)
    everything, plain = one_step(nn.SGD(0.1, weight_decay=0.5)), one_step(nn.SGD(0.1))
    np.testing.assert_array_equal(ours[0], everything[0])
    np.testing.assert_array_equal(ours[1], plain[1])
    assert not np.allclose(everything[1], plain[1])      # (the decay did reach biases)


def test_reduce_lr_on_plateau_refuses_a_schedule_before_any_step():
    model = _model(nn.SGD(nn.schedules.ExponentialDecay(0.1, 2, 0.5)))
    before = model.get_weights()
    with pytest.raises(PhylanxTypeError, match="ReduceLROnPlateau cannot change"):
        model.fit(X, Y, epochs=2, verbose=0,
                  callbacks=[nn.callbacks.ReduceLROnPlateau(monitor="loss")])
    _assert_untrained(model, before)


# -- sample and class weights --------------------------------------------------------------
@pytest.mark.parametrize("fit, message", [
    ({"sample_weight": np.ones(19)}, r"one weight per sample, shape \(20,\)"),
    ({"sample_weight": np.ones((20, 2))}, "one weight per sample"),
    ({"sample_weight": np.r_[np.ones(19), np.nan]}, "must be finite"),
    ({"sample_weight": np.ones(20), "class_weight": {0: 1.0}}, "not both"),
    ({"class_weight": [1.0, 2.0]}, "class_weight must be a dict"),
    ({"class_weight": {"a": 1.0}}, "class_weight's key must be an integer"),
])
def test_bad_sample_or_class_weights_are_refused_before_any_step(fit, message):
    model = _model()
    before = model.get_weights()
    with pytest.raises((PhylanxValueError, PhylanxTypeError), match=message) as info:
        model.fit(X, Y, epochs=1, verbose=0, **fit)
    assert info.value.loc is not None and info.value.loc.file == __file__
    _assert_untrained(model, before)


def test_uniform_sample_weights_are_no_weights_and_zero_weights_leave_samples_out():
    """Keras' sum(w * loss) / n: all ones is the unweighted loss; weights 0 on half the
    samples give half the loss of those samples alone."""
    model = _model()
    plain = model.evaluate(X, Y, verbose=0)
    assert model.evaluate(X, Y, verbose=0, sample_weight=np.ones(20)) == \
        pytest.approx(plain, rel=1e-6)
    w = np.r_[np.ones(10), np.zeros(10)]
    first = model.evaluate(X[:10], Y[:10], verbose=0)
    assert model.evaluate(X, Y, verbose=0, sample_weight=w) == \
        pytest.approx(first / 2, rel=1e-6)


# -- regularizers ----------------------------------------------------------------------------
def test_regularizer_penalty_is_in_the_reported_loss():
    plain = _model()
    regularized = _model(kernel_regularizer=nn.regularizers.l2(0.5))
    kernel = regularized.layers[0].get_weights()[0]
    expected = plain.evaluate(X, Y, verbose=0) + 0.5 * np.square(kernel.astype(np.float64)).sum()
    assert regularized.evaluate(X, Y, verbose=0) == pytest.approx(expected, rel=1e-5)


def test_gru_conv2d_and_layer_normalization_take_their_weights_regularizers():
    """Keras 3's arguments of these layers (they were refused): each penalty of its
    weight (GRU's bias of reset_after two rows) in the reported loss."""
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(6, 5, 4, 2)).astype(np.float32), rng.integers(0, 3, 6)
    options = {"conv": {"kernel_regularizer": nn.regularizers.l2(0.3),
                        "bias_regularizer": nn.regularizers.l1(0.2)},
               "gru": {"kernel_regularizer": nn.regularizers.l1(0.1),
                       "recurrent_regularizer": nn.regularizers.l2(0.2),
                       "bias_regularizer": nn.regularizers.l1_l2(0.1, 0.4)},
               "norm": {"gamma_regularizer": nn.regularizers.l2(0.5),
                        "beta_regularizer": nn.regularizers.l1(0.25)}}

    def build(regularized):
        nn.clear_session()
        nn.set_seed(2)
        given = options if regularized else {k: {} for k in options}
        layers = [nn.Input((5, 4, 2)), nn.Conv2D(3, 2, padding="same", **given["conv"]),
                  nn.Reshape((5, 12)), nn.GRU(4, return_sequences=True, **given["gru"]),
                  nn.LayerNormalization(**given["norm"]), nn.Flatten(),
                  nn.Dense(3, activation="softmax")]
        model = nn.Sequential(layers)
        model.compile("sgd", "sparse_categorical_crossentropy")
        # (weights away from the initialisers' zeros and ones: every term counts)
        model.set_weights([w + rng.uniform(0.1, 0.5, w.shape).astype(np.float32)
                           for w in model.get_weights()])
        return model
    plain, regularized = build(False), build(True)
    plain.set_weights(regularized.get_weights())
    kernel, bias, w, u, b, gamma, beta = (v.astype(np.float64)
                                          for v in regularized.get_weights()[:7])
    assert b.shape == (2, 12)           # (reset_after: both bias rows are penalised)
    penalty = (0.3 * np.square(kernel).sum() + 0.2 * np.abs(bias).sum()
               + 0.1 * np.abs(w).sum() + 0.2 * np.square(u).sum()
               + 0.1 * np.abs(b).sum() + 0.4 * np.square(b).sum()
               + 0.5 * np.square(gamma).sum() + 0.25 * np.abs(beta).sum())
    assert regularized.evaluate(x, y, verbose=0) == pytest.approx(
        plain.evaluate(x, y, verbose=0) + penalty, rel=1e-5)


@pytest.mark.parametrize("make, error, message", [
    (lambda: nn.Dropout(0.5, kernel_regularizer="l2"), PhylanxTypeError, "no kernel weight"),
    (lambda: nn.Dense(2, kernel_regularizer="l3"), PhylanxValueError, "unknown regularizer"),
    (lambda: nn.Dense(2, kernel_regularizer=lambda w: 0.0), PhylanxTypeError,
     "Python function"),
    (lambda: nn.regularizers.L2(-1.0), PhylanxValueError, "l2 must be a number >= 0"),
])
def test_bad_regularizers_are_located_errors(make, error, message):
    with pytest.raises(error) as info:
        make()
    # (the message itself: the error's text quotes the source line, this lambda's)
    assert message in info.value.message
    assert info.value.loc is not None and info.value.loc.file == __file__


def test_regularizers_survive_save_and_load(tmp_path):
    model = _model(kernel_regularizer="l1", activity_regularizer=nn.regularizers.l1_l2(
        l1=0.01, l2=0.02))
    model.save(tmp_path / "m.npz")
    again = nn.load_model(tmp_path / "m.npz")
    assert again.evaluate(X, Y, verbose=0) == pytest.approx(model.evaluate(X, Y, verbose=0))
    assert again.evaluate(X, Y, verbose=0) != pytest.approx(_model().evaluate(X, Y, verbose=0))


# -- one batch ---------------------------------------------------------------------------------
def test_on_batch_return_forms():
    model = _model(nn.SGD(0.1))
    loss = model.train_on_batch(X, Y)
    assert isinstance(loss, float)
    assert model.optimizer.iterations == 1
    assert isinstance(model.test_on_batch(X, Y), float)
    with_metrics = _model(nn.SGD(0.1), metrics=["accuracy"])
    values = with_metrics.train_on_batch(X, Y)
    assert isinstance(values, list) and len(values) == 2
    logs = with_metrics.test_on_batch(X, Y, return_dict=True)
    assert list(logs) == ["loss", "accuracy"]
    assert logs["loss"] == pytest.approx(with_metrics.evaluate(X, Y, verbose=0)[0], rel=1e-6)
    np.testing.assert_array_equal(with_metrics.predict_on_batch(X[:3]),
                                  with_metrics.predict(X[:3]))


def test_model_parallel_takes_the_optimizer_options_and_regularizers():
    """One locality (every block whole): the same as one process's ``fit``; on 2 and 3
    ranks, tests/distributed/programs/nn_model_parallel_fit.py."""
    def run(**fit):
        model = _model(nn.SGD(0.1, momentum=0.9, global_clipnorm=0.1, weight_decay=0.1),
                       kernel_regularizer="l2", activity_regularizer="l1")
        history = model.fit(X, Y, batch_size=5, epochs=2, shuffle=False, verbose=0, **fit)
        return history.history["loss"], model.get_weights()
    (got, got_w), (want, want_w) = run(distributed="model"), run()
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for a, b in zip(got_w, want_w, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_saved_model_keeps_its_schedule_and_optimizer_options(tmp_path):
    schedule = nn.schedules.CosineDecay(0.01, 10, warmup_target=0.1, warmup_steps=3)
    model = _model(nn.AdamW(schedule, weight_decay=0.01, global_clipnorm=2.0))
    model.save(tmp_path / "m.npz")
    again = nn.load_model(tmp_path / "m.npz")
    assert type(again.optimizer) is nn.AdamW
    assert again.optimizer.get_config() == model.optimizer.get_config()
    assert isinstance(again.optimizer.schedule, nn.schedules.CosineDecay)
    model.fit(X, Y, epochs=1, shuffle=False, verbose=0)
    again.fit(X, Y, epochs=1, shuffle=False, verbose=0)
    for a, b in zip(again.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)
