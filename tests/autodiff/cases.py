"""Inputs for the finite-difference check of every VJP rule (tests/autodiff/test_rules.py).

Per primitive, a few argument tuples in float64, chosen away from kinks and domain edges
(positive inputs for log/sqrt, |x| < 1 for arcsin, distinct values for max/min ...).
Every float array or float scalar argument (also inside a list argument) is perturbed.
"""
from __future__ import annotations

import numpy as np

_rng = np.random.default_rng(20261203)


def normal(*shape):
    return _rng.standard_normal(shape)


def away_from_zero(*shape):
    """Normal values with |x| >= 0.2 (no kink of abs/relu/sign at 0 nearby)."""
    x = _rng.standard_normal(shape)
    return np.where(x >= 0, x + 0.2, x - 0.2)


def uniform(low, high, *shape):
    return _rng.uniform(low, high, shape)


def positive(*shape):
    return uniform(0.5, 2.0, *shape)


def distinct(*shape):
    """Values at least 0.05 apart (a unique maximum in every window or reduction)."""
    n = int(np.prod(shape))
    return (_rng.permutation(n) * 0.1 - n * 0.05).reshape(shape) + 0.01


def f(x):
    return np.float64(x)


class Parameter(float):
    """A float argument that is a setting (a norm's ``ord``), not an operand: the checks
    do not perturb it (they perturb values whose type is exactly float)."""

    def __phylanx_value__(self):          # passed to PhySL as the plain float it is
        return float(self)


INF, NEG_INF = Parameter(np.inf), Parameter(-np.inf)


A23, B23, A34, B34 = normal(2, 3), normal(2, 3), normal(3, 4), normal(3, 4)
A234 = normal(2, 3, 4)
UNIT = uniform(-0.8, 0.8, 3, 4)

UNARY_DOMAINS = {
    "absolute": away_from_zero(3, 4), "sqrt": positive(3, 4), "invsqrt": positive(3, 4),
    "cbrt": away_from_zero(3, 4), "invcbrt": positive(3, 4), "exp": A34, "exp2": A34,
    "exp10": A34, "log": positive(3, 4), "log2": positive(3, 4), "log10": positive(3, 4),
    "sin": A34, "cos": A34, "tan": UNIT, "sinh": A34, "cosh": A34, "tanh": A34,
    "arcsin": UNIT, "arccos": UNIT, "arctan": A34, "arcsinh": A34,
    "arccosh": uniform(1.5, 3.0, 3, 4), "arctanh": UNIT, "erf": A34, "erfc": A34,
    "square": A34, "conj": A34, "real": A34, "imag": A34, "sigmoid": A34, "softplus": A34,
    "softsign": A34, "hard_sigmoid": uniform(-2.0, 2.0, 3, 4),
}

CASES: dict[str, list[tuple]] = {name: [(x,), (f(0.7) if name not in (
    "arccosh",) else f(1.7),)] for name, x in UNARY_DOMAINS.items()}

CASES.update({
    "__add": [(A34, normal(4)), (A34, f(2.5), B34), ([normal(2)], [normal(3), normal(1)])],
    "__sub": [(A34, normal(4)), (normal(3), normal(3), normal(3))],
    "__mul": [(A34, B34), (A34, normal(4), f(1.3)), ([normal(2), normal(3)], 3)],
    "__div": [(A34, positive(3, 4)), (A34, positive(4), positive(3, 4))],
    "__minus": [(A34,)],
    "__mod": [(np.array([2.3, 5.7, 1.1]), np.array([1.5, 2.0, 0.7]))],
    "power": [(positive(3, 4), f(2.5)), (positive(3, 4), 0.5 * A34)],
    "maximum": [(distinct(3, 4), distinct(3, 4) + 0.02), (distinct(3), distinct(3) + 0.02,
                                                          distinct(3) + 0.03)],
    "minimum": [(distinct(3, 4), distinct(3, 4) + 0.02)],
    "fmax": [(distinct(3, 4), distinct(3, 4) + 0.02)],
    "fmin": [(distinct(3, 4), distinct(4) + 0.02)],
    "hypot": [(away_from_zero(3, 4), away_from_zero(3, 4))],
    "arctan2": [(away_from_zero(3, 4), away_from_zero(3, 4))],
    "__pos": [(A34,)],
    "fmod": [(np.array([2.3, -5.7, 1.1]), np.array([1.5, 2.0, -0.7]))],
    "copysign": [(away_from_zero(3, 4), away_from_zero(3, 4))],
    "logaddexp": [(A34, B34)],
    "logaddexp2": [(A34, normal(4))],
    "float_power": [(positive(3, 4), f(2.5)), (positive(3, 4), 0.5 * A34)],
    "where": [(A34 > 0, B34, normal(4))],
    "__npwhere": [(A34 > 0, B34, normal(4))],
    "clip": [(np.array([-0.9, -0.3, 0.2, 0.8, 0.45, -0.7]), -0.5, 0.5),
             (np.array([-0.9, -0.3, 0.2, 0.8]), np.array([-0.5, -0.5, 0.0, 0.0]), f(0.6))],
    "relu": [(away_from_zero(3, 4),), (np.array([-2.0, -0.5, 0.45, 0.8, 1.5]), 0.1, 1.0, 0.2),
             (np.array([-2.0, -0.7, -0.3, 0.45, 1.5]), 0.1, None, -1.0),
             # the fast path of the plain relu (alpha 0, no cap), its d/d alpha and threshold
             (np.array([[-2.0, -0.5, 0.45], [0.8, 1.5, 0.1]]), 0.0, None, 0.3),
             # ... with a negative threshold: values in [threshold, 0) are clamped at 0
             (np.array([[-2.0, -0.6, -0.2], [0.8, 1.5, 0.1]]), 0.0, None, -1.0)],
    "elu": [(away_from_zero(3, 4), 1.3)],
    "softmax": [(A34,), (A34, 0), (A234, 1)],
    "bias_add": [(A234, normal(4)), (A234, A34)],
    "l2_normalize": [(A34,), (A34, 1)],
    "binary_crossentropy": [(uniform(0, 1, 3, 4), uniform(0.1, 0.9, 3, 4)),
                            (uniform(0, 1, 3, 4), A34, True)],
    "categorical_crossentropy": [(uniform(0, 1, 3, 4), positive(3, 4)),
                                 (uniform(0, 1, 3, 4), A34, True),
                                 (uniform(0, 1, 3, 4), positive(3, 4), False, 0),
                                 (np.float64(0.7), np.float64(0.4)),   # the 0-d form
                                 (np.float64(0.7), np.float64(1.3), True)],
    "softmax_crossentropy": [(uniform(0, 1, 3, 4), A34),
                             (np.array([0, 3, 1]), A34, True),
                             (np.array([[0, 2, 3], [1, 1, 0]]), A234, True)],
    "sum": [(A234,), (A234, 1), (A234, [0, 2], True), (A234, None, None, f(2.0))],
    "mean": [(A234,), (A234, -1), (A234, [0, 1], True)],
    "ldexp": [(normal(3, 4), np.array([2, -1, 0, 3])), (f(1.5), np.array([[1], [-2]]))],
    "nan_to_num": [(normal(3, 4),),
                   (np.array([1.5, np.nan, np.inf, -np.inf, -0.5]), True, f(-1.0), f(9.0),
                    f(-9.0)),
                   (np.array([np.nan, -0.5, 2.0]), True, f(0.5))],
    "interp": [(uniform(-0.5, 3.5, 7), np.array([0.0, 1.0, 2.5, 3.0]), normal(4)),
               (uniform(-0.5, 3.5, 2, 3), np.array([0.0, 1.0, 2.5, 3.0]), normal(4), f(-1.0),
                f(2.0))],
    "average": [(A234,), (A234, 1, positive(3)), (A234, [0, 2], positive(2, 3, 4)),
                (A234, -1, positive(4), True, True)],
    "__npappend": [(A34, normal(5)), (A34, normal(2, 4), 0), (A34, normal(3, 1), 1)],
    "kron": [(normal(2, 3), normal(3, 2)), (normal(3), normal(2, 2)), (normal(2, 1, 2), f(1.5))],
    "convolve": [(normal(5), normal(3)), (normal(3), normal(5), "same"),
                 (normal(5), normal(4), "same"), (normal(6), normal(4), "valid"),
                 (normal(3), normal(5), "valid")],
    "nansum": [(A234,), (np.where(A234 > 0.5, np.nan, A234), 1),
               (np.where(A234 > 0.5, np.nan, A234), [0, 2], None, True)],
    "nanmax": [(distinct(2, 3, 4),), (np.where(A234 > 0.5, np.nan, distinct(2, 3, 4)), 1),
               (np.where(A234 > 0.5, np.nan, distinct(2, 3, 4)), [0, 2], True)],
    "nanmin": [(distinct(2, 3, 4), -1), (np.where(A234 > 0.5, np.nan, distinct(2, 3, 4)), 0)],
    "nanmean": [(A234,), (np.where(A234 > 0.5, np.nan, A234), -1),
                (np.where(A234 > 0.5, np.nan, A234), [0, 1], None, True)],
    "__masked_mean": [(A234, A234 > -0.5), (A234, np.array([True, False, True, True]), -1),
                      (A234, A234[0] > -0.5, [0, 1], True)],
    "prod": [(positive(2, 3, 4), 1), (np.array([[0.0, 1.5, 2.0], [0.5, 0.0, 0.0]]), 1),
             (positive(2, 3),)],
    "amax": [(distinct(2, 3, 4),), (distinct(2, 3, 4), 2), (distinct(2, 3, 4), 1, True)],
    "amin": [(distinct(2, 3, 4), 0)],
    "var": [(A234,), (A234, 1), (A234, None, None, None, None, 1)],
    "std": [(A234,), (A234, 2, True)],
    "logsumexp": [(A234,), (A234, 1)],
    "cumsum": [(A34,), (A34, 1)],
    "cumprod": [(positive(3, 4),), (positive(3, 4), 0)],
    "trace": [(normal(3, 3),), (A234,), (A34, None, 1), (A234, None, -1)],
    "normalize": [(A34,)],
    "norm": [(A34,), (normal(3),), (A34, 2), (normal(3), None, 0, True), (A34, "fro"),
             (away_from_zero(4), 1), (distinct(4), INF), (distinct(4), NEG_INF),
             (away_from_zero(4), 3), (away_from_zero(4), 0)],
    "__npnorm": [(A34,), (normal(3),), (A34, None, 1), (away_from_zero(4), 1),
                 (distinct(4), INF), (distinct(4), NEG_INF), (away_from_zero(4), 3),
                 (away_from_zero(4), Parameter(0.5)), (away_from_zero(4), 0),
                 (distinct(2, 3), INF, 1, True), (A34, "fro"), (A34, "nuc"), (A34, 2),
                 (A34, -2), (distinct(3, 4), 1), (distinct(3, 4), -1), (distinct(3, 4), INF),
                 (distinct(3, 4), NEG_INF), (A234, 2, [2, 0]), (A234, "nuc", [0, 1], True)],
    "reshape": [(A234, [6, 4])],
    "squeeze": [(normal(1, 3, 1),)],
    "expand_dims": [(A34, 1)],
    "astype": [(A34, "float64")],
    "__copy": [(A34,), ([normal(3), normal(2)],)],
    "flatten": [(A34,), (A234, "F")],
    "ravel": [(A34,), (A234, "F")],
    "__npreshape": [(A34, [4, 3], "F"), (A234, [6, 4], "C")],
    "__pyconj": [(A34,)],
    "__view": [(A34,)],
    "__asndarray": [(A34,), (A34, A34)],
    "__real": [(A34,)],
    "__imag": [(A34,)],                            # (a real operand's: a constant 0)
    "__pyabs": [(UNARY_DOMAINS["absolute"],)],     # (no new draw: the cases after keep theirs)
    "transpose": [(A234,), (A234, [1, 0, 2])],
    "flip": [(A34, 1), (A34,)],
    "flipud": [(A34,)],
    "fliplr": [(A34,)],
    "tile": [(A23, [2, 1]), (normal(3), 2), (A23, [2, 1, 2])],
    "repeat": [(A23, 2, 1), (A23, [1, 2], 0), (A23, 2)],
    "pad": [(A23, [1, 2], "constant"), (A23, [[1, 0], [0, 2]], "constant", 0.5),
            (A23, [1, None], "constant")],
    "__nppad": [(A23, [1, 2], "constant"), (A23, [[1, 0], [0, 2]], "constant", 0.5)],
    "diag": [(normal(3),), (A34, 1), (normal(3), -1)],
    "concatenate": [([A23, normal(3, 3)],), ([A23, normal(2, 2)], 1), ([A23, normal(4)], None),
                    (A234,), (A234, 1)],     # an array: its rows are joined
    "hstack": [([A23, normal(2, 2)],), ([normal(3), normal(2)],),
               ([normal(2), [f(0.5), f(1.5)]],)],
    "vstack": [([normal(3), normal(3)],), ([A23, normal(3)],), ([f(0.5), f(1.5)],)],
    "dstack": [([A23, B23],), ([f(0.5), f(1.5)],), ([normal(3), normal(3)],)],
    "__nphstack": [([A23, normal(2, 2)],), ([normal(3), normal(2)],), (A234,)],
    "__npvstack": [([normal(3), normal(3)],), ([A23, normal(3)],), (A23,)],
    "__npdstack": [([A23, B23],), ([f(0.5), f(1.5)],), (A23,)],
    "__npstack": [([A23, B23], 1), (A23, 1)],
    "column_stack": [([normal(3), normal(3, 2)],), (A23,)],
    "stack": [([A23, B23], 1), ([A23], 1), ([A234], 2)],
    "hsplit": [(normal(2, 4), 2)],
    "vsplit": [(normal(4, 2), [1])],
    "__subscript_adjoint": [(normal(4), A34, np.int64(1)), (normal(3, 4), A34, np.array([2, 0, 2])),
                            (f(0.5), normal(3), np.int64(2))],
    "__subscript": [(A34, np.int64(1)), (A34, [0, 2], None), (A34, np.array([2, 0, 2])),
                    (A34, None, np.int64(1)), (A34, np.array([True, False, True]))],
    "slice": [(A34, np.int64(1)), (A34, [0, 2], None), (A34, np.array([2, 0, 2])),
              (A34, None, np.int64(1)), (A34, np.int64(1), np.int64(2))],
    "slice_row": [(A34, np.int64(1))],
    "slice_column": [(A34, [1, 3])],
    "slice_page": [(A234, np.int64(1))],
    "tuple_slice": [(A34, [np.int64(1), np.int64(2)])],
    "list": [(normal(3), normal(2, 2))],
    "tuple": [(normal(3), normal(2, 2))],
    "__pytuple": [(A23,), ([normal(3), normal(2)],)],
    "__array": [(A34,), ([normal(3), normal(3)],)],
    "__pycast": [(np.array([0.7]), "float64")],
    "__item": [(np.array([[0.7]]),), (normal(3, 4), 5), (normal(3, 4), 2, 1)],
    "__tolist": [(A23,)],
    "__pylist": [(A23,), ([normal(3), normal(2)],)],
    "__pysum": [([normal(3), normal(3)],), (normal(2, 3), f(0.5))],
    "dot": [(f(1.5), normal(3)), (normal(3), normal(3)), (A34, normal(4)),
            (normal(3), A34), (A34, normal(4, 5)), (A234, normal(4)), (A234, normal(4, 5)),
            (normal(3), normal(2, 3, 5)), (A234, normal(5, 4, 6))],
    "all_reduce": [(A34, "sum", "vjp_case"), (f(1.5),)],
    "matmul": [(A34, normal(4, 5)), (normal(3), A34), (A34, normal(4)),
               (A234, normal(4, 5)), (A234, normal(1, 4, 5))],
    "tensordot": [(A234, normal(3, 4, 5)), (A234, normal(4, 3), [[2, 1], [0, 1]]),
                  (A34, normal(4, 5), 1)],
    "outer": [(normal(3), normal(4)), (A23, normal(2))],
    "cross": [(normal(3), normal(3)), (A23, normal(3)), (normal(2), normal(2)),
              (normal(2), normal(3))],
    "determinant": [(normal(3, 3) + 3 * np.eye(3),)],
    "inverse": [(normal(3, 3) + 3 * np.eye(3),)],
    "matrix_power": [(normal(3, 3) * 0.6, 3), (normal(3, 3) + 3 * np.eye(3), -2),
                     (normal(2, 3, 3) * 0.6, 2), (normal(3, 3), 0), (normal(3, 3), 1)],
    "invGJE": [(normal(3, 3) + 3 * np.eye(3),)],
    "conv1d": [(normal(2, 7, 3), normal(3, 3, 2)), (normal(2, 7, 3), normal(3, 3, 2), "same", 2),
               (normal(1, 6, 2), normal(2, 2, 2), "causal", 1, 2),
               # 8 channels, stride 1: the shifted-GEMM path (conv_gemm.py)
               (normal(2, 6, 8), normal(3, 8, 2)), (normal(2, 5, 8), normal(2, 8, 3), "same"),
               (normal(1, 7, 8), normal(2, 8, 2), "causal", 1, 2)],
    "conv2d": [(normal(1, 5, 6, 2), normal(2, 3, 2, 3)),
               (normal(1, 5, 6, 2), normal(2, 2, 2, 1), "same", [2, 1]),
               (normal(2, 4, 5, 8), normal(2, 3, 8, 2)),
               (normal(1, 4, 5, 8), normal(2, 2, 8, 2), "same", [1, 1], [1, 2])],
    "max_pool2d": [(distinct(2, 5, 6, 3), [2, 2]), (distinct(2, 5, 6, 3), [3, 2], "same", [2, 2]),
                   (distinct(4, 6), [2, 3])],
    "avg_pool2d": [(normal(2, 5, 6, 3), [2, 2]), (normal(2, 5, 6, 3), [3, 2], "same", [2, 2]),
                   (normal(5, 6, 2), [2, 3], "valid", [1, 2])],
    "max_pool3d": [(distinct(1, 4, 4, 4, 2), [2, 2, 2])],
    # the adjoints (nested grad): (ct or g, the other operand, the shape's array, ...)
    "__conv_input_adjoint": [(normal(2, 5, 2), normal(3, 3, 2), normal(2, 7, 3)),
                             (normal(1, 3, 6, 1), normal(2, 2, 2, 1), normal(1, 5, 6, 2),
                              "same", [2, 1]),
                             (normal(2, 4, 2), normal(3, 8, 2), normal(2, 6, 8))],
    "__conv_kernel_adjoint": [(normal(2, 7, 3), normal(2, 5, 2), normal(3, 3, 2)),
                              (normal(1, 5, 6, 2), normal(1, 3, 6, 1), normal(2, 2, 2, 1),
                               "same", [2, 1]),
                              (normal(1, 6, 2), normal(1, 6, 2), normal(2, 2, 2), "causal",
                               1, 2),
                              (normal(2, 6, 8), normal(2, 4, 2), normal(3, 8, 2))],
    "__pool_adjoint": [(normal(2, 4, 5, 3), distinct(2, 5, 6, 3), "max_pool2d", [2, 2]),
                       (normal(2, 3, 3, 3), normal(2, 5, 6, 3), "avg_pool2d", [3, 2], "same",
                        [2, 2]),
                       (normal(3, 4), distinct(4, 6), "max_pool2d", [2, 3])],
    "__pool_gather": [(normal(2, 5, 6, 3), distinct(2, 5, 6, 3), "max_pool2d", [2, 2]),
                      (normal(2, 5, 6, 3), normal(2, 5, 6, 3), "avg_pool2d", [3, 2], "same",
                       [2, 2]),
                      (normal(1, 4, 4, 4, 2), distinct(1, 4, 4, 4, 2), "max_pool3d",
                       [2, 2, 2], "valid", [2, 2, 2])],
    # shaped like a: a's values get no gradient, the fill value the sum of the cotangent
    "constant_like": [(f(2.5), normal(3, 4)), (normal(4), normal(2, 4))],
    "__npconstant_like": [(f(0.5), normal(2, 3)), (normal(3), normal(3), "float64")],
    "full_like": [(normal(3, 2), f(1.5)), (normal(2, 3), normal(1, 3))],
    "avg_pool3d": [(normal(1, 4, 4, 4, 2), [2, 2, 2], "same", [2, 2, 1])],
    "expm1": [(A34,), (f(0.3),)],
    "log1p": [(positive(3, 4),), (f(0.3),)],
    "vdot": [(A34, B34), (A23, normal(6)), (normal(3), f(1.5) * np.ones(3))],
    "einsum": [("ij,jk->ik", A34, normal(4, 5)), ("ij,jk", A34, normal(4, 5)),
               ("ii->i", normal(3, 3)), ("ii", normal(3, 3)), ("ij->", A34),
               ("ij->i", A34), ("...ij,...jk->...ik", A234, normal(4, 2)),
               ("bij,bjk->bik", A234, normal(2, 4, 3)), ("i,i", normal(3), normal(3)),
               ("...i,...i->...", A234, normal(1, 3, 4)), ("ij,ij->ij", A34, normal(1, 4)),
               ("i,j->ij", normal(3), normal(4)), ("iij->ij", normal(3, 3, 2))],
    "broadcast_to": [(normal(4), [3, 4]), (normal(3, 1), [2, 3, 5]), (f(0.5), [2, 2])],
    "tril": [(A34,), (A34, 1), (A234, -1), (normal(4), 0)],
    "triu": [(A34,), (A34, -1), (A234, 1), (normal(4), 1)],
    "roll": [(A34, 2), (A34, -1, 1), (A234, [1, 2], [0, 2]), (A234, 3, None)],
    "split": [(normal(6), 3), (A34, [1, 3], 1), (A234, 2, 0)],
    "array_split": [(normal(5), 3), (A34, 2, 1)],
    "sort": [(distinct(3, 4),), (distinct(3, 4), 0), (distinct(2, 3, 4), None)],
    "slogdet": [(normal(3, 3) + 3 * np.eye(3),), (normal(2, 3, 3) + 3 * np.eye(3),)],
    "solve": [(normal(3, 3) + 3 * np.eye(3), normal(3)), (normal(3, 3) + 3 * np.eye(3),
                                                          normal(3, 2)),
              (normal(2, 3, 3) + 3 * np.eye(3), normal(3)),
              (normal(2, 3, 3) + 3 * np.eye(3), normal(2, 3, 2))],
})


def _spd(n, *lead):
    """Symmetric positive definite (stacks of) matrices, eigenvalues well apart."""
    b = normal(*lead, n, n)
    return b @ np.swapaxes(b, -1, -2) + np.diag(np.arange(1.0, n + 1.0)) * 2.0


def _half_read(m, upper=False):
    """``m`` with noise in the triangle the decomposition does not read (its gradient
    there must be zero)."""
    noise = normal(*m.shape)
    return m + (np.tril(noise, -1) if upper else np.triu(noise, 1))


def _real_spectrum(n, *lead):
    """A general (non-symmetric) matrix with real eigenvalues at least 0.7 apart:
    ``B diag(w) B^-1`` for a well-conditioned ``B``."""
    b = normal(*lead, n, n) * 0.3 + np.eye(n)
    w = np.arange(n) * 0.9 - 1.0 + uniform(-0.1, 0.1, *lead, n)
    return (b * w[..., None, :]) @ np.linalg.inv(b)


CASES.update({
    "eig": [(_real_spectrum(3, 2),)],              # (a stack: JAX's compile is the cost)
    "eigvals": [(_real_spectrum(4),)],
    "cholesky": [(_half_read(_spd(3)),), (_half_read(_spd(3), True), True),
                 (_half_read(_spd(3, 2)),)],
    "eigh": [(_half_read(_spd(3)),), (_half_read(_spd(3), True), "U"),
             (_half_read(_spd(3, 2)),)],
    "eigvalsh": [(_half_read(_spd(3)),), (_half_read(_spd(3), True), "U")],
    "svd": [(normal(4, 3), False), (normal(3, 4), False), (normal(3, 3),),
            (normal(2, 4, 3), False), (normal(4, 3), True, False)],
    "qr": [(normal(4, 3),), (normal(3, 3), "complete"), (normal(4, 3), "r"),
           (normal(2, 4, 3),)],
    "pinv": [(normal(3, 4),), (normal(4, 3),), (_half_read(_spd(3)), None, True)],
    "lstsq": [(normal(5, 3), normal(5)), (normal(5, 3), normal(5, 2)),
              (normal(3, 5), normal(3))],
})

# ad50's rules (fixed values, no draws: the cases above keep theirs)
_GRID = np.linspace(-1.3, 1.7, 12).reshape(3, 4)
_ZEROS = np.array([[2.0, 0.0, 3.0, 0.5], [0.0, 1.5, 0.0, 2.0], [1.0, -2.0, 3.0, 4.0]])
CASES["cumprod"] += [(_ZEROS, 1), (_ZEROS, 0), (_ZEROS,)]       # zeros (until ad50 an error)
CASES["determinant"] += [(np.array([[1.0, 2.0], [2.0, 4.0]]),),           # singular: rank 1
                         (np.array([[1.0, 2, 3], [4, 5, 6], [7, 8, 9]]),),
                         (np.stack([np.diag([1.0, 2.0, 0.0]), np.eye(3) * 2.0]),)]
CASES.update({
    "reciprocal": [(_GRID + 2.0,)], "fabs": [(_GRID + 0.05,)], "positive": [(_GRID,)],
    "deg2rad": [(_GRID,)], "rad2deg": [(_GRID,)],
    "take": [(_GRID, np.array([0, 0, 11, -1])), (_GRID, np.array([[3, 3], [0, -4]]), 1),
             (_GRID, np.array([5, -1, 0]), 0, "wrap"), (_GRID, np.array([7, -3, 1]), 1, "clip")],
    "take_along_axis": [(_GRID, np.array([[0, 0, 3], [1, 1, 1], [2, 0, 2]]), 1),
                        (_GRID, np.array([[2, 0, 0, 1]]), 0),
                        (_GRID[:1], np.array([[2], [0], [2]]), 1),
                        (_GRID, np.array([5, 5, 11]), None)],
    "rot90": [(_GRID,), (_GRID.reshape(2, 3, 2), 3, [2, 0])],
    "inner": [(_GRID, _GRID[:2] * 0.5), (_GRID[0], _GRID[1]), (f(1.5), _GRID)],
    "diff": [(_GRID,), (_GRID, 2, 0), (_GRID, 0), (_GRID, 2, 1, f(0.5), np.ones((3, 2)))],
    "__pyconvert": [(f(0.7), "float")],
    "__pymath": [("sqrt", [], f(1.7)), ("atan", [], f(0.4)), ("log", [], f(2.5)),
                 ("fabs", [], f(-0.3))],
})

#: rules whose operands the recorder builds (in-place changes): checked end to end in
#: test_control_flow.py instead
RECORDER_ONLY = {"__inplace", "__fill", "store", "add_at"}
