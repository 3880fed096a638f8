"""``**`` and ``np.power`` with Python complex numbers: complex literals are accepted
with Python's semantics (docs/python-frontend.md), a complex exponent or base is a
number as an int or float is.  ``(1 + 2j) ** 2`` was a located "the base of power must
be a number or an array, got a complex", ``a ** 1j`` "the exponent of power must be a
number"; the undecorated function is the oracle (Python's or NumPy's types and values).
"""
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
def of_operands(a, n):
    return a ** 1j, a ** (2 + 0.5j), np.power(a, 1j), 2 ** (a * 1j), (1j) ** a, n ** 1j, \
        np.power(n, 1j)


@Phylanx
def zero(n):
    z = 0j
    return z ** n


_OPERANDS = [np.array([1.0, 2.0, 3.0]), np.array([1, 2, 3], np.uint64),
             np.array([1.0, 2.0], np.float32), np.float32(2.0)]
CASES = ([(powers, (n,), 1e-15) for n in (2, -1, 3.5, True)]
         + [(of_array, (3,), 1e-15)]
         # (float32 operands: NumPy's complex64 results, checked to its precision)
         + [(of_operands, (a, n), 1e-6) for a in _OPERANDS for n in (2, 2.5)])


@pytest.mark.parametrize("fn,args,rtol", CASES,
                         ids=[f"{fn.python.__name__}{args!r}" for fn, args, _ in CASES])
def test_complex_powers_are_python_and_numpys(fn, args, rtol):
    got, expected = fn(*args), fn.python(*args)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert type(g) is type(e) and np.asarray(g).dtype == np.asarray(e).dtype, (g, e)
        np.testing.assert_allclose(g, e, rtol=rtol)


def test_zero_to_a_negative_power_is_pythons_error():
    with pytest.raises(ZeroDivisionError):
        zero.python(-1)
    with pytest.raises(PhylanxZeroDivisionError):
        zero(-1)
