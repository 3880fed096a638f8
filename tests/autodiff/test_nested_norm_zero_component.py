"""Nested derivatives of ``np.linalg.norm`` where a component is zero but the norm is
not (a smooth point: rev32).

The compiler rewrites ``np.linalg.norm(v[, axis=k])`` to ``sqrt(sum(|v|**2.0))``
(``norm_is_root_of_sum_of_squares``); differentiated through ``absolute``, whose sign
is a constant of the derivative and 0 at 0, the curvature of ``|v_i|**2`` at
``v_i = 0`` was lost: the Hessian of ``norm(x)**2`` had a zero diagonal entry there
instead of 2, silently.  The oracle: the Hessian of ``|x|**3``,
``3 (|x| I + x x^T / |x|)`` (JAX's, to rounding).
"""
from __future__ import annotations

import numpy as np

import phylanx

X = np.array([0.0, -1.2, 0.7, 2.0])
M = np.array([[0.0, 1.5, -0.5], [0.3, 0.0, 2.0]])


def cubed_norm_hessian(x):
    r = np.linalg.norm(x)
    return 3 * (r * np.eye(len(x)) + np.outer(x, x) / r)


def test_the_hessian_of_a_norm_at_a_zero_component_keeps_its_curvature():
    def squared(x):
        return np.linalg.norm(x) ** 2

    def cubed(x):
        return np.linalg.norm(x) ** 3

    np.testing.assert_allclose(phylanx.hessian(squared)(X), 2 * np.eye(4), atol=1e-14)
    np.testing.assert_allclose(phylanx.hessian(cubed)(X), cubed_norm_hessian(X),
                               rtol=1e-12, atol=1e-14)


def test_the_hessian_of_row_norms_at_zero_components():
    def rows(m):
        return np.sum(np.linalg.norm(m, axis=1) ** 3)

    expected = np.zeros(M.shape * 2)
    for i, row in enumerate(M):
        expected[i, :, i, :] = cubed_norm_hessian(row)
    np.testing.assert_allclose(phylanx.hessian(rows)(M), expected, rtol=1e-12, atol=1e-14)
