"""Explicit oracle inputs of the matrixops NumPy-twin primitives added for issue 12
(``numpy_rearrange``, ``numpy_grids``, ``numpy_search``, ``numpy_products``), keyed by
primitive name.

Part of the table of ``samples.py`` (which merges the builders of its modules).  Each list
covers the dtypes NumPy accepts (bool/int64/float32/float64), empty arrays, NaN/inf where
meaningful, negative axes, and inputs NumPy refuses (phylanx must then raise a
PhylanxError).
"""
from __future__ import annotations

import numpy as np

F32 = np.float32
I = np.int64          # noqa: E741 - short for the many int64 scalars below
A23 = np.arange(6.0).reshape(2, 3)
A234 = np.arange(24).reshape(2, 3, 4)
BOOLS = np.array([[True, False, True], [False, False, True]])


def _matrixops_numpy_rearrange() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/numpy_rearrange.py."""
    grid = np.arange(12.0).reshape(3, 4)
    return {
        "atleast_1d": [(np.float64(2.5),), (np.arange(3),), (A23,), (I(1), np.arange(2.0)),
                       (np.bool_(True), A234, np.zeros((0,), F32))],
        "atleast_2d": [(np.float64(2.5),), (np.arange(3),), (A234,), (np.zeros((0,)),),
                       (I(1), np.arange(2.0), BOOLS)],
        "broadcast_to": [(np.arange(3), [I(2), I(3)]), (np.float64(1.5), [I(2), I(2)]),
                         (np.arange(3.0).reshape(3, 1), [I(2), I(3), I(4)]),
                         (BOOLS, [I(1), I(2), I(3)]), (np.arange(3), [I(0), I(3)]),
                         (np.arange(3, dtype=F32), I(3)), (np.arange(3), [I(4)]),
                         (np.arange(3), [I(-1), I(3)])],
        "moveaxis": [(A234, I(0), I(-1)), (A234, I(-1), I(0)), (A234, [I(0), I(1)], [I(-1), I(-2)]),
                     (BOOLS, I(0), I(1)), (np.zeros((0, 2), F32), I(0), I(1)), (A234, I(3), I(0)),
                     (A234, [I(0), I(0)], [I(1), I(2)])],
        "swapaxes": [(A234, I(0), I(2)), (A234, I(-1), I(0)), (A23, I(1), I(1)),
                     (np.arange(3), I(0), I(-1)), (BOOLS.astype(F32), I(0), I(1)),
                     (np.zeros((2, 0)), I(0), I(1)), (A23, I(0), I(2))],
        "rot90": [(grid,), (grid, I(2)), (grid, I(-1)), (grid, I(5)), (A234, I(1), [I(1), I(2)]),
                  (A234, I(1), [I(2), I(0)]), (BOOLS,), (np.zeros((0, 3), F32),),
                  (np.arange(3),), (grid, I(1), [I(0), I(0)])],
        "split": [(np.arange(6.0), I(3)), (np.arange(6.0), [I(2), I(3)]), (A234, I(2), I(-1)),
                  (A234, [I(1)], I(1)), (BOOLS, I(2)), (np.arange(6, dtype=F32), [I(4), I(10)]),
                  (np.zeros((0,)), I(1)), (np.arange(6.0), I(4)), (A234, I(2), I(3))],
        "array_split": [(np.arange(7.0), I(3)), (np.arange(5.0), [I(2), I(3)]),
                        (A234, I(3), I(-1)), (BOOLS, I(2)), (np.arange(3, dtype=F32), I(5)),
                        (np.zeros((0,)), I(2)), (A234, I(0))],
        "delete": [(np.arange(6.0), I(2)), (np.arange(6.0), [I(0), I(-1)]),
                   (A234, I(1), I(1)), (A234, [I(0), I(2)], I(-1)),
                   (np.arange(4.0, dtype=F32), np.array([True, False, True, False])),
                   (BOOLS, I(0)), (np.arange(3.0), I(7))],
        "take_along_axis": [(A23, np.array([[2, 0], [1, 1]]), I(1)),
                            (A234, np.zeros((1, 3, 4), np.int64), I(0)),
                            (np.arange(5.0), np.array([4, 0]), I(0)),
                            (A23.astype(F32), np.array([[0, 1, 2]]), I(0)),
                            (np.arange(5.0), np.array([9]), I(0)),
                            (np.arange(5.0), np.array([1.0]), I(0))],
        "take": [(A234, np.array([0, 5, -1])), (A234, np.array([[1, 0], [0, 1]]), I(1)),
                 (A234, np.array([3, 0]), I(-1)), (BOOLS, I(1), I(1)),
                 (np.arange(5.0), np.array([7, -8]), None, "wrap"),
                 (np.arange(5.0, dtype=F32), np.array([7, -8]), None, "clip"),
                 (np.arange(5.0), np.array([], dtype=np.int64)), (np.arange(5.0), np.array([5])),
                 (A23, np.array([0]), I(2)), (np.arange(5.0), np.array([1.0]))],
        "fill_diagonal": [(np.zeros((3, 3)), I(5)), (np.zeros((5, 3)), np.float64(1.5), True),
                          (np.zeros((5, 3)), np.float64(1.5)),
                          (np.zeros((3, 4), F32), np.arange(3.0)),
                          (np.zeros((2, 2, 2), np.int64), I(7)), (np.ones((2, 2), bool), False),
                          (np.zeros((0, 0)), I(1)), (np.zeros((2, 3, 2)), I(1)),
                          (np.zeros(3), I(1))],
    }


def _matrixops_numpy_grids() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/numpy_grids.py."""
    return {
        "logspace": [(I(0), I(3), I(4)), (0.0, 2.0, I(5), False), (I(1), I(2), I(3), True, 2.0),
                     (I(0), I(1), I(0)), (np.array([0.0, 1.0]), np.array([2.0, 3.0]), I(3)),
                     (np.array([0.0, 1.0]), np.float64(2.0), I(3), True, 10.0, None, I(-1)),
                     (I(0), I(2), I(3), True, 10.0, "float32"), (I(0), I(2), I(-1)),
                     (I(0), I(1), I(2), True, np.array([2.0, 3.0]))],
        "meshgrid": [([np.arange(3), np.arange(2.0)],), ([np.arange(3), np.arange(2.0)], "ij"),
                     ([np.arange(2), np.arange(3), np.arange(4, dtype=F32)],),
                     ([np.arange(3), np.arange(2)], "xy", True),
                     ([np.arange(3.0)],), ([np.zeros((0,)), np.arange(2)],),
                     ([np.array([True, False]), A23], "ij"), ([np.arange(3)], "yx")],
    }


def _matrixops_numpy_search() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/numpy_search.py."""
    sorted_ = np.array([1.0, 2.0, 2.0, 5.0, np.inf])
    labels = np.array([0, 2, 2, 3, 0])
    return {
        "argwhere": [(A234 % 5,), (BOOLS,), (np.array([0.0, np.nan, -0.0, 2.0]),),
                     (np.zeros((0, 3)),), (np.float64(2.0),), (np.bool_(False),),
                     (np.arange(4, dtype=F32),)],
        "flatnonzero": [(A234 % 5,), (BOOLS,), (np.array([0.0, np.nan, -0.0, 2.0]),),
                        (np.zeros((0, 3)),), (np.float64(2.0),), (np.arange(4, dtype=F32),)],
        "searchsorted": [(sorted_, np.array([0.0, 2.0, 3.0, np.inf, np.nan])),
                         (sorted_, np.array([0.0, 2.0, 3.0, np.inf]), "right"),
                         (np.arange(5), np.float64(2.5)), (np.arange(5), A23),
                         (np.array([3, 1, 2]), np.array([2, 3]), "left", np.array([1, 2, 0])),
                         (np.array([]), np.arange(2)), (np.array([False, True]), np.array([True])),
                         (np.arange(5, dtype=F32), np.array([1.5], dtype=F32)),
                         (np.arange(5), np.arange(2), "middle")],
        "digitize": [(np.array([0.5, 1.0, 2.5, 9.0, np.nan]), np.array([1.0, 2.0, 3.0])),
                     (np.array([0.5, 1.0, 2.5, 9.0]), np.array([1.0, 2.0, 3.0]), True),
                     (A234, np.array([20, 10, 5])), (np.float64(1.5), np.arange(3)),
                     (np.array([], dtype=F32), np.arange(3.0)), (BOOLS, np.array([0.5])),
                     (np.arange(3), np.array([1, 0, 2]))],
        "unravel_index": [(np.array([5, 1, 0]), [I(2), I(3)]), (I(22), [I(2), I(3), I(4)]),
                          (np.array([[3, 2]]), [I(2), I(2)], "F"), (np.array([], np.int64), I(4)),
                          (np.array([6]), [I(2), I(3)]), (np.array([-1]), [I(2), I(3)]),
                          (np.array([1.0]), [I(2)])],
        "bincount": [(labels,), (labels, np.array([0.5, 1.0, 2.0, 3.0, 4.0])),
                     (labels, None, I(7)), (np.array([], dtype=np.int64),),
                     (np.array([], dtype=np.int64), None, I(3)), (np.array([True, False, True]),),
                     (labels, np.array([1, 2, 3, 4, 5])), (labels, np.ones(5, F32)),
                     (np.array([1, -1]),), (np.array([1.0, 2.0]),), (labels, np.ones(4)),
                     (labels.reshape(5, 1),)],
        "histogram": [(np.array([1, 2, 2, 3, 4]), I(3)), (np.arange(10.0),),
                      (np.arange(10.0), np.array([0.0, 2.5, 5.0, 9.0])),
                      (np.arange(10.0), I(4), [I(0), I(20)]),
                      (np.arange(10.0), I(5), None, True),
                      (np.arange(10.0), I(5), None, None, np.arange(10.0)),
                      (np.array([0.5, 1.5, np.inf]), I(2), [0.0, 2.0]),
                      (np.arange(10, dtype=F32), I(3)), (A23, I(2)), (np.array([]), I(2)),
                      (np.arange(10.0), "auto"), (np.arange(10.0), np.array([3.0, 1.0])),
                      (np.arange(10.0), I(0))],
        "add_at": [(np.zeros(4), np.array([0, 2, 0, 3]), np.float64(1.5)),
                   (np.zeros(4), np.array([0, 2, 0, 3]), np.array([1.0, 2.0, 3.0, 4.0])),
                   (np.zeros((2, 3)), [np.array([0, 1, 1]), np.array([2, 0, 0])],
                    np.array([1.0, 2.0, 3.0])),
                   (np.zeros((3, 2), F32), np.array([2, 2]), np.array([1.0, 2.0], F32)),
                   (np.zeros(3, np.int64), np.array([1, 1, -1]), I(2)),
                   (np.zeros((3, 2)), np.array([0, 0]), np.array([[1.0, 2.0], [3.0, 4.0]])),
                   (np.zeros(3), np.array([], dtype=np.int64), np.float64(1.0)),
                   (np.zeros(3), np.array([True, False, True]), np.float64(1.0)),
                   (np.zeros(3), np.array([3]), np.float64(1.0)),
                   (np.zeros(3, np.int64), np.array([0]), np.float64(0.5))],
        "ufunc_at": [(np.ones(4), np.array([0, 2, 0]), np.float64(2.0), "multiply"),
                     (np.arange(4.0), np.array([1, 1]), np.array([0.5, 3.0]), "subtract"),
                     (np.zeros((2, 3)), [np.array([0, 1]), np.array([2, 2])],
                      np.array([4.0, -1.0]), "maximum"),
                     (np.arange(3), np.array([2, 2]), I(1), "minimum"),
                     (np.full(3, 8.0, F32), np.array([True, False, True]), np.float64(2.0),
                      "divide"),
                     (np.arange(3.0), np.array([3]), np.float64(1.0), "power"),
                     (np.ones(2), np.array([0]), np.float64(1.0), "hypot")],
    }


def _matrixops_numpy_products() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/numpy_products.py."""
    spd = np.array([[4.0, 2.0, 0.6], [2.0, 5.0, 1.0], [0.6, 1.0, 3.0]])
    stack = np.stack([spd, 2 * spd + np.eye(3), spd.T @ spd])
    return {
        "inner": [(np.arange(3), np.arange(3.0)), (A23, np.arange(3)), (A234, A23),
                  (np.float64(2.0), A23), (np.arange(3, dtype=F32), np.ones(3, F32)),
                  (BOOLS, BOOLS), (np.zeros((2, 0)), np.zeros((3, 0))), (A23, np.arange(4))],
        "vdot": [(np.arange(3), np.arange(3.0)), (A23, np.arange(6.0)), (np.float64(2.0),
                                                                       np.float64(3.5)),
                 (np.arange(3, dtype=F32), np.ones(3, F32)), (np.zeros(0), np.zeros((0, 2))),
                 (np.array([1 + 2j, 3j]), np.array([2.0, 1 - 1j]))],
        "kron": [(np.array([[1, 2]]), np.array([[1], [10]])), (np.arange(3.0), np.arange(2)),
                 (A23, np.eye(2)), (np.float64(2.0), A23), (A234[:1], np.ones((2, 2), F32)),
                 (BOOLS, np.array([True, False])), (np.zeros((0, 2)), np.ones(2))],
        "einsum": [("ij,jk->ik", A23, A23.T.copy()), ("ii", np.arange(9.0).reshape(3, 3)),
                   ("ij->ji", A23), ("i,i", np.arange(3), np.arange(3.0)), ("ij", A23),
                   ("...ij,...jk->...ik", np.ones((2, 2, 3)), np.ones((2, 3, 4), F32)),
                   ("ijk->k", A234), ("i,j->ij", np.arange(2), BOOLS[0]), ("ij,j", A23),
                   ("i->i", np.zeros((0,))), ("ij,jk", A23, A23)],
        "solve": [(spd, np.array([1.0, 2.0, 3.0])), (spd, np.eye(3)), (stack, np.arange(3.0)),
                  (stack, np.arange(9.0).reshape(3, 3, 1)), (stack, np.ones((3, 3, 2))),
                  (stack[:1], np.ones((4, 1, 3, 2))), (spd.astype(F32), np.ones(3, F32)),
                  (np.array([[2, 1], [1, 3]]), np.array([1, 2])), (np.zeros((0, 3, 3)), np.ones(3)),
                  (np.zeros((0, 0)), np.zeros((0,))), (np.array([[1.0, 2.0], [2.0, 4.0]]),
                                                       np.array([1.0, 2.0])),
                  (stack, np.ones((3, 3))), (spd, np.ones(2)), (A23, np.ones(2))],
    }
