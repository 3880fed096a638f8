"""Explicit oracle inputs of the NumPy-twin primitives added for issue 12 outside matrixops
(``arithmetics/numpy_unary``, ``arithmetics/numpy_calculus``, ``booleans/numpy_compare``,
``statistics/numpy_nan``), keyed by primitive name; the matrixops ones are in
``samples_numpy_matrixops.py``.

Part of the table of ``samples.py`` (which merges the builders of its modules).  Each list
covers the dtypes NumPy accepts (bool/int64/float32/float64), empty arrays, NaN/inf where
meaningful, negative axes, and at least one input NumPy refuses (phylanx must then raise
a PhylanxError).
"""
from __future__ import annotations

import numpy as np

from .families import reduction, unary

F32 = np.float32
I = np.int64          # noqa: E741 - short for the many int64 scalars below
SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -2.5, 0.5])
A23 = np.arange(6.0).reshape(2, 3)
A234 = np.arange(24).reshape(2, 3, 4)
BOOLS = np.array([[True, False, True], [False, False, True]])


def _arithmetics_numpy_unary() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/arithmetics/numpy_unary.py (the others use "unary")."""
    return {
        "nan_to_num": unary() + [
            (SPECIALS, True, -1.0), (SPECIALS.astype(F32), True, 0.0, 9.0, -9.0),
            (SPECIALS, True, 0.0, None, 1.5), (np.arange(3), True, 5.0),
            (SPECIALS, True, "x"),
        ],
    }


def _arithmetics_numpy_calculus() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/arithmetics/numpy_calculus.py."""
    xs = np.array([0.0, 0.5, 2.0, 3.0])
    return {
        "diff": [
            (np.array([1, 4, 9, 16]),), (np.array([1.0, np.nan, np.inf, 2.0]),),
            (A234, I(2)), (A234, I(1), I(0)), (A234, I(1), I(-2)), (BOOLS,),
            (np.arange(5, dtype=F32), I(3)), (np.array([]),), (np.zeros((2, 0)), I(1), I(0)),
            (np.arange(4.0), I(1), I(-1), np.float64(0.0), np.array([10.0])),
            (np.arange(4.0), I(5)), (np.arange(4.0), I(1), I(1)), (np.float64(3.0),),
        ],
        "trapezoid": [
            (np.array([1.0, 2.0, 4.0]),), (np.array([1.0, 2.0, 4.0]), xs[:3]),
            (A23, None, 0.5), (A23, None, 1.0, I(0)), (A234, None, 2.0, I(-2)),
            (np.arange(4, dtype=F32),), (np.array([1.0, np.nan]),), (np.array([]),),
            (np.array([True, False, True]),), (A23, np.arange(2.0), 1.0, I(0)),
            (A23, np.arange(2.0)), (np.float64(1.0),),
        ],
        "interp": [
            (np.array([-1.0, 0.25, 1.0, 2.5, 9.0]), xs, np.array([0.0, 1.0, 3.0, 2.0])),
            (np.float64(0.75), xs, np.arange(4)), (np.arange(6).reshape(2, 3), xs, xs ** 2),
            (np.array([-1.0, 9.0]), xs, xs, -5.0, 5.0), (np.array([np.nan, np.inf]), xs, xs),
            (np.array([370.0, -10.0]), np.array([0.0, 90.0, 180.0]), np.array([0.0, 1.0, 0.0]),
             None, None, 360.0),
            (np.array([], dtype=F32), xs, xs), (np.array([1.0]), xs, xs[:3]),
            (np.array([1.0]), np.array([]), np.array([])),
        ],
        "convolve": [
            (np.array([1, 2, 3]), np.array([0.0, 1.0, 0.5])), (np.arange(5.0), np.ones(3), "same"),
            (np.arange(5.0, dtype=F32), np.array([1.0, -1.0], F32), "valid"),
            (np.array([1.0]), np.arange(4.0), "valid"), (np.array([True, True]), np.array([2, 3])),
            (np.arange(3.0), np.array([]), "full"), (np.arange(3.0), np.ones(2), "middle"),
            (np.array([1j, 2.0]), np.array([1.0, 1.0])),
        ],
        "polyval": [
            (np.array([3, 0, 1]), np.array([1, 2])), (np.array([1.0, -2.0, 0.5]), np.float64(2.0)),
            (np.array([2.0], dtype=F32), np.arange(3, dtype=F32)), (np.array([1, 2]), A23),
            (np.array([]), np.arange(3.0)), (np.array([1.0, 1.0]), np.array([np.nan, np.inf])),
            (np.array([True, True]), np.array([True, False])),
        ],
        "polyfit": [
            (np.arange(5.0), np.array([1.0, 3.0, 5.2, 6.9, 9.1]), I(1)),
            (np.arange(5.0), np.arange(5.0) ** 2, I(2)),
            (np.arange(4), np.arange(8.0).reshape(4, 2), I(1)),
            (np.arange(5.0), np.array([0.0, 1.0, 0.5, 2.0, 1.0]), I(2), None, True),
            (np.arange(5.0), np.array([0.0, 1.0, 0.5, 2.0, 1.0]), I(1), None, False, None, True),
            (np.arange(5.0), np.array([0.0, 1.0, 0.5, 2.0, 1.0]), I(1), None, False,
             np.array([1.0, 2.0, 1.0, 2.0, 1.0])),
            (np.arange(5, dtype=F32), np.arange(5, dtype=F32), I(1)),
            (np.arange(3.0), np.arange(4.0), I(1)), (np.arange(3.0), np.arange(3.0), I(-1)),
        ],
    }


def _booleans_numpy_compare() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/booleans/numpy_compare.py."""
    near = np.array([1.0, 1.0 + 1e-9, np.nan, np.inf, -np.inf, 0.0])
    other = np.array([1.0, 1.0, np.nan, np.inf, np.inf, 1e-9])
    close = [
        (near, other), (near, other, 1e-05, 1e-08, True), (near, other, 0.0, 0.0),
        (A23, A23[0]), (A23.astype(F32), A23 + 1e-7), (np.arange(3), np.arange(3)),
        (np.array([True, False]), np.array([1, 0])), (np.float64(1.0), np.float64(1.1), 0.2),
        (np.zeros((0, 3)), np.zeros(3)), (A23, np.zeros(4)),
        (np.array([100.0, 1.0]), np.array([101.0, 2.0]), 0.01, 1.0),
    ]
    return {
        "isclose": close,
        "allclose": close,
        "array_equal": [
            (A23, A23.copy()), (A23, A23[0]), (near, near), (near, near, True),
            (np.arange(3), np.arange(3.0)), (np.array([True]), np.array([1])),
            (np.zeros((0,)), np.zeros((0,))), (np.zeros((0,)), np.zeros((0, 1))),
            (np.float32(1.5), np.float64(1.5)), (A23.astype(F32), A23),
        ],
        "isin": [
            (A234, np.array([1, 5, 23, 99])), (A234, np.array([1, 5]), False, True),
            (np.array([1.0, np.nan, 2.5]), np.array([np.nan, 2.5])),
            (np.array([True, False]), np.array([True])), (np.int64(3), np.arange(4)),
            (np.zeros((0, 2)), np.arange(3)), (np.arange(3), np.array([])),
            (np.arange(4, dtype=F32), np.array([1.0, 3.0]), True),
        ],
    }


def _statistics_numpy_nan() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/statistics/numpy_nan.py (nanmax/nanmin/ptp use the
    "reduction" family, whose (x, axis, keepdims) is their signature)."""
    # nansum/nanmean take NumPy's (a, axis, dtype, keepdims): the family with a nil dtype
    family = [(x, axis, None, keep) for x, axis, keep in reduction()]
    with_nan = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    extra = [(with_nan,), (with_nan, I(1)), (with_nan, I(-1), None, True),
             (with_nan.astype(F32), I(0)), (with_nan, [I(0), I(1)]),
             (np.arange(6).reshape(2, 3), None, "float32"), (BOOLS, I(0), "int64")]
    return {
        "nansum": family + extra,
        "nanmean": family + extra,
        "average": [
            (A23,), (A23, I(1)), (A23, I(-2), np.array([1.0, 3.0])),
            (A23, None, np.arange(1.0, 7.0).reshape(2, 3)), (A23, I(1), np.array([1, 2, 3]), True),
            (A23, I(0), None, False, True), (np.arange(4, dtype=F32),), (BOOLS, I(1)),
            (np.array([1.0, np.nan]),), (A234, [I(0), I(2)]),
            (A23, I(1), np.array([1.0, -1.0, 0.0])), (np.zeros((0,)),),
            (np.float64(2.0),), (A23, None, np.ones(3)),
        ],
    }
