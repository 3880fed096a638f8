"""Python numbers keep Python's meaning (issue 13, item 2): each test is one finding.

Arithmetic on Python ``bool``/``int``/``float`` follows Python, and values that were
Python numbers come back as Python numbers; values that came from arrays come back as
NumPy scalars, exactly as the undecorated function gives them.
"""
from __future__ import annotations

import math

import numpy as np

from phylanx import Phylanx

from .test_python_values_property import same_kind_and_value


def agree(fn, *args):
    want = fn.python(*args)
    got = fn(*args)
    problem = same_kind_and_value(got, want)
    assert problem is None, problem
    return got


@Phylanx
def bool_arithmetic():
    return True + True, True - False, True * 3, -True, False / True


def test_booleans_add_as_python_ints():
    assert agree(bool_arithmetic) == (2, 1, 3, -1, 0.0)


@Phylanx
def counters(n):
    c = 0
    for i in range(n):  # noqa: B007 - read after the loop, as a Python counter
        c += 1
    last = i
    return c, last, len([1, 2]) + 1, 3 / 2, 7 // 2, 7 % 3, 2 ** 10, abs(-4), round(2.5)


@Phylanx
def with_math(x):
    return math.floor(x), math.ceil(x), math.sqrt(4), math.isnan(x), int(x), float(3)


@Phylanx
def from_arrays(x):
    return x.sum(), x[0], x.shape, x.ndim, x.size, len(x), x.max() > 0, x.tolist()


def test_python_numbers_come_back_as_python_numbers():
    assert agree(counters, 4) == (4, 3, 3, 1.5, 3, 1, 1024, 4, 2)
    assert agree(with_math, 2.5) == (2, 3, 2.0, False, 2, 3.0)
    got = agree(from_arrays, np.array([1.5, 2.0]))
    assert type(got[0]) is np.float64 and type(got[1]) is np.float64


@Phylanx
def numpy_functions_of_python_numbers(a, b):
    return np.add(a, b), np.power(a, 2), np.abs(-a), a + b


def test_numpy_functions_give_numpy_scalars():
    got = agree(numpy_functions_of_python_numbers, 2, 3)
    assert type(got[0]) is np.int64 and type(got[3]) is int


@Phylanx
def big(n):
    x = 2 ** 70
    return x * n + 1, 10 ** 20 // 7, n << 65


def test_python_ints_do_not_overflow():
    assert agree(big, 3) == (3 * 2 ** 70 + 1, 10 ** 20 // 7, 3 << 65)


@Phylanx
def logic(a, b):
    return a < b and b < 10, not a, a in (1, 2), (a, b) == (1, 2), a is None


def test_logic_gives_python_bools():
    agree(logic, 1, 2)
    agree(logic, 0, 20)
