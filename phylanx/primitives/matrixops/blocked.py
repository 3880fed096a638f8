"""matrixops, cache-blocked passes over the rows of a tall matrix (internal primitives).

``compiler/rewrite/gram_rows.py`` turns ``x.T @ f(x @ w, ...)`` into ``__rows_gram`` and
``row_blocks.py`` ``argmin(f(x @ c, ...), 1)`` (or ``argmax``) into ``__rows_concat``,
where ``f`` is element-wise.  NumPy reads a large ``x`` twice and materialises every intermediate of
``f`` at full height; here each tile of rows of ``x`` is read once while it is in cache,
and all of ``f``'s work for it happens on tile-sized arrays::

    for each tile t of rows:  out += x[t].T @ f(x[t] @ w, y[t], ...)      (gram)
                              out[t] = argmin(f(x[t] @ c, ...), 1)        (concat)

The first argument is a PhySL function ``g`` built by the rewrite: the *whole* replaced
expression with ``x`` as its first parameter, then the right operands of the products
``x @ m`` (never tiled), then every other operand of ``f``, each tiled when it is
row-aligned with ``f``'s value and passed whole when it broadcasts.  ``g(x, ...)`` is
the original expression; ``g(x[t], ...)`` is tile ``t``'s part.  Row alignment is
decided here, from the values: when it cannot be decided safely (``x`` not a 2-d float
NumPy array, e.g. a distributed array; a product operand that is not a matrix or vector;
an operand whose rank could align ``x``'s rows with another axis; a single tile) ``g`` is
called once on the whole operands, which evaluates the original expression through the
execution tree as written.  The choice is made from the operands before anything runs; an
error of a tile's evaluation is raised, located in ``g``, never hidden by evaluating the
whole again.  Tiles run concurrently: each worker thread takes the next tile when it
is done with one (``runtime/blas_threads.py`` then gives BLAS one thread each).

Results equal the untiled expression within float rounding (the gram sums the tiles'
products in another order; a tile's product may use another BLAS kernel than the whole).
Autodiff never sees these primitives: ``restore`` gives back the expression they came
from, which the recording compiler compiles instead (``flags["restore"]``).
"""
from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ... import config
from ...language import ast
from ...runtime.executors import get_executor
from ...runtime.forkjoin import fork_join
from ...values import call
from ..registry import primitive

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


def plan(x: Any, products: int, operands: tuple,
         rank_needed: int | None = None) -> tuple[int, list[bool]] | None:
    """``(rows per tile, which operands to tile)``, or None: evaluate the whole expression.

    ``operands[:products]`` are the right operands of ``x @ m``: each must be a vector or
    a matrix (of one rank for all), so every product has ``x``'s rows on its axis 0 and
    rank ``r``.  Another operand is tiled if it has rank ``r`` and ``n`` rows, passed whole
    if it is a number, has a lower rank or one row (it broadcasts), and anything else
    (a higher rank, another row count, a non-array) is left to the whole evaluation.
    ``rank_needed``: tile only if the products have that rank."""
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
    if rank_needed is not None and rank != rank_needed:
        return None
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


def _tile_args(x, operands, tiled, start, stop) -> list:
    return [x[start:stop]] + [v[start:stop] if t else v for v, t in zip(operands, tiled)]


def _each_tile(g, x: np.ndarray, operands: tuple, rows: int, tiled: list[bool]) -> list:
    """``g`` of every row tile, in tile order.  The worker threads take the next tile
    as they finish one (a loaded or descheduled thread delays no fixed share of the
    work), and the values are kept per tile, so what follows (the sum of the gram) adds
    them in the same order however the tiles were shared out: the result is the same on
    every run."""
    n = x.shape[0]
    count = -(-n // rows)
    values: list = [None] * count
    claim = itertools.count()         # next() of a count is atomic under the GIL

    def worker() -> None:
        for i in iter(claim.__next__, None):
            if i >= count:
                return
            start = i * rows
            values[i] = call(g, *_tile_args(x, operands, tiled, start, min(start + rows, n)))
    workers = 1 if config.get("sync_execution") else get_executor().num_threads
    workers = max(1, min(workers, count))
    if workers == 1:
        worker()
    else:
        fork_join([worker] * workers, share_blas=True)
    return values


def gram_tiles(g, x: np.ndarray, operands: tuple, rows: int, tiled: list[bool]):
    """The sum over row tiles ``t`` of ``g(x[t], ...)`` (= ``x[t].T @ f(...)``), in order."""
    parts = _each_tile(g, x, operands, rows, tiled)
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def concat_tiles(g, x: np.ndarray, operands: tuple, rows: int, tiled: list[bool]):
    """``g(x[t], ...)`` (one value per row of the tile) for every row tile, concatenated."""
    return np.concatenate([np.asarray(v) for v in _each_tile(g, x, operands, rows, tiled)])


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


def restore(args: tuple, loc) -> Any:
    """The expression a ``__rows_*`` call replaced: its function's body with the
    parameters replaced by the call's arguments (``x``, then the operands)."""
    function, x, _count, *operands = args
    *params, body = function.args
    return _substitute(body, {p.name: v for p, v in zip(params, (x, *operands))})


# -- the primitives ----------------------------------------------------------------------

_REASON = ("internal: introduced by compiler/rewrite/gram_rows.py and row_blocks.py; the "
           "oracle is the expression it replaces (tests/compiler/test_rewrite_blocking.py)")


def _tiled_or_whole(tiles, g, x, products, operands, rank_needed=None):
    """By tiles when :func:`plan` says the operands allow it, else whole: decided from
    the operands before anything runs.  An error of either path is raised as it is
    (located where it happened in ``g``), never answered by running the other."""
    layout = plan(x, _products(products), operands, rank_needed)
    if layout is not None:
        return tiles(g, x, operands, *layout)
    return _whole(g, x, operands)


def _whole(g, x, operands):
    return call(g, x, *operands)


@primitive("__rows_gram", "__rows_gram(_1_g, _2_x, _3_products, __4)", extension=True,
           internal=True,
           higher_order=True, takes_tiled=True, no_oracle=_REASON, flags={"restore": restore},
           example="__rows_gram(lambda(t, m, matmul(transpose(t), matmul(t, m) - 1.0)), "
                   "[[1.0, 2.0], [3.0, 4.0]], 1, [1.0, 1.0])",
           result="[20.0, 28.0]")
def rows_gram(g, x, products, *operands):
    """``g(x, *operands)``, which is ``x.T @ f(x, ...)``, summed over tiles of rows of ``x``.

    Cache blocking: ``f`` is element-wise in the products ``x @ m`` of the tile with the
    first ``products`` operands; the other operands are tiled when row-aligned.  Equal to
    ``g(x, *operands)`` within float rounding (see the module docstring).
    """
    return _tiled_or_whole(gram_tiles, g, x, products, operands)


@primitive("__rows_concat", "__rows_concat(_1_g, _2_x, _3_products, __4)", extension=True,
           internal=True,
           higher_order=True, takes_tiled=True, no_oracle=_REASON, flags={"restore": restore},
           example="__rows_concat(lambda(t, m, argmin(matmul(t, m), 1)), "
                   "[[1.0, 2.0], [3.0, -4.0]], 1, [[1.0, 0.0], [0.0, -1.0]])",
           result="[1, 0]")
def rows_concat(g, x, products, *operands):
    """``g(x, *operands)``, one value per row of ``x`` (``argmin(f(x, ...), 1)``), by tiles.

    Cache blocking for a reduction of each row of an element-wise 2-d ``f`` of the products
    ``x @ m`` (matrices): ``g`` of a tile gives that tile's rows, the tiles' values are
    concatenated.  Tiled only when the products are matrices; otherwise ``g`` runs whole.
    """
    return _tiled_or_whole(concat_tiles, g, x, products, operands, rank_needed=2)
