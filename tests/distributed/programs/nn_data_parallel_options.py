"""Data-parallel ``fit`` with Keras 3's training options == single-process ``fit``
(run under mpiexec): sample weights and class weights (each rank weighs its shard), a
global gradient norm clip and weight decay (applied to the all-reduced gradients, not
to a shard's), and kernel/activity regularizers (each penalty counted once, the
activity penalty over the global batch), and a model of two outputs (a loss, a loss
weight and a metric each, sample weights for one: each output's loss and metric
all-reduced as the total).  Weighted metrics (compile's ``weighted_metrics``) too:
the ranks' weighted sums and weight totals add up to the global batch's.
Prints ``OK <rank>``."""
import numpy as np

from phylanx import distributed as dist
from phylanx import nn


def data(n=30):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((n, 5)).astype(np.float32)
    return x, rng.integers(0, 3, n), rng.uniform(0.0, 2.0, n).astype(np.float32)


def model(optimizer):
    nn.set_seed(3)
    nn.clear_session()
    m = nn.Sequential([nn.Input((5,)),
                       nn.Dense(6, activation="relu", kernel_regularizer=nn.regularizers.l2(0.02),
                                activity_regularizer="l1"),
                       nn.Dense(3, activation="softmax", bias_regularizer="l2")])
    m.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy",
              metrics=["accuracy"], weighted_metrics=["accuracy"])
    return m


def train(distributed, optimizer, **fit):
    x, y, _ = data()
    m = model(optimizer)
    if distributed and dist.find_here() != 0:    # the broadcast must replace these
        m.set_weights([w + 1.0 for w in m.get_weights()])
    h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False,
              distributed="data" if distributed else None, **fit)
    return h.history, m.get_weights()


def check(optimizer, what, **fit):
    got_h, got_w = train(True, optimizer(), **fit)
    want_h, want_w = train(False, optimizer(), **fit)
    assert set(got_h) == set(want_h), what
    # (weighted unlike unweighted: the check could not pass with the weights ignored)
    assert not np.allclose(want_h["weighted_accuracy"], want_h["accuracy"]), what
    for key in want_h:
        np.testing.assert_allclose(got_h[key], want_h[key], rtol=2e-5, atol=1e-6,
                                   err_msg=f"{what}: {key}")
    for g, w in zip(got_w, want_w):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=2e-6, err_msg=f"{what}: weights")


def two_outputs(distributed):
    """A model of two outputs, the first's loss weighted per sample (Keras 3's list per
    output): History (``a_loss``, ``b_mae`` ...) and weights."""
    x, y, w = data()
    nn.set_seed(4)
    nn.clear_session()
    inputs = nn.Input((5,))
    h = nn.Dense(6, activation="tanh")(inputs)
    m = nn.Model(inputs, [nn.Dense(3, activation="softmax", name="a")(h), nn.Dense(2, name="b")(h)])
    m.compile(nn.SGD(0.1), ["sparse_categorical_crossentropy", "mse"], loss_weights=[1.0, 0.5],
              metrics=[["accuracy"], ["mae"]], weighted_metrics={"a": ["accuracy"]})
    h = m.fit(x, {"a": y, "b": x[:, :2]}, batch_size=8, epochs=2, verbose=0, shuffle=False,
              sample_weight=[w[:, None], None], distributed="data" if distributed else None)
    return h.history, m.get_weights()


def main():
    _, _, w = data()
    check(lambda: nn.SGD(0.1, global_clipnorm=0.5, weight_decay=0.1), "sample weights",
          sample_weight=w, validation_split=0.2)
    check(lambda: nn.Adam(0.01, clipnorm=0.2), "class weights",
          class_weight={0: 2.0, 2: 0.5})
    (got_h, got_w), (want_h, want_w) = two_outputs(True), two_outputs(False)
    assert list(got_h) == list(want_h) == ["loss", "a_loss", "b_loss", "a_accuracy",
                                           "a_weighted_accuracy", "b_mae"]
    for key in want_h:
        np.testing.assert_allclose(got_h[key], want_h[key], rtol=2e-5, atol=1e-6, err_msg=key)
    for g, w in zip(got_w, want_w):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=2e-6, err_msg="two outputs: weights")
    print(f"OK {dist.find_here()}", flush=True)


if __name__ == "__main__":
    main()
