"""Explicit oracle inputs, keyed by primitive name (see docs/writing-primitives.md).

A primitive whose inputs a family of ``families.py`` cannot express gets its argument
tuples here instead of in its declaration, so that ``import phylanx`` builds no test
data.  One function per declaring module (``_matrixops_shape`` for
``phylanx/primitives/matrixops/shape.py``, those of matrixops in
``samples_matrixops.py``) returns ``{name: [argument tuples]}``;
:func:`explicit_samples` merges them once, on first use.  ``test_registry_contract``
checks that every name here is a primitive with an oracle and no input family.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import sys

import numpy as np


def _arithmetics_cumulative_and_tests() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/arithmetics/cumulative_and_tests.py."""
    return {
        "normalize": [(np.array([3.0, 4.0]),), (np.array([1, 2, 2]),), (np.float64(-2.5),),
                      (np.array([[1.0, 2.0], [2.0, 4.0]], dtype=np.float32),),
                      (np.array([True, True]),), (np.array([]),)],
        "trace": [(np.arange(9).reshape(3, 3),), (np.ones((2, 3), dtype=np.float32),),
                  (np.arange(24.0).reshape(2, 3, 4),), (np.eye(3, dtype=bool),),
                  (np.zeros((0, 0)),), (np.arange(3),)],
    }


def _arithmetics_elementwise_math() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/arithmetics/elementwise_math.py."""
    _F32 = np.float32
    POSITIVE = [
        (np.array([0.25, 1.0, 4.0, 1e10]),), (np.array([[0.5, 2.0], [3.0, 9.0]], dtype=_F32),),
        (np.int64(9),), (np.arange(1, 7).reshape(2, 3),), (np.array([], dtype=np.float64),),
        (np.array([np.inf, np.nan]),), (np.ones((2, 1, 2, 3)),), (np.float32(2.0),),
    ]
    UNIT_OPEN = [
        (np.array([-0.5, 0.0, 0.25, 0.9]),), (np.array([[0.5, -0.1]], dtype=_F32),),
        (np.float64(0.3),), (np.zeros((2, 2, 2), dtype=np.int64),), (np.array([]),),
        (np.array([np.nan]),),
    ]
    UNIT_CLOSED = UNIT_OPEN + [(np.array([-1.0, 1.0]),), (np.array([True, False]),)]
    AT_LEAST_ONE = [
        (np.array([1.0, 2.0, 10.0, np.inf]),), (np.array([[1.5], [3.0]], dtype=_F32),),
        (np.int64(3),), (np.arange(1, 9).reshape(2, 2, 2),), (np.array([]),),
    ]
    return {
        "sqrt": POSITIVE,
        "invsqrt": POSITIVE,
        "invcbrt": POSITIVE,
        "log": POSITIVE,
        "log2": POSITIVE,
        "log10": POSITIVE,
        "arcsin": UNIT_CLOSED,
        "arccos": UNIT_CLOSED,
        "arccosh": AT_LEAST_ONE,
        "arctanh": UNIT_OPEN,
    }


def _booleans_logic() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/booleans/logic.py."""
    _COND_SAMPLES = [
        (np.array([0, 3, 0, -1]),), (np.array([[True, False], [False, True]]),),
        (np.array([[[0.0, np.nan], [1.5, 0.0]]]),), (np.zeros((2, 0)),),
        (np.arange(16).reshape(2, 2, 2, 2) % 3,), (np.array([], dtype=bool),),
    ]
    return {
        "nonzero": _COND_SAMPLES + [(np.int64(3),), (np.float64(0.0),), ([1, 0],)],
        "__npnonzero": _COND_SAMPLES + [(np.int64(3),), ([1, 0],)],
        "where": _COND_SAMPLES + [(np.int64(2),), (np.bool_(False),),
             (np.array([True, False, True]), np.array([1, 2, 3]), np.float64(-1.0)),
             (np.array([[1], [0]]), np.array([[1.5, 2.5]], dtype=np.float32),
              np.array([[0.0, 0.0]], dtype=np.float32)),
             (np.bool_(False), np.int64(1), np.int64(2)),
             (np.array([], dtype=bool), np.array([]), np.int64(0)),
             (np.array([True, False]), [1, 2], np.int64(0)), ([True, False], np.int64(1), 2.5),
             (np.array([[True], [False]]), np.arange(3), np.float64(-1.0)),
             (np.zeros((2, 1, 2)), np.ones((1, 2, 2)), np.int64(7)),
            ],
        "__npwhere": _COND_SAMPLES + [
             (np.array([True, False]), [1, 2], np.int64(0)), ([True, False], np.int64(1), 2.5),
             (np.array([True, False, True]), np.array([1, 2, 3]), np.float64(-1.0)),
             (np.array([[1], [0]]), np.array([[1.5, 2.5]], dtype=np.float32),
              np.array([[0.0, 0.0]], dtype=np.float32)),
             (np.bool_(False), np.int64(1), np.int64(2)),
             (np.array([], dtype=bool), np.array([]), np.int64(0)),
            ],
    }


def _controls_control_flow() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/controls/control_flow.py."""
    return {
        "indices": [((2, 3),), ((3,), "float"), ((2, 2), "int", True), ((2, 3, 2), "float", True),
                    ((),), ((0, 3),), ((2,), "bool"), ((2,), "int32"), ((2,), "double"),
                    ((1, 2, 1, 2),)],
        "__npindices": [((2, 3),), ((3,), "float"), ((2, 2), "int", True), ((0, 3),), ((),)],
    }


def _core_general() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/core/general.py."""
    return {
        "format": [("{}-{:>3}", 1, 2), ("{1}{0}", "a", "b")],
        "string": [("a", 1), (2.5,)],
    }


def _frontend_support_methods() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/frontend_support/methods.py."""
    return {
        "__index": [([3, 1, 3], np.int64(3))],
        "__count": [([3, 1, 3], np.int64(3))],
        "__npappend": [(np.arange(3.), np.array([7., 8.])), (np.arange(6).reshape(2, 3),
                                                             np.int64(1)),
                       (np.arange(6).reshape(2, 3), np.arange(3).reshape(1, 3), np.int64(0))],
    }


def _frontend_support_python_builtins() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/frontend_support/python_builtins.py."""
    return {
        "__invert": [(np.array([True, False]),), (np.array([1, -2]),)],
        "__contains": [([1, 2, 3], np.int64(2)), ("abc", "d"), ({"a": 1}, "a")],
        "__is": [(None, None), (np.int64(1), None)],
        "__copy": [(np.arange(3.),), ([1, 2],)],
        "__dtype": [(np.arange(3.),), (np.int64(1),)],
        "__array": [([[1, 2], [3, 4]],), ([1.5, 2],), ([1, 2], "float32")],
        "__pycast": [(np.float64(2.7), "int64"), (np.int64(3), "float64"), ("1.5", "float64")],
        "__pylist": [("ab",), ([1, 2],)],
        "__pytuple": [("ab",), ([1, 2],), ((3, 4),)],
        "__pyconvert": [(2.7, "int"), (np.float64(-2.5), "int"), (3, "float"), ("12", "int"),
                        ([], "bool"), (np.array(4.5), "float")],
        "__pyabs": [(-3,), (-2.5,), (np.int64(-4),), (np.array([-1.0, 2.0]),)],
        "__pynot": [([],), (0,), (np.float64(2.0),), ("x",)],
        "__asnumpy": [(3,), (2.5,), (True,), (np.float32(1.5),)],
        "__npoperand": [(1, 0), (1.5, True), (2, np.float32(2.0)), (np.arange(2.), 0),
                        (2, np.array([True, False]))],
        "__nptuple": [([np.arange(2), np.int64(1)],), (np.arange(3.),), ([],), ((1, 2),)],
        "__enumerate": [(["a", "b"],), (["a"], 5)],
        "__zip": [([1, 2], ["a", "b", "c"])],
        "__flatten1": [([[1], [2, 3]],)],
        "__pysum": [([1, 2, 3],), ([1.5, 2], 10)],
        "__sorted": [([3, 1, 2],), ([3, 1, 2], True)],
        "__best": [([3, 1, 4, 1],), ([2, 7],)],
        "__reversed": [([1, 2, 3],)],
        "__round": [(np.float64(2.5),), (np.float64(1.2345), 2)],
        "__item": [(np.array([[2.5]]),)],
        "__tolist": [(np.array([[1, 2], [3, 4]]),)],
        "__items": [({"a": 1, "b": 2},)],
        "__keys": [({"a": 1, "b": 2},)],
        "__values": [({"a": 1, "b": 2},)],
        "__dict_get": [({"a": 1}, "a"), ({"a": 1}, "b", 5)],
        "__inplace": [(np.zeros(3), np.arange(3.)), (np.int64(1), np.int64(2)), ([1], [1, 2])],
        "__npround": [(np.array([1.25, -2.5, 3.5]),), (np.array([1.2345, 2.5]), 2),
                      (np.float64(2.5),), (np.array([15, 25]), -1)],
        "__divmod": [(np.int64(7), np.int64(-2)), (np.array([7.5, -3.0]), np.float64(2.0))],
        "__pymax": [([3, 1, 4],), (1, 5, 2)],
        "__pymin": [([3, 1, 4],), (1, 5, 2)],
    }


def _frontend_support_text() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/frontend_support/text.py."""
    return {
        "__pystr": [(np.arange(3.0),), ({"a": 1},), ("text",), (np.float64(0.1),)],
        "ravel": [(np.arange(6.0).reshape(2, 3),), (np.arange(6.0).reshape(2, 3).T,),
                  (np.arange(6).reshape(3, 2), "F"), (np.ones((2, 2), np.float32), "K")],
        "__npreshape": [(np.arange(6.0).reshape(2, 3), [3, 2], "F"),
                        (np.arange(6).reshape(2, 3), [-1], "C"), (np.arange(4.0), [2, 2], "A")],
        "__keepdims": [(np.int64(3), np.ones((2, 3))), (np.array([1, 2]), np.ones((3, 2)), 0),
                       (np.array([0, 1]), np.ones((2, 2)), -1)],
        "__view": [(np.arange(6.0).reshape(2, 3),), (np.arange(4.0), "int64"),
                   (np.ones(3, np.float32),)],
        "__pyformat": [(np.arange(3.0),), ({"a": 1},), ("text",), (np.float32(0.1),),
                       (np.float16(0.1),), (2.5,)],
    }


def _keras_support_activations() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/keras_support/activations.py."""
    _ACTIVATION_SAMPLES = [
        (np.array([-800.0, -3.5, -1.0, 0.0, 0.25, 2.0, 800.0]),),
        (np.array([[-2.0, 0.5], [1.5, -0.25]], dtype=np.float32),),
        (np.array([[True, False]]),),
        (np.arange(-3, 3).reshape(2, 3),),
        (np.array([np.nan, np.inf, -np.inf]),),
        (np.float64(0.75),),
        (np.zeros((0, 3)),),
    ]
    return {
        "sigmoid": _ACTIVATION_SAMPLES,
        "hard_sigmoid": _ACTIVATION_SAMPLES,
        "softplus": _ACTIVATION_SAMPLES,
        "softsign": _ACTIVATION_SAMPLES[:-3] + _ACTIVATION_SAMPLES[-2:],
        "relu": [(np.array([-2.0, -0.5, 0.0, 0.5, 3.0, 7.0]),),
                 (np.array([-2.0, -0.5, 0.0, 0.5, 3.0, 7.0]), 0.1, 6.0, 0.5),
                 (np.array([[-2.0, 3.0]], dtype=np.float32), 0.5, None, 1.0),
                 (np.array([-3.0, 1.0, 2.0, 8.0]), 0.2, 2.0)],
        "elu": [(np.array([-800.0, -1.0, 0.0, 2.0, 800.0]), 1.0),
                (np.array([[-1.5, 0.5]]), 0.3), (np.array([-2, 3]), 2.0)],
        "softmax": [(np.array([1.0, 2.0, 3.0]),), (np.array([[1000.0, 0.0], [-5.0, 5.0]]),),
                    (np.array([[1.0, 2.0], [3.0, 5.0]], dtype=np.float32), 0),
                    (np.arange(24).reshape(2, 3, 4), 1), (np.arange(24).reshape(2, 3, 4), -3)],
    }


def _keras_support_losses() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/keras_support/losses.py."""
    return {
        "binary_crossentropy": [(np.array([0.0, 1.0, 1.0, 0.0]), np.array([0.1, 0.9, 0.0, 1.0])),
                                (np.array([[1.0, 0.0]]), np.array([[0.3, 0.6]]), False),
                                (np.array([0.0, 1.0, 1.0, 0.5]),
                                 np.array([-800.0, 800.0, -3.0, 0.5]), True),
                                (np.float64(1.0), np.float64(0.25))],
        "softmax_crossentropy": [
            (np.array([[0.2, 0.8], [1.0, 0.0]]), np.array([[1.0, 2.0], [-3.0, 0.5]])),
            (np.array([1, 0, 2]), np.array([[1.0, 2.0, 0.0], [900.0, 0.0, -900.0],
                                            [-1.0, 0.0, 1.0]]), True),
            (np.array([[0, 1], [2, 2]]),
             np.arange(12, dtype=np.float32).reshape(2, 2, 3), True),
            # a class at -inf costs nothing where its target is 0; float64 targets
            # make a float64 loss of float32 logits
            (np.array([[1.0, 0.0, 0.0]]), np.array([[1.0, -np.inf, 0.0]])),
            (np.array([[0.3, 0.7]]), np.array([[1.0, 2.0]], dtype=np.float32))],
    }


def _keras_support_tensor() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/keras_support/tensor.py."""
    return {
        "one_hot": [(np.array([0, 2, 1]), 3), (np.array([[1, 5], [-1, 0]]), 4),
                    (np.int64(2), 3), (np.array([], dtype=np.int64), 2),
                    (np.array([1.0, 0.0]), 2)],
        "bias_add": [(np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0])),
                     (np.ones((2, 3, 4), np.float32), np.arange(4, dtype=np.float32)),
                     (np.ones((2, 3, 4)), np.arange(12.0).reshape(3, 4)),
                     (np.ones((2, 3)), np.ones(2)), (np.ones((2, 3, 4)), np.ones((2, 4)))],
        "switch": [(np.array([True, False, True]), np.arange(3), -np.arange(3)),
                   (np.array([1, 0]), np.ones((2, 3)), np.zeros((2, 3))),
                   (np.array([[1, 0], [0, 1]]), np.arange(8.0).reshape(2, 2, 2), np.float64(-1)),
                   (np.bool_(False), np.arange(3), np.float64(0.5))],
        "l2_normalize": [(np.array([3.0, 4.0]),), (np.arange(6.0).reshape(2, 3), 1),
                         (np.arange(6.0).reshape(2, 3), -2), (np.zeros((2, 2)),),
                         (np.arange(6, dtype=np.float32).reshape(3, 2), 0), (np.arange(4),)],
    }


def _listops_lists() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/listops/lists.py."""
    return {
        "list": [(1, 2), ()],
        "make_list": [(1, 2)],
        "tuple": [(1, 2), (), ("a", (1, 2))],
        "__len": [([1, 2, 3],), ("abc",), ({"a": 1},)],
    }


def _solvers_direct() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/solvers/direct.py."""
    _SOLVE_SAMPLES = [
        (np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]), np.array([1.0, 2.0, 3.0])),
        (np.array([[2.0, 1.0], [1.0, 5.0]]), np.array([[1.0, 0.0], [0.0, 1.0]])),
        (np.array([[4, 2], [2, 3]]), np.array([2, 1])),
        (np.array([[4.0, 2.0], [2.0, 3.0]], dtype=np.float32), np.array([1.0, 2.0], np.float32)),
    ]
    # both triangles of _TWO are positive definite and differ: uplo decides the answer
    _TWO = np.array([[4.0, 1.0], [2.0, 3.0]])
    _RHS = np.array([1.0, 2.0])
    _TRIANGLES = [(_TWO, _RHS), (_TWO, _RHS, "U"), (_TWO, _RHS, "L"), (_TWO, _RHS, "l"),
                  (_TWO, _RHS, "X"), (_TWO, np.array([[1.0], [2.0]]), "L")]
    return {
        "linear_solver_lu": _SOLVE_SAMPLES + [
            (np.array([[0.0, 2.0], [3.0, 1.0]]), np.array([4.0, 5.0])), (_TWO, _RHS),
            (np.array([True, False]), _RHS), (_TWO, np.float64(1.0))],
        "linear_solver_ldlt": _SOLVE_SAMPLES + _TRIANGLES + [
            (np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([3.0, 3.0]))],
        "linear_solver_cholesky": _SOLVE_SAMPLES + _TRIANGLES,
    }


def _solvers_iterative() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/solvers/iterative.py."""
    _SPD = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    _NONSYMMETRIC = np.array([[4.0, 1.0, 0.0], [2.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    _RHS = np.array([1.0, 2.0, 3.0])
    return {
        "iterative_solver_lanczos": [(_SPD, _RHS),
                                     (np.array([[2.0, 1.0], [1.0, -3.0]]), np.array([1.0, 1.0]))],
        "iterative_solver_arnoldi": [(_SPD, _RHS), (_NONSYMMETRIC, _RHS)],
    }


def _statistics_numpy_statistics() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/statistics/numpy_statistics.py."""
    _F32 = np.float32
    _A23 = np.array([[1.0, 7.0, 3.0], [4.0, 2.0, 9.0]])
    _ODD = np.array([[3, 1, 2], [9, 7, 8], [4, 6, 5]])
    _DATA = np.array([[0.5, 1.5, 2.0, 4.0], [1.0, 0.0, 2.5, 3.0], [2.0, 2.0, 1.0, 0.5]])
    _Q_SAMPLES = [
        (_A23, 50), (_A23, [10, 90], 1), (_A23, 25.0, -1, "lower"), (_A23, 75, 0, "higher", True),
        (_ODD, [0, 100], None, "nearest"), (_ODD, 40, 1, "midpoint"), (_A23.astype(_F32), 30, 1),
        (np.arange(10), np.array([[5, 50], [95, 100]])), (np.array([1.0, np.nan]), 50),
        (_A23, 150), (_A23, -1), (_A23, 50, None, "no-such-method"), (_A23, 50, 3),
    ]
    return {
        "median": [(_A23,), (_A23, 1), (_A23, -2), (_A23, 0, True), (_ODD, None, True),
                   (np.arange(24).reshape(2, 3, 4), [0, 2]), (_A23.astype(_F32), 1),
                   (np.array([1.0, np.nan, 3.0]),), (np.array([True, False, True]),),
                   (np.float64(2.5),), (_A23, 2)],
        "percentile": _Q_SAMPLES,
        "quantile": [(a, q / 100 if isinstance(q, (int, float)) else np.asarray(q) / 100, *rest)
                     for a, q, *rest in _Q_SAMPLES],
        "cov": [(_DATA,), (_DATA, None, False), (_DATA, None, True, True), (_DATA[0], _DATA[1]),
                (_DATA, None, True, False, 2), (_DATA, None, False, False, None,
                                                np.array([1, 2, 1])),
                (_DATA, None, True, False, None, None, np.array([0.5, 1.0, 2.0, 1.0])),
                (_DATA.astype(_F32),), (np.arange(5),), (np.array([[1, 2], [3, 4]]), None, False),
                (np.zeros((3, 2, 2)),), (_DATA, np.arange(3))],
        "corrcoef": [(_DATA,), (_DATA, None, False), (_DATA[0], _DATA[2]), (_DATA.astype(_F32),),
                     (np.array([[1, 2, 3], [3, 1, 2]]),), (np.zeros((3, 2, 2)),),
                     (np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]),)],
    }


def _listops_access() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/listops/access.py."""
    return {
        "car": [([1, 2, 3],), ([[4, 5], 6],), (["a"],)],
        "cdr": [([1, 2, 3],), ([1],), (["a", [2]],)],
        "prepend": [(1, [2, 3]), ("a", []), ([1], [2])],
        "append": [([1, 2], 3), ([], [1])],
    }


def nested_list_sample(depth: int = 4, width: int = 5) -> list:
    """A list ``depth`` levels deep, ``width`` items a level, distinct integer leaves.

    Every composition up to four letters has a valid path through it."""
    counter = itertools.count()

    def level(d):
        return [level(d - 1) if d > 1 else next(counter) for _ in range(width)]
    return level(depth)


def _listops_access_compositions() -> dict[str, list[tuple]]:
    """Samples of the 28 ``c[ad]{2,4}r`` compositions of phylanx/primitives/listops/access.py."""
    return {f"c{''.join(letters)}r": [(nested_list_sample(),)]
            for n in (2, 3, 4) for letters in itertools.product("ad", repeat=n)}


def short_circuit_samples(short_value: bool) -> list[tuple]:
    """Oracle inputs.  A scalar first operand equal to ``short_value`` short-circuits
    (``false && x`` is ``false`` whatever ``x`` is), which NumPy cannot express."""
    b = np.array([True, False, True])
    m = np.array([[1, 0], [0, 2]])
    return [(b, ~b), (b, True), (m, np.array([1, 0])), (np.zeros((0, 2)), m[:1]),
            (not short_value, b), (not short_value, m), (True, False), (0, 1), (1.5, 0.0)]


def _booleans_operators() -> dict[str, list[tuple]]:
    """Samples of the short-circuit ``__and``/``__or`` of booleans/operators.py."""
    return {"__and": short_circuit_samples(False), "__or": short_circuit_samples(True)}


def _frontend_support_python_builtins_binary() -> dict[str, list[tuple]]:
    """Samples of the ``_binary`` operators of frontend_support/python_builtins.py."""
    ints = [(np.array([7, -7, 8]), np.array([2, 2, -3])), (np.int64(9), np.int64(4)),
            (np.array([True, False]), np.array([True, True]))]
    return {
        "__floordiv": [(np.array([7., -7.]), np.float64(2.)), (np.int64(-7), np.int64(2))],
        "__bitand": ints,
        "__bitor": ints,
        "__bitxor": ints,
        "__lshift": [(np.array([1, 2]), np.int64(3))],
        "__rshift": [(np.array([8, 16]), np.int64(2))],
    }


#: the Krylov solvers that accept a non-symmetric matrix (the others need SPD)
_NONSYMMETRIC_SOLVERS = ("bicgstab", "bicgstab_lu", "bicgstab_rq", "bicgstab_qr", "gmres")
_SYMMETRIC_SOLVERS = ("conjugate_gradient", "bicgstab_cholesky", "cg_jacobi", "cg_ssor",
                      "cg_incompleteCholesky", "cg_symmetric_gauss_seidel")


def _solvers_iterative_linear() -> dict[str, list[tuple]]:
    """Samples of the ``iterative_solver_<method>`` linear solvers of solvers/iterative.py."""
    spd = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    nonsymmetric = np.array([[4.0, 1.0, 0.0], [2.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    rhs = np.array([1.0, 2.0, 3.0])
    common = [(spd, rhs), (spd.astype(np.float32), rhs.astype(np.float32)),
              (np.array([[2, 1], [1, 2]]), np.array([3, 3]))]
    out = {f"iterative_solver_{s}": common for s in _SYMMETRIC_SOLVERS}
    out.update({f"iterative_solver_{s}": common + [(nonsymmetric, rhs)]
                for s in _NONSYMMETRIC_SOLVERS})
    out["iterative_solver_gmres"] = out["iterative_solver_gmres"] + [
        (nonsymmetric, rhs, np.int64(3)), (nonsymmetric, rhs, np.int64(3), 1e-12),
        (nonsymmetric, rhs, 0.5)]
    return out


def _statistics_reductions() -> dict[str, list[tuple]]:
    """Samples of phylanx/primitives/statistics/reductions.py."""
    a = np.arange(6.0).reshape(2, 3)
    where = np.array([[True, False, True], [False, True, True]])
    return {
        "__masked_mean": [(np.array([1.0, 2.0, 6.0]), np.array([True, False, True])),
                          (a, where), (a, where, np.int64(1)),
                          (a.astype(np.float32), where, np.int64(0), True),
                          (a, np.ones((1, 3), bool), np.int64(0))],
    }


def _builders() -> list:
    """Every function named ``_<category>_<module>...`` of this module and of
    ``samples_matrixops``: one per declaring module, each returning ``{name: samples}``."""
    from . import samples_matrixops, samples_numpy, samples_numpy_matrixops

    builders = []
    for module in (sys.modules[__name__], samples_matrixops, samples_numpy,
                   samples_numpy_matrixops):
        builders += [f for name, f in sorted(vars(module).items())
                     if name.startswith("_") and not name.startswith("__")
                     and inspect.isfunction(f) and f.__module__ == module.__name__
                     and name not in ("_builders", "_explicit")]
    return builders


@functools.cache
def _explicit() -> dict[str, list[tuple]]:
    table: dict[str, list[tuple]] = {}
    for build in _builders():
        for name, samples in build().items():
            if name in table:
                raise ValueError(f"samples of {name!r} given twice")
            table[name] = samples
    return table


def explicit_samples() -> dict[str, list[tuple]]:
    """Every explicit sample list, by primitive name (built once, on first use)."""
    return _explicit()
