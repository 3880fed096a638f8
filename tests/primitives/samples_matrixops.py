"""Explicit oracle inputs of the matrixops primitives, keyed by primitive name.

Part of the table of ``samples.py`` (which merges the builders of both modules); split
off to keep each module readable.
"""
from __future__ import annotations

import numpy as np


def _matrixops_creation() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/creation.py."""
    return {
        "eye": [(3,), (2, 4), (3, 3, 1), (4, 3, -2, "int"), (0,), (2, None, 0, "bool"),
                (2, 2, 0, "float32")],
        "identity": [(3,), (1, "int"), (0,), (2, "float32")],
        "arange": [(5,), (2, 8), (0, 10, 3), (10, 0, -2), (0.5, 2.5, 0.5), (3, 1),
                   (0, 5, 1, "float"), (0,), (1.0, 2.0, 0.25, "float32")],
        "__npconstant": [(0, [2, 3]), (1, 4), (2.5,), (7, [2, 2], "int"), (1, [0, 3]),
                       (1, [], "bool"),
                       (3, [2, 1, 2, 2], "float32"), (True, 2)],
        "constant": [(0, [2, 3]), (1, 4), (2.5,), (7, [2, 2], "int"), (1, [0, 3]), (1, [], "bool"),
                     (3, [2, 1, 2, 2], "float32"), (True, 2), (2.5, 2, "int32"), (1, 2, "xyz"),
                     (1, 2, "double"), (np.arange(2), 2), (1.5, None, "int")],
        "full": [([2, 3], 7), (3, 1.5), ([2, 2], 1, "float"), ([0], 2), ([2, 3], np.arange(3.)),
                 ([2], True), ([1, 2], np.float32(2.5))],
        "__fresh_rows_of": [(np.ones((2, 1)), [2, 3], 0), (np.ones(4), 4, 1.5, "float32"),
                            (np.ones((2, 2)), [2, 2, 2], 7, "int64"), (np.ones((0, 3)), [0, 3], 1)],
        "__npconstant_like": [(0, np.arange(6).reshape(2, 3)), (1, np.ones(3, np.float32)),
                          (2.5, np.arange(4)), (1, np.zeros((2, 2)), "int"), (0, np.zeros((0, 2))),
                          (1, np.float64(3))],
        "constant_like": [(0, np.arange(6).reshape(2, 3)), (1, np.ones(3, np.float32)),
                          (2.5, np.arange(4)), (1, np.zeros((2, 2)), "int"), (0, np.zeros((0, 2))),
                          (1, np.float64(3)), (0, np.ones((2, 2))), (True, np.arange(3)),
                          (np.float32(1.5), np.arange(2))],
        "full_like": [(np.arange(6).reshape(2, 3), 7), (np.zeros(3, np.float32), 1.5),
                      (np.arange(3), 2.7), (np.arange(3), 2.7, "float"), (np.zeros((0, 3)), 1),
                      (np.ones((2, 2)), np.arange(2.))],
        "linspace": [(0, 1, 5), (2.0, 3.0, 1), (0, 10, 0), (5, -5, 11),
                     (np.float32(0), np.float32(1), 3), (0, 1, 4, False), (2.0, 3.0, 1, False),
                     (0, 10, 0, False), (-1, 1, 5, True)],
        "linearmatrix": [(2, 3, 1.0, 2.0, 3.0), (3, 1, 0, 1, 1), (0, 2, 1.0, 1.0, 1.0),
                         (2, 2, np.float32(0.5), np.float32(1), np.float32(2))],
    }


def _matrixops_linalg() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/linalg.py."""
    return {
        "dot": [(np.float64(2.5), np.arange(3.)), (np.arange(3.), np.float32(2)),
                (np.arange(3.), np.arange(3.)), (np.arange(6.).reshape(2, 3), np.arange(3)),
                (np.arange(2), np.arange(6.).reshape(2, 3)),
                (np.arange(6.).reshape(2, 3), np.arange(12.).reshape(3, 4)),
                (np.arange(24.).reshape(2, 3, 4), np.arange(4.)),
                (np.arange(24.).reshape(2, 3, 4), np.arange(20.).reshape(4, 5)),
                (np.arange(3.), np.arange(24.).reshape(2, 3, 4)),
                (np.arange(6.).reshape(2, 3), np.arange(24.).reshape(2, 3, 4)),
                (np.arange(24.).reshape(2, 3, 4), np.arange(40.).reshape(2, 4, 5)),
                (np.float32([[1, 2], [3, 4]]), np.float32([5, 6])),
                (np.arange(3.), np.arange(4.))],
        "matmul": [(np.arange(3.), np.arange(3.)), (np.arange(6.).reshape(2, 3), np.arange(3)),
                   (np.arange(2), np.arange(6.).reshape(2, 3)),
                   (np.arange(6.).reshape(2, 3), np.arange(12.).reshape(3, 4)),
                   (np.arange(24.).reshape(2, 3, 4), np.arange(20.).reshape(4, 5)),
                   (np.arange(24.).reshape(2, 3, 4), np.arange(40.).reshape(2, 4, 5)),
                   (np.arange(12.).reshape(1, 3, 4), np.arange(40.).reshape(2, 4, 5)),
                   (np.float32([[1, 2], [3, 4]]), np.float32([5, 6])),
                   (np.float64(2), np.arange(3.)), (np.arange(3.), np.arange(4.))],
        "tensordot": [(np.arange(24.).reshape(2, 3, 4), np.arange(60.).reshape(3, 4, 5)),
                      (np.arange(6.).reshape(2, 3), np.arange(12.).reshape(3, 4), 1),
                      (np.arange(3.), np.arange(4.), 0),
                      (np.arange(24.).reshape(2, 3, 4), np.arange(24.).reshape(4, 3, 2),
                       [[np.int64(1), np.int64(2)], [np.int64(1), np.int64(0)]]),
                      (np.arange(6.).reshape(2, 3), np.arange(6.).reshape(3, 2),
                       [np.int64(0), np.int64(1)]),
                      (np.arange(6.).reshape(2, 3), np.arange(6.).reshape(2, 3), 3)],
        "outer": [(np.arange(3.), np.arange(4)), (np.float64(2), np.arange(3.)),
                  (np.arange(6.).reshape(2, 3), np.arange(2.)),
                  (np.float32([1, 2]), np.float32([3, 4, 5])), (np.arange(0.), np.arange(3.))],
        "cross": [(np.arange(3.), np.array([4., -1., 2.])),
                  (np.arange(6.).reshape(2, 3), np.array([1, 0, 0])),
                  (np.float32([1, 2, 3]), np.float32([3, 2, 1]))],
        "determinant": [(np.array([[1., 2.], [3., 4.]]),),
                        (np.array([[2, 0, 1], [1, 3, 2], [1, 1, 2]]),),
                        (np.float32([[1, 2], [3, 4]]),), (np.array([[1., 2.], [2., 4.]]),),
                        (np.arange(8.).reshape(2, 2, 2),), (np.arange(6.).reshape(2, 3),),
                        (np.arange(36.).reshape(2, 2, 3, 3) ** 1.5,), (np.zeros((0, 2, 2)),)],
        "inverse": [(np.array([[1., 2.], [3., 4.]]),),
                    (np.array([[2, 0, 1], [1, 3, 2], [1, 1, 2]]),),
                    (np.float32([[1, 2], [3, 4]]),), (np.array([[1., 2.], [2., 4.]]),),
                    (np.arange(8.).reshape(2, 2, 2) ** 2,), (np.arange(6.).reshape(2, 3),),
                    (np.arange(36.).reshape(2, 2, 3, 3) ** 1.5,), (np.zeros((0, 2, 2)),)],
        "matrix_power": [(np.array([[1., 2.], [3., 4.]]), n) for n in (-3, -1, 0, 1, 2, 5)] + [
            (np.array([[2, 0, 1], [1, 3, 2], [1, 1, 2]]), 3),      # integers stay integers
            (np.array([[2, 0, 1], [1, 3, 2], [1, 1, 2]]), -2),     # ... but not inverted
            (np.float32([[1, 2], [3, 4]]), -1), (np.array([[1., 2.], [2., 4.]]), -1),
            (np.arange(8.).reshape(2, 2, 2) ** 2, -2), (np.arange(8).reshape(2, 2, 2), 0),
            (np.arange(6.).reshape(2, 3), 2), (np.eye(2), 2.0), (np.eye(2), True),
            (np.eye(2), np.int32(4)), (np.zeros((0, 2, 2)), 3)],
        "invGJE": [(np.array([[1., 2.], [3., 4.]]),),
                   (np.array([[0, 1, 2], [1, 0, 3], [4, -3, 8]]),),
                   (np.float32([[4, 7], [2, 6]]),), (np.array([[1., 2.], [2., 4.]]),),
                   (np.zeros((0, 0)),), (np.arange(6.).reshape(2, 3),)],
        "norm": [(np.array([3., 4.]),), (np.arange(6.).reshape(2, 3),), (np.array([1, 1]),),
                 (np.array([3, 4]),), (np.array([True, False]),), (np.float32([3, 4]), 1),
                 (np.array([1., -2., 3.]), 3), (np.array([1., -2., 3.]), 0),
                 (np.array([1., -2., 3.]), -1), (np.array([1., -2., 3.]), np.float64(-np.inf)),
                 (np.array([1., -2., 3.]), np.float64(2.0)), (np.array([1., 2.]), "nuc"),
                 (np.array([1., 2.]), None, 0), (np.array([1., 2.]), None, -1, True),
                 (np.array([1., 2.]), None, 1), (np.arange(6.).reshape(2, 3), 2),
                 (np.arange(6.).reshape(2, 3), 1), (np.arange(6.).reshape(2, 3), None, 0),
                 (np.arange(6.).reshape(2, 3), np.float64(np.inf)),
                 (np.arange(6).reshape(2, 3), None, None, True), (np.float64(3.0),),
                 (np.arange(6.).reshape(2, 3), "fro"), (np.arange(6.).reshape(2, 3), "nuc"),
                 (np.arange(24.).reshape(2, 3, 4),)],
        "__npnorm": [(np.array([3., 4.]),), (np.arange(6.).reshape(2, 3),),
                 (np.arange(6.).reshape(2, 3), "fro"), (np.arange(6.).reshape(2, 3), "nuc"),
                 (np.array([1., -2., 3.]), np.float64(np.inf)), (np.array([1., -2., 3.]), 1),
                 (np.arange(6.).reshape(2, 3), 2, 1),
                 (np.arange(6.).reshape(2, 3), None, 0, True),
                 (np.arange(24.).reshape(2, 3, 4), None, [np.int64(0), np.int64(2)]),
                 (np.float32([3, 4]),), (np.arange(24.).reshape(2, 3, 4),),
                 (np.array([1., 2.]), "fro")],
    }


def _matrixops_numpy_linalg() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/numpy_linalg.py."""
    _F32 = np.float32
    _SPD = np.array([[4.0, 2.0, 0.6], [2.0, 5.0, 1.0], [0.6, 1.0, 3.0]])
    _GENERAL = np.array([[2.0, -1.0, 0.0], [1.0, 3.0, 2.0], [0.5, 0.0, 1.0]])
    _ROTATION = np.array([[0.0, -1.0], [1.0, 0.0]])
    _TALL = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    _WIDE = _TALL.T.copy()
    _STACK = np.stack([_SPD, 2 * _SPD + np.eye(3)])
    _SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
    _SQUARE_SAMPLES = [(_SPD,), (_GENERAL,), (_ROTATION,), (_SPD.astype(_F32),), (_STACK,),
                       (np.array([[2, 1], [1, 2]]),), (np.eye(2, dtype=bool),), (_TALL,),
                       (np.zeros((0, 0)),)]
    _SYMMETRIC_SAMPLES = [(_SPD,), (_SPD, "U"), (np.triu(_GENERAL), "U"), (np.tril(_GENERAL),),
                          (_SPD.astype(_F32), "l"), (_STACK,), (np.array([[2, 1], [1, 2]]),),
                          (_TALL,), (_SPD, "X")]
    return {
        "eig": _SQUARE_SAMPLES,
        "eigvals": _SQUARE_SAMPLES,
        "eigh": _SYMMETRIC_SAMPLES,
        "eigvalsh": _SYMMETRIC_SAMPLES,
        "slogdet": [(_SPD,), (_GENERAL,), (_ROTATION,), (np.stack([_SPD, -_SPD]),),
                    (_SPD.astype(_F32),), (np.zeros((2, 2)),), (np.eye(3, dtype=np.int64),),
                    (_TALL,)],
        "svd": [(_TALL,), (_TALL, False), (_WIDE, True), (_WIDE, False), (_TALL, True, False),
                (_SPD, True, True, True), (_TALL.astype(_F32), False), (_STACK, False),
                (np.arange(6).reshape(2, 3),), (np.zeros((0, 2)), False), (np.arange(3.0),)],
        "qr": [(_TALL,), (_TALL, "complete"), (_TALL, "r"), (_TALL, "raw"), (_WIDE,),
               (_SPD.astype(_F32),), (_STACK, "complete"), (np.arange(4).reshape(2, 2),),
               (_TALL, "economic")],
        "cholesky": [(_SPD,), (_SPD, True), (_SPD.astype(_F32),), (_STACK,), (_SINGULAR,),
                     (np.array([[4, 2], [2, 3]]),), (_GENERAL,), (_TALL,)],
        "pinv": [(_TALL,), (_WIDE,), (_SINGULAR,), (_SINGULAR, 0.5), (_SPD, None, True),
                 (_TALL.astype(_F32),), (_STACK,), (np.arange(6).reshape(3, 2),)],
        "lstsq": [(_TALL, np.array([1.0, 2.0, 2.5])), (_TALL, np.eye(3)[:, :2]),
                  (_WIDE, np.array([1.0, 2.0])), (_SINGULAR, np.array([1.0, 2.0])),
                  (_SINGULAR, np.array([1.0, 2.0]), 0.5), (_TALL.astype(_F32), np.ones(3, _F32)),
                  (np.arange(6).reshape(3, 2), np.arange(3)), (_TALL, np.ones(2))],
        "matrix_rank": [(_SPD,), (_SINGULAR,), (_TALL,), (np.zeros((3, 3)),), (_SPD, 2.5),
                        (_SPD, None, True), (_STACK,), (np.arange(4.0),), (np.float64(2.0),),
                        (_TALL.astype(_F32),)],
    }


def _matrixops_numpy_shape() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/numpy_shape.py."""
    _A23 = np.arange(6.0).reshape(2, 3)
    _A234 = np.arange(24).reshape(2, 3, 4)
    _SQUARE = np.arange(1, 17).reshape(4, 4)
    _TRIANGLE_SAMPLES = [(_SQUARE,), (_SQUARE, 1), (_SQUARE, -2), (_A23, 0), (_A23, 5),
                         (_A234, -1), (np.arange(3), 0), (_A23.astype(np.float32), 1),
                         (np.ones((2, 2), dtype=bool),), (np.zeros((0, 3)),)]
    return {
        "roll": [(np.arange(5), 2), (np.arange(5), -7), (_A23, 1), (_A23, 1, 1), (_A23, -1, -1),
                 (_A234, [1, -2], [0, 2]), (_A234, 2, [0, 1]), (_A23.astype(np.float32), 4, 0),
                 (np.array([True, False, False]), 1), (np.zeros((0, 3)), 2, 1), (np.int64(3), 1),
                 (_A23, 1, 2), (_A234, [1, 2, 3], [0, 1])],
        "column_stack": [([np.arange(3), np.arange(3, 6)],), ([_A23.T, np.arange(3)],),
                         ([np.arange(2.0, dtype=np.float32), np.arange(2, dtype=np.float32)],),
                         ([np.arange(2), np.array([0.5, 1.5])],), ([np.arange(3)],),
                         ([np.arange(3), np.arange(4)],), ([np.zeros(0), np.zeros(0)],)],
        "tril": _TRIANGLE_SAMPLES,
        "triu": _TRIANGLE_SAMPLES,
        "__npblock": [([[np.arange(2), np.arange(2, 5)], [np.arange(5.0)]],),
                      ([np.arange(3), np.arange(2)],), ([[_A23, _A23], [_A23, _A23]],),
                      ([[_A23.astype(np.float32)], [np.ones((1, 3), np.float32)]],),
                      (_A23,), ([[_A23, np.arange(2)]],), ([],)],
    }


def _matrixops_shape() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/shape.py."""
    _A23 = np.arange(6.0).reshape(2, 3)
    _A234 = np.arange(24).reshape(2, 3, 4)
    return {
        "reshape": [(np.arange(6), [2, 3]), (_A23, [-1]), (_A234, [4, -1, 2]), (np.arange(4.0), 4),
                    (np.zeros((0, 3)), [3, 0]), (np.float64(5), [1, 1]), (np.arange(1), []),
                    (np.arange(6, dtype=np.float32), [3, 2]), (np.arange(6), [4, -1])],
        "flatten": [(_A23,), (_A234, "F"), (np.float32(2),), (np.zeros((2, 0)),), (_A23, "C")],
        "squeeze": [(np.zeros((1, 3, 1)),), (np.zeros((1, 3, 1)), -1), (np.ones((1, 1)),),
                    (np.zeros((2, 1, 0)), 1), (np.zeros((1, 2, 1, 1)), [0, 2]),
                    (np.zeros((2, 3)), 0)],
        "expand_dims": [(np.arange(3), 0), (np.arange(3), -1), (_A23, 1), (np.float64(2), 0),
                        (_A234, [0, 4]), (np.zeros((0,)), 1), (np.arange(3), 2)],
        "transpose": [(_A23,), (_A234,), (_A234, [1, 0, 2]), (_A234, [-1, 0, 1]), (np.arange(3),),
                      (np.float32(1),), (np.zeros((0, 2)),), (_A23, [0, 0])],
        "flip": [(np.arange(4),), (_A23, 0), (_A234, -1), (_A234, [0, 2]), (_A23,),
                 (np.float64(1),), (np.zeros((0, 2)), 1)],
        "flipud": [(np.arange(4),), (_A23,), (_A234,), (np.float64(3),)],
        "fliplr": [(_A23,), (_A234,), (np.arange(4),)],
        "size": [(_A23,), (np.float64(1),), (np.zeros((0, 3)),), (_A234,)],
        "ndim": [(_A23,), (np.float64(1),), (np.zeros((0,)),), (_A234,)],
        "shape": [(_A23,), (_A234, -1), (_A234, 1), (np.float64(1),), (np.zeros((0, 2)), 0),
                  (_A23, 2)],
        "astype": [(np.array([1.7, -2.2]), "int"), (np.arange(3), "float"), (np.arange(3), "bool"),
                   (np.float64(2.5), "int64"), (_A23, "float32"), (np.zeros((0,)), "int")],
        "tile": [(np.arange(3), 2), (np.arange(3), [2, 2]), (_A23, [2, 1]), (_A23, 0),
                 (np.float64(2), 3), (_A234, [1, 2]), (np.arange(2, dtype=np.float32), [2, 1, 2])],
        "repeat": [(np.arange(3), 2), (_A23, 2, 1), (_A23, [1, 2], 0), (_A23, 2, -1),
                   (np.float64(4), 3), (_A23, [1, 2], 1), (np.zeros((0, 2)), 2, 0)],
        "pad": [(np.arange(3), 2, "constant"), (np.arange(3), [1, 2], "constant", 9),
                (_A23, [[1, 0], [0, 2]], "constant", -1), (_A23, [1, 2], "constant"),
                (np.arange(3.0, dtype=np.float32), 1, "constant", 0.5), (np.arange(3), 1, "edge")],
        "__nppad": [(np.arange(3), 2, "constant"), (np.arange(3), [1, 2], "constant", 9),
                    (_A23, [[1, 0], [0, 2]], "constant", -1), (np.arange(3), 1, "edge"),
                    (np.arange(3), [1, None], "constant"), (_A23, [[1, 2], None], "constant")],
        "diag": [(np.arange(3),), (np.arange(3), 1), (np.arange(3), -2), (_A23,), (_A23, 1),
                 (_A23, -1), (_A23, 5), (np.zeros((0,)),), (_A234,), (np.float32([1, 2]),)],
        "clip": [(np.arange(6), 1, 4), (np.arange(6.0), None, 3.5), (_A23, np.array([1, 2, 3]), 4),
                 (np.float32([0.5, 3]), np.float32(1), np.float32(2)), (np.float64(5), 0, 1),
                 (np.array([np.nan, 1.0]), 0, 0.5), (np.arange(6), 1.5, 3)],
        "gradient": [(np.array([1.0, 2, 4, 7, 11]),), (np.array([1, 2, 4]),), (_A23 ** 2, 1),
                     (_A23 ** 2, -2), (_A23 ** 2,), (np.float32([1, 4, 9]),), (_A234, [0, 2]),
                     (np.array([1.0]),)],
    }


def _matrixops_slicing() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/slicing.py (``slice`` and its forms follow
    the original, not NumPy: tests/primitives/test_original_slicing.py)."""
    return {
        "__subscript": [(np.arange(12.).reshape(3, 4), -1),
                  (np.arange(12).reshape(3, 4), 1, -2),
                  (np.arange(24.).reshape(2, 3, 4), 1, 0, 3),
                  (np.arange(12.).reshape(3, 4), np.array([2, 0])),
                  (np.arange(12.).reshape(3, 4), np.array([True, False, True])),
                  (np.arange(12).reshape(3, 4), 5)],
        "__subscript_adjoint": [(np.arange(4.), np.zeros((3, 4)), -1),
                                (np.arange(6.).reshape(2, 3), np.ones((2, 3, 4)), 1, 0),
                                (np.ones((3, 4)), np.zeros((3, 4)), np.array([2, 0, 2])),
                                (2.5, np.zeros((3, 4)), 1, 2)],
    }


def _matrixops_sort() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/sort.py."""
    _AXIS_SAMPLES = [
        (np.array([3., 1., 4., 1., 5.]),), (np.array([[3, 1, 4], [1, 5, 9]]),),
        (np.array([[3, 1, 4], [1, 5, 9]]), 0), (np.array([[3., 1., 4.], [1., 5., 9.]]), -1),
        (np.arange(24.).reshape(2, 3, 4) % 5, 1), (np.array([1., np.nan, 3.]),),
        (np.float32([[2, 7], [8, 1]]), 1), (np.array([True, False, True]),), (np.array([]),),
        (np.arange(4.).reshape(2, 2), 2),
    ]
    return {
        "argmax": _AXIS_SAMPLES,
        "argmin": _AXIS_SAMPLES,
        "argsort": [(np.array([3., 1., 2.]), -1, "stable"), (np.array([[3, 1, 1], [0, 5, 0]]), 0,
                                                             "stable"),
                    (np.array([[3., 1., 2.], [0., 5., 4.]]), None, "mergesort"),
                    (np.arange(24.).reshape(2, 3, 4) % 7, 1, "stable"),
                    (np.array([2., np.nan, 1.]), -1, "stable"), (np.float32([2, 1]), 0, "stable"),
                    (np.array([1, 2]), 1, "stable")],
        "sort": [(np.array([3., 1., 2.]),), (np.array([[3, 1, 1], [0, 5, 0]]), 0),
                 (np.array([[3., 1., 2.], [0., 5., 4.]]), None),
                 (np.arange(24.).reshape(2, 3, 4) % 7, -2, "heapsort"),
                 (np.array([2., np.nan, 1., -np.inf]),), (np.float32([2, 1]),),
                 (np.array([True, False]),), (np.array([1, 2]), 1), (np.float64(3),)],
        "unique": [(np.array([3, 1, 3, 2, 1]),), (np.array([[1., 2.], [2., 1.]]),),
                   (np.array([[1, 2], [1, 2], [0, 5]]), 0),
                   (np.array([[1, 2, 1], [3, 4, 3]]), -1), (np.array([]),),
                   (np.array([1., np.nan, 1.]),), (np.float32([2, 2, 1]),),
                   (np.array([True, False, True]),), (np.array([[1, 2]]), 2),
                   # NumPy's flags (issue 12): index, inverse, counts, NaNs kept apart
                   (np.array([3, 1, 3, 2, 1]), None, True, True, True),
                   (np.array([[3., 1.], [3., 2.]]), None, False, True),
                   (np.array([[1, 2], [1, 2], [0, 5]]), -2, True, True, True),
                   (np.array([1., np.nan, np.nan]), None, False, False, True, False),
                   (np.array([], dtype=np.int64), None, True, True, True),
                   (np.float32([2, 2, 1]), None, False, False, True)],
        "power": [(np.arange(4.), np.float64(2)), (np.array([2, 3]), np.array([[0], [3]])),
                  (np.float32([1, 2]), np.float32(0.5)), (np.array([8., 4.]), 1 / 3),
                  (np.array([2, 3]), np.int64(-1)), (np.array([2., 3.]), np.int64(-1)),
                  (np.array([True, False]), np.array([2, 0])), (np.int64(3), np.int64(4)),
                  (np.array([0.5, 2.]), np.array([-1., np.inf]))],
    }


def _matrixops_original_stack() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/original_stack.py (the oracles are the
    addendum's rules A.3.1, not NumPy's)."""
    _A23 = np.arange(6.0).reshape(2, 3)
    _I23 = np.arange(6).reshape(2, 3)
    _T = np.arange(24).reshape(2, 3, 4)
    return {
        "hstack": [([1, 2, 3],), ([1, 2.5],), ([True, False],), ([np.arange(2), 5],),
                   ([_A23, _I23],), ([1.7, 2], "int"), ([np.float32([1]), np.float32(2)],),
                   ([np.zeros((2, 0)), _A23],), ([_A23, np.arange(2)],), ([],), ([], "int"),
                   ([1, [2, 3], np.array([4.5])],), ([1, [2.5]],), ([[True, 2]],),
                   ([1, 2], "float32"), ([1, 2], "int8"), ([1.5], "bool"), ([1, 2], "double"),
                   ([_T, _T[:, :1]],), ([_A23, [1, 2]],)],
        "vstack": [([np.arange(3), np.arange(3.0)],), ([1, 2],), ([_A23, _I23],),
                   ([np.arange(2), np.arange(2)], "float32"), ([np.arange(2), np.arange(3)],),
                   ([np.zeros(0)],), ([np.ones((1, 2, 2)), np.zeros((1, 2, 2))],), ([],),
                   ([np.arange(3), _A23],), ([1, np.arange(2)],), ([[1, 2]],), ([_T, _T],),
                   ([_T, _A23],), ([True, False],)],
        "dstack": [([np.arange(3), np.arange(3.0)],), ([_A23, _I23],), ([1, 2],),
                   ([_A23, _A23], "int"), ([np.arange(2), np.arange(3)],), ([],), ([2.5],),
                   ([_A23, _T.reshape(2, 3, 4)],), ([np.arange(3), _A23],),
                   ([1, np.arange(2)],), ([[1, 2]],)],
        "stack": [([np.arange(3), np.arange(3.0)],), ([_A23, _I23], 2), ([_A23, _I23], -1),
                  ([1, 2, 3],), ([_A23, _A23], 1, "int"), ([np.arange(2), np.arange(3)],),
                  ([_A23], 3), ([_A23], 1), ([_A23], -2), ([np.arange(3)],), ([np.arange(3)], 1),
                  ([_T], 0), ([_T], 1), ([_T], 2), ([1, 2], -1), ([1, 2], 1), ([5],),
                  ([[1, 2]],), ([_T, _T], 3), ([np.arange(2), np.arange(2)], -2)],
    }


def _matrixops_stack() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/matrixops/stack.py."""
    _A23 = np.arange(6.0).reshape(2, 3)
    _I23 = np.arange(6).reshape(2, 3)
    return {
        "concatenate": [([np.arange(2), np.arange(3.0)],), ([_A23, _A23], 1), ([_A23, _I23], -2),
                        ([_A23, np.arange(4)], None), ([np.zeros((0, 3)), _A23],),
                        ([np.float32([1]), np.float32([2, 3])],), ([_A23, np.arange(3)],), ([],)],
        "__nphstack": [([1, 2, 3],), ([1, 2.5],), ([True, False],), ([np.arange(2), 5],),
                   ([_A23, _I23],), ([1.7, 2], "int"), ([np.float32([1]), np.float32(2)],),
                   ([np.zeros((2, 0)), _A23],), ([_A23, np.arange(2)],)],
        "__npvstack": [([np.arange(3), np.arange(3.0)],), ([1, 2],), ([_A23, _I23],),
                   ([np.arange(2), np.arange(2)], "float32"), ([np.arange(2), np.arange(3)],),
                   ([np.zeros(0)],), ([np.ones((1, 2, 2)), np.zeros((1, 2, 2))],)],
        "__npdstack": [([np.arange(3), np.arange(3.0)],), ([_A23, _I23],), ([1, 2],),
                   ([_A23, _A23], "int"), ([np.arange(2), np.arange(3)],), ([1, 2],), ([],)],
        "__npstack": [([np.arange(3), np.arange(3.0)],), ([_A23, _I23], 2), ([_A23, _I23], -1),
                  ([1, 2, 3],), ([_A23, _A23], 1, "int"), ([np.arange(2), np.arange(3)],),
                  ([_A23], 3), ([_A23], 1), (_A23, 1), ([],)],
        "insert": [(np.arange(4), 1, 9), (np.arange(4), [1, 3], [7, 8]), (_A23, 1, 5),
                   (_A23, 1, 5, 1), (_A23, 0, [1, 2, 3], 0), (_A23, -1, 0, -1),
                   (np.arange(3.0), 1, 2.5, None, "int"), (np.arange(3), 7, 1),
                   (np.float32([1, 2]), 0, 3)],
        "hsplit": [(np.arange(6), 3), (_A23, 3), (_A23, [1]), (_I23, [1, 2]), (_I23, 1, 2),
                   (np.arange(24).reshape(2, 4, 3), 2), (_A23, 2), (np.arange(4), [1, 9])],
        "vsplit": [(np.arange(12).reshape(4, 3), 2), (_A23, [1]), (_A23, 2), (np.arange(4), 2),
                   (np.arange(24).reshape(4, 3, 2), [1, 3]), (_I23, 3)],
    }
