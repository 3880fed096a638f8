"""Keras activations, tensor helpers, losses and ctc_decode against independent references.

References are written element by element (plain ``math``) or per sample, so they do not
share the vectorised formulas of the implementation; ctc_decode is checked against a
brute-force enumeration of all alignments.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxTypeError, PhylanxValueError
from phylanx.primitives.registry import lookup

from .harness import call

RNG = np.random.default_rng(7)

KERAS_NAMES = [
    "sigmoid", "max_pool2d", "conv1d", "softplus", "hard_sigmoid", "spatial_2d_padding",
    "ctc_decode", "one_hot", "categorical_crossentropy", "relu", "avg_pool2d", "bias_add",
    "switch", "resize_images", "separable_conv1d", "conv2d_transpose", "conv2d", "softsign",
    "max_pool3d", "elu", "binary_crossentropy", "l2_normalize", "avg_pool3d", "softmax",
    "batch_dot",
]
DIFFERENTIABLE = {"sigmoid", "softplus", "hard_sigmoid", "softsign", "relu", "elu", "softmax",
                  "categorical_crossentropy", "binary_crossentropy", "conv1d", "conv2d",
                  "max_pool2d", "avg_pool2d", "max_pool3d", "avg_pool3d", "bias_add"}


def elementwise(fn, x):
    return np.vectorize(fn, otypes=[float])(np.asarray(x, dtype=float))


def test_all_25_names_are_registered_with_their_flags():
    assert len(set(KERAS_NAMES)) == 25
    for name in KERAS_NAMES:
        spec = lookup(name)
        assert spec is not None and spec.category == "keras_support", name
        assert spec.name == name
        if name in DIFFERENTIABLE:
            assert spec.differentiable, name
    assert lookup("softmax").patterns == ("softmax(_1)", "softmax(_1, _2)")
    assert lookup("relu").signature.keywords == {"alpha": 1, "max_value": 2, "threshold": 3}


# ----------------------------------------------------------------------------- activations

X = np.array([[-30.0, -2.5, -1.0, -0.1], [0.0, 0.3, 1.0, 4.0], [7.5, 20.0, 0.05, -0.7]])

REFERENCES = {
    "sigmoid": lambda v: 1 / (1 + math.exp(-v)),
    "hard_sigmoid": lambda v: min(max(0.2 * v + 0.5, 0.0), 1.0),
    "softplus": lambda v: math.log1p(math.exp(v)),
    "softsign": lambda v: v / (1 + abs(v)),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_activations_match_scalar_formulas(name):
    np.testing.assert_allclose(call(name, X), elementwise(REFERENCES[name], X), rtol=1e-13)
    x32 = X.astype(np.float32)
    got32 = call(name, x32)
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, elementwise(REFERENCES[name], x32), rtol=2e-6,
                               atol=1e-7)
    ints = np.array([-2, 0, 3])
    assert call(name, ints).dtype == np.float64
    scalar = call(name, np.float64(0.5))
    assert isinstance(scalar, np.float64) and scalar == pytest.approx(REFERENCES[name](0.5))


def test_activations_do_not_overflow():
    big = np.array([-1000.0, 1000.0])
    np.testing.assert_allclose(call("sigmoid", big), [0.0, 1.0])
    np.testing.assert_allclose(call("softplus", big), [0.0, 1000.0])
    np.testing.assert_allclose(call("elu", big, 1.0), [-1.0, 1000.0])
    np.testing.assert_allclose(call("softmax", np.array([1000.0, 1000.0, -1000.0])),
                               [0.5, 0.5, 0.0])


def relu_reference(v, alpha=0.0, max_value=None, threshold=0.0):
    """Keras's relu, except that (as in the original, addendum A.2) values at or above a
    negative threshold are clamped at 0."""
    if max_value is not None and v >= max_value:
        return max_value
    if v >= threshold:
        return max(v, 0.0)
    return alpha * (v - threshold)


@pytest.mark.parametrize("params", [(), (0.1,), (0.0, 6.0), (0.2, 5.0, 1.0), (0.3, None, -1.0),
                                    (0.0, 0.5, 2.0)])
def test_relu_matches_reference(params):
    expected = elementwise(lambda v: relu_reference(v, *params), X)
    args = [np.float64(p) if p is not None else None for p in params]
    np.testing.assert_allclose(call("relu", X, *args), expected, rtol=1e-14)


def test_relu_keywords_and_dtypes():
    got = phylanx.evaluate("lambda(x, relu(x, __arg(max_value, 6.)))", X)
    np.testing.assert_allclose(got, elementwise(lambda v: relu_reference(v, 0, 6.0), X))
    got = phylanx.evaluate("lambda(x, relu(x, __arg(threshold, 1.), __arg(alpha, 0.5)))", X)
    np.testing.assert_allclose(got, elementwise(lambda v: relu_reference(v, 0.5, None, 1.0), X))
    ints = np.array([-3, 0, 2, 9])
    got_int = call("relu", ints)
    assert got_int.dtype == np.float64   # the original's relu is always float64 (A.2)
    np.testing.assert_array_equal(got_int, [0, 0, 2, 9])
    assert call("relu", ints, np.float64(0.5)).dtype == np.float64
    assert call("relu", X.astype(np.float32), np.float64(0.1), np.float64(3.0)).dtype \
        == np.float32
    with pytest.raises(PhylanxTypeError, match="alpha must be a number"):
        call("relu", X, "a")


def test_elu():
    for alpha in (1.0, 0.3, 2.0):
        expected = elementwise(lambda v, a=alpha: v if v > 0 else a * (math.exp(v) - 1), X)
        np.testing.assert_allclose(call("elu", X, np.float64(alpha)), expected, rtol=1e-13)
    assert call("elu", X.astype(np.float32), np.float64(1.0)).dtype == np.float32


def softmax_reference(x, axis):
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    out = np.empty_like(x)
    for idx in np.ndindex(x.shape[:-1]):
        exps = [math.exp(v) for v in x[idx]]
        out[idx] = [e / sum(exps) for e in exps]
    return np.moveaxis(out, -1, axis)


def test_softmax_axes_and_dtypes():
    x = RNG.normal(size=(2, 3, 4))
    np.testing.assert_allclose(call("softmax", x), softmax_reference(x, -1), rtol=1e-13)
    for axis in (0, 1, 2, -2):
        np.testing.assert_allclose(call("softmax", x, np.int64(axis)),
                                   softmax_reference(x, axis), rtol=1e-13)
    got32 = call("softmax", x.astype(np.float32))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32.sum(axis=-1), 1.0, rtol=1e-6)
    assert call("softmax", np.arange(3)).dtype == np.float64
    assert call("softmax", np.float64(3.0)) == 1.0
    assert call("softmax", np.zeros((2, 0))).shape == (2, 0)
    with pytest.raises(PhylanxValueError, match="axis 3 is out of bounds"):
        call("softmax", x, np.int64(3))


# --------------------------------------------------------------------------- tensor helpers


def test_one_hot():
    idx = np.array([[0, 3], [2, -1]])
    got = call("one_hot", idx, 4)
    assert got.dtype == np.float64 and got.shape == (2, 2, 4)   # as the original (A.2)
    for i, j in np.ndindex(idx.shape):
        row = [1 if c == idx[i, j] else 0 for c in range(4)]
        assert got[i, j].tolist() == row
    np.testing.assert_array_equal(call("one_hot", np.int64(2), 3), [0, 0, 1])
    for indices in (np.array([0.5]), np.array([1.0, 5.0]), np.array([True])):
        with pytest.raises(PhylanxTypeError, match="integer value type"):
            call("one_hot", indices, 3)
    with pytest.raises(PhylanxValueError, match="num_classes must not be negative"):
        call("one_hot", np.array([0]), -1)


def test_bias_add():
    x = RNG.normal(size=(2, 3, 4))
    bias = RNG.normal(size=4)
    expected = np.array([[[x[b, i, c] + bias[c] for c in range(4)] for i in range(3)]
                         for b in range(2)])
    np.testing.assert_allclose(call("bias_add", x, bias), expected)
    full = RNG.normal(size=(3, 4))
    np.testing.assert_allclose(call("bias_add", x, full), x + full[None])
    got = call("bias_add", x.astype(np.float32), bias.astype(np.float32))
    assert got.dtype == np.float32
    with pytest.raises(PhylanxValueError, match=r"bias must have shape \(4,\)"):
        call("bias_add", x, np.ones(3))
    with pytest.raises(PhylanxValueError, match="bias must have shape"):
        call("bias_add", x, np.ones((2, 4)))


def test_switch():
    then_, else_ = np.arange(6.0).reshape(2, 3), -np.arange(6.0).reshape(2, 3)
    got = call("switch", np.array([True, False]), then_, else_)
    np.testing.assert_array_equal(got, [then_[0], else_[1]])   # a row per condition
    mask = np.array([[1, 0, 1], [0, 0, 1]])
    got = call("switch", mask, then_, else_)
    expected = [[then_[i, j] if mask[i, j] else else_[i, j] for j in range(3)]
                for i in range(2)]
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(call("switch", np.bool_(False), then_, else_), else_)
    assert call("switch", np.int64(1), then_, "other") is not None
    with pytest.raises(PhylanxValueError, match="condition has rank 3"):
        call("switch", np.ones((2, 3, 1)), then_, else_)


def test_switch_condition_covers_the_leading_axes_of_either_value():
    # a scalar "then" and a matrix "else": the condition still picks rows, not columns
    got = call("switch", np.array([True, False]), np.int64(0), np.array([[1, 2], [3, 4]]))
    np.testing.assert_array_equal(got, [[0, 0], [3, 4]])
    # a Python number is weak in NumPy's promotion: float32 values stay float32
    x = np.ones(3, np.float32)
    got = call("switch", np.array([True, False, True]), x, 2.5)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [1.0, 2.5, 1.0])


def test_l2_normalize():
    x = RNG.normal(size=(3, 4))
    whole = x / math.sqrt(sum(v * v for v in x.ravel()))
    np.testing.assert_allclose(call("l2_normalize", x), whole, rtol=1e-13)
    for axis in (0, 1, -1):
        norms = np.sqrt(np.sum(x ** 2, axis=axis, keepdims=True))
        np.testing.assert_allclose(call("l2_normalize", x, np.int64(axis)), x / norms,
                                   rtol=1e-13)
    np.testing.assert_array_equal(call("l2_normalize", np.zeros(3)), np.zeros(3))
    tiny = np.array([1e-8, 0.0])   # below the epsilon: divided by sqrt(1e-12), not by 1e-8
    np.testing.assert_allclose(call("l2_normalize", tiny), tiny / 1e-6)
    assert call("l2_normalize", x.astype(np.float32)).dtype == np.float32


def batch_dot_reference(x, y, axes):
    ax, ay = axes
    out = np.stack([np.tensordot(x[i], y[i], axes=(ax - 1, ay - 1)) for i in range(len(x))])
    return out.reshape(len(x), 1) if out.ndim == 1 else out


@pytest.mark.parametrize("xs, ys, axes, resolved", [
    ((4, 5), (4, 5), None, (1, 1)),
    ((4, 2, 3), (4, 3, 5), None, (2, 1)),
    ((4, 2, 3), (4, 3), None, (2, 1)),
    ((4, 3), (4, 3, 5), None, (1, 1)),
    ((32, 20, 1), (32, 30, 20), [1, 2], (1, 2)),
    ((3, 2, 5, 4), (3, 4, 2), [-1, 1], (3, 1)),
    ((3, 5, 2), (3, 5, 4), 1, (1, 1)),
    ((2, 3, 4), (2, 4, 3, 2), [2, 1], (2, 1)),
])
def test_batch_dot_matches_per_sample_tensordot(xs, ys, axes, resolved):
    x, y = RNG.normal(size=xs), RNG.normal(size=ys)
    got = call("batch_dot", x, y) if axes is None else call("batch_dot", x, y, axes)
    np.testing.assert_allclose(got, batch_dot_reference(x, y, resolved), rtol=1e-12)
    if xs == (32, 20, 1):
        assert got.shape == (32, 1, 30)   # the Keras documentation's example


def test_batch_dot_dtypes_and_errors():
    assert call("batch_dot", np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)).dtype \
        == np.float32
    got = call("batch_dot", np.arange(6).reshape(2, 3), np.arange(6).reshape(2, 3))
    assert got.dtype == np.int64 and got.tolist() == [[5], [50]]
    with pytest.raises(PhylanxValueError, match="axis 0"):
        call("batch_dot", np.ones((2, 3)), np.ones((2, 3)), [0, 1])
    with pytest.raises(PhylanxValueError, match="batch sizes differ"):
        call("batch_dot", np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(PhylanxValueError, match="rank >= 2"):
        call("batch_dot", np.ones(3), np.ones(3))
    with pytest.raises(PhylanxValueError, match="cannot reduce axis"):
        call("batch_dot", np.ones((2, 3)), np.ones((2, 4)))


# ---------------------------------------------------------------------------------- losses

EPS = 1e-7


def test_categorical_crossentropy_probabilities():
    target = np.eye(4)[[0, 2, 3]]
    output = RNG.uniform(0.1, 2.0, size=(3, 4))
    output[1, 2] = 0.0                                  # clipped to eps, not log(0)
    loss, clipped = call("categorical_crossentropy", target, output)
    expected_probs = np.empty_like(output)
    expected_loss = []
    for i in range(3):
        row = [min(max(v / sum(output[i]), EPS), 1 - EPS) for v in output[i]]
        expected_probs[i] = row
        expected_loss.append(-sum(t * math.log(p) for t, p in zip(target[i], row)))
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-12)
    np.testing.assert_allclose(clipped, expected_probs, rtol=1e-12)
    # axis=0 is the same computation on the transpose
    loss0, _ = phylanx.evaluate("lambda(t, o, categorical_crossentropy(t, o, __arg(axis, 0)))",
                                target.T, output.T)
    np.testing.assert_allclose(loss0, expected_loss, rtol=1e-12)
    one, _ = call("categorical_crossentropy", target[0], output[0])
    assert isinstance(one, np.float64) and one == pytest.approx(expected_loss[0])


def test_categorical_crossentropy_from_logits():
    target = np.array([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5]])
    logits = np.array([[2.0, -1.0, 0.5], [0.1, 0.2, -0.3]])
    loss, probs = call("categorical_crossentropy", target, logits, True)
    for i in range(2):
        exps = [math.exp(v) for v in logits[i]]
        soft = [e / sum(exps) for e in exps]
        assert loss[i] == pytest.approx(-sum(t * math.log(p) for t, p in zip(target[i], soft)),
                                        rel=1e-12)
        np.testing.assert_allclose(probs[i], soft, rtol=1e-12)
    loss, _ = call("categorical_crossentropy", np.array([1.0, 0.0]),
                   np.array([-1000.0, 1000.0]), True)
    assert loss == pytest.approx(2000.0)              # exact, no clipping of logits
    loss32, probs32 = call("categorical_crossentropy", target.astype(np.float32),
                           logits.astype(np.float32), np.bool_(True))
    assert loss32.dtype == np.float32 and probs32.dtype == np.float32


def test_categorical_crossentropy_errors():
    with pytest.raises(PhylanxValueError, match="same shape"):
        call("categorical_crossentropy", np.ones(3), np.ones(4))


def test_binary_crossentropy():
    target = np.array([0.0, 1.0, 1.0, 0.0, 0.3])
    output = np.array([0.2, 0.9, 0.0, 1.0, 0.6])

    def reference(t, o):
        p = min(max(o, EPS), 1 - EPS)
        return -(t * math.log(p) + (1 - t) * math.log(1 - p))
    expected = [reference(t, o) for t, o in zip(target, output)]
    np.testing.assert_allclose(call("binary_crossentropy", target, output), expected,
                               rtol=1e-9)
    logits = np.array([-3.0, 2.0, 0.0, 800.0, -800.0])
    got = call("binary_crossentropy", target, logits, True)
    sig = [1 / (1 + math.exp(-v)) for v in logits[:3]]
    naive = [-(t * math.log(p) + (1 - t) * math.log(1 - p)) for t, p in zip(target, sig)]
    np.testing.assert_allclose(got[:3], naive, rtol=1e-12)
    np.testing.assert_allclose(got[3:], [800.0, 0.3 * 800.0], rtol=1e-12)
    got = phylanx.evaluate("lambda(t, o, binary_crossentropy(t, o, __arg(from_logits, true)))",
                           target.astype(np.float32), logits.astype(np.float32))
    assert got.dtype == np.float32


# ------------------------------------------------------------------------------ ctc_decode


def brute_force_labelings(probs, length):
    """Probability of every labeling: the sum over all alignments that collapse to it."""
    blank = probs.shape[1] - 1
    totals: dict[tuple, float] = {}
    for path in itertools.product(range(probs.shape[1]), repeat=length):
        p = math.prod(probs[t, c] + EPS for t, c in enumerate(path))
        merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
        label = tuple(c for c in merged if c != blank)
        totals[label] = totals.get(label, 0.0) + p
    return sorted(totals.items(), key=lambda kv: -kv[1])


def greedy_reference(probs, length):
    blank = probs.shape[1] - 1
    best = [int(np.argmax(probs[t])) for t in range(length)]
    label = [c for i, c in enumerate(best) if (i == 0 or c != best[i - 1]) and c != blank]
    return label, -sum(math.log(max(probs[t]) + EPS) for t in range(length))


def _softmax_rows(shape):
    logits = RNG.normal(scale=2.0, size=shape)
    exps = np.exp(logits)
    return exps / exps.sum(axis=-1, keepdims=True)


def test_ctc_greedy_decode():
    probs = _softmax_rows((3, 6, 4))
    lengths = np.array([6, 4, 0])
    decoded, log_prob = call("ctc_decode", probs, lengths)
    assert len(decoded) == 1 and log_prob.shape == (3, 1)
    dense = decoded[0]
    for i in range(3):
        label, score = greedy_reference(probs[i], lengths[i])
        row = dense[i].tolist()
        assert row[:len(label)] == label and all(v == -1 for v in row[len(label):])
        assert log_prob[i, 0] == pytest.approx(score, rel=1e-12)
    assert dense.shape[1] == max(len(greedy_reference(probs[i], lengths[i])[0])
                                 for i in range(3))


def test_ctc_greedy_merges_repeats_but_not_across_blanks():
    blank = [0.0, 0.0, 1.0]
    a = [1.0, 0.0, 0.0]
    probs = np.array([[a, a, blank, a, [0.0, 1.0, 0.0]]])
    decoded, _ = call("ctc_decode", probs, np.array([5]))
    assert decoded[0].tolist() == [[0, 0, 1]]


def test_ctc_beam_search_finds_the_most_probable_labelings():
    probs = _softmax_rows((2, 4, 3))
    lengths = np.array([4, 3])
    decoded, log_prob = phylanx.evaluate(
        "lambda(y, n, ctc_decode(y, n, __arg(greedy, false), __arg(top_paths, 3)))",
        probs, lengths)
    assert len(decoded) == 3 and log_prob.shape == (2, 3)
    for i in range(2):
        ranked = brute_force_labelings(probs[i], lengths[i])
        for k in range(3):
            row = [v for v in decoded[k][i].tolist() if v != -1]
            assert tuple(row) == ranked[k][0]
            assert log_prob[i, k] == pytest.approx(math.log(ranked[k][1]), rel=1e-9)


def test_ctc_beam_can_beat_greedy():
    # Greedy picks blank at each step (0.6), yet "0" has more total probability.
    probs = np.array([[[0.4, 0.6], [0.4, 0.6]]])
    greedy, _ = call("ctc_decode", probs, np.array([2]))
    beam, log_prob = call("ctc_decode", probs, np.array([2]), np.bool_(False))
    assert greedy[0].shape == (1, 0)
    assert beam[0].tolist() == [[0]]
    assert log_prob[0, 0] == pytest.approx(math.log((0.4 + EPS) ** 2 + 2 * (0.4 + EPS)
                                                    * (0.6 + EPS)))


def test_ctc_decode_errors():
    probs = _softmax_rows((2, 3, 3))
    with pytest.raises(PhylanxValueError, match="input_length must hold 2"):
        call("ctc_decode", probs, np.array([3]))
    with pytest.raises(PhylanxValueError, match="between 0 and 3"):
        call("ctc_decode", probs, np.array([3, 4]))
    with pytest.raises(PhylanxValueError, match="beam_width >= top_paths"):
        call("ctc_decode", probs, np.array([3, 3]), np.bool_(False), 2, 3)


@pytest.mark.parametrize("from_logits", [False, True])
@pytest.mark.parametrize("target,output", [(1.0, 0.3), (0.5, 2.0), (0, 1)])
def test_categorical_crossentropy_of_scalars_is_one_class(target, output, from_logits):
    # the original's 0-d form: one class, so the normalised (or softmax) output is 1,
    # clipped to 1 - eps; the loss alone comes back, as there
    loss = call("categorical_crossentropy", target, output, from_logits)
    expected = 0.0 if from_logits else -target * math.log(1 - EPS)
    assert np.ndim(loss) == 0 and loss == pytest.approx(expected, abs=1e-15)
    vector_loss, _ = call("categorical_crossentropy", np.array([target], float),
                          np.array([output], float), from_logits)
    assert loss == pytest.approx(vector_loss, abs=1e-15)
