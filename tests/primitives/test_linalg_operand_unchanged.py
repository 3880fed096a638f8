"""The singular-matrix check of ``inverse`` and ``solve`` factorises a copy: a transposed
operand (``np.linalg.inv(x.T)``, whose swapped stack is ``x``'s own memory) was
overwritten by LAPACK's getrf until ad45, silently changing the caller's ``x`` (and a
recorded primal value under nested ``grad``).  NumPy is the oracle."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx


def _upper(seed):
    return np.triu(np.random.default_rng(seed).standard_normal((3, 3))) + 3.0 * np.eye(3)


@pytest.mark.parametrize("stacked", [False, True])
def test_inverse_and_solve_of_a_transpose_leave_the_operand_unchanged(stacked):
    @Phylanx
    def inverse_of_transpose(x):
        return np.linalg.inv(np.swapaxes(x, -1, -2))

    @Phylanx
    def solve_with_transpose(x, b):
        return np.linalg.solve(np.swapaxes(x, -1, -2), b)

    x = np.stack([_upper(0), _upper(1)]) if stacked else _upper(0)
    b = np.ones(x.shape[:-1])[..., None]
    kept = x.copy()
    got = inverse_of_transpose(x)
    np.testing.assert_array_equal(x, kept)
    np.testing.assert_allclose(got, np.linalg.inv(np.swapaxes(kept, -1, -2)), rtol=1e-12)
    got = solve_with_transpose(x, b)
    np.testing.assert_array_equal(x, kept)
    np.testing.assert_allclose(got, np.linalg.solve(np.swapaxes(kept, -1, -2), b),
                               rtol=1e-12)
