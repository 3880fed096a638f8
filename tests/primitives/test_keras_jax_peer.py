"""The convolution, pooling and resizing primitives against JAX (installed by ``.[all]``, so
this runs in ``make test``): the cases test_keras_conv.py and test_keras_pooling.py check
against torch when it is installed (an optional extra), so nothing is checked only
against torch."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import phylanx
from phylanx.ops import conv1d

from .harness import call

jax.config.update("jax_enable_x64", True)
RNG = np.random.default_rng(4321)


def close(got, want):
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize(("strides", "dilation"), [(1, 1), (2, 1), (1, 3), (3, 1)])
def test_conv1d_matches_jax(strides, dilation):
    x, kernel = RNG.normal(size=(2, 11, 3)), RNG.normal(size=(3, 3, 5))

    def peer(padding):
        return lax.conv_general_dilated(x, kernel, (strides,), padding,
                                        rhs_dilation=(dilation,),
                                        dimension_numbers=("NWC", "WIO", "NWC"))

    s, d = np.int64(strides), np.int64(dilation)
    close(conv1d(x, kernel, "valid", s, d), peer("VALID"))
    close(conv1d(x, kernel, "causal", s, d), peer([(2 * dilation, 0)]))
    if strides == 1:        # Keras' "same" pads as TensorFlow (and lax "SAME") does
        close(conv1d(x, kernel, "same", s, d), peer("SAME"))


@pytest.mark.parametrize("channels", [3, 12])    # 12: the tap-loop path
@pytest.mark.parametrize(("strides", "dilation"), [((1, 1), (1, 1)), ((2, 3), (1, 1)),
                                                   ((1, 1), (2, 1))])
def test_conv2d_matches_jax(channels, strides, dilation):
    x, kernel = RNG.normal(size=(2, 8, 7, channels)), RNG.normal(size=(2, 3, channels, 4))
    want = lax.conv_general_dilated(x, kernel, strides, "VALID", rhs_dilation=dilation,
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))
    got = phylanx.evaluate("lambda(x, k, s, d, conv2d(x, k, \"valid\", s, d))", x, kernel,
                           list(strides), list(dilation))
    close(got, want)
    same = lax.conv_general_dilated(x, kernel, (1, 1), "SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))
    close(phylanx.evaluate("lambda(x, k, conv2d(x, k, \"same\"))", x, kernel), same)


def _pool(x, kind, size, strides, padding):
    window, step = (1, *size, 1), (1, *strides, 1)
    pads = lax.padtype_to_pads(x.shape, window, step, padding)
    if kind == "max":
        return lax.reduce_window(x, -jnp.inf, lax.max, window, step, pads)
    total = lax.reduce_window(x, 0.0, lax.add, window, step, pads)
    return total / lax.reduce_window(jnp.ones_like(x), 0.0, lax.add, window, step, pads)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pooling_matches_jax(kind):
    x = RNG.normal(size=(2, 9, 8, 3))
    for size, strides in [((2, 2), (2, 2)), ((3, 2), (1, 2)), ((3, 3), (2, 1))]:
        close(call(f"{kind}_pool2d", x, list(size), "valid", list(strides)),
              _pool(x, kind, size, strides, "VALID"))
    # "same" (Keras: the average over the window's real elements)
    close(call(f"{kind}_pool2d", x, [3, 3], "same"), _pool(x, kind, (3, 3), (1, 1), "SAME"))
    v = RNG.normal(size=(2, 6, 5, 4, 2))
    close(call(f"{kind}_pool3d", v, [2, 2, 2], "valid", [2, 1, 2]),
          _pool(v, kind, (2, 2, 2), (2, 1, 2), "VALID"))


def test_resize_bilinear_matches_jax():
    x = RNG.normal(size=(2, 3, 5, 2))
    # upsampling with half-pixel centres (torch's align_corners=False, Keras' default)
    want = jax.image.resize(x, (2, 6, 15, 2), "bilinear")
    close(phylanx.evaluate('lambda(x, resize_images(x, 2, 3, "bilinear"))', x), want)
