"""The NumPy functions added for issue 12, called from decorated Python with NumPy's keyword
names and compared with the undecorated run (NumPy is the oracle): ``np.add.at`` and
``np.fill_diagonal`` as statements that change their argument in place, ``np.unique``'s
flags by position and by name, ``np.meshgrid(..., indexing=)``, ``np.einsum(...,
optimize=)`` and the rest."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxError

from .helpers import check


@Phylanx
def elementwise(x, y):
    return (np.expm1(x), np.log1p(np.abs(x)), np.deg2rad(x), np.rad2deg(x), np.radians(x),
            np.degrees(x), np.reciprocal(x + 10.0), np.nan_to_num(x, nan=-1.0, posinf=9.0),
            np.isclose(x, y, rtol=0.1, atol=0.0, equal_nan=True), np.allclose(x, x + 1e-12),
            np.array_equal(x, y, equal_nan=True), np.isin(x, y, invert=True))


@Phylanx
def reductions(x, w):
    return (np.nansum(x, axis=0), np.nanmean(x, axis=-1, keepdims=True), np.nanmax(x),
            np.nanmin(x, axis=1), np.ptp(np.nan_to_num(x), axis=0),
            np.average(np.nan_to_num(x), axis=1, weights=w, returned=True),
            np.diff(x, n=1, axis=0), np.trapezoid(np.nan_to_num(x), dx=0.5, axis=-1))


@Phylanx
def rearranging(a):
    return (np.atleast_1d(2.0), np.atleast_2d(a[0]), np.broadcast_to(a[0], (3, 4)),
            np.moveaxis(a, 0, -1), np.swapaxes(a, 0, 1), np.rot90(a, k=-1),
            np.split(a, 2, axis=1), np.split(a, [1], axis=0), np.take(a, [0, 3], axis=1),
            np.take(a, [7, -1], mode="clip"), np.kron(a, np.eye(2)), np.inner(a, a),
            np.einsum("ij,kj->ik", a, a, optimize=True), np.logspace(0, 2, num=3, base=2.0),
            np.meshgrid(a[0], a[1][:2], indexing="ij"))


@Phylanx
def searching(x, bins, flat):
    return (np.argwhere(x > 2), np.flatnonzero(x), np.searchsorted(bins, flat, side="right"),
            np.digitize(flat, bins, right=True), np.unravel_index(flat.astype(int) % 6, (2, 3)),
            np.bincount(flat.astype(int) % 4, minlength=6),
            np.histogram(flat, bins=3, range=(0, 6)), np.histogram(flat, bins=bins),
            np.interp(flat, bins, bins * 2, left=-1.0, right=99.0),
            np.polyval(np.polyfit(flat, 3 * flat - 1, 1), flat),
            np.polyfit(flat, flat ** 2, deg=2, full=True)[0])


def test_elementwise_functions_and_comparisons():
    x = np.array([0.5, -1.5, 0.0, np.nan, np.inf, 2.0])
    check(elementwise, x, np.array([0.5, -1.4, 0.1, np.nan, np.inf, 3.0]), strict=True)
    check(elementwise, x.astype(np.float32), x, strict=True)


def test_nan_reductions_average_diff_trapezoid():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan]])
    check(reductions, x, np.array([1.0, 2.0, 3.0]), strict=True)


def test_rearranging_and_products():
    check(rearranging, np.arange(8.0).reshape(2, 4), strict=True)
    check(rearranging, np.arange(8).reshape(2, 4), strict=True)


def test_searching_counting_and_fitting():
    check(searching, np.arange(6).reshape(2, 3), np.array([0.0, 1.5, 3.0, 6.0]),
          np.array([0.5, 2.0, 5.5, 3.0, 1.0]), strict=True)


@Phylanx
def scatter_add(a, idx, v):
    np.add.at(a, idx, v)
    return a


@Phylanx
def scatter_add_2d(a, rows, cols, v):
    nothing = np.add.at(a, (rows, cols), v)
    return a, nothing


@Phylanx
def zero_diagonal(m):
    np.fill_diagonal(m, 0)
    return m.sum()


def test_add_at_is_an_unbuffered_in_place_statement():
    a = np.zeros(4)
    idx = np.array([0, 2, 0, 0])
    got = check(scatter_add, a, idx, 1.5, strict=True)
    np.testing.assert_array_equal(got, [4.5, 0.0, 1.5, 0.0])   # the repeated index counts 3x
    np.testing.assert_array_equal(a, got)        # the caller's array changed, as in NumPy
    b = np.zeros((2, 3))
    got, nothing = check(scatter_add_2d, b, np.array([0, 1, 1]), np.array([2, 0, 0]),
                         np.array([1.0, 2.0, 3.0]))
    assert nothing is None and b[1, 0] == 5.0 and b[0, 2] == 1.0


@Phylanx
def add_at_forms(a, i):
    np.add.at(a, (0, 0), 1.0)          # a tuple of numbers: one element (index per axis)
    np.add.at(a, [1, 1], 2.0)          # a list of numbers: one index array (row 1 twice)
    np.add.at(a, i, 4.0)               # the same, whatever the caller passes
    return a


@pytest.mark.parametrize("index", [(2, 1), [2, 2], (np.array([0, 2]), 1), np.array([2])],
                         ids=["tuple", "list", "tuple-of-array", "array"])
def test_add_at_reads_a_tuple_per_axis_and_a_list_as_one_index(index):
    # found by review: the tuple (0, 0) was read as the rows [0, 0], a whole row twice
    got = add_at_forms(np.zeros((3, 3)), index)
    np.testing.assert_array_equal(got, add_at_forms.python(np.zeros((3, 3)), index))


def test_fill_diagonal_changes_the_argument_in_place():
    m = np.ones((3, 3))
    assert check(zero_diagonal, m) == 6.0
    np.testing.assert_array_equal(np.diag(m), [0.0, 0.0, 0.0])


def test_add_at_errors_are_located_and_name_the_primitive():
    with pytest.raises(PhylanxError, match="out of bounds") as info:
        scatter_add(np.zeros(3), np.array([3]), 1.0)
    assert info.value.primitive == "add_at" and info.value.loc.line >= 1
    with pytest.raises(PhylanxError, match="changed in place"):
        scatter_add([0.0, 1.0], np.array([0]), 1.0)      # a list is no array to update
    # NumPy casts to the array's dtype: each 0.75 added into an integer array adds 0
    ints = np.zeros(3, dtype=np.int64)
    np.testing.assert_array_equal(check(scatter_add, ints, np.array([0, 0]), 0.75), [0, 0, 0])


@Phylanx
def uniques(x):
    return (np.unique(x), np.unique(x, True, True, True), np.unique(x, return_counts=True),
            np.unique(x, return_inverse=True, axis=None), np.unique(x, equal_nan=False))


@Phylanx
def unique_rows(x):
    return np.unique(x, axis=0, return_index=True)


def test_unique_flags_by_position_and_name():
    check(uniques, np.array([3.0, 1.0, np.nan, 3.0, np.nan, 2.0]), strict=True)
    check(uniques, np.array([[2, 1], [2, 0]]), strict=True)
    check(unique_rows, np.array([[1, 2], [0, 5], [1, 2]]), strict=True)


@Phylanx
def bad_bincount(x):
    return np.bincount(x)


def test_bad_input_is_a_located_error_naming_the_primitive():
    with pytest.raises(PhylanxError, match="bincount") as info:
        bad_bincount(np.array([1, -1]))
    assert info.value.loc is not None and info.value.primitive == "bincount"


@Phylanx
def several_results(m, v):
    return (np.unique(v, return_counts=True), np.unique(v, return_inverse=True),
            np.histogram(v, bins=2), np.meshgrid(v, v), np.unravel_index(v, (3, 4)),
            np.average(m, axis=0, returned=True), np.nonzero(m), np.where(m), m.nonzero(),
            np.linalg.svd(m), np.linalg.qr(m), np.atleast_1d(v, m), np.gradient(m),
            np.polyfit(v, v, 1, full=True))


@Phylanx
def one_result(m, v):
    return np.unique(v), np.gradient(v), np.where(m > 1, m, 0), np.atleast_1d(v)


def test_numpy_functions_with_several_results_give_tuples():
    # NumPy returns a tuple (or a namedtuple) where the primitive gives a PhySL list
    m, v = np.array([[1.0, 0.0], [2.0, 3.0]]), np.array([3, 1, 1, 7])
    got, expected = several_results(m, v), several_results.python(m, v)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert isinstance(e, tuple) and type(g) is tuple, (i, type(g))
        assert len(g) == len(e) and all(np.allclose(a, b) for a, b in zip(g, e)), i
    got = one_result(m, v)
    assert all(isinstance(g, np.ndarray) for g in got)
    check(one_result, m, v)


@Phylanx
def other_ufunc_at(a, i, b):
    np.subtract.at(a, i, b)
    np.multiply.at(a, [0, 0], 2.0)
    np.maximum.at(a, i, 0.5)
    np.minimum.at(a, (i,), b)
    np.divide.at(a, -1, 4.0)
    np.power.at(a, np.array([1]), 2)
    return a


def test_ufunc_at_of_other_binary_ufuncs():
    a, i, b = np.array([1.0, 2.0, 3.0, 8.0]), np.array([0, 0, 2]), np.array([1.0, 2.0, 3.0])
    expected = other_ufunc_at.python(a.copy(), i, b)
    got_a = a.copy()
    np.testing.assert_allclose(other_ufunc_at(got_a, i, b), expected)
    np.testing.assert_allclose(got_a, expected)   # changed in place, as NumPy does


@pytest.mark.parametrize("call", [
    lambda a: np.linalg.solve(a, np.ones(2)),
    lambda a: np.linalg.inv(a),
    lambda a: np.linalg.cholesky(-a - np.eye(2)),
])
def test_singular_matrices_raise_numpys_linalgerror(call):
    """NumPy users catch np.linalg.LinAlgError: phylanx's error is one (and a
    PhylanxError, and a ValueError, as NumPy's is)."""
    @Phylanx
    def f(a):
        return call(a)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError) as info:
        f(singular)
    assert isinstance(info.value, PhylanxError) and isinstance(info.value, ValueError)


@Phylanx
def more_top200(x, m, idx):
    parts = np.array_split(x, 3)
    return (parts, np.array_split(m, [1, 2], axis=1), np.delete(x, [0, 2]),
            np.delete(m, 1, axis=0), np.delete(x, x > 2), np.take_along_axis(m, idx, 1),
            np.convolve(x, [1.0, 0.5]), np.convolve(x, [1.0, 0.5, 2.0], mode="same"),
            np.convolve(x, [1.0, 2.0], "valid"), np.linalg.slogdet(m[:, :3] + np.eye(3)))


def test_the_remaining_top200_functions_match_numpy():
    rng = np.random.default_rng(5)
    x = np.array([3.0, 1.0, 4.0, 1.5, 5.0, 9.0, 2.0])
    m = rng.normal(size=(3, 4))
    idx = np.argsort(m, axis=1)[:, :2]
    check(more_top200, x, m, idx, strict=True)
    check(more_top200, x.astype(np.float32), m, idx, strict=True)
    check(delete_nothing, x, m, strict=True)


@Phylanx
def delete_nothing(x, m):
    return np.delete(x, []), np.take_along_axis(m, np.zeros((3, 0), int), 1)
