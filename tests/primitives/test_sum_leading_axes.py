"""``rules.sum_leading_axes`` (a bias's cotangent summed over batch and positions): the
sum NumPy gives, in the array's dtype, for contiguous float arrays (summed as ``ones @
rows``) and every other kind (summed by NumPy)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from phylanx.primitives.rules import sum_leading_axes, unbroadcast


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64, np.complex128, np.int64]),
       shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=6),
       count=st.integers(1, 4), layout=st.sampled_from(["contiguous", "reversed",
                                                          "broadcast"]),
       seed=st.integers(0, 99))
def test_the_sum_over_leading_axes(dtype, shape, count, layout, seed) -> None:
    count = min(count, len(shape))
    values = np.random.default_rng(seed).normal(size=shape) * 100
    ct = values.astype(dtype) if np.dtype(dtype).kind != "c" else (values + 1j).astype(dtype)
    if layout == "reversed":
        ct = ct[..., ::-1]
    elif layout == "broadcast" and ct.ndim:
        ct = np.broadcast_to(ct[:1], ct.shape)
    got = sum_leading_axes(ct, count)
    want = np.asarray(ct, np.complex128 if np.dtype(dtype).kind == "c" else np.float64) \
        .sum(axis=tuple(range(count)))
    assert np.shape(got) == want.shape
    assert np.asarray(got).dtype == ct.dtype
    rows = int(np.prod(ct.shape[:count]))
    tol = (4 * rows * np.finfo(np.float32).eps if dtype == np.float32
           else 4 * rows * np.finfo(np.float64).eps)
    scale = float(np.abs(ct).max()) if ct.size else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * scale * max(rows, 1))


def test_specials_propagate_and_a_bias_cotangent_keeps_float32() -> None:
    ct = np.ones((3, 4, 2), np.float32)
    ct[1, 2, 0] = np.inf
    ct[0, 0, 1] = np.nan
    got = sum_leading_axes(ct, 2)
    assert got.dtype == np.float32 and got[0] == np.inf and np.isnan(got[1])
    bias = unbroadcast(np.full((5, 7, 3), 0.5, np.float32), np.zeros(3, np.float32))
    assert bias.dtype == np.float32
    np.testing.assert_array_equal(bias, np.full(3, 17.5, np.float32))
