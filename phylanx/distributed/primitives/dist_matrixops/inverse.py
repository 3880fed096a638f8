"""``inverse_d``: the inverse of a tiled square matrix by distributed Gauss-Jordan
elimination over column tiles (reference §4.3).

Each locality holds a block of columns of the matrix and the same columns of the
identity.  For every pivot column k the locality owning it broadcasts that column
(one collective per pivot); everyone then picks the same pivot row (partial
pivoting: the largest magnitude, which is stabler than the original's swap-only-
when-zero) and eliminates in its own columns.  A zero pivot column means the
matrix is singular: every locality sees the same broadcast column, so all raise.
A matrix not tiled by columns is first fetched into column tiles.
"""
from __future__ import annotations

import numpy as np

from .... import distributed as api
from ....errors import PhylanxValueError
from ....primitives.registry import primitive
from ... import tiles, tiling
from ...darray import as_tiled
from ...tiles import Layout
from .._support import ORDERED, lockstep


@primitive("inverse_d", "inverse_d(_1_matrix)", flags=ORDERED, takes_tiled=True,
           no_oracle="inverse of a tiled matrix (tested under mpiexec against numpy)",
           example='all_gather_d(inverse_d(annotate_d([[2.0, 0.0], [0.0, 4.0]], "i", '
                   'list("tile", list("rows", 0, 2), list("columns", 0, 2)))))',
           result="[[0.5, 0.0], [0.0, 0.25]]")
@lockstep
def inverse_d(matrix):
    """Inverse of a distributed square matrix, tiled by columns (Gauss-Jordan).

    The result is tiled by columns too (the input's own column tiling if it had
    one), with the next generation of the input's name.
    """
    m = as_tiled(matrix, "matrix")
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise PhylanxValueError(f"inverse_d needs a square matrix, got shape {m.shape}")
    n, rank = m.shape[0], api.find_here()
    # column tiles hold whole columns: every row, whatever the other tiles (an empty
    # tile's row span says nothing, and split_axes ignores empty tiles)
    if all(b[0] == (0, n) for b in m.layout.boxes):
        layout, cols = m.layout, m.local.astype(np.float64)
    else:
        count = api.num_localities()
        if n >= count:
            boxes = tiling.tile_boxes(m.shape, count, "column")
        else:       # fewer columns than localities: one each, the last ones empty
            boxes = [((0, n), (min(r, n), min(r + 1, n))) for r in range(count)]
        layout = Layout(boxes, m.shape)
        cols = tiles.fetch(m.local, m.layout, [boxes[rank]])[0].astype(np.float64)
    c0, c1 = layout.boxes[rank][1]
    inv = np.eye(n)[:, c0:c1].copy()
    owners = [next(r for r, b in enumerate(layout.boxes) if b[1][0] <= k < b[1][1])
              for k in range(n)]
    for k in range(n):
        column = cols[:, k - c0].copy() if rank == owners[k] else None
        column = tiles.broadcast(column, owners[k])
        p = k + int(np.argmax(np.abs(column[k:])))
        if column[p] == 0:
            raise PhylanxValueError(f"the matrix is singular (column {k} has no pivot)")
        if p != k:
            for block in (cols, inv, column):
                block[[k, p]] = block[[p, k]]
        cols[k] /= column[k]
        inv[k] /= column[k]
        factors = column.copy()
        factors[k] = 0.0
        cols -= np.outer(factors, cols[k])
        inv -= np.outer(factors, inv[k])
    return m.derive(inv, layout)
