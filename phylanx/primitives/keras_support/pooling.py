"""Keras-support pooling and image reshaping: max/avg pool 2d/3d, spatial_2d_padding, resize_images.

Pooling takes channels-last arrays ``(batch, *spatial, channels)``; for an N-d pool an
array of rank N (spatial only) or N+1 (spatial + channels) is accepted as well.
"same" padding follows TensorFlow: padded cells never win a max and are not counted
in an average.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import PhylanxValueError
from ..dtypes import to_count
from ..registry import primitive
from ._windows import (
    as_array,
    as_float_array,
    check_rank,
    pad_amounts,
    restore_layout,
    spatial_layout,
    to_padding_mode,
    to_positive_ints,
    window_view,
)

_NO_ORACLE = ("NumPy has no pooling; checked against loop references (and torch when "
              "installed) in tests/primitives/test_keras_pooling.py")


def _lowest(dtype: np.dtype) -> Any:
    """The fill value that never wins a max: -inf, the smallest integer, or False."""
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    return False


def _pool(x: Any, pool_size: Any, padding: Any, strides: Any, nsp: int, kind: str):
    # int and bool inputs are read as float64, as the original's (compat addendum A.2)
    arr, shape = spatial_layout(as_float_array(x, "input"), nsp, "input")
    sizes = to_positive_ints(pool_size, nsp, "pool_size")
    steps = to_positive_ints(strides, nsp, "strides")
    mode = to_padding_mode(padding, ("valid", "same"))
    ones = (1,) * nsp
    pads = pad_amounts(arr.shape[1:1 + nsp], sizes, steps, ones, mode)
    window_axes = tuple(range(nsp + 2, 2 * nsp + 2))
    if kind == "max":
        if arr.size == 0:
            raise PhylanxValueError(f"cannot max-pool an empty array of shape {shape}")
        windows = window_view(arr, sizes, steps, ones, pads, fill=_lowest(arr.dtype))
        result = windows.max(axis=window_axes)
    else:
        work = arr if arr.dtype.kind == "f" else arr.astype(np.float64)
        windows = window_view(work, sizes, steps, ones, pads)
        total = windows.sum(axis=window_axes)
        # Windows overlapping the padding average over their real cells only.
        counts = window_view(np.ones((1, *arr.shape[1:1 + nsp], 1), work.dtype), sizes,
                             steps, ones, pads).sum(axis=window_axes)
        result = total / counts
    return restore_layout(result, shape, nsp)


def pool(x: Any, pool_size: Any, padding: Any, strides: Any, name: str):
    """Pooling ``name`` (``max_pool2d`` ... ``avg_pool3d``), strides nil as 1."""
    nsp, kind = int(name[-2]), name[:3]
    return _pool(x, pool_size, padding, (1,) * nsp if strides is None else strides, nsp,
                 kind)


def _declare_pool(name: str, kind: str, nsp: int, example: str, result: str):
    default = "list(" + ",".join("1" * nsp) + ")"
    pattern = (f'{name}(_1,_2_pool_size, __arg(_3_padding, "valid"), '
               f"__arg(_4_strides, {default}))")
    default_strides = (1,) * nsp
    what = "maximum" if kind == "max" else "average"
    layout = "(batch, " + ", ".join(("rows", "cols") if nsp == 2
                                    else ("depth", "rows", "cols")) + ", channels)"

    def pool(x, pool_size, padding="valid", strides=default_strides):
        return _pool(x, pool_size, padding, strides, nsp, kind)

    pool.__name__ = pool.__qualname__ = name
    pool.__doc__ = (
        f"{nsp}-d {what} pooling of a channels-last {layout} array.\n\n"
        f"``pool_size`` and ``strides`` are an integer or a list of {nsp}; ``padding`` is "
        f'"valid" or "same" (TensorFlow\'s). Arrays without the batch axis, or without '
        "batch and channel axes, are pooled over all their axes."
        + (" Integers are averaged in float64." if kind == "avg" else ""))
    return primitive(name, pattern, no_oracle=_NO_ORACLE,
                     differentiable=True, example=example, result=result)(pool)


max_pool2d = _declare_pool("max_pool2d", "max", 2, "max_pool2d([[1, 5, 2], [4, 3, 6]], "
                           "list(2, 2))", "[[5., 6.]]")
avg_pool2d = _declare_pool("avg_pool2d", "avg", 2, "avg_pool2d([[1, 5, 2], [4, 3, 6]], "
                           'list(2, 2), "same", list(2, 2))', "[[3.25, 4.]]")
max_pool3d = _declare_pool("max_pool3d", "max", 3, "max_pool3d([[[1, 2], [3, 4]], "
                           "[[8, 7], [6, 5]]], list(2, 2, 2))", "[[[8.]]]")
avg_pool3d = _declare_pool("avg_pool3d", "avg", 3, "avg_pool3d([[[1, 2], [3, 4]], "
                           "[[8, 7], [6, 5]]], list(2, 2, 1))", "[[[4.5, 4.5]]]")


def _pair(value: Any, what: str) -> tuple[int, int]:
    """A (before, after) pair of non-negative integers."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise PhylanxValueError(f"{what} must be a list of two integers (before, after)")
    before, after = (to_count(v, what) for v in value)
    return before, after


@primitive(
    "spatial_2d_padding",
    "spatial_2d_padding(_1, __arg(_2_padding, list(list(1,1),list(1,1))))",
    no_oracle="np.pad with a fixed layout; tested in "
    "tests/primitives/test_keras_pooling.py",
    example="spatial_2d_padding([[[[1.]]]])",
    result="[[[[0.], [0.], [0.]], [[0.], [1.], [0.]], [[0.], [0.], [0.]]]]",
)
def spatial_2d_padding(x, padding=((1, 1), (1, 1))):
    """Zero-pad the rows and columns (axes 1 and 2) of a 4-d channels-last array.

    ``padding`` is ``list(list(top, bottom), list(left, right))``.
    """
    arr = as_float_array(x, "input")   # float64 for int/bool, as the original (A.2)
    check_rank(arr, (4,), "input (batch, rows, cols, channels)")
    if isinstance(padding, np.ndarray):
        padding = padding.tolist()
    if not isinstance(padding, (list, tuple)) or len(padding) != 2:
        raise PhylanxValueError("padding must be list(list(top, bottom), list(left, right))")
    rows = _pair(padding[0], "padding of the rows")
    cols = _pair(padding[1], "padding of the columns")
    return np.pad(arr, [(0, 0), rows, cols, (0, 0)])


def _bilinear_axis(source_len: int, factor: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lower/upper source indices and upper weights of a half-pixel-centred upsampling."""
    centres = (np.arange(source_len * factor) + 0.5) / factor - 0.5
    centres = np.clip(centres, 0, source_len - 1)
    lower = np.floor(centres).astype(np.int64)
    upper = np.minimum(lower + 1, source_len - 1)
    return lower, upper, centres - lower


@primitive(
    "resize_images",
    'resize_images(_1, _2_height_factor, _3_width_factor, __arg(_4_interpolation,"nearest"))',
    no_oracle="no NumPy equivalent; tested against loop references in "
    "tests/primitives/test_keras_pooling.py",
    example="resize_images([[[[1], [2]]]], 1, 2)", result="[[[[1], [1], [2], [2]]]]",
)
def resize_images(x, height_factor, width_factor, interpolation="nearest"):
    """Upsample a 4-d ``(batch, rows, cols, channels)`` array by integer factors.

    "nearest" repeats each pixel; "bilinear" interpolates with half-pixel centres
    (``tf.image.resize``/``torch`` ``align_corners=False``), edges clamped; integers
    are interpolated in float64.
    """
    arr = as_array(x, "input")
    check_rank(arr, (4,), "input (batch, rows, cols, channels)")
    fy = to_positive_ints(height_factor, 1, "height_factor")[0]
    fx = to_positive_ints(width_factor, 1, "width_factor")[0]
    if not isinstance(interpolation, str) or interpolation.lower() not in ("nearest",
                                                                          "bilinear"):
        raise PhylanxValueError(
            f'interpolation must be "nearest" or "bilinear", got {interpolation!r}')
    if interpolation.lower() == "nearest":
        return np.repeat(np.repeat(arr, fy, axis=1), fx, axis=2)
    work = arr if arr.dtype.kind == "f" else arr.astype(np.float64)
    if work.shape[1] == 0 or work.shape[2] == 0:
        return np.zeros((work.shape[0], work.shape[1] * fy, work.shape[2] * fx,
                         work.shape[3]), work.dtype)
    y0, y1, wy = _bilinear_axis(work.shape[1], fy)
    x0, x1, wx = _bilinear_axis(work.shape[2], fx)
    wy = wy.astype(work.dtype)[:, None, None]
    wx = wx.astype(work.dtype)[:, None]
    rows = work[:, y0] * (1 - wy) + work[:, y1] * wy
    return rows[:, :, x0] * (1 - wx) + rows[:, :, x1] * wx
