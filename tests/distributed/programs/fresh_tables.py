"""Fresh tables filled from row-tiled values stay on each rank's rows (issue 28 item 5,
``compiler/rewrite/fresh_rows.py``), and a row mask tiled like the rows selects locally.

Programs of their own (not k-means): a per-class Gaussian log-likelihood table filled
column by column into ``np.empty`` and reduced by ``argmax``/``max``; distances to
anchors in ``np.full`` reduced along both axes; a table filled by row blocks; a table
the function returns (no rule: it escapes, so it stays NumPy's plain array); the
rows of each class selected by a tiled mask (``x[labels == c]``).  Each result equals the
undecorated function's on the whole arrays; the collectives of the reductions along the
rows are counted by the runtime's timeline: none (a plain table would gather each column).
The points are tiled by rows evenly, unevenly with rank 0's tile empty, and by columns
(then the table is plain: the gather path, as before).  Then an earlier program's history
does not change these programs' messages (issue 28, dist50): after ``x[:, 1:]`` and
``v[:, None]`` of an array whose one non-empty tile is rank 1's (gathered copies standing
for NumPy's views, kept alive), the stores into the tables send what they sent before
(they sent an all_gather each: the copies were refreshed at every store into any tiled
array).  Prints 'OK <rank>' at the end.
"""
import warnings

import numpy as np
from counted import collectives

from phylanx import Phylanx
from phylanx import distributed as dist

warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
r, p = dist.find_here(), dist.num_localities()




@Phylanx
def log_likelihood_labels(x, means, variances, log_priors):
    table = np.empty((x.shape[0], means.shape[0]))
    for c in range(means.shape[0]):
        z = (x - means[c]) ** 2 / variances[c]
        table[:, c] = log_priors[c] - 0.5 * np.sum(z + np.log(variances[c]), axis=1)
    return np.argmax(table, axis=1), np.max(table, axis=1)


@Phylanx
def anchor_distances(x, anchors):
    d = np.full((x.shape[0], anchors.shape[0]), np.inf)
    for j in range(anchors.shape[0]):
        d[:, j] = np.sqrt(np.sum((x - anchors[j]) ** 2, axis=1))
    return np.min(d, axis=1), np.sum(d, axis=0)


@Phylanx
def row_blocks(x, h):
    t = np.zeros((x.shape[0], 2))
    t[:h, :] = x[:h, :2] * 2.0
    t[h:, :] = x[h:, :2] - 1.0
    return np.sum(t * t, axis=1)


@Phylanx
def escaping_table(x):
    t = np.zeros((x.shape[0], 2))
    t[:, 0] = np.sum(x, axis=1)
    t[:, 1] = np.max(x, axis=1)
    return t


@Phylanx
def class_means(x, labels, k):
    means = np.zeros((k, x.shape[1]))
    for c in range(k):
        members = x[labels == c]
        if members.shape[0] > 0:
            means[c] = np.mean(members, axis=0)
    return means


@Phylanx
def order_zero_difference(x, k):
    t = np.zeros((x.shape[0], 2))
    u = np.diff(t, n=k)             # k == 0: NumPy returns t itself, u sees the store
    t[:, 0] = np.sum(x, axis=1)
    return np.sum(u, axis=0)


@Phylanx
def filled_per_row(x, w):
    t = np.full((x.shape[0], 2), w[:, None] * 1.0)     # a fill value with the rows axis
    v = np.full(x.shape[0], w * 2.0)
    t[:, 1] = np.sum(x, axis=1)
    return np.sum(t, axis=1) + v


def whole(value):
    if isinstance(value, (list, tuple)):
        return [whole(v) for v in value]
    return value.gather() if isinstance(value, dist.DistributedArray) else np.asarray(value)


def same(got, want, what):
    for g, w in zip(whole(got) if isinstance(got, tuple) else [whole(got)],
                    want if isinstance(want, tuple) else [want]):
        assert np.shape(g) == np.shape(w), (what, np.shape(g), np.shape(w))
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=what)


def uneven(a, name):
    """Rows split unevenly, rank 0's tile empty (one rank: the whole)."""
    rows = a.shape[0]
    cuts = [0, 0] + [round(rows * k / (p - 1)) for k in range(1, p)] if p > 1 else [0, rows]
    r0, r1 = cuts[r], cuts[r + 1]
    spans = [["rows", r0, r1]] + [["columns", 0, m] for m in a.shape[1:]]
    if a.ndim == 1:
        spans = [["columns", r0, r1]]
    return dist.annotate(a[r0:r1].copy(), name, ["tile", *spans])


def tilings(a, name):
    """``a`` tiled by rows (evenly, unevenly with an empty tile) and by columns (the
    table is then plain: the gather path)."""
    out = {"row": dist.tiled(a, "row", name=name + "_r"),
           "uneven": uneven(a, name + "_u")}
    if a.ndim == 2:
        out["column"] = dist.tiled(a, "column", name=name + "_c")
    return out


@Phylanx
def views_of_one_tile(x, v):
    return x[:, 1:], v[:, None]


rng = np.random.default_rng(11)
rows = 2 * p + 3
x = rng.normal(size=(rows, 5))
labels = np.arange(rows) % 3
tiled_labels = tilings(labels, "fresh_labels")
means, variances = rng.normal(size=(4, 5)), rng.uniform(0.5, 2.0, size=(4, 5))
args = (means, variances, np.log(np.full(4, 0.25)))
anchors = rng.normal(size=(3, 5))
h = rows // 2
stores = {}     # (tiling, program) -> the collectives of its call
for how, tx in tilings(x, "fresh_x").items():
    by_rows = how in ("row", "uneven")
    log_likelihood_labels(tx, *args)                  # compiled outside the count
    got, sent = stores[how, "log-likelihood"] = collectives(log_likelihood_labels, tx, *args)
    same(got, log_likelihood_labels.python(x, *args), f"log-likelihood table, {how}")
    assert not sent or not by_rows, f"{how}: a row-tiled table's argmax/max sent {dict(sent)}"

    got, sent = stores[how, "anchors"] = collectives(anchor_distances, tx, anchors)
    same(got, anchor_distances.python(x, anchors), f"anchor distances, {how}")
    assert not by_rows or (set(sent) <= {"all_gather", "end"} and sent["all_gather"] <= 1), \
        (how, dict(sent))

    got, _ = stores[how, "row blocks"] = collectives(row_blocks, tx, h)
    same(got, row_blocks.python(x, h), f"row blocks at {h}, {how}")

    t = escaping_table(tx)
    assert type(t) is np.ndarray, type(t)       # returned: allocated plain, as before
    same(t, escaping_table.python(x), f"escaping table, {how}")

    same(order_zero_difference(tx, 0), order_zero_difference.python(x, 0),
         f"np.diff of order 0 is the table, {how}")

    w = np.arange(rows) * 1.5
    same(filled_per_row(tx, w), filled_per_row.python(x, w), f"a fill value per row, {how}")

    lab = tiled_labels.get(how, labels)
    same(class_means(tx, lab, 4), class_means.python(x, labels, 4), f"class means, {how}")

# an earlier program's gathered copies, alive, change no later program's messages
kept = views_of_one_tile(uneven(x, "fresh_views_x"), uneven(x[:, 0].copy(), "fresh_views_v"))
same(kept, views_of_one_tile.python(x, x[:, 0].copy()), "views of the one non-empty tile")
calls = {"log-likelihood": (log_likelihood_labels, args), "row blocks": (row_blocks, (h,))}
for how, tx in tilings(x, "fresh_after_x").items():
    if how == "column":
        continue        # (a plain table: each store a gather, with or without copies)
    for what, (fn, rest) in calls.items():
        got, sent = collectives(fn, tx, *rest)
        same(got, fn.python(x, *rest), f"{what}, {how}, after the copies")
        assert sent == stores[how, what][1], \
            f"{what}, {how}: sent {dict(sent)} after another program's copies, " \
            f"{dict(stores[how, what][1])} before"
del kept
dist.barrier().result()
print(f"OK {r}")
