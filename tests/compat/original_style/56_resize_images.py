"""resize_images: nearest keeps the dtype (np.repeat on both axes); bilinear is float64
with half-pixel centres, as Keras's (tf.image.resize) and JAX's."""
import jax
import numpy as np

from phylanx import Phylanx


@Phylanx
def nearest(x, h, w):
    return resize_images(x, h, w)  # noqa: F821


@Phylanx
def bilinear(x):
    return resize_images(x, 2, 3, "bilinear")  # noqa: F821


x = np.arange(8).reshape(1, 2, 2, 2)
got = nearest(x, 2, 3)
assert got.dtype == x.dtype
assert np.array_equal(got, np.repeat(np.repeat(x, 2, axis=1), 3, axis=2))
smooth = bilinear(x.astype(np.float64))
assert smooth.dtype == np.float64
assert np.allclose(smooth, jax.image.resize(x.astype(np.float64), (1, 4, 6, 2), "bilinear"))
