"""An Embedding's indices are integers in 0..input_dim-1, or fit/predict say so (user43).

``-1`` picked the table's last row and ``1.5`` row 1, silently (Keras on JAX does the
same; Keras on TensorFlow refuses them): a located error at the user's line now, for
``predict``, ``fit`` and ``evaluate``; ``input_dim`` itself was already an error, but
located in the generated program (``<nn sequential>:1:120: slice: ...``).
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import PhylanxError, nn


def _model():
    nn.set_seed(0)
    model = nn.Sequential([nn.Input((2,)), nn.Embedding(4, 1), nn.Flatten()])
    model.compile(optimizer=nn.SGD(0.1), loss="mse")
    return model


@pytest.mark.parametrize("indices, match", [
    ([[1, -1]], r"index -1 is out of range .*Embedding of 4 rows.*0\.\.3"),
    ([[0, 4]], r"index 4 is out of range"),
    ([[1.5, 2.0]], r"index 1.5 .* is not an integer"),
    ([[np.nan, 2.0]], r"index nan .* is not an integer"),
], ids=["negative", "past_the_end", "fraction", "nan"])
def test_indices_outside_the_table_are_located_errors(indices, match):
    model = _model()
    x = np.array(indices)
    for call in (lambda: model.predict(x, verbose=0),
                 lambda: model.fit(x, np.zeros((1, 2)), verbose=0),
                 lambda: model.evaluate(x, np.zeros((1, 2)), verbose=0)):
        with pytest.raises(PhylanxError, match=match) as caught:
            call()
        assert caught.value.loc is not None and caught.value.loc.file == __file__


def test_integral_indices_pick_their_rows():
    """Guard: integer and integral float indices, the table's rows themselves."""
    model = _model()
    table = model.get_weights()[0][:, 0]
    for x in (np.array([[0, 3], [2, 1]]), np.array([[0.0, 3.0], [2.0, 1.0]])):
        np.testing.assert_array_equal(model.predict(x, verbose=0), table[x.astype(int)])
