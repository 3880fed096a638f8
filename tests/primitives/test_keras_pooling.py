"""Keras pooling, spatial_2d_padding and resize_images (pooling.py) against loop references.

The pooling references visit each output position and gather the in-range cells of
its window (TensorFlow's "same": padded cells are ignored, averages count only real
cells).  torch's pooling is compared where its symmetric padding can express it.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxTypeError, PhylanxValueError

from .harness import call

RNG = np.random.default_rng(99)


def ref_pool(x, pool, padding, strides, reduce):
    """Pool a (batch, *spatial, channels) array by looping over output positions."""
    spatial = x.shape[1:-1]
    outs, starts = [], []
    for length, k, s in zip(spatial, pool, strides):
        if padding == "valid":
            outs.append((length - k) // s + 1)
            starts.append(0)
        else:
            out = math.ceil(length / s)
            outs.append(out)
            starts.append(max((out - 1) * s + k - length, 0) // 2)
    result = np.zeros((x.shape[0], *outs, x.shape[-1]))
    for position in itertools.product(*(range(o) for o in outs)):
        ranges = [range(max(o * s - st, 0), min(o * s - st + k, length))
                  for o, s, st, k, length in zip(position, strides, starts, pool, spatial)]
        cells = [x[(slice(None), *idx, slice(None))] for idx in itertools.product(*ranges)]
        result[(slice(None), *position, slice(None))] = reduce(np.stack(cells), axis=0)
    return result


CASES_2D = [((6, 7), (2, 2), (2, 2)), ((5, 5), (3, 3), (1, 1)), ((7, 6), (3, 2), (2, 3)),
            ((4, 9), (1, 4), (1, 2)), ((5, 4), (2, 2), (3, 3))]


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("size, pool_size, strides", CASES_2D)
def test_pool2d_matches_loop_reference(padding, size, pool_size, strides):
    x = RNG.normal(size=(2, *size, 3))
    for name, reduce in (("max_pool2d", np.max), ("avg_pool2d", np.mean)):
        got = call(name, x, list(pool_size), padding, list(strides))
        np.testing.assert_allclose(got, ref_pool(x, pool_size, padding, strides, reduce),
                                   rtol=1e-12, err_msg=name)


CASES_3D = [((4, 5, 6), (2, 2, 2), (2, 2, 2)), ((5, 4, 3), (3, 2, 1), (1, 2, 1)),
            ((3, 5, 4), (2, 3, 2), (2, 1, 3))]


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("size, pool_size, strides", CASES_3D)
def test_pool3d_matches_loop_reference(padding, size, pool_size, strides):
    x = RNG.normal(size=(2, *size, 2))
    for name, reduce in (("max_pool3d", np.max), ("avg_pool3d", np.mean)):
        got = call(name, x, list(pool_size), padding, list(strides))
        np.testing.assert_allclose(got, ref_pool(x, pool_size, padding, strides, reduce),
                                   rtol=1e-12, err_msg=name)


def test_pool_default_strides_are_one_and_int_pool_size_is_repeated():
    x = RNG.normal(size=(1, 4, 5, 1))
    np.testing.assert_allclose(call("max_pool2d", x, np.int64(2)),
                               ref_pool(x, (2, 2), "valid", (1, 1), np.max))
    got = phylanx.evaluate('lambda(x, avg_pool2d(x, list(2, 3), __arg(padding, "same")))', x)
    np.testing.assert_allclose(got, ref_pool(x, (2, 3), "same", (1, 1), np.mean))


def test_same_padding_never_lets_padding_win_or_count():
    # All values negative: a zero-padded max would return 0 at the border; a
    # zero-counting average would shrink toward 0.
    x = -np.arange(1.0, 10.0).reshape(1, 3, 3, 1)
    got_max = call("max_pool2d", x, [2, 2], "same", [1, 1])[0, :, :, 0]
    np.testing.assert_array_equal(got_max[-1], [-7.0, -8.0, -9.0])
    got_avg = call("avg_pool2d", x, [2, 2], "same", [1, 1])[0, :, :, 0]
    assert got_avg[2, 2] == -9.0 and got_avg[1, 2] == -7.5


def test_pooling_dtypes_and_layouts():
    ints = np.arange(24).reshape(1, 4, 6, 1)
    got = call("max_pool2d", ints, [2, 2], "same", [2, 2])
    assert got.dtype == np.float64   # ints are read as float64, as the original (A.2)
    np.testing.assert_array_equal(got, ref_pool(ints, (2, 2), "same", (2, 2), np.max))
    avg = call("avg_pool2d", ints, [2, 2])
    assert avg.dtype == np.float64
    x32 = RNG.normal(size=(1, 4, 4, 2)).astype(np.float32)
    assert call("avg_pool2d", x32, [2, 2], "same", [2, 2]).dtype == np.float32
    assert call("max_pool2d", x32, [2, 2]).dtype == np.float32
    # without the batch axis, and without batch and channels
    x = RNG.normal(size=(5, 6, 3))
    np.testing.assert_allclose(call("avg_pool2d", x, [2, 3], "same", [2, 2]),
                               ref_pool(x[None], (2, 3), "same", (2, 2), np.mean)[0])
    m = RNG.normal(size=(5, 6))
    np.testing.assert_allclose(call("max_pool2d", m, [3, 3], "valid", [2, 2]),
                               ref_pool(m[None, :, :, None], (3, 3), "valid", (2, 2),
                                        np.max)[0, :, :, 0])
    v = RNG.normal(size=(4, 4, 4))
    np.testing.assert_allclose(call("max_pool3d", v, [2, 2, 2], "valid", [2, 2, 2]),
                               ref_pool(v[None, ..., None], (2, 2, 2), "valid", (2, 2, 2),
                                        np.max)[0, ..., 0])


def test_max_pool_propagates_nan():
    x = np.arange(16.0).reshape(1, 4, 4, 1)
    x[0, 0, 0, 0] = np.nan
    got = call("max_pool2d", x, [2, 2], "valid", [2, 2])[0, :, :, 0]
    assert np.isnan(got[0, 0]) and not np.isnan(got[1, 1])


def test_pooling_errors():
    x = np.ones((1, 4, 4, 1))
    with pytest.raises(PhylanxValueError, match="pool_size must be an integer or a list of 2"):
        call("max_pool2d", x, [2, 2, 2])
    with pytest.raises(PhylanxValueError, match="2-d array"):
        call("max_pool2d", np.ones((1, 1, 4, 4, 1)), [2, 2])
    with pytest.raises(PhylanxValueError, match="padding must be one of"):
        call("avg_pool3d", np.ones((1, 4, 4, 4, 1)), [2, 2, 2], "causal")
    with pytest.raises(PhylanxValueError, match="shorter than the window"):
        call("avg_pool2d", x, [5, 1])
    with pytest.raises(PhylanxTypeError, match="pool_size must be an integer"):
        call("max_pool2d", x, ["a", "b"])


def test_pooling_matches_torch():
    torch = pytest.importorskip("torch")
    functional = torch.nn.functional
    x = RNG.normal(size=(2, 9, 8, 3))
    xt = torch.from_numpy(x.transpose(0, 3, 1, 2).copy())
    for k, s in [((2, 2), (2, 2)), ((3, 2), (1, 2)), ((3, 3), (2, 1))]:
        for name, fn in (("max_pool2d", functional.max_pool2d),
                         ("avg_pool2d", functional.avg_pool2d)):
            expected = fn(xt, k, s).numpy().transpose(0, 2, 3, 1)
            np.testing.assert_allclose(call(name, x, list(k), "valid", list(s)), expected,
                                       rtol=1e-12, err_msg=name)
    # odd pools with stride 1: "same" pads k//2 on both sides, which torch can express
    expected = functional.avg_pool2d(xt, 3, 1, padding=1, count_include_pad=False)
    np.testing.assert_allclose(call("avg_pool2d", x, [3, 3], "same"),
                               expected.numpy().transpose(0, 2, 3, 1), rtol=1e-12)
    expected = functional.max_pool2d(xt, 3, 1, padding=1)
    np.testing.assert_allclose(call("max_pool2d", x, [3, 3], "same"),
                               expected.numpy().transpose(0, 2, 3, 1), rtol=1e-12)
    v = RNG.normal(size=(2, 6, 5, 4, 2))
    vt = torch.from_numpy(v.transpose(0, 4, 1, 2, 3).copy())
    for name, fn in (("max_pool3d", functional.max_pool3d),
                     ("avg_pool3d", functional.avg_pool3d)):
        expected = fn(vt, (2, 2, 2), (2, 1, 2)).numpy().transpose(0, 2, 3, 4, 1)
        np.testing.assert_allclose(call(name, v, [2, 2, 2], "valid", [2, 1, 2]), expected,
                                   rtol=1e-12, err_msg=name)


# ------------------------------------------------------------------ padding and resizing


def test_spatial_2d_padding():
    x = RNG.normal(size=(2, 3, 4, 2)).astype(np.float32)
    got = phylanx.evaluate("lambda(x, spatial_2d_padding(x))", x)
    assert got.dtype == np.float32 and got.shape == (2, 5, 6, 2)
    np.testing.assert_array_equal(got[:, 1:-1, 1:-1], x)
    assert np.count_nonzero(got) == np.count_nonzero(x)
    got = phylanx.evaluate("lambda(x, spatial_2d_padding(x, list(list(0, 2), list(3, 1))))", x)
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (0, 2), (3, 1), (0, 0)]))
    with pytest.raises(PhylanxValueError, match="must be non-negative"):
        phylanx.evaluate("lambda(x, spatial_2d_padding(x, list(list(0, -1), list(1, 1))))", x)
    with pytest.raises(PhylanxValueError, match="4-d"):
        phylanx.evaluate("lambda(x, spatial_2d_padding(x))", x[0])
    # integral floats count as integers, as in every other integer argument (dtypes.to_int)
    got = phylanx.evaluate("lambda(x, spatial_2d_padding(x, list(list(0, 2.0), list(1, 1))))", x)
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (0, 2), (1, 1), (0, 0)]))
    with pytest.raises(PhylanxTypeError, match="padding of the rows must be an integer"):
        phylanx.evaluate("lambda(x, spatial_2d_padding(x, list(list(0, 1.5), list(1, 1))))", x)


def ref_bilinear(x, fy, fx):
    """Half-pixel-centre bilinear upsampling, one output pixel at a time."""
    batch, rows, cols, channels = x.shape
    out = np.zeros((batch, rows * fy, cols * fx, channels))
    for i, j in itertools.product(range(rows * fy), range(cols * fx)):
        sy = min(max((i + 0.5) / fy - 0.5, 0.0), rows - 1)
        sx = min(max((j + 0.5) / fx - 0.5, 0.0), cols - 1)
        y0, x0 = int(math.floor(sy)), int(math.floor(sx))
        y1, x1 = min(y0 + 1, rows - 1), min(x0 + 1, cols - 1)
        wy, wx = sy - y0, sx - x0
        out[:, i, j] = ((1 - wy) * (1 - wx) * x[:, y0, x0] + (1 - wy) * wx * x[:, y0, x1]
                        + wy * (1 - wx) * x[:, y1, x0] + wy * wx * x[:, y1, x1])
    return out


@pytest.mark.parametrize("fy, fx", [(1, 1), (2, 3), (3, 1), (4, 2)])
def test_resize_images(fy, fx):
    x = RNG.normal(size=(2, 3, 4, 2))
    nearest = phylanx.evaluate("lambda(x, h, w, resize_images(x, h, w))", x, fy, fx)
    for i, j in itertools.product(range(3 * fy), range(4 * fx)):
        np.testing.assert_array_equal(nearest[:, i, j], x[:, i // fy, j // fx])
    bilinear = phylanx.evaluate('lambda(x, h, w, resize_images(x, h, w, "bilinear"))', x, fy,
                                fx)
    np.testing.assert_allclose(bilinear, ref_bilinear(x, fy, fx), rtol=1e-12, atol=1e-12)


def test_resize_images_dtypes_and_errors():
    ints = np.arange(8).reshape(1, 2, 2, 2)
    assert phylanx.evaluate("lambda(x, resize_images(x, 2, 2))", ints).dtype == np.int64
    assert phylanx.evaluate('lambda(x, resize_images(x, 2, 2, "bilinear"))',
                            ints).dtype == np.float64
    x32 = ints.astype(np.float32)
    assert phylanx.evaluate('lambda(x, resize_images(x, 2, 2, "bilinear"))',
                            x32).dtype == np.float32
    with pytest.raises(PhylanxValueError, match="interpolation must be"):
        phylanx.evaluate('lambda(x, resize_images(x, 2, 2, "cubic"))', x32)
    with pytest.raises(PhylanxValueError, match="height_factor must be positive"):
        phylanx.evaluate("lambda(x, resize_images(x, 0, 2))", x32)


def test_resize_bilinear_matches_torch():
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(2, 3, 5, 2))
    expected = torch.nn.functional.interpolate(
        torch.from_numpy(x.transpose(0, 3, 1, 2).copy()), scale_factor=(2, 3),
        mode="bilinear", align_corners=False).numpy().transpose(0, 2, 3, 1)
    got = phylanx.evaluate('lambda(x, resize_images(x, 2, 3, "bilinear"))', x)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
