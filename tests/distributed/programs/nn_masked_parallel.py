"""Data-parallel ``fit`` of masked models == single-process ``fit`` (run under
mpiexec): the loss and metrics over the unmasked steps of the global batch (the ranks'
counts all-reduced), with an uneven split, a shard wholly padded, and a last batch of
one row (a rank without rows runs a stand-in of weight 0); a Masking + LSTM + pooling
classifier too; the sequence model's loss weighted per step (sample weights of shape
``(n, steps)``, each rank's shard of them), and its weighted metric (compile's
``weighted_metrics``: the ranks' sums of ``w * mask`` add up).  Prints ``OK <rank>``."""
import numpy as np

from phylanx import distributed as dist
from phylanx import nn


def data(n=13, steps=5):
    rng = np.random.default_rng(4)
    x = np.zeros((n, steps), np.int64)
    for i, length in enumerate(rng.integers(1, steps + 1, n)):
        x[i, :length] = rng.integers(1, 6, length)
    x[4:6] = 0                         # (batch 2's first rows: one rank's shard padded)
    return x, rng.integers(0, 3, (n, steps))


def sequence_model():
    x = nn.Input((5,))
    h = nn.GRU(4, return_sequences=True)(nn.Embedding(6, 3, mask_zero=True)(x))
    return nn.Model(x, nn.Dense(3, activation="softmax")(h))


def pooled_model():
    x = nn.Input((5, 2))
    h = nn.LSTM(3, return_sequences=True)(nn.Masking()(x))
    return nn.Model(x, nn.Dense(3, activation="softmax")(nn.GlobalAveragePooling1D()(h)))


def train(build, x, y, distributed, **fit):
    nn.set_seed(3)
    nn.clear_session()
    m = build()
    m.compile(optimizer=nn.Adam(0.05), loss="sparse_categorical_crossentropy",
              metrics=["accuracy"], weighted_metrics=["accuracy"])
    h = m.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False,
              distributed="data" if distributed else None, **fit)
    return h.history, m.get_weights()


def check(build, x, y, what, **fit):
    got_h, got_w = train(build, x, y, True, **fit)
    want_h, want_w = train(build, x, y, False, **fit)
    assert set(got_h) == set(want_h), what
    # (weighted unlike unweighted when weighed: the check could not pass ignoring them)
    assert np.allclose(want_h["weighted_accuracy"], want_h["accuracy"]) != ("sample_weight"
                                                                           in fit), what
    for key in want_h:
        np.testing.assert_allclose(got_h[key], want_h[key], rtol=2e-5, atol=1e-6,
                                   err_msg=f"{what}: {key}")
    for g, w in zip(got_w, want_w):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=2e-6, err_msg=f"{what}: weights")


def main():
    x, y = data()
    per_step = np.random.default_rng(6).uniform(0.0, 2.0, x.shape).astype(np.float32)
    check(sequence_model, x, y, "Embedding(mask_zero) + GRU sequence",
          sample_weight=per_step)
    rng = np.random.default_rng(5)
    features = rng.normal(size=(13, 5, 2)).astype(np.float32)
    features[x == 0] = 0.0
    features[4:6, 0] = 0.5             # (a sample with every step masked averages 0 / 0)
    check(pooled_model, features, rng.integers(0, 3, 13), "Masking + pooling")
    print(f"OK {dist.find_here()}", flush=True)


if __name__ == "__main__":
    main()
