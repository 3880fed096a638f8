"""The batch hooks of a callback as Keras 3 calls them: ``on_train_batch_begin`` before
each training batch, and the backwards-compatible ``on_batch_begin``/``on_batch_end``
(Keras' defaults of the ``on_train_batch_*`` hooks call them).  A Keras user's
``on_batch_end`` (``sys.exit`` in it, a timer, a counter) was never called: training
ran on silently."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import nn


class Recorder(nn.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple] = []

    def on_batch_begin(self, batch, logs=None):
        self.calls.append(("batch_begin", batch))

    def on_batch_end(self, batch, logs=None):
        self.calls.append(("batch_end", batch, sorted(logs)))


class Overrides(Recorder):
    def on_train_batch_begin(self, batch, logs=None):
        self.calls.append(("train_batch_begin", batch))

    def on_train_batch_end(self, batch, logs=None):
        self.calls.append(("train_batch_end", batch))


def _fit(callback, **options):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(10, 3)).astype(np.float32), np.arange(10) % 2
    nn.set_seed(0)
    model = nn.Sequential([nn.Input((3,)), nn.Dense(2, activation="softmax")])
    model.compile(optimizer=nn.SGD(0.1), loss="sparse_categorical_crossentropy")
    return model.fit(x, y, batch_size=4, epochs=2, verbose=0, callbacks=[callback],
                     **options)


def test_on_batch_begin_and_end_are_called_for_every_training_batch():
    recorder = Recorder()
    _fit(recorder)
    expected = []
    for _ in range(2):
        for b in range(3):
            expected += [("batch_begin", b), ("batch_end", b, ["loss"])]
    assert recorder.calls == expected


def test_overridden_train_batch_hooks_replace_the_aliases_as_in_keras():
    recorder = Overrides()
    _fit(recorder)
    assert recorder.calls == [(f"train_batch_{w}", b) for _ in range(2) for b in range(3)
                              for w in ("begin", "end")]


def test_an_exit_in_on_batch_end_ends_training():
    class Exit(nn.Callback):
        def on_batch_end(self, batch, logs=None):
            if batch == 1:
                raise SystemExit(5)

    with pytest.raises(SystemExit):
        _fit(Exit())
