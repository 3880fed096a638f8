"""The equation form of ``repeat`` (rev32): its cotangent sums each element's copies
without a dense 0/1 owner matrix.

Until rev32 the form multiplied the cotangent by an (output length x operand length)
matrix: a Hessian-vector product through ``np.repeat(x, 2)`` of 2000 elements
allocated 64 MB (quadratic: 20000 elements, 6.4 GB).  The oracle: the Hessian of
``sum(w * repeat(x)**3)`` is diagonal, ``6 x_i`` times the weights of ``x_i``'s copies.
"""
from __future__ import annotations

import tracemalloc

import numpy as np

import phylanx

N = 2000
COUNTS = np.arange(N) % 3                          # 0, 1 and 2 copies


def _peak_bytes(call):
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_hessian_vector_product_through_repeat_takes_memory_linear_in_the_length():
    def uniform(x):
        return np.sum(np.repeat(x, 2) ** 3)

    def varied(x):
        return np.sum(np.repeat(x, COUNTS) ** 3)

    x, v = np.linspace(-1.0, 1.0, N), np.ones(N)
    got, peak = _peak_bytes(lambda: phylanx.hvp(uniform)(x, v))
    np.testing.assert_allclose(got, 12 * x, rtol=1e-12)
    assert peak < 20e6, peak                    # the owner matrix alone was 64 MB
    got, peak = _peak_bytes(lambda: phylanx.hvp(varied)(x, v))
    np.testing.assert_allclose(got, 6 * x * COUNTS, rtol=1e-12, atol=1e-15)
    assert peak < 20e6, peak


def test_repeat_along_an_axis_with_counts_per_element():
    counts, w = np.array([2, 0, 3]), np.arange(10.0).reshape(2, 5)

    def f(m):
        return np.sum(np.repeat(m, counts, axis=1) ** 3 * w)

    m = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
    owner = np.repeat(np.arange(3), counts)
    copies = np.stack([w[:, owner == j].sum(axis=1) for j in range(3)], axis=1)
    expected = np.diag((6 * m * copies).ravel()).reshape(m.shape * 2)
    np.testing.assert_allclose(phylanx.hessian(f)(m), expected, rtol=1e-12)
