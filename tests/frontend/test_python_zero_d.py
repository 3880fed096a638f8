"""0-d arrays stay 0-d arrays where NumPy keeps them (``np.array(3)``, a 0-d argument,
``np.zeros(())``, ``x.squeeze()`` of a 1x1 array, ``np.cov`` of one variable), and their
operations give NumPy scalars as in NumPy; the undecorated function is the oracle."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx


def agree(f, *args):
    want, got = f.python(*args), f(*args)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert type(g) is type(w) and repr(g) == repr(w), (i, g, w)


@Phylanx
def made_0d(s):
    return (np.array(3), np.asarray(2.5), np.zeros(()), np.ones(()), np.full((), 7),
            np.copy(s), np.cov([1.0, 2.0, 4.0]), np.broadcast_to(s, ()), np.array(3) + 1,
            np.array(3).shape, np.array(3).ndim, float(np.array(2.5)), np.array([3])[0],
            np.array(s, dtype=np.float32))


@Phylanx
def passed_0d(x):
    y = x.copy()
    return x, y, x + 1, x * 2.0, x.sum(), x > 1, x.squeeze(), x.reshape(())


@Phylanx
def squeezed(m):
    return m.squeeze(), m.reshape(()), m.reshape(-1)


@pytest.mark.parametrize("s", [2.5, 3, np.float32(1.5), np.int64(4)])
def test_numpy_functions_keep_0d_results_0d(s):
    agree(made_0d, s)


@pytest.mark.parametrize("x", [np.array(2.0), np.array(3), np.array(True)])
def test_a_0d_argument_stays_a_0d_array(x):
    agree(passed_0d, x)


def test_methods_of_1x1_arrays_give_0d_arrays_and_of_numpy_scalars_scalars():
    agree(squeezed, np.ones((1, 1)))
    agree(squeezed, np.float64(2.0))


@Phylanx
def shape_functions(x):
    return np.squeeze(x), np.reshape(x, ()), np.squeeze(x * 2)


@pytest.mark.parametrize("x", [np.ones((1, 1)), np.float64(2.0), np.array(3.0), np.ones(1),
                               2.5])
def test_shape_functions_of_one_element_give_what_numpy_gives(x):
    agree(shape_functions, x)


@Phylanx
def subscripts_of_0d(x, m):
    return x[()], x[...], m[..., 0, 0], m[0, 0], m[()]


def test_subscripts_of_0d_arrays_and_ellipsis_are_numpys():
    for x in (np.array(2.0), np.array(3), np.array(True)):
        agree(subscripts_of_0d, x, np.ones((2, 2)))


@Phylanx
def index_0d(x):
    return x[0]


def test_an_integer_index_of_a_0d_array_is_an_index_error():
    with pytest.raises(IndexError):
        index_0d.python(np.array(2.0))
    with pytest.raises(IndexError):
        index_0d(np.array(2.0))


@Phylanx
def stores_into_0d(x, n):
    a, b, c = x.copy(), x.copy(), x.copy()
    a[...] = 2
    b[()] = 3
    c[...] += 4
    c[()] *= 5
    d = np.zeros(())
    for i in range(n):
        d[()] += i
        d[...] *= 2
    return a, b, c, d


def test_stores_into_a_0d_array_by_ellipsis_or_empty_tuple_are_numpys():
    """``x[...] = v``, ``x[()] = v`` (and ``op=``) store into a 0-d array, as NumPy's:
    they were a located "cannot assign into a slice of a 0-d value"."""
    for x in (np.array(2.0), np.array(3)):
        agree(stores_into_0d, x, 3)


@Phylanx
def store_0d_by_integer(x):
    y = x.copy()
    y[0] = 1
    return y


def test_a_store_into_a_0d_array_by_an_integer_index_is_an_index_error():
    with pytest.raises(IndexError):
        store_0d_by_integer.python(np.array(2.0))
    with pytest.raises(IndexError):
        store_0d_by_integer(np.array(2.0))


@Phylanx
def kept_0d(x, a, b):
    y = x.T
    y[()] = 7              # x.T of a 0-d array is its view, as NumPy's
    m = np.where(a > b, a, b)
    m += 1                 # a 0-d array changes in place (a scalar would be rebound)
    return (x.T, x.transpose(), x.astype(np.float32), np.where(x > 0, x, 0), m,
            np.where(True, a, b), x)


def test_transpose_astype_and_where_of_0d_operands_give_0d_arrays():
    """``x.T``, ``x.transpose()``, ``x.astype`` of a 0-d array and ``np.where`` of 0-d
    operands (Python numbers too) are 0-d arrays, as NumPy's; they were NumPy scalars
    (user49: ``np.where(a > b, a, b)`` of two numbers was ``np.int64``)."""
    for x, a, b in ((np.array(2.5), 3, 4), (np.array(-3), np.float32(1.5), 2),
                    (np.array(True), np.array(5.0), 1)):
        agree(kept_0d, x, a, b)


@Phylanx
def cumulative_along(x, axis):
    return np.cumsum(x, axis=axis), np.cumprod(x, axis=axis), np.argsort(x, axis=axis)


@Phylanx
def sorted_along(x, axis):
    return np.sort(x, axis=axis)


def test_cumulative_functions_and_argsort_run_on_a_0d_array_as_on_a_1d_one():
    """NumPy runs ``cumsum``/``cumprod``/``argsort`` on a 0-d array as on a 1-d one:
    axis 0 or -1 give a 1-d result, another axis is an AxisError (it was ignored: a
    result, user49; argsort was a ValueError); ``sort`` wants axis None (an AxisError)."""
    x = np.array(2.5)
    for axis in (0, -1, None):
        agree(cumulative_along, x, axis)
    agree(Phylanx(lambda v: (np.argsort(v), np.sort(v, axis=None))), x)
    for axis in (1, -2):
        for f in (cumulative_along, sorted_along):
            with pytest.raises(np.exceptions.AxisError):
                f.python(x, axis)
            with pytest.raises(np.exceptions.AxisError):
                f(x, axis)
    with pytest.raises(np.exceptions.AxisError):
        sorted_along(x, -1)


@Phylanx
def along_0d(x, axis, which):
    if which == 0:
        return np.median(x, axis=axis)
    if which == 1:
        return np.percentile(x, 50, axis=axis)
    if which == 2:
        return np.flip(x, axis=axis)
    if which == 3:
        return np.count_nonzero(x, axis=axis)
    if which == 4:
        return np.nanmax(x, axis=axis)
    if which == 5:
        return np.roll(x, 1, axis=axis)
    return np.squeeze(x, axis=axis)


@pytest.mark.parametrize("axis", [0, -1, 1])
def test_an_axis_of_a_0d_array_is_numpys_answer_or_its_axis_error(axis):
    """``np.median``, ``np.percentile``, ``np.flip``, ``np.roll`` refuse any axis of a 0-d array,
    ``np.count_nonzero`` and ``np.squeeze`` take 0 or -1 (as of a 1-d one): axis 0 and -1
    were taken for the whole, a result where NumPy raises, and squeeze's were an
    IndexError; ``np.nanmax`` and ``np.roll`` raised NumPy's AxisError as a plain
    ValueError (user49)."""
    x = np.array(2.5)
    for which in range(7):
        try:
            want = along_0d.python(x, axis, which)
        except np.exceptions.AxisError:
            with pytest.raises(np.exceptions.AxisError):
                along_0d(x, axis, which)
        else:
            got = along_0d(x, axis, which)
            assert type(got) is type(want) and repr(got) == repr(want), (which, got, want)
