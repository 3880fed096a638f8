"""``solve`` of one matrix factorises it once (primitives/matrixops/numpy_products.py).

The singularity check's getrf gives the factors getrs solves with; NumPy's solve (gesv:
a second factorisation) is not called.  Oracles: ``numpy.linalg.solve`` for the values
(hypothesis over sizes, float32 and float64, one or several right-hand sides) and the
stack path's verdict (``first_singular_in_stack``) for singular matrices.  Only the
first test fails on the code before the change; the others guard the semantics.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx.errors import PhylanxLinAlgError
from phylanx.primitives.matrixops import numpy_products
from phylanx.primitives.solvers.direct import first_singular_in_stack


def test_one_matrix_is_factorised_once(monkeypatch):
    calls = []
    real = np.linalg.solve

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)
    monkeypatch.setattr(np.linalg, "solve", counting)
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(5, 5)) + 5 * np.eye(5), rng.normal(size=5)
    np.testing.assert_allclose(numpy_products.solve(a, b), real(a, b), rtol=1e-12)
    assert calls == []


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 12), k=st.sampled_from([None, 1, 3]),
       dtype=st.sampled_from([np.float64, np.float32]), seed=st.integers(0, 2**16))
def test_agrees_with_numpy(n, k, dtype, seed):
    rng = np.random.default_rng(seed)
    a = (rng.normal(size=(n, n)) + n * np.eye(n)).astype(dtype)
    b = rng.normal(size=(n,) if k is None else (n, k)).astype(dtype)
    got, expected = numpy_products.solve(a, b), np.linalg.solve(a, b)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    tol = 1e-4 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("a", [
    np.ones((3, 3)),
    np.array([[1.0, 2.0], [2.0, 4.0 + 1e-17]]),
    np.zeros((2, 2), dtype=np.float32),
], ids=["ones", "nearly", "zeros-f32"])     # (diag(1, 1e-20, 1) is regular: a scaled row,
#                                             test_numerics.py solves such matrices)
def test_singular_verdict_is_the_stacks(a):
    found = first_singular_in_stack(a[None])
    assert found is not None
    with pytest.raises(PhylanxLinAlgError) as caught:
        numpy_products.solve(a, np.ones(a.shape[0], dtype=a.dtype))
    assert found[1].reason("LU") in str(caught.value)


def test_other_kinds_keep_numpys_path():
    """Integers, mixed dtypes and inf/NaN are NumPy's to convert and propagate."""
    a = np.array([[2, 1], [1, 3]])
    np.testing.assert_allclose(numpy_products.solve(a, np.array([1, 2])),
                               np.linalg.solve(a, np.array([1, 2])))
    f32 = a.astype(np.float32)
    assert numpy_products.solve(f32, np.array([1.0, 2.0])).dtype == np.float64
    nan = np.array([[np.nan, 1.0], [1.0, 2.0]])
    with np.errstate(all="ignore"):
        got, expected = numpy_products.solve(nan, np.ones(2)), np.linalg.solve(nan, np.ones(2))
    assert np.isnan(expected).any()
    np.testing.assert_array_equal(got, expected)


def test_an_overflowing_sum_of_squares_and_inf_keep_their_paths():
    """The isfinite pass runs only when the sum of squares is not finite: a finite
    matrix whose squares overflow is still solved (decided by the exact check), a
    matrix holding inf gets NumPy's result."""
    a = np.array([[2.0, 1.0], [1.0, 3.0]]) * 1e200
    b = np.array([1.0, 2.0]) * 1e200
    np.testing.assert_allclose(numpy_products.solve(a, b), np.linalg.solve(a, b),
                               rtol=1e-12)
    inf = np.array([[np.inf, 1.0], [1.0, 2.0]])
    with np.errstate(all="ignore"):
        got, expected = numpy_products.solve(inf, np.ones(2)), np.linalg.solve(inf, np.ones(2))
    np.testing.assert_array_equal(got, expected)
