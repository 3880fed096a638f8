"""Tiles for the distributed examples: which block of rows (or columns) is this
locality's, and synthetic data generated block by block from a seed.

Each locality generates only its own rows: rows come in fixed chunks, chunk ``c``
drawn from ``numpy.random.default_rng([seed, c])``, so row ``i`` is the same number
whatever the number of localities and no data is shipped between them.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

CHUNK = 1024   # rows per seeded chunk (part of the data's definition: keep it fixed)


def block(n: int, parts: int, index: int) -> tuple[int, int]:
    """``[start, stop)`` of block ``index`` of ``n`` items split into ``parts`` nearly
    equal contiguous blocks; the first ``n % parts`` get one extra (the original's
    tiling rule, reference section 4.2)."""
    size, extra = divmod(n, parts)
    start = index * size + min(index, extra)
    return start, start + size + (index < extra)


def seeded_rows(make: Callable[[np.random.Generator, int, int], tuple[np.ndarray, ...]],
                seed: int, start: int, stop: int) -> tuple[np.ndarray, ...]:
    """Rows ``[start, stop)`` of the arrays ``make(rng, first_row, rows)`` draws for each
    chunk (``make`` returns arrays with ``rows`` rows, all drawn from ``rng``)."""
    first, last = start // CHUNK, max(start, stop - 1) // CHUNK
    parts = []
    for c in range(first, last + 1):
        arrays = make(np.random.default_rng([seed, c]), c * CHUNK, CHUNK)
        lo, hi = max(start - c * CHUNK, 0), max(min(stop - c * CHUNK, CHUNK), 0)
        parts.append([a[lo:hi] for a in arrays])
    return tuple(np.concatenate(column) for column in zip(*parts))


def classification(seed: int, features: int, start: int, stop: int):
    """Rows ``[start, stop)`` of a synthetic two-class problem: ``(x, y)``, labels 0/1
    from a fixed random hyperplane plus noise (about 90% separable)."""
    truth = np.random.default_rng([seed, 2**31]).normal(size=features)

    def make(rng, _first, rows):
        x = rng.normal(size=(rows, features))
        noise = rng.normal(scale=0.3 * np.sqrt(features), size=rows)
        return x, (x @ truth + noise > 0).astype(float)
    return seeded_rows(make, seed, start, stop)


def blobs(seed: int, k: int, dims: int, start: int, stop: int) -> np.ndarray:
    """Rows ``[start, stop)`` of ``k`` Gaussian blobs (point ``i`` is in blob ``i % k``)
    around centres drawn uniformly from [-10, 10]."""
    centres = np.random.default_rng([seed, 2**31]).uniform(-10, 10, size=(k, dims))

    def make(rng, first, rows):
        return (centres[np.arange(first, first + rows) % k] + rng.normal(size=(rows, dims)),)
    return seeded_rows(make, seed, start, stop)[0]


def low_rank(seed: int, items: int, factors: int, start: int, stop: int):
    """Rows ``[start, stop)`` (users) of a rank-``factors`` ratings matrix with
    ``items`` columns, and the users' starting factors: ``(ratings, x0)``."""
    item_factors = np.random.default_rng([seed, 2**31]).uniform(size=(factors, items))

    def make(rng, _first, rows):
        users = rng.uniform(size=(rows, factors))
        return users @ item_factors, rng.uniform(size=(rows, factors))
    return seeded_rows(make, seed, start, stop)
