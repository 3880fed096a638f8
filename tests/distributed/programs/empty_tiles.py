"""Empty tiles written either way, for any number of ranks (issue 28, user49).

``annotate`` writes an empty tile with the other axes' spans ((0, 0) x (0, 5)); ``v[:, None]``,
``concatenate`` and slices write (0, 0) on every axis; a reduction with keepdims keeps its
rows' span (``phylanx/distributed/tiling.py``).  Every rule (element-wise, products,
reductions with and without keepdims, where, concatenate/stack, subscripts and an
assignment, argmin/argmax, cumsum, sort, the gather fallback) on an operand of each
producer, rank 0's tile empty or a middle rank's, mixed with an operand whose empty tile
is written the other way: NumPy's answer; each tile's array has its box's shape.  Runs
before ``fresh_tables.py`` in ``test_global_semantics_mpi``'s job (see the note there).
Prints 'OK <rank>'.
"""
import warnings

import numpy as np

from phylanx import Phylanx
from phylanx import distributed as dist

r, n = dist.find_here(), dist.num_localities()
warnings.simplefilter("error", dist.PhylanxPerformanceWarning)


def check(got, want, what):
    g = got.gather() if isinstance(got, dist.DistributedArray) else got
    assert np.shape(g) == np.shape(want), (what, r, np.shape(g), np.shape(want))
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12, err_msg=f"{what} on rank {r}")


rng = np.random.default_rng(49)
A = rng.normal(size=(2 * n + 3, 5))
V = rng.normal(size=2 * n + 3)


def with_empty_tile(a, name, empty):
    """Rows split unevenly, rank ``empty``'s tile empty (one rank: the whole)."""
    pieces = [round(a.shape[0] * k / (n - 1)) for k in range(n)] if n > 1 else [0, a.shape[0]]
    cuts = pieces[:empty + 1] + pieces[empty:] if n > 1 else pieces
    spans = [["rows", cuts[r], cuts[r + 1]]] + [["columns", 0, m] for m in a.shape[1:]]
    return dist.annotate(a[cuts[r]:cuts[r + 1]].copy(), name, ["tile", *spans])


@Phylanx
def empty_tile_producers(x, v):
    return [x, v[:, None], np.concatenate([x[:, :2], x[:, 2:]], axis=1), x[:, 1:],
            np.max(x, axis=1, keepdims=True)]


@Phylanx
def rules_on_empty_tiles(y, x):
    z = y * 1.0
    z[1] = 7.0
    k = np.sum(x, axis=1, keepdims=True)
    return [y * 2.0 + k, y @ np.ones(y.shape[1]), y.T @ y, y.T @ x, np.dot(x.T, y),
            np.ones((2, y.shape[0])) @ y, np.sum(y, axis=0), np.sum(y, axis=1),
            np.sum(y, axis=0, keepdims=True), np.max(y, axis=1, keepdims=True), np.mean(y),
            np.where(y > 0, y, k), np.concatenate([y, x], axis=1),
            np.concatenate([y, y], axis=0), np.stack([y, y]), y[1:, :], y[:, 0], y[1], z,
            np.argmax(y, axis=0), np.argmin(y, axis=1), np.argmax(y), np.cumsum(y, axis=0),
            np.cumsum(y, axis=1), np.sort(y, axis=0), np.sort(y, axis=1), y.T * 1.0,
            np.median(y, axis=0), np.flip(y, 0), y[:, 0][:, None] * y[0][None, :]]


with warnings.catch_warnings():
    warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)    # median, flip gather
    for empty in sorted({0, n // 2}):
        x = with_empty_tile(A, f"ex{empty}", empty)
        made = empty_tile_producers(x, with_empty_tile(V, f"ev{empty}", empty))
        for k, (y, plain) in enumerate(zip(made, empty_tile_producers.python(A, V))):
            assert not isinstance(y, dist.DistributedArray) or \
                y.local.shape == tuple(e - s for s, e in y.layout.boxes[r]), \
                (k, y.local.shape, y.layout.boxes[r])    # a tile's shape is its box's
            for j, (got, want) in enumerate(zip(rules_on_empty_tiles(y, x),
                                                rules_on_empty_tiles.python(plain, A))):
                check(got, want, f"rule {j} on producer {k}, rank {empty}'s tile empty")
print('OK', r)
