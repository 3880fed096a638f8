"""The single-process examples, unchanged, on tiled inputs (issue 28 item 3).

``examples/lra.py``'s ``lra``, ``examples/kmeans.py``'s ``kmeans`` and
``examples/als.py``'s ``als`` are imported (not copied) and called with
``distributed.tiled`` inputs on however many ranks this runs on; each result equals
the undecorated function's on the whole arrays to rounding (relative tolerance), on
every rank.  The data have a row count that no rank count divides evenly.  Primitives
without a distribution rule take the gather fallback: their performance warnings are
expected and not errors here.  Prints 'OK <rank>' at the end.
"""
import sys
import warnings
from pathlib import Path

import numpy as np

from phylanx import distributed as dist

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
from als import als, synthetic  # noqa: E402
from kmeans import blobs, kmeans  # noqa: E402
from lra import lra  # noqa: E402

warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
r, n = dist.find_here(), dist.num_localities()


def whole(value):
    if isinstance(value, (list, tuple)):
        return [whole(v) for v in value]
    return value.gather() if isinstance(value, dist.DistributedArray) else value


def same(got, want, what):
    for g, w in zip(whole(list(got)) if isinstance(got, (list, tuple)) else [whole(got)],
                    list(want) if isinstance(want, tuple) else [want]):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12, err_msg=f"{what} on rank {r}")


rng = np.random.default_rng(7)
# LRA: rows tiled, labels plain and tiled
features = rng.normal(size=(61, 6))
labels = (features @ rng.normal(size=6) > 0).astype(float)
want = lra.python(features, labels, 1e-2, 15, False)
x = dist.tiled(features, "row", name="features")
same(lra(x, labels, 1e-2, 15, False), want, "lra, plain labels")
same(lra(x, dist.tiled(labels, "row", name="labels"), 1e-2, 15, False), want,
     "lra, tiled labels")

# k-means: points tiled by rows, initial centroids plain
points, _ = blobs(k=3, per=23)
initial = points[:: len(points) // 3][:3].copy()
same(kmeans(dist.tiled(points, "row", name="points"), initial, 4),
     kmeans.python(points, initial, 4), "kmeans")

# ALS: ratings and user factors tiled by rows, item factors plain
ratings = synthetic(users=21, items=13, factors=3)
x0 = rng.uniform(size=(21, 3))
y0 = rng.uniform(size=(13, 3))
same(als(dist.tiled(ratings, "row", name="ratings"), dist.tiled(x0, "row", name="x0"), y0,
         0.1, 4), als.python(ratings, x0, y0, 0.1, 4), "als")
dist.barrier().result()
print(f"OK {r}")
