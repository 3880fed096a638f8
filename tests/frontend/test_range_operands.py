"""``range`` takes what Python's takes: objects with ``__index__`` (ints, NumPy ints,
bools, 0-d integer arrays), and refuses the rest with Python's TypeError, in a loop,
a comprehension and by itself.  An integral float (``range(len(t) / 2)``,
``range(x.shape[0] / 2)``, ``np.float64(3.0)``) ran as its int silently, where the
undecorated function raises; ``True`` and ``np.array(3)`` were refused."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxTypeError


@Phylanx
def total(n):
    s = 0
    for i in range(n):
        s += i
    return s


@Phylanx
def length(n):
    return len(range(n))


@Phylanx
def doubled(n):
    return [i * 2 for i in range(n)]


@Phylanx
def between(a, b):
    s = 0
    for i in range(a, b, 2):
        s = s * 3 + i
    return s


@Phylanx
def half(x):
    s = 0.0
    for i in range(x.shape[0] / 2):
        s += x[i]
    return s


FUNCTIONS = [total, length, doubled]


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [3.0, np.float64(3.0), np.float32(2.0), 2.5, np.array(3.0), "3"],
                         ids=repr)
def test_what_python_refuses_is_a_type_error(f, n):
    with pytest.raises(TypeError):
        f.python(n)
    with pytest.raises(PhylanxTypeError, match="must be an integer"):
        f(n)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [3, np.int8(3), np.uint64(2), True, False, np.array(3),
                               np.array(2, np.int16)], ids=repr)
def test_what_python_takes_is_taken(f, n):
    got, expected = f(n), f.python(n)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("a,b", [(0.0, 5), (0, 5.0), (np.float64(1), 4)])
def test_start_and_stop_alike(a, b):
    with pytest.raises(TypeError):
        between.python(a, b)
    with pytest.raises(PhylanxTypeError, match="must be an integer"):
        between(a, b)
    assert between(np.int32(1), True + 5) == between.python(np.int32(1), True + 5)


def test_a_true_division_in_range_is_refused_as_python_does():
    x = np.arange(6.0)
    with pytest.raises(TypeError):
        half.python(x)
    with pytest.raises(PhylanxTypeError, match="range stop must be an integer, got a float"):
        half(x)
