"""W2's k-means program and the variants of it that tests check, written once.

The tests of the compiler's label-statistics rewrite, the row passes and the fusion
policy all decorate k-means (``benchmarks/workloads/w2_kmeans.py``) with a line or two
changed: the dtype of the accumulator, a cast back to the points' dtype, distances
without the points' norms.  Each of them checks what *its* spelling becomes, so the
variants stay distinct programs; this module writes their one body as a template
(:data:`TEMPLATE`) and makes a function of each :data:`VARIANTS` entry
(:func:`kmeans`).  A made function's source is registered with ``linecache`` under a
file name of its own, so ``inspect`` (and ``@Phylanx``) reads it as any function's,
and the undecorated function is the oracle.  ``benchmarks/phrasing.py`` renders its
rewordings of W2 from the same template (:func:`kmeans_source`).
"""
from __future__ import annotations

import linecache
from collections.abc import Callable

import numpy as np

TEMPLATE = """\
def {name}(points, centres, iterations):
    k = centres.shape[0]{norms}
    for _ in range(iterations):
        dist = {distances}
        labels = np.argmin(dist, axis=1)
        counts = np.bincount(labels, minlength=k)
        sums = np.zeros((k, points.shape[1]){accumulator})
        np.add.at(sums, labels, points)
        centres = {update}
    return centres
"""

#: the slots of W2 as the benchmark writes it
W2 = {
    "name": "kmeans",
    "norms": "\n    sq = np.sum(points * points, axis=1)",
    "distances": "sq[:, None] - 2.0 * (points @ centres.T) + np.sum(centres * centres, axis=1)",
    "accumulator": "",
    "update": "sums / np.maximum(counts, 1)[:, None]",
}

_POINTS_DTYPE = ", dtype=points.dtype"

#: variant -> the slots it changes (what each test checks of it)
VARIANTS: dict[str, dict[str, str]] = {
    # benchmarks/workloads/w2_kmeans.py: a float64 accumulator
    "w2": {},
    # the accumulator of the points' dtype: float32 points make float64 centres after
    # the first update (NumPy: float32 / int64 is float64)
    "points_dtype": {"accumulator": _POINTS_DTYPE},
    # cast back: every iteration stays in the points' dtype
    "cast_back": {"accumulator": _POINTS_DTYPE,
                  "update": "(sums / np.maximum(counts, 1)[:, None]).astype(points.dtype)"},
    # distances without the points' norms (the same argmin): no row-sum term
    "no_norms": {"norms": "", "accumulator": _POINTS_DTYPE,
                 "distances": "np.sum(centres * centres, axis=1) - 2.0 * (points @ centres.T)"},
}


def kmeans_source(**slots: str) -> str:
    """The source of W2 with ``slots`` (of :data:`W2`) spelled as given."""
    unknown = set(slots) - set(W2)
    if unknown:
        raise KeyError(f"no slot {sorted(unknown)} in the k-means template")
    return TEMPLATE.format(**{**W2, **slots})


_made: dict[str, Callable] = {}


def kmeans(variant: str = "w2") -> Callable:
    """The undecorated function of ``variant`` (one object per variant)."""
    fn = _made.get(variant)
    if fn is None:
        source = kmeans_source(**VARIANTS[variant])
        filename = f"{__file__}[kmeans {variant}]"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = {"np": np, "__name__": __name__}
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - the template
        fn = _made[variant] = namespace[W2["name"]]
    return fn


def labels(points, centres):
    """W2's assignment step alone: the nearest centre of each point."""
    sq = np.sum(points * points, axis=1)
    dist = sq[:, None] - 2.0 * (points @ centres.T) + np.sum(centres * centres, axis=1)
    return np.argmin(dist, axis=1)


def blobs(rng, n: int, d: int, k: int, points_dtype="float64", centres_dtype=None,
          spread: float = 10.0, jitter: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points around ``k`` true centres in ``[-spread, spread]^d`` (unit noise)
    and the starting centres, the true ones moved by ``jitter``."""
    truth = rng.uniform(-spread, spread, size=(k, d))
    points = truth[rng.integers(0, k, n)] + rng.normal(size=(n, d))
    centres = truth + rng.normal(scale=jitter, size=(k, d))
    return points.astype(points_dtype), centres.astype(centres_dtype or points_dtype)
