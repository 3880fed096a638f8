"""``**`` of Python complex numbers (complex literals are accepted with Python's
semantics, docs/python-frontend.md) is Python's: ``(1 + 2j) ** 2`` was a located
"the base of power must be a number or an array, got a complex"."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxZeroDivisionError


@Phylanx
def powers(n):
    z = 1 + 2j
    return z ** n, 2 ** (z * 0.5), z ** 0.5, n ** z


@Phylanx
def of_array(n):
    z = 0.5 - 1j
    return np.arange(1.0, 4.0) ** z, z ** np.arange(n)


@Phylanx
def zero(n):
    z = 0j
    return z ** n


@pytest.mark.parametrize("n", [2, -1, 3.5, True])
def test_complex_numbers_are_raised_as_python_raises_them(n):
    got, expected = powers(n), powers.python(n)
    assert [type(v) for v in got] == [type(v) for v in expected]
    np.testing.assert_allclose(got, expected, rtol=1e-15)


def test_a_complex_and_an_array_are_numpys():
    got, expected = of_array(3), of_array.python(3)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-15)


def test_zero_to_a_negative_power_is_pythons_error():
    with pytest.raises(ZeroDivisionError):
        zero.python(-1)
    with pytest.raises(PhylanxZeroDivisionError):
        zero(-1)
