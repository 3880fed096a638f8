"""``Bidirectional(..., return_sequences=True)`` over a masked input: Keras 3 forces
``zero_output_for_mask = return_sequences`` on both copies (``bidirectional.py``,
``force_zero_output_for_mask``), so the outputs at masked steps are zeros, not the state
carried through them.  A consumer that reads every step (``Flatten``) saw the carried
states: a silently different prediction from Keras'."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import nn

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:keras")]


def _inputs():
    x = np.random.default_rng(2).normal(size=(4, 5, 3)).astype(np.float32)
    x[0, 3:] = 0.0            # trailing masked steps (the forward half carries state there)
    x[1, :2] = 0.0            # leading masked steps (the backward half carries state there)
    return x


@pytest.mark.parametrize("rnn", ["SimpleRNN", "LSTM", "GRU"])
@pytest.mark.parametrize("merge_mode", ["concat", None])
def test_masked_steps_are_zero(rnn, merge_mode):
    nn.set_seed(0)
    inputs = nn.Input((5, 3))
    h = nn.Masking()(inputs)
    out = nn.Bidirectional(getattr(nn, rnn)(2, return_sequences=True),
                           merge_mode=merge_mode)(h)
    if merge_mode is None:
        out = nn.Concatenate()(out)
    model = nn.Model(inputs, out)
    y = np.asarray(model.predict(_inputs(), verbose=0))
    np.testing.assert_array_equal(y[0, 3:], 0.0)
    np.testing.assert_array_equal(y[1, :2], 0.0)
    assert np.all(np.abs(y[0, :3]) > 0) and np.all(np.abs(y[1, 2:]) > 0)


def test_flatten_after_bidirectional_matches_keras():
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "jax":
        pytest.skip("the JAX backend is the peer")

    def build(layers, model, inp):
        i = inp((5, 3))
        h = layers.Masking()(i)
        h = layers.Bidirectional(layers.GRU(2, return_sequences=True))(h)
        return model(i, layers.Dense(1)(layers.Flatten()(h)))

    peer = build(keras.layers, keras.Model, keras.Input)
    ours = build(nn, nn.Model, nn.Input)
    ours.set_weights(peer.get_weights())
    np.testing.assert_allclose(ours.predict(_inputs(), verbose=0),
                               np.asarray(peer.predict(_inputs(), verbose=0)), atol=1e-5)
