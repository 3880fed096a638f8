"""A branched functional model lists its layers, and so its weights, in Keras 3's order
(user44): by depth (the longest path to the output), deepest first, ties in the order a
depth-first walk from the output meets them (``keras.src.ops.function.map_graph``).
Before, phylanx listed them in its call order: ``model.set_weights(keras_model
.get_weights())`` of a model whose branches have weights of equal shapes gave each
layer another's weights, with no error, and other predictions than Keras'."""
from __future__ import annotations

import numpy as np

from phylanx import nn


def _skip_block(L):
    i = L.Input((4,))
    skip = L.Dense(4, name="skip")(i)                 # depth 2, met first
    a = L.Dense(4, activation="tanh", name="a")(i)    # depth 3: first in Keras' order
    b = L.Dense(4, name="b")(a)                       # depth 2
    return i, L.Dense(1, name="out")(L.Add()([skip, b]))


def _shared(L):
    i = L.Input((3,))
    shared = L.Dense(3, name="shared")
    h = L.Dense(3, name="h")(shared(i))
    return i, L.Dense(2, name="out")(L.Add()([shared(h), h]))


def test_a_branched_model_lists_its_layers_and_weights_in_keras_order():
    nn.clear_session()
    model = nn.Model(*_skip_block(nn))
    # keras.Model(*_skip_block(keras.layers)).layers[1:] (Keras 3.15, JAX backend)
    assert [layer.name for layer in model.layers] == ["a", "skip", "b", "add", "out"]
    weights = [w.name for w in model.weights]
    assert weights[:2] == [w.name for w in model.get_layer("a").weights]
    nn.clear_session()
    # a shared layer takes its deepest call's place (Keras: max of its nodes' depths)
    assert [layer.name for layer in nn.Model(*_shared(nn)).layers] == \
        ["shared", "h", "add", "out"]


def test_weights_set_in_keras_order_predict_as_keras():
    nn.clear_session()
    model = nn.Model(*_skip_block(nn))
    rng = np.random.default_rng(0)
    by_name = {layer.name: [rng.normal(size=w.value.shape).astype(np.float32)
                            for w in layer.weights] for layer in model.layers}
    keras_order = [v for name in ("a", "skip", "b", "add", "out") for v in by_name[name]]
    model.set_weights(keras_order)
    x = rng.normal(size=(3, 4)).astype(np.float32)
    (ka, ba), (ks, bs), (kb, bb), (ko, bo) = (by_name[n] for n in ("a", "skip", "b", "out"))
    expected = ((x @ ks + bs) + (np.tanh(x @ ka + ba) @ kb + bb)) @ ko + bo
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)


def _masked_concatenation(L, wrap):
    """A masked GRU stack and an unmasked branch joined by Concatenate, whose mask a
    GRU reads: Keras records the mask's ops in the graph (``zeros_like`` of the masked
    input, ``ones_like`` of the unmasked one), which deepen the layers they read."""
    x = L.Input((4,))
    e = L.Embedding(7, 3, mask_zero=True)(x)
    a = wrap(L, L.GRU(2, return_sequences=True))(e)
    b = wrap(L, L.GRU(2, return_sequences=True))(a)
    p = L.Dense(2)(L.Embedding(7, 2)(x))
    c = L.Concatenate()([b, p])
    g = L.GRU(2, return_sequences=True, go_backwards=True)(c)
    return x, L.Dense(3, activation="softmax")(L.Concatenate()([c, g]))


def test_the_ops_of_a_recorded_mask_deepen_the_layers_they_read():
    # [l.name for l in keras.Model(...).layers if l.weights] (Keras 3.15, JAX backend):
    # without the mask ops' depths, embedding_1 came before the second GRU
    for wrap, second in ((lambda L, layer: layer, "gru_1"),
                         (lambda L, layer: L.Bidirectional(layer), "bidirectional_1")):
        nn.clear_session()
        model = nn.Model(*_masked_concatenation(nn, wrap))
        first = "gru" if second == "gru_1" else "bidirectional"
        assert [layer.name for layer in model.layers if layer.weights] == \
            ["embedding", first, second, "embedding_1", "dense", "gru_2", "dense_1"]
