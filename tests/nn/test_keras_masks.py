"""Keras masks (``Embedding(mask_zero=True)``, ``Masking``) through RNNs (``go_backwards``,
``Bidirectional``), attention (residuals around it: Keras 3's two mask flows), pooling,
merges (Concatenate), BatchNormalization and the loss, against Keras 3 on the JAX
backend from the same initial weights (tests/nn/keras_mask_cases.py): predictions to
float32 rounding, per-epoch losses to 1e-5 relative and final weights to rounding (the
gradients through the masked steps agree), ``evaluate``'s loss and masked accuracy. Live
with Keras installed and ``PHYLANX_KERAS_LIVE=1`` (Keras takes a minute for these
models: the suite's time), against the stored reference (tools/keras_mask_references.py)
always. Bad input is a located error when the model is built or before any step."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phylanx import nn

from . import keras_mask_cases as cases
from . import keras_stored
from .located import raises_in

# Keras' own warnings (NumPy 2's copy keyword, the mask GlobalMaxPooling1D drops)
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning:keras"),
              pytest.mark.filterwarnings("ignore::UserWarning")]


@pytest.fixture(scope="module")
def phylanx_run():
    """phylanx's record of case ``name`` from ``initial`` weights, once per module."""
    runs: dict[tuple, dict] = {}

    def run(name: str, initial: list) -> dict:
        key = (name, tuple(np.asarray(w).tobytes() for w in initial))
        if key not in runs:
            model = cases.phylanx_model(name)
            model.set_weights(initial)
            runs[key] = cases.run(model, name, keras_api=False)
        return runs[key]
    yield run
    runs.clear()


def _check(name: str, reference: dict, run) -> None:
    mine = run(name, reference["initial"])
    np.testing.assert_allclose(mine["prediction"], reference["prediction"], rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(mine["losses"], reference["losses"], rtol=1e-5)
    for got, want in zip(mine["final"], reference["final"], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mine["evaluate"], reference["evaluate"], rtol=1e-5)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_masked_models_equal_stored_keras_reference(name, phylanx_run):
    _check(name, cases.stored(name), phylanx_run)


@pytest.mark.slow
@keras_stored.live
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_masked_models_equal_keras_live(name, phylanx_run):
    pytest.importorskip("keras")
    reference = cases.reference(name)
    _check(name, reference, phylanx_run)
    stored = cases.stored(name)          # (and the stored values are still Keras')
    np.testing.assert_allclose(stored["losses"], reference["losses"], rtol=1e-6)


def _sequence_model(mask_zero: bool, steps: int = 5):
    nn.clear_session()
    nn.set_seed(1)
    x = nn.Input((steps,))
    h = nn.LSTM(3, return_sequences=True)(nn.Embedding(4, 2, mask_zero=mask_zero)(x))
    return nn.Model(x, nn.Dense(2, activation="softmax")(h))


def test_the_mask_changes_the_loss_and_only_the_unmasked_steps_count():
    """Guard: without mask_zero the loss differs (the padding counts); with it, the
    loss is the NumPy mean of the per-step losses of the unmasked steps."""
    x = np.array([[1, 2, 0, 0, 0], [3, 3, 1, 2, 0]])
    y = np.array([[1, 0, 1, 1, 1], [0, 1, 1, 0, 1]])
    values = {}
    for mask_zero in (True, False):
        model = _sequence_model(mask_zero)
        model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
        p = model.predict(x)
        loss, accuracy = model.evaluate(x, y, verbose=0)
        kept = x != 0 if mask_zero else np.ones(x.shape, bool)
        each = -np.log(np.take_along_axis(p, y[..., None], -1)[..., 0])
        np.testing.assert_allclose(loss, each[kept].mean(), rtol=1e-5)
        np.testing.assert_allclose(accuracy, (p.argmax(-1) == y)[kept].mean(), rtol=1e-6)
        values[mask_zero] = loss
    assert abs(values[True] - values[False]) > 1e-4     # (far above float32 rounding)


def test_masked_steps_keep_the_state_and_summary_is_unchanged():
    """The output at a masked step repeats the previous one (the state is kept);
    ``summary`` prints the same table with or without the mask."""
    texts = {}
    for mask_zero in (True, False):
        model = _sequence_model(mask_zero)
        lines: list[str] = []
        model.summary(print_fn=lines.append)
        texts[mask_zero] = lines
    assert texts[True] == texts[False]
    p = _sequence_model(True).predict(np.array([[2, 1, 0, 3, 0]]))
    np.testing.assert_array_equal(p[0, 2], p[0, 1])      # index 0: masked
    np.testing.assert_array_equal(p[0, 4], p[0, 3])
    assert not np.array_equal(p[0, 3], p[0, 2])


def _raises_here(fn, *words):
    raises_in(__file__, fn, *words)


def test_bad_masks_are_located_errors_before_any_step():
    _raises_here(lambda: nn.Embedding(1, 3, mask_zero=True), "input_dim", "vocabulary")
    _raises_here(lambda: nn.Embedding(5, 3, mask_zero=1), "mask_zero")
    _raises_here(lambda: nn.Masking(0.0)(nn.Input((4,))), "rank 3")
    x = nn.Input((4,))
    h = nn.Embedding(5, 3, mask_zero=True)(x)
    _raises_here(lambda: nn.MultiHeadAttention(1, 2)(h, h, attention_mask=np.ones((3, 4))),
                 "attention_mask")
    model = nn.Model(x, nn.Dense(2, activation="softmax")(nn.LSTM(2, return_sequences=True)(h)))
    model.compile("sgd", "sparse_categorical_crossentropy")
    xs, ys = np.ones((4, 4), np.int64), np.zeros((4, 4), np.int64)
    # weights: one per sample or per step; a class per step has no class per sample
    _raises_here(lambda: model.fit(xs, ys, sample_weight=np.ones((4, 3)), verbose=0),
                 "sample_weight", "per step", "(4, 4)")
    _raises_here(lambda: model.fit(xs, ys, class_weight={0: 2.0}, verbose=0),
                 "class_weight", "one class per sample")
    # (no layer to split: the Dense reads a 3-D masked sequence)
    _raises_here(lambda: model.fit(xs, ys, verbose=0, distributed="model"), "Keras mask")
    # index input_dim: the vocabulary counted without the padding 0 (Keras on JAX would
    # clip it to the last row silently)
    _raises_here(lambda: model.predict(np.array([[5, 1, 0, 0]])), "vocabulary size + 1")
    assert model.optimizer.iterations == 0


def test_a_layer_without_mask_support_drops_it_with_keras_warning():
    x = nn.Input((4,))
    h = nn.Embedding(5, 3, mask_zero=True)(x)
    with pytest.warns(UserWarning, match="does not support masking"):
        flat = nn.Flatten()(h)
    assert not flat.masked and h.masked
    with pytest.warns(UserWarning, match="does not support masking"):
        nn.GlobalMaxPooling1D()(h)


def test_masked_sequences_example_learns_the_real_steps(capsys):
    """examples/nn_masked_sequences.py (padding with random labels: fit only over the
    real steps) learns the tagging task in a few steps."""
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[2] / "examples" / "nn_masked_sequences.py"
    spec = importlib.util.spec_from_file_location("phylanx_example_masked", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    accuracy = example.main(["--samples", "128", "--epochs", "3", "--batch-size", "64",
                             "--lr", "0.05", "--verbose", "0"])
    assert accuracy >= 0.9
    assert "real steps" in capsys.readouterr().out


@pytest.fixture(scope="module")
def last_state_models():
    """An LSTM, a GRU and a SimpleRNN over Embedding(mask_zero=True), last output only
    (built once: each property example only runs predict)."""
    built = {}
    for layer in (nn.LSTM, nn.GRU, nn.SimpleRNN):
        nn.set_seed(2)
        x = nn.Input((6,))
        built[layer.__name__] = nn.Model(x, layer(3)(nn.Embedding(5, 2, mask_zero=True)(x)))
    return built


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(1, 4), min_size=1, max_size=6), st.data())
def test_padding_anywhere_is_skipped(last_state_models, tokens, draw):
    """Law: a masked step keeps the state, so the last output of a sequence is the same
    wherever its padding (index 0) stands: at the end, or between its tokens."""
    slots = sorted(draw.draw(st.permutations(range(6)))[:len(tokens)])
    spread = np.zeros(6, np.int64)
    spread[slots] = tokens
    packed = np.zeros(6, np.int64)
    packed[:len(tokens)] = tokens
    for name, model in last_state_models.items():
        got = model.predict(np.stack([spread, packed]))
        np.testing.assert_allclose(got[0], got[1], rtol=1e-6, atol=1e-7, err_msg=name)


def test_token_and_position_embedding_mask_zero_reaches_the_pooling():
    """KerasHub's ``mask_zero``: the average is over the real tokens only (NumPy oracle
    from the layer's two tables)."""
    nn.clear_session()
    x = nn.Input((4,))
    layer = nn.TokenAndPositionEmbedding(6, 4, 3, mask_zero=True)
    model = nn.Model(x, nn.GlobalAveragePooling1D()(layer(x)))
    tokens = np.array([[2, 5, 0, 0], [1, 0, 3, 0]])
    table, positions = layer.get_weights()
    embedded = table[tokens] + positions[None]
    kept = (tokens != 0)[..., None]
    want = (embedded * kept).sum(1) / kept.sum(1)
    np.testing.assert_allclose(model.predict(tokens), want, rtol=1e-6)


def _residual_model(attention: bool):
    """A per-step classifier over ``Add()([e, f(e)])``, ``f`` a MultiHeadAttention or a
    Dense, ``e`` masked by ``Embedding(mask_zero=True)``."""
    nn.clear_session()
    nn.set_seed(3)
    x = nn.Input((5,))
    e = nn.Embedding(4, 2, mask_zero=True)(x)
    branch = nn.MultiHeadAttention(1, 2)(e, e) if attention else nn.Dense(2)(e)
    return nn.Model(x, nn.Dense(2, activation="softmax")(nn.Add()([e, branch])))


@pytest.mark.parametrize("attention", [True, False])
def test_a_residual_around_attention_loses_the_mask_as_in_keras(attention):
    """Keras 3: the attention takes the mask off its input array, so the residual Add
    after it has no mask and the loss counts every step; beside a Dense the mask stays
    and the loss is over the unmasked steps (NumPy oracle from the predictions)."""
    x = np.array([[1, 2, 0, 0, 0], [3, 3, 1, 2, 0]])
    y = np.array([[1, 0, 1, 1, 1], [0, 1, 1, 0, 1]])
    model = _residual_model(attention)
    model.compile("sgd", "sparse_categorical_crossentropy")
    p = model.predict(x)
    each = -np.log(np.take_along_axis(p, y[..., None], -1)[..., 0])
    kept = np.ones(x.shape, bool) if attention else x != 0
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), each[kept].mean(), rtol=1e-5)


def test_bidirectional_refuses_what_keras_refuses_at_the_call():
    _raises_here(lambda: nn.Bidirectional(nn.Dense(2)), "recurrent layer", "Dense")
    _raises_here(lambda: nn.Bidirectional(nn.LSTM(2), merge_mode="max"), "merge_mode")
    _raises_here(lambda: nn.Bidirectional(nn.GRU(2, go_backwards=True)), "go_backwards")
    _raises_here(lambda: nn.Bidirectional(nn.LSTM(2), backward_layer=nn.LSTM(2)),
                 "should have different `go_backwards` value")
    _raises_here(lambda: nn.Bidirectional(nn.LSTM(2), backward_layer=nn.Dense(2)),
                 "backward_layer must be a recurrent layer", "Dense")
    _raises_here(lambda: nn.Bidirectional(
        nn.LSTM(2), backward_layer=nn.LSTM(2, go_backwards=True, return_sequences=True)),
        'same value for attribute "return_sequences"')
    _raises_here(lambda: nn.Bidirectional(
        nn.GRU(2, return_state=True), backward_layer=nn.GRU(2, go_backwards=True)),
        'same value for attribute "return_state"')
    _raises_here(lambda: nn.Bidirectional(nn.GRU(2), backward_layer=nn.GRU(
        3, go_backwards=True))(nn.Input((4, 2))), "give both the same units")
    # (two outputs: Keras' Sequential refuses them too; here at the user's line)
    _raises_here(lambda: nn.Sequential([nn.Input((3,)), nn.Embedding(4, 2),
                                        nn.Bidirectional(nn.GRU(2), merge_mode=None)]),
                 "2 outputs", "Sequential")


def _one_bidirectional(seed: int):
    nn.clear_session()
    nn.set_seed(seed)
    x = nn.Input((3,))
    h = nn.Bidirectional(nn.GRU(2))(nn.Embedding(4, 2, mask_zero=True)(x))
    return nn.Model(x, h)


def test_bidirectional_weights_file_is_keras_layout_and_loads_back(tmp_path):
    """save_weights writes each half under Keras 3's ``forward_layer``/``backward_layer``
    groups (what Keras' own file of the ``bidirectional`` case holds), and loading it
    into a fresh model gives the same predictions."""
    h5py = pytest.importorskip("h5py")
    model = _one_bidirectional(5)
    x = np.array([[1, 3, 0], [2, 0, 0]])
    path = tmp_path / "bi.weights.h5"
    model.save_weights(path)
    with h5py.File(path) as f:
        groups = set()
        f.visit(groups.add)
    for half in ("forward_layer", "backward_layer"):
        assert f"layers/bidirectional/{half}/cell/vars" in groups, sorted(groups)
    again = _one_bidirectional(6)
    assert not np.allclose(again.predict(x), model.predict(x))
    again.load_weights(path)
    np.testing.assert_array_equal(again.predict(x), model.predict(x))


def test_bidirectional_summary_rows_count_both_halves():
    """A ``Bidirectional`` row: the merged output shape and twice the wrapped layer's
    parameters (Keras 3's summary of the ``bidirectional`` case shows the same rows)."""
    model = cases.phylanx_model("bidirectional")
    lines: list[str] = []
    model.summary(print_fn=lines.append)
    for layer in model.layers:
        if isinstance(layer, nn.Bidirectional):
            half = type(layer.forward_layer)(**layer.forward_layer.layer_config())
            half.build_for(layer.input_shape)
            assert layer.count_params() == 2 * half.count_params()
            row = next(line for line in lines if f"{layer.name} (Bidirectional)" in line)
            assert str(layer.output_shape) in row and f"{layer.count_params():,}" in row
    one = model.get_layer("bidirectional")
    assert one.output_shape[-1] == 2 * one.forward_layer.units      # concat


def test_bidirectional_sequences_are_zero_at_masked_steps():
    """Keras 3's Bidirectional sets ``zero_output_for_mask = return_sequences`` on both
    halves (whatever the wrapped layer's), so a masked step's output is zero in every
    merge mode, not the state carried over (seen wherever the mask is lost: a
    Concatenate with an unmasked input, a residual around an attention,
    GlobalMaxPooling1D; Keras 3.15 gives 0 there).  With the same weights, each merge
    mode is its formula of ``merge_mode=None``'s two outputs (the stored Keras case
    ``bidirectional`` checks concat, None and mul)."""
    nn.clear_session()
    nn.set_seed(8)
    x = nn.Input((4,))
    e = nn.Embedding(6, 3, mask_zero=True)(x)
    modes = ("concat", "sum", "ave", "mul", None)
    layers = [nn.Bidirectional(nn.GRU(2, return_sequences=True), merge_mode=mode)
              for mode in modes]
    outs = [o for layer in layers for o in (lambda y: y if isinstance(y, list) else [y])(
        layer(e))]
    model = nn.Model(x, nn.Concatenate()(outs))
    for layer in layers[:-1]:
        layer.set_weights(layers[-1].get_weights())
    tokens = np.array([[1, 2, 0, 0], [3, 0, 0, 0], [4, 5, 1, 2]])
    p = model.predict(tokens)
    kept = tokens != 0
    np.testing.assert_array_equal(p[~kept], 0.0)
    assert np.abs(p[kept]).min() > 0
    concat, total, average, product, forward, backward = np.split(p, [4, 6, 8, 10, 12], -1)
    np.testing.assert_allclose(concat, np.concatenate([forward, backward], -1), rtol=1e-6)
    np.testing.assert_allclose(total, forward + backward, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(average, (forward + backward) / 2, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(product, forward * backward, rtol=1e-6, atol=1e-8)
