"""Keras convolutions (conv.py) against direct-loop references (and torch when installed).

The references loop over output positions and kernel taps and skip taps that fall in
the padding, so they share no code with the window-view implementation.  Padding
amounts follow TensorFlow's definition: "same" gives ceil(L/s) outputs with
total = max((out-1)*s + (k-1)*d + 1 - L, 0) split left = total // 2.
"""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxTypeError, PhylanxValueError

RNG = np.random.default_rng(1234)


def _geometry(length, k, s, d, padding):
    """(number of outputs, left padding) of one spatial axis."""
    span = (k - 1) * d + 1
    if padding == "valid":
        return (length - span) // s + 1, 0
    if padding == "same":
        out = math.ceil(length / s)
        return out, max((out - 1) * s + span - length, 0) // 2
    return (length + span - 1 - span) // s + 1, span - 1   # causal


def ref_conv1d(x, kernel, padding="valid", s=1, d=1):
    batch, length, _ = x.shape
    k, _, out_ch = kernel.shape
    out_len, left = _geometry(length, k, s, d, padding)
    out = np.zeros((batch, out_len, out_ch))
    for b, o, t in itertools.product(range(batch), range(out_len), range(k)):
        pos = o * s - left + t * d
        if 0 <= pos < length:
            out[b, o] += x[b, pos] @ kernel[t]
    return out


def ref_conv2d(x, kernel, padding="valid", s=(1, 1), d=(1, 1)):
    batch, rows, cols, _ = x.shape
    kh, kw, _, out_ch = kernel.shape
    out_r, top = _geometry(rows, kh, s[0], d[0], padding)
    out_c, left = _geometry(cols, kw, s[1], d[1], padding)
    out = np.zeros((batch, out_r, out_c, out_ch))
    for b, i, j, p, q in itertools.product(range(batch), range(out_r), range(out_c),
                                           range(kh), range(kw)):
        r, c = i * s[0] - top + p * d[0], j * s[1] - left + q * d[1]
        if 0 <= r < rows and 0 <= c < cols:
            out[b, i, j] += x[b, r, c] @ kernel[p, q]
    return out


def ref_conv2d_transpose(x, kernel, out_shape, padding="valid", s=(1, 1), d=(1, 1)):
    """Scatter every input pixel through the kernel: the adjoint of ref_conv2d."""
    batch, rows, cols, _ = x.shape
    kh, kw = kernel.shape[:2]
    _, top = _geometry(out_shape[1], kh, s[0], d[0], padding)
    _, left = _geometry(out_shape[2], kw, s[1], d[1], padding)
    out = np.zeros(out_shape)
    for b, i, j, p, q in itertools.product(range(batch), range(rows), range(cols),
                                           range(kh), range(kw)):
        r, c = i * s[0] - top + p * d[0], j * s[1] - left + q * d[1]
        if 0 <= r < out_shape[1] and 0 <= c < out_shape[2]:
            out[b, r, c] += kernel[p, q] @ x[b, i, j]
    return out


def conv1d(*args):
    return phylanx.evaluate(f"lambda({', '.join(f'a{i}' for i in range(len(args)))}, "
                            f"conv1d({', '.join(f'a{i}' for i in range(len(args)))}))", *args)


CONV1D_CASES = [
    (7, 3, 1, 1), (7, 3, 2, 1), (8, 3, 3, 1), (9, 2, 1, 2), (10, 3, 2, 2), (5, 1, 1, 1),
    (6, 4, 1, 1), (5, 5, 2, 1), (4, 2, 3, 3),
]


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
@pytest.mark.parametrize("length, k, s, d", CONV1D_CASES)
def test_conv1d_matches_loop_reference(padding, length, k, s, d):
    if padding == "valid" and (k - 1) * d + 1 > length:
        pytest.skip("kernel longer than the input")
    x = RNG.normal(size=(2, length, 3))
    kernel = RNG.normal(size=(k, 3, 4))
    if s > 1 and d > 1:      # refused by the original (addendum A.2) and by Keras
        with pytest.raises(PhylanxValueError, match="together with a dilation_rate"):
            conv1d(x, kernel, padding, np.int64(s), np.int64(d))
        return
    got = conv1d(x, kernel, padding, np.int64(s), np.int64(d))
    np.testing.assert_allclose(got, ref_conv1d(x, kernel, padding, s, d), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
@pytest.mark.parametrize("length, k, s, d", [(9, 3, 2, 1), (10, 2, 1, 3), (6, 4, 3, 1)])
def test_conv1d_with_many_channels(padding, length, k, s, d):
    # From 8 input channels on, the implementation loops over kernel taps instead.
    x = RNG.normal(size=(2, length, 9))
    kernel = RNG.normal(size=(k, 9, 5))
    np.testing.assert_allclose(conv1d(x, kernel, padding, np.int64(s), np.int64(d)),
                               ref_conv1d(x, kernel, padding, s, d), rtol=1e-11, atol=1e-11)
    ints = RNG.integers(-5, 5, size=(1, length, 8))
    kernel_ints = RNG.integers(-3, 3, size=(k, 8, 2))
    got = conv1d(ints, kernel_ints, padding, np.int64(s), np.int64(d))
    assert got.dtype == np.float64   # ints are read as float64, as the original (A.2)
    np.testing.assert_array_equal(got, ref_conv1d(ints, kernel_ints, padding, s, d))


def test_conv1d_same_padding_puts_the_odd_cell_on_the_right():
    # L=4, k=2, s=1: total padding 1, all of it after (TensorFlow), so the last output
    # sees x[3] and a zero, the first sees x[0] and x[1].
    x = np.arange(1.0, 5.0).reshape(1, 4, 1)
    kernel = np.array([1.0, 10.0]).reshape(2, 1, 1)
    got = conv1d(x, kernel, "same")
    np.testing.assert_array_equal(got.ravel(), [21.0, 32.0, 43.0, 4.0])


def test_conv1d_causal_output_depends_only_on_the_past():
    x = RNG.normal(size=(1, 9, 2))
    kernel = RNG.normal(size=(3, 2, 2))
    before = conv1d(x, kernel, "causal", np.int64(1), np.int64(2))
    x2 = x.copy()
    x2[0, 5:] += 100.0
    after = conv1d(x2, kernel, "causal", np.int64(1), np.int64(2))
    assert before.shape == (1, 9, 2)
    np.testing.assert_array_equal(before[0, :5], after[0, :5])
    assert not np.allclose(before[0, 5:], after[0, 5:])


def test_conv1d_keywords_and_defaults():
    x = RNG.normal(size=(1, 10, 2))
    kernel = RNG.normal(size=(3, 2, 1))
    got = phylanx.evaluate("lambda(x, k, conv1d(x, k, __arg(dilation_rate, 2), "
                           '__arg(padding, "same")))', x, kernel)
    np.testing.assert_allclose(got, ref_conv1d(x, kernel, "same", 1, 2))
    np.testing.assert_allclose(conv1d(x, kernel), ref_conv1d(x, kernel))


def test_conv1d_dtypes():
    x32 = RNG.normal(size=(1, 6, 2)).astype(np.float32)
    k32 = RNG.normal(size=(2, 2, 3)).astype(np.float32)
    got = conv1d(x32, k32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ref_conv1d(x32.astype(float), k32.astype(float)),
                               rtol=1e-5, atol=1e-5)
    xi = np.arange(12).reshape(1, 6, 2)
    ki = np.ones((2, 2, 1), dtype=np.int64)
    got_int = conv1d(xi, ki)
    assert got_int.dtype == np.float64   # as the original (A.2)
    np.testing.assert_array_equal(got_int, ref_conv1d(xi, ki))
    assert conv1d(x32, k32.astype(np.float64)).dtype == np.float64


def test_conv1d_errors():
    x = np.ones((1, 5, 2))
    with pytest.raises(PhylanxValueError, match="input channels"):
        conv1d(x, np.ones((2, 3, 1)))
    with pytest.raises(PhylanxValueError, match="3-d"):
        conv1d(np.ones((5, 2)), np.ones((2, 2, 1)))
    with pytest.raises(PhylanxValueError, match="padding must be one of"):
        conv1d(x, np.ones((2, 2, 1)), "full")
    with pytest.raises(PhylanxTypeError, match="padding must be a string"):
        conv1d(x, np.ones((2, 2, 1)), np.int64(1))
    with pytest.raises(PhylanxValueError, match="strides must be positive"):
        conv1d(x, np.ones((2, 2, 1)), "valid", np.int64(0))
    with pytest.raises(PhylanxValueError, match="shorter than the window"):
        conv1d(x, np.ones((6, 2, 1)))


CONV2D_CASES = [
    ((5, 6), (3, 3), (1, 1), (1, 1)), ((7, 5), (3, 2), (2, 1), (1, 1)),
    ((8, 8), (3, 3), (2, 3), (1, 1)), ((9, 7), (2, 3), (1, 1), (2, 2)),
    ((6, 6), (1, 1), (2, 2), (1, 1)), ((7, 8), (2, 2), (3, 2), (2, 1)),
]


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("size, ksize, s, d", CONV2D_CASES)
def test_conv2d_matches_loop_reference(padding, size, ksize, s, d):
    x = RNG.normal(size=(2, *size, 2))
    kernel = RNG.normal(size=(*ksize, 2, 3))
    got = phylanx.evaluate("lambda(x, k, p, s, d, conv2d(x, k, p, s, d))", x, kernel,
                           padding, list(s), list(d))
    np.testing.assert_allclose(got, ref_conv2d(x, kernel, padding, s, d), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("size, ksize, s, d", CONV2D_CASES[1:4])
def test_conv2d_with_many_channels(padding, size, ksize, s, d):
    x = RNG.normal(size=(2, *size, 8)).astype(np.float32)
    kernel = RNG.normal(size=(*ksize, 8, 3)).astype(np.float32)
    got = phylanx.evaluate("lambda(x, k, p, s, d, conv2d(x, k, p, s, d))", x, kernel,
                           padding, list(s), list(d))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ref_conv2d(x.astype(float), kernel.astype(float), padding,
                                               s, d), rtol=1e-4, atol=1e-4)


def test_conv2d_integer_strides_and_errors():
    x = RNG.normal(size=(1, 6, 6, 1))
    kernel = RNG.normal(size=(2, 2, 1, 1))
    got = phylanx.evaluate("lambda(x, k, conv2d(x, k, \"valid\", 2))", x, kernel)
    np.testing.assert_allclose(got, ref_conv2d(x, kernel, "valid", (2, 2)))
    with pytest.raises(PhylanxValueError, match="padding must be one of"):
        phylanx.evaluate("lambda(x, k, conv2d(x, k, \"causal\"))", x, kernel)
    with pytest.raises(PhylanxValueError, match="list of 2 integers"):
        phylanx.evaluate("lambda(x, k, conv2d(x, k, \"valid\", list(1, 1, 1)))", x, kernel)


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
@pytest.mark.parametrize("s, d", [(1, 1), (2, 1), (1, 2)])
def test_separable_conv1d_is_depthwise_then_pointwise(padding, s, d):
    x = RNG.normal(size=(2, 9, 3))
    depthwise = RNG.normal(size=(3, 3, 2))
    pointwise = RNG.normal(size=(1, 6, 4))
    # Reference: channel c convolved alone with each depthwise[:, c, m] -> channel c*2+m.
    per_channel = np.concatenate(
        [ref_conv1d(x[:, :, c:c + 1], depthwise[:, c:c + 1, :], padding, s, d)
         for c in range(3)], axis=2)
    expected = ref_conv1d(per_channel, pointwise)
    got = phylanx.evaluate("lambda(x, dk, pk, p, s, d, separable_conv1d(x, dk, pk, p, s, d))",
                           x, depthwise, pointwise, padding, s, d)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_separable_conv1d_checks_the_pointwise_kernel():
    with pytest.raises(PhylanxValueError, match="pointwise_kernel must have shape"):
        phylanx.evaluate("lambda(x, dk, pk, separable_conv1d(x, dk, pk))", np.ones((1, 5, 2)),
                         np.ones((2, 2, 2)), np.ones((1, 2, 3)))


TRANSPOSE_CASES = [
    ((3, 4), (2, 2), (1, 1), (1, 1), "valid", (4, 5)),
    ((3, 3), (3, 3), (2, 2), (1, 1), "valid", (7, 7)),
    ((3, 3), (3, 3), (2, 2), (1, 1), "valid", (8, 8)),
    ((3, 4), (3, 2), (2, 3), (1, 1), "same", (6, 12)),
    ((3, 4), (3, 2), (2, 3), (1, 1), "same", (5, 10)),
    ((4, 4), (2, 3), (1, 1), (2, 2), "same", (4, 4)),
    ((2, 3), (2, 2), (1, 1), (2, 1), "valid", (4, 4)),
]


@pytest.mark.parametrize("size, ksize, s, d, padding, out_size", TRANSPOSE_CASES)
def test_conv2d_transpose_matches_scatter_reference_and_is_the_adjoint(size, ksize, s, d,
                                                                       padding, out_size):
    x = RNG.normal(size=(2, *size, 3))
    kernel = RNG.normal(size=(*ksize, 4, 3))        # (kh, kw, out_channels, in_channels)
    out_shape = (2, *out_size, 4)
    got = phylanx.evaluate("lambda(x, k, o, p, s, d, conv2d_transpose(x, k, o, p, s, d))",
                           x, kernel, list(out_shape), padding, list(s), list(d))
    assert got.shape == out_shape
    np.testing.assert_allclose(
        got, ref_conv2d_transpose(x, kernel, out_shape, padding, s, d), rtol=1e-12,
        atol=1e-12)
    # <conv2d(y, K), x> == <y, conv2d_transpose(x, K)> for every y of output_shape.
    y = RNG.normal(size=out_shape)
    forward = ref_conv2d(y, kernel, padding, s, d)
    assert forward.shape == x.shape
    np.testing.assert_allclose(np.sum(forward * x), np.sum(y * got), rtol=1e-10)


def test_conv2d_transpose_rejects_inconsistent_output_shape():
    x = np.ones((1, 3, 3, 1))
    kernel = np.ones((2, 2, 1, 1))
    code = "lambda(x, k, o, conv2d_transpose(x, k, o))"
    with pytest.raises(PhylanxValueError, match="does not match the input"):
        phylanx.evaluate(code, x, kernel, [1, 6, 4, 1])
    with pytest.raises(PhylanxValueError, match="out_channels=1"):
        phylanx.evaluate(code, x, kernel, [1, 4, 4, 2])
    np.testing.assert_allclose(phylanx.evaluate(code, x, kernel, [4, 4]),
                               ref_conv2d_transpose(x, kernel, (1, 4, 4, 1)))


# --------------------------------------------------------------------------- torch


def test_convolutions_match_torch():
    torch = pytest.importorskip("torch")
    functional = torch.nn.functional
    x = RNG.normal(size=(2, 11, 3))
    kernel = RNG.normal(size=(3, 3, 5))
    weight = torch.from_numpy(kernel.transpose(2, 1, 0).copy())   # (out, in, k)
    xt = torch.from_numpy(x.transpose(0, 2, 1).copy())             # (batch, channels, length)
    for s, d in [(1, 1), (2, 1), (1, 3), (3, 1)]:
        expected = functional.conv1d(xt, weight, stride=s, dilation=d).numpy()
        got = conv1d(x, kernel, "valid", np.int64(s), np.int64(d))
        np.testing.assert_allclose(got, expected.transpose(0, 2, 1), rtol=1e-10, atol=1e-10)
        causal = functional.conv1d(functional.pad(xt, (2 * d, 0)), weight, stride=s,
                                   dilation=d).numpy()
        np.testing.assert_allclose(conv1d(x, kernel, "causal", np.int64(s), np.int64(d)),
                                   causal.transpose(0, 2, 1), rtol=1e-10, atol=1e-10)
    for d in (1, 2):   # torch's own "same" (stride 1) splits the padding like TensorFlow
        expected = functional.conv1d(xt, weight, padding="same", dilation=d).numpy()
        np.testing.assert_allclose(conv1d(x, kernel, "same", np.int64(1), np.int64(d)),
                                   expected.transpose(0, 2, 1), rtol=1e-10, atol=1e-10)

    x2 = RNG.normal(size=(2, 8, 7, 12))   # many channels: the tap-loop path
    kernel2 = RNG.normal(size=(2, 3, 12, 4))
    x2t = torch.from_numpy(x2.transpose(0, 3, 1, 2).copy())
    weight2 = torch.from_numpy(kernel2.transpose(3, 2, 0, 1).copy())
    for s, d in [((1, 1), (1, 1)), ((2, 3), (1, 1)), ((1, 1), (2, 1))]:
        expected = functional.conv2d(x2t, weight2, stride=s, dilation=d).numpy()
        got = phylanx.evaluate("lambda(x, k, s, d, conv2d(x, k, \"valid\", s, d))", x2,
                               kernel2, list(s), list(d))
        np.testing.assert_allclose(got, expected.transpose(0, 2, 3, 1), rtol=1e-10,
                                   atol=1e-10)
    with warnings.catch_warnings():   # torch notes that even kernels need a padded copy
        warnings.simplefilter("ignore", UserWarning)
        same = functional.conv2d(x2t, weight2, padding="same").numpy()
    np.testing.assert_allclose(
        phylanx.evaluate("lambda(x, k, conv2d(x, k, \"same\"))", x2, kernel2),
        same.transpose(0, 2, 3, 1), rtol=1e-10, atol=1e-10)

    # conv_transpose2d (valid): torch weight is (in, out, kh, kw); extra trailing rows
    # and columns of output_shape are torch's output_padding.
    xs = RNG.normal(size=(2, 3, 4, 3))
    kt = RNG.normal(size=(3, 2, 5, 3))                            # (kh, kw, out, in)
    expected = functional.conv_transpose2d(
        torch.from_numpy(xs.transpose(0, 3, 1, 2).copy()),
        torch.from_numpy(kt.transpose(3, 2, 0, 1).copy()), stride=(2, 2),
        output_padding=(1, 0)).numpy().transpose(0, 2, 3, 1)
    got = phylanx.evaluate("lambda(x, k, o, conv2d_transpose(x, k, o, \"valid\", list(2, 2)))",
                           xs, kt, list(expected.shape))
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10)
