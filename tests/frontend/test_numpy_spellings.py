"""NumPy spellings keep NumPy's meaning inside ``@Phylanx`` where the PhySL primitive of the
same name follows the original (compat addendum A.3; docs/physl.md lists the cases).

The oracle is the undecorated Python function (``check``), on exactly the inputs where the
original's meaning differs: ``np.vstack([])`` is an error (PhySL: (0, 0)), ``np.dstack`` of
scalars is (1, 1, n) (PhySL: (n, 1, 1)), ``np.stack([m])`` adds an axis (PhySL: the rows of
``m``), ``np.indices`` is one array and takes zero sizes (PhySL: a list, positive sizes),
``np.linalg.norm`` of an int vector is a float and ``ord=2`` of a matrix is the largest
singular value (PhySL: truncated, element-wise), ``np.where``/``np.nonzero`` take lists,
``np.zeros_like`` keeps the array's dtype (PhySL ``constant_like``: the value's).
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxError

from .helpers import check


@Phylanx
def joins(a, b, m):
    return (np.vstack([a, b]), np.hstack((a, 2.5)), np.dstack([1, 2, 3]), np.dstack((a, b)),
            np.stack([m]), np.stack([m], axis=1), np.stack((a, b), axis=1), np.stack(m, 1),
            np.vstack(m), np.hstack([np.float32(1.0), np.float32(2.0)]),
            np.hstack([1, 2], dtype=np.float32))


def test_stack_family_keeps_numpy_meaning():
    a, b = np.array([1, 2]), np.array([3, 4])
    m = np.arange(6.0).reshape(2, 3)
    got = check(joins, a, b, m, strict=True)
    assert got[2].shape == (1, 1, 3)           # the PhySL dstack of scalars is (3, 1, 1)
    assert got[4].shape == (1, 2, 3)           # the PhySL stack of one operand adds no axis


@Phylanx
def empty_vstack(n):
    parts = [np.ones(2) for _ in range(n)]
    return np.vstack(parts)


def test_empty_numpy_join_is_an_error_as_in_numpy():
    check(empty_vstack, 2)
    with pytest.raises(ValueError):
        empty_vstack.python(0)
    with pytest.raises(PhylanxError, match="at least one array"):
        empty_vstack(0)


@Phylanx
def grids(n):
    return np.indices((2, 3)), np.indices((n, 2)), np.indices((2, 2), sparse=True), \
        np.indices((3,), dtype=float)


def test_np_indices_is_one_array():
    got = check(grids, 0, strict=True)
    assert isinstance(got[0], np.ndarray) and got[0].shape == (2, 2, 3)
    assert got[1].shape == (2, 0, 2)


@Phylanx
def norms(v, m):
    return (np.linalg.norm(v), np.linalg.norm(m, 2), np.linalg.norm(m, axis=1),
            np.linalg.norm(m, "nuc"), np.linalg.norm(v, 2.0), np.linalg.norm(m, np.inf),
            np.linalg.norm(v, keepdims=True))


def test_np_linalg_norm_keeps_numpy_meaning():
    v = np.array([1, 1])                                   # PhySL norm: int64 1
    m = np.array([[3.0, 1.0], [1.0, 3.0]])                 # singular values 4 and 2
    got = check(norms, v, m)
    assert got[0] == pytest.approx(np.sqrt(2.0))
    assert got[1] == pytest.approx(4.0)                    # PhySL norm(m, 2): sqrt(20)


@Phylanx
def wheres(c, x):
    return (np.where(c, [1, 2, 3], [4, 5, 6]), np.where(c, x, 0.5), np.nonzero([0, 1, 1]),
            np.where([True, False, True]))


def test_np_where_and_nonzero_take_lists():
    check(wheres, np.array([True, False, True]), np.arange(3), strict=True)


@Phylanx
def where3d(c, x):
    return np.where(c, x, -x)


def test_np_where_of_3d_operands():
    c = np.arange(8).reshape(2, 2, 2) % 3 == 0
    check(where3d, c, np.arange(8.0).reshape(2, 2, 2), strict=True)


@Phylanx
def likes(a):
    return (np.zeros_like(a), np.ones_like(a), np.zeros_like(a, dtype=int),
            np.empty_like(a).shape, np.zeros(2, np.float32), np.ones((2, 1), dtype=np.int32))


def test_np_zeros_like_keeps_the_array_dtype():
    """PhySL constant_like(0, a) takes the value's dtype (int64), np.zeros_like a's."""
    got = check(likes, np.array([1.5, 2.5], np.float32), strict=True)
    assert got[0].dtype == got[4].dtype == np.float32   # PhySL constant(0, 2, "float32"):
    assert got[5].dtype == np.int32                     # float64; "int32": int64


@Phylanx
def pad_none(a):
    return np.pad(a, (1, None))


@Phylanx
def pad_ok(a):
    return np.pad(a, (1, 2)), np.pad(a, 1, constant_values=7)


def test_np_pad_refuses_the_originals_nil_widths():
    """PhySL pad(a, list(1, nil), "constant") pads 1 on both sides (the original); NumPy
    refuses None widths, and so does np.pad under @Phylanx, saying which meaning applies."""
    check(pad_ok, np.arange(3))
    with pytest.raises(TypeError):
        pad_none.python(np.arange(3))
    with pytest.raises(PhylanxError, match="PhySL pad primitive reads list"):
        pad_none(np.arange(3))


@Phylanx
def logic(a, b):
    return a < 1 and b > 2 and a != b, a > 1 or b > 2


def test_python_and_or_of_comparisons_nest_two_operands():
    check(logic, 0, 3)
    check(logic, 2, 1)
