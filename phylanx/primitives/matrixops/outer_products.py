"""matrixops: a product with the rows' outer products, symmetric columns computed once
(internal primitive ``__matmul_outer_rows``).

``compiler/rewrite/outer.py`` turns ``a @ reshape(v[:, :, None] * v[:, None, :], (n,
k * k))`` (ALS' normal equations: every row of ``v`` contributes ``v_r v_r^T``) into
``__matmul_outer_rows(g, a, v, shape)``.  Column ``(i, j)`` of the outer products equals
column ``(j, i)`` bit for bit (the same two factors multiplied), so the product's
columns come in equal pairs: only the ``k (k + 1) / 2`` columns with ``i <= j`` are
multiplied, and the others copied from their twins.  NumPy multiplies all ``k * k``;
for ALS' 2000 x 2000 by 2000 x 1600 products that is 145.7/152.9 ms where this takes
82.3/83.0 ms (``python benchmarks/als_parts.py``,
``benchmarks/results/2026-12-04-als-parts.txt``).

``g`` is the replaced expression as a function of ``(a, v, shape)``; it is called
instead whenever the values are not the case above (not 2-d float NumPy arrays, a shape
that is not ``(n, k * k)``, a product too small to gain), so results are always the
expression's, within float rounding (BLAS may block the fewer columns differently).
Autodiff never sees the primitive: ``restore`` gives back the expression.  It is pure
(``pure_function``: ``g`` is built from pure code), so statements holding it still run
concurrently with their independent neighbours.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ...values import call
from ..registry import primitive
from .blocked import _substitute

#: products below this many flops (2 m n k^2) are left to the expression
MIN_FLOPS = 4_000_000


def restore(args: tuple, loc) -> Any:
    """The expression a ``__matmul_outer_rows`` call replaced: its function's body with
    the parameters replaced by the call's arguments."""
    function, *operands = args
    *params, body = function.args
    return _substitute(body, {p.name: v for p, v in zip(params, operands)})


@lru_cache(maxsize=64)
def _columns(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows and columns ``i <= j`` of a k x k matrix, and for every flat position
    ``i * k + j`` the index of its pair among them."""
    upper_i, upper_j = np.triu_indices(k)
    index = np.empty((k, k), np.intp)
    index[upper_i, upper_j] = np.arange(upper_i.size)
    index[upper_j, upper_i] = np.arange(upper_i.size)
    return upper_i, upper_j, index.ravel()


def _target(shape: Any) -> tuple[int, ...] | None:
    if isinstance(shape, np.ndarray) and shape.ndim == 1 and shape.dtype.kind in "iu":
        shape = shape.tolist()
    if isinstance(shape, (list, tuple)) and all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
        return tuple(int(d) for d in shape)
    return None


def fits(a: Any, v: Any, shape: Any) -> bool:
    """Whether the fast form computes ``a @ reshape(outer rows of v, shape)``."""
    if not (type(a) is np.ndarray and type(v) is np.ndarray and a.ndim == 2 and v.ndim == 2
            and a.dtype.kind == "f" and v.dtype.kind == "f"):
        return False
    n, k = v.shape
    return (k >= 2 and n == a.shape[1] and n > 0
            and _target(shape) in ((n, k * k), (n, -1), (-1, k * k))
            and 2.0 * a.shape[0] * n * k * k >= MIN_FLOPS)


@primitive("__matmul_outer_rows", "__matmul_outer_rows(_1_g, _2_a, _3_v, _4_shape)",
           extension=True, internal=True, higher_order=True,
           no_oracle="internal: introduced by compiler/rewrite/outer.py; the oracle is the "
                     "expression it replaces (tests/compiler/test_rewrite_outer.py)",
           flags={"restore": restore, "pure_function": True},
           example="__matmul_outer_rows(lambda(a, v, s, matmul(a, reshape(__subscript(v, "
                   "list(nil, nil), list(nil, nil), __newaxis()) * __subscript(v, list(nil, "
                   "nil), __newaxis(), list(nil, nil)), s))), [[1.0, 2.0]], [[1.0, 2.0], "
                   "[3.0, 4.0]], list(2, 4))",
           result="[[19.0, 26.0, 26.0, 36.0]]")
def matmul_outer_rows(g, a, v, shape):
    """``g(a, v, shape)``: ``a @`` the rows' outer products, equal columns computed once.

    ``g(a, v, shape)`` is ``a @ reshape(v[:, :, None] * v[:, None, :], shape)``; see the
    module docstring."""
    if not fits(a, v, shape):
        return call(g, a, v, shape)
    upper_i, upper_j, pair = _columns(v.shape[1])
    half = a @ (v[:, upper_i] * v[:, upper_j])
    return np.take(half, pair, axis=1)
