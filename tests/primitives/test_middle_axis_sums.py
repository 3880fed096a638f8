"""``sum``/``mean`` over a middle axis as one batched product with a row of ones
(``reductions.middle_axis_sum``, conv46): taken for C-contiguous float32/float64 arrays
with axes before the summed axis and a block after it of at most
``MIDDLE_SUM_INNER_BYTES``, and NumPy's result within the rounding of another order of
additions (the same dtype, shape, infinities, NaNs and signs of zero) for every shape,
axis and ``keepdims``.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from phylanx.primitives.statistics import reductions

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([np.float32, np.float64]),
       hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=9),
       st.data(), st.booleans(), st.integers(0, 3))
def test_sums_and_means_equal_numpys(dtype, shape, data, keepdims, specials):
    a = data.draw(hnp.arrays(dtype, shape, elements=st.floats(-4, 4, width=32)))
    if data.draw(st.booleans()):
        a = -np.abs(a) * 0.0            # all zeros of one sign or the other
    for _ in range(specials):
        a.flat[data.draw(st.integers(0, a.size - 1))] = data.draw(st.sampled_from(SPECIAL))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    for name, reference in (("sum_", np.sum), ("mean", np.mean)):
        with np.errstate(invalid="ignore"):      # inf - inf: NaN, as NumPy's
            got = np.asarray(getattr(reductions, name)(a, axis, keepdims or None))
            want = np.asarray(reference(a, axis=axis, keepdims=keepdims))
        assert got.dtype == want.dtype and got.shape == want.shape
        # relative to the data: subnormal rounding is absolute, a few of the smallest
        # step per term (a +1 here would leave small sums barely checked)
        scale = np.sum(np.abs(np.nan_to_num(a, posinf=0, neginf=0)), axis=axis,
                       keepdims=keepdims) + a.shape[axis] * np.finfo(dtype).smallest_subnormal
        tol = 1e-6 if dtype == np.float32 else 1e-14
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        finite = np.isfinite(want)
        np.testing.assert_array_equal(got[~finite & ~np.isnan(want)],
                                      want[~finite & ~np.isnan(want)])
        assert np.all(np.abs(got[finite] - want[finite]) <= tol * np.broadcast_to(
            scale, got.shape)[finite])
        zero = want == 0
        np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


def test_a_conv1d_mean_takes_the_product_and_other_arrays_do_not(monkeypatch):
    taken = []
    real = reductions.middle_axis_sum
    monkeypatch.setattr(reductions, "middle_axis_sum",
                        lambda a, axis: taken.append(a.shape) or real(a, axis))
    h = np.random.default_rng(3).normal(size=(8, 30, 32)).astype(np.float32)
    reductions.mean(h, 1)
    reductions.sum_(h, -2, True)
    assert taken == [h.shape, h.shape]
    reductions.sum_(h, 2)                                # the last axis: NumPy's
    reductions.sum_(h, 0)                                # a leading axis: NumPy's
    reductions.sum_(h[:, ::2], 1)                        # not contiguous
    reductions.sum_(h.astype(np.float16), 1)             # not float32/64
    reductions.sum_(h, 1, None, 1.0)                     # initial
    reductions.mean(np.ones((2, 3, 4097), np.float16), 1)
    reductions.sum_(np.ones((2, 3, 2049), np.float32), 1)  # block above the bound
    assert taken == [h.shape, h.shape]


def test_every_spelling_of_one_middle_axis_gives_the_same_bits():
    # the product serves the sum over one axis however the axis is written (NumPy's
    # np.sum(h, 1) and np.sum(h, (1,)) are the same bits), not only a Python int
    h = np.random.default_rng(4).normal(size=(16, 300, 3)).astype(np.float32)
    for name in ("sum_", "mean"):
        want = getattr(reductions, name)(h, 1)
        for axis in (-2, np.int64(1), (1,), [-2], np.array([1])):
            for keepdims in (None, True):
                got = getattr(reductions, name)(h, axis, keepdims)
                np.testing.assert_array_equal(
                    got, want if keepdims is None else want[:, None], err_msg=f"{axis!r}")
