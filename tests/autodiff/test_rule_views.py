"""Rules that spread a reduced cotangent return it as a broadcast view, not an operand-sized
array (a pass over the operand and its memory saved), with the same values."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx.autodiff.table import VJP


@pytest.mark.parametrize("axis, keepdims", [(None, None), (1, None), ((0, 2), True), (-1, True)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mean_cotangent_is_a_view_equal_to_the_divided_broadcast(axis, keepdims, dtype):
    rng = np.random.default_rng(3)
    a = rng.normal(size=(4, 5, 6)).astype(dtype)
    out = np.mean(a, axis=axis, keepdims=bool(keepdims))
    ct = rng.normal(size=np.shape(out)).astype(dtype)
    (got,) = VJP.get("mean")(ct, out, a, axis, keepdims)
    count = a.size // max(np.size(out), 1)
    expanded = np.asarray(ct)
    if not keepdims and axis is not None:
        expanded = np.expand_dims(expanded, axis)
    want = np.broadcast_to(expanded, a.shape) / count     # the formula it replaced
    assert got.shape == a.shape and got.dtype == want.dtype == dtype
    np.testing.assert_array_equal(got, want)
    assert 0 in got.strides                    # a view: no operand-sized array written
