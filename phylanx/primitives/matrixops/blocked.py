"""matrixops, cache-blocked passes over the rows of a tall matrix (internal primitives).

``compiler/rewrite/blocking.py`` turns ``x.T @ f(x @ w, ...)`` into ``__rows_gram`` and
``argmin(f(x @ c, ...), 1)`` into ``__rows_argmin`` (``argmax``: ``__rows_argmax``),
where ``f`` is element-wise.  NumPy reads a large ``x`` twice and materialises every
intermediate of ``f`` at full height; here each tile of rows of ``x`` is read once while
it is in cache, and all of ``f``'s work for it happens on tile-sized arrays::

    for each tile t of rows:  out += x[t].T @ f(x[t] @ w, y[t], ...)      (gram)
                              labels[t] = argmin(f(x[t] @ c, ...), 1)     (argmin)

``f`` is a PhySL function built by the rewrite: its first parameter is the tile of ``x``,
then the right operands of the products ``x @ m`` (never tiled), then every other operand
of ``f``, each tiled when it is row-aligned with the result and passed whole when it
broadcasts.  Row alignment is decided here, from the values: when it cannot be decided
safely (a product operand that is not a matrix or vector, an operand whose rank could
align ``x``'s rows with another axis, non-float ``x``, a single tile) the expression is
evaluated whole, as written, and so is a tile pass that raises (so errors are NumPy's,
for the whole arrays).  Tiles run concurrently, one contiguous group of tiles per
worker thread (``runtime/blas_threads.py`` then gives BLAS one thread each).

Results equal the untiled expression within float rounding (the gram sums the tiles'
products in another order; a tile's product may use another BLAS kernel than the whole).
Autodiff never sees these primitives: ``restore`` gives back the expression they came
from, which the recording compiler compiles instead (``flags["restore"]``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import config
from ...language import ast
from ...runtime.cancel import CancelledError
from ...runtime.executors import get_executor
from ...runtime.forkjoin import fork_join
from ...values import call
from ..registry import primitive
from .linalg import matmul
from .shape import transpose
from .sort import argmax, argmin

#: smallest tile (rows) chosen from ``tile_bytes``: below it per-tile costs dominate
MIN_TILE_ROWS = 256


def tile_rows(width: int, itemsize: int) -> int:
    """Rows per tile for rows ``width`` elements wide (config ``tile_rows``/``tile_bytes``)."""
    fixed = int(config.get("tile_rows"))
    if fixed > 0:
        return fixed
    return max(MIN_TILE_ROWS, int(config.get("tile_bytes")) // max(1, width * itemsize))


def _scalar(value: Any) -> bool:
    return isinstance(value, (bool, int, float, np.generic)) or (
        isinstance(value, np.ndarray) and value.ndim == 0)


def plan(x: Any, products: int, operands: tuple) -> tuple[int, list[bool]] | None:
    """``(rows per tile, which operands to tile)``, or None: evaluate the whole expression.

    ``operands[:products]`` are the right operands of ``x @ m``: each must be a vector or
    a matrix (of one rank for all), so every product has ``x``'s rows on its axis 0 and
    rank ``r``.  Another operand is tiled if it has rank ``r`` and ``n`` rows, passed whole
    if it is a number, has a lower rank or one row (it broadcasts), and anything else
    (a higher rank, another row count, a non-array) is left to the whole evaluation."""
    if not (isinstance(x, np.ndarray) and x.ndim == 2 and x.dtype.kind == "f"):
        return None
    n, d = x.shape
    mats = operands[:products]
    if not mats or any(not isinstance(m, np.ndarray) or m.ndim not in (1, 2)
                       or m.shape[0] != d for m in mats):
        return None
    ranks = {m.ndim for m in mats}
    if len(ranks) != 1:
        return None
    rank = ranks.pop()
    width = max([d] + [m.shape[1] for m in mats if m.ndim == 2])
    rows = tile_rows(width, x.itemsize)
    if n <= rows:
        return None
    tiled = [False] * products
    for value in operands[products:]:
        if _scalar(value):
            tiled.append(False)
        elif not isinstance(value, np.ndarray) or value.ndim > rank:
            return None
        elif value.ndim < rank or value.shape[0] == 1:
            tiled.append(False)
        elif value.shape[0] == n:
            tiled.append(True)
        else:
            return None
    return rows, tiled


def _groups(n: int, rows: int) -> list[list[tuple[int, int]]]:
    """The tiles ``(start, stop)``, in one contiguous group per worker thread."""
    tiles = [(start, min(start + rows, n)) for start in range(0, n, rows)]
    workers = 1 if config.get("sync_execution") else get_executor().num_threads
    workers = max(1, min(workers, len(tiles)))
    size = -(-len(tiles) // workers)
    return [tiles[i:i + size] for i in range(0, len(tiles), size)]


def _tile_args(x, operands, tiled, start, stop) -> list:
    return [x[start:stop]] + [v[start:stop] if t else v for v, t in zip(operands, tiled)]


def _run_groups(groups, work) -> list:
    if len(groups) == 1:
        return [work(groups[0])]
    return fork_join([lambda g=g: work(g) for g in groups])


class _NotRowWise(Exception):
    """A tile's value is not row-aligned after all: evaluate the whole expression."""


def gram_tiles(f, x: np.ndarray, operands: tuple, rows: int, tiled: list[bool]):
    """``x.T @ f(x, *operands)`` summed tile by tile (see the module docstring)."""
    def work(group):
        total = None
        for start, stop in group:
            value = call(f, *_tile_args(x, operands, tiled, start, stop))
            if not isinstance(value, np.ndarray) or value.ndim == 0 \
                    or value.shape[0] != stop - start:
                raise _NotRowWise
            part = matmul(x[start:stop].T, value)
            total = part if total is None else total + part
        return total
    parts = _run_groups(_groups(x.shape[0], rows), work)
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def arg_tiles(find, f, axis, x: np.ndarray, operands: tuple, rows: int, tiled: list[bool]):
    """``find(f(x, *operands), axis)`` (argmin/argmax along the last of 2 axes) per tile."""
    n = x.shape[0]
    out = np.empty(n, dtype=np.intp)

    def work(group):
        for start, stop in group:
            value = call(f, *_tile_args(x, operands, tiled, start, stop))
            if not isinstance(value, np.ndarray) or value.ndim != 2 \
                    or value.shape[0] != stop - start:
                raise _NotRowWise
            out[start:stop] = find(value, axis)
    _run_groups(_groups(n, rows), work)
    return out


def _whole(f, x, operands):
    return call(f, x, *operands)


def _products(value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError("the count of product operands must be an integer (rewrite bug)")
    return int(value)


# -- autodiff: the expression a call came from ------------------------------------------

def _substitute(expr, names: dict[str, Any]):
    """``expr`` with the identifiers in ``names`` replaced (the bodies hold no lambdas)."""
    t = type(expr)
    if t is ast.Identifier:
        return names.get(expr.name, expr)
    if t is ast.Call:
        return ast.Call(expr.func, tuple(_substitute(a, names) for a in expr.args),
                        expr.attribute, expr.loc)
    if t is ast.BinOp:
        return ast.BinOp(expr.op, _substitute(expr.left, names),
                         _substitute(expr.right, names), expr.loc)
    if t is ast.UnaryOp:
        return ast.UnaryOp(expr.op, _substitute(expr.operand, names), expr.loc)
    if t is ast.KeywordArg:
        return ast.KeywordArg(expr.name, _substitute(expr.value, names), expr.loc)
    if t is ast.QuotedList:
        return ast.QuotedList(tuple(_substitute(a, names) for a in expr.items), expr.loc)
    return expr


def _body(function: ast.Call, x, operands) -> Any:
    *params, body = function.args
    values = (x, *operands)
    return _substitute(body, {p.name: v for p, v in zip(params, values)})


def restore_gram(args: tuple, loc) -> Any:
    """The AST of ``matmul(transpose(x), f(x, operands...))`` for ``__rows_gram``'s args."""
    function, x, _count, *operands = args
    return ast.Call("matmul", (ast.Call("transpose", (x,), None, loc),
                               _body(function, x, operands)), None, loc)


def _restore_arg(name: str):
    def restore(args: tuple, loc) -> Any:
        function, axis, x, _count, *operands = args
        return ast.Call(name, (_body(function, x, operands), axis), None, loc)
    restore.__doc__ = f"The AST of ``{name}(f(x, operands...), axis)`` for ``__rows_{name}``."
    return restore


# -- the primitives ----------------------------------------------------------------------

_REASON = ("internal: introduced by compiler/rewrite/blocking.py; the oracle is the "
           "expression it replaces (tests/compiler/test_rewrite_blocking.py)")


@primitive("__rows_gram", "__rows_gram(_1_f, _2_x, _3_products, __4)", extension=True,
           higher_order=True, no_oracle=_REASON, flags={"restore": restore_gram},
           example="__rows_gram(lambda(t, m, matmul(t, m) - 1.0), [[1.0, 2.0], [3.0, 4.0]], "
                   "1, [1.0, 1.0])",
           result="[20.0, 28.0]")
def rows_gram(f, x, products, *operands):
    """``x.T @ f(x, *operands)`` computed tile by tile over the rows of ``x`` (cache blocking).

    ``f`` is element-wise in the products ``x @ m`` of its tile argument with the first
    ``products`` operands; the other operands are tiled when row-aligned.  Equal to the
    untiled expression within float rounding (see the module docstring).
    """
    count = _products(products)
    layout = plan(x, count, operands)
    if layout is not None:
        try:
            return gram_tiles(f, x, operands, *layout)
        except CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the whole evaluation gives the error, located
            pass
    return matmul(transpose(x), _whole(f, x, operands))


def _declare_arg(name: str, find, example: str, result: str):
    def impl(f, axis, x, products, *operands):
        count = _products(products)
        layout = plan(x, count, operands)
        if layout is not None and not isinstance(axis, bool) \
                and isinstance(axis, (int, np.integer)) and int(axis) in (1, -1):
            try:
                return arg_tiles(find, f, axis, x, operands, *layout)
            except CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the whole evaluation gives the error
                pass
        return find(_whole(f, x, operands), axis)
    impl.__name__ = f"rows_{name}"
    impl.__doc__ = (
        f"``{name}(f(x, *operands), axis)`` computed tile by tile over the rows of ``x``.\n\n"
        f"Tiled when the value of ``f`` has 2 axes with ``x``'s rows first and ``axis`` is 1 "
        f"or -1 (the {name} of each row needs only that row); otherwise evaluated whole.")
    primitive(f"__rows_{name}", f"__rows_{name}(_1_f, _2_axis, _3_x, _4_products, __5)",
              extension=True, higher_order=True, no_oracle=_REASON,
              flags={"restore": _restore_arg(name)}, example=example, result=result)(impl)
    return impl


rows_argmin = _declare_arg(
    "argmin", argmin,
    "__rows_argmin(lambda(t, m, matmul(t, m)), 1, [[1.0, 2.0], [3.0, -4.0]], 1, "
    "[[1.0, 0.0], [0.0, -1.0]])", "[1, 0]")
rows_argmax = _declare_arg(
    "argmax", argmax,
    "__rows_argmax(lambda(t, m, matmul(t, m)), 1, [[1.0, 2.0], [3.0, -4.0]], 1, "
    "[[1.0, 0.0], [0.0, -1.0]])", "[0, 1]")
