"""The messages the unchanged examples send, counted, against the cost model (issue 28
items 5 and 7).

Runs under ``mpiexec -n 2``.  A timeline recording (``instrumentation/timeline.py``,
the runtime's own count of every collective and its bytes) around:

* ``x @ w`` with ``x`` row-tiled and ``w`` plain, and ``w @ c`` with ``c``
  column-tiled: no message at all (each rank multiplies its tile; no lockstep end
  message either);
* ``examples/lra.py``'s ``lra`` on row-tiled ``x`` and ``y``: per iteration exactly one
  collective, the all_gather of the gradient's partial sums, of the bytes
  ``cost_model.bytes_moved("product_tiled_axis", ...)`` says;
* ``examples/kmeans.py``'s ``kmeans`` on row-tiled points: per iteration and cluster
  the counts of ``points[labels == j]`` (``"mask_rows_aligned"``: ``distances`` is
  allocated with the points' rows, so the labels are tiled like them) and the mean's
  partial sums (``"reduce_tiled_axis"``); no gathered column.

Results are checked against NumPy.  Prints 'OK <rank>' at the end.
"""
import collections
import sys
import warnings
from pathlib import Path

import numpy as np

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.distributed import cost_model
from phylanx.instrumentation.timeline import SPAN, Recorder

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
from kmeans import kmeans  # noqa: E402
from lra import lra  # noqa: E402

warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
r, p = dist.find_here(), dist.num_localities()
assert p == 2, "run with mpiexec -n 2"


def collectives(fn):
    """``fn()``'s result and its collectives on this rank: Counter of (kind, bytes)."""
    recorder = Recorder(rank=r, size=p).start()
    try:
        result = fn()
    finally:
        recorder.stop()
    return result, collections.Counter(
        (e[6]["kind"], e[6]["bytes"]) for e in recorder.events
        if e[0] == SPAN and e[2] == "collective")


@Phylanx
def product(a, b):
    return a @ b


rng = np.random.default_rng(5)
whole, w = rng.normal(size=(30, 7)), rng.normal(size=(7, 3))
x = dist.tiled(whole, "row", name="counts_x")
product(x, w)                                            # compiled outside the count
got, sent = collectives(lambda: product(x, w))
assert not sent, f"x @ w of row tiles sent {dict(sent)}"
np.testing.assert_allclose(got.gather(), whole @ w, rtol=1e-12)
c, lhs = dist.tiled(whole, "column", name="counts_c"), rng.normal(size=(4, 30))
product(lhs, c)
got, sent = collectives(lambda: product(lhs, c))
assert not sent, f"a @ c of column tiles sent {dict(sent)}"
np.testing.assert_allclose(got.gather(), lhs @ whole, rtol=1e-12)

# LRA: one all_gather of d doubles per iteration, nothing else
n, d, iterations = 61, 6, 7
features = rng.normal(size=(n, d))
labels = (features @ rng.normal(size=d) > 0).astype(float)
tx = dist.tiled(features, "row", name="counts_features")
ty = dist.tiled(labels, "row", name="counts_labels")
lra(tx, ty, 1e-2, 1, False)
weights, sent = collectives(lambda: lra(tx, ty, 1e-2, iterations, False))
expected = cost_model.bytes_moved("product_tiled_axis", (n, d), p)
assert sent == {("all_gather", expected): iterations}, (dict(sent), expected)
np.testing.assert_allclose(weights, lra.python(features, labels, 1e-2, iterations, False),
                           rtol=1e-9)

# k-means: distances allocated with the points' rows (compiler/rewrite/fresh_rows.py),
# so per iteration and cluster only the selection's counts and the mean's partial sums
k, rounds = 3, 2
points = np.concatenate([rng.normal(size=(20, 4)) + 6 * j for j in range(k)])
initial = points[::20].copy()
tp = dist.tiled(points, "row", name="counts_points")
kmeans(tp, initial, 1)
(centroids, _), sent = collectives(lambda: kmeans(tp, initial, rounds))
counts = cost_model.bytes_moved("mask_rows_aligned", (len(points),), p)
partial = cost_model.bytes_moved("reduce_tiled_axis", points.shape, p)
assert sent == {("all_gather", counts): k * rounds, ("all_gather", partial): k * rounds}, \
    (dict(sent), counts, partial)
np.testing.assert_allclose(centroids, kmeans.python(points, initial, rounds)[0], rtol=1e-9)
dist.barrier().result()
print(f"OK {r}")
