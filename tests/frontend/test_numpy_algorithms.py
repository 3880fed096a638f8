"""Two algorithms written the usual NumPy way, decorated with ``@Phylanx`` and compared with
the undecorated run (issue 12): k-means (distances by broadcasting, ``argmin``, centres by
``np.bincount(labels, weights=...)`` or ``np.add.at``) and alternating least squares
(one ``np.linalg.solve`` on a stack of normal equations per half-step)."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx

from .helpers import check


@Phylanx
def kmeans_bincount(points, centres, iterations):
    k = centres.shape[0]
    labels = np.zeros(points.shape[0], dtype=np.int64)
    for _ in range(iterations):
        distances = np.sum((points[:, np.newaxis, :] - centres[np.newaxis, :, :]) ** 2, axis=2)
        labels = np.argmin(distances, axis=1)
        counts = np.bincount(labels, minlength=k)
        sums = np.stack([np.bincount(labels, weights=points[:, j], minlength=k)
                         for j in range(points.shape[1])], axis=1)
        # an empty cluster keeps its centre
        centres = np.where(counts[:, np.newaxis] > 0,
                           sums / np.maximum(counts, 1)[:, np.newaxis], centres)
    return centres, labels


@Phylanx
def kmeans_add_at(points, centres, iterations):
    k, dim = centres.shape
    labels = np.zeros(points.shape[0], dtype=np.int64)
    for _ in range(iterations):
        distances = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=-1)
        labels = distances.argmin(axis=1)
        sums = np.zeros((k, dim))
        np.add.at(sums, labels, points)
        counts = np.zeros(k)
        np.add.at(counts, labels, 1)
        centres = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], centres)
    return centres, labels


def _blobs(seed=0, per_blob=40):
    rng = np.random.default_rng(seed)
    middles = np.array([[0.0, 0.0], [6.0, 1.0], [2.0, 7.0]])
    points = np.concatenate([m + rng.normal(size=(per_blob, 2)) for m in middles])
    return points, middles


@pytest.mark.parametrize("kmeans", [kmeans_bincount, kmeans_add_at])
def test_kmeans_matches_numpy_and_finds_the_blobs(kmeans):
    points, middles = _blobs()
    start = points[[0, 1, 2 * 40]].copy()      # two starts in the first blob
    centres, labels = check(kmeans, points, start, 8, strict=True)
    # the run did cluster: each true centre has a found centre near it, labels are 0..2
    nearest = np.min(np.linalg.norm(middles[:, None] - centres[None], axis=2), axis=1)
    assert np.all(nearest < 0.6), centres
    assert set(np.unique(labels)) == {0, 1, 2}


def test_kmeans_variants_agree_and_keep_an_empty_cluster():
    points, _ = _blobs(seed=1, per_blob=10)
    start = np.array([[0.0, 0.0], [6.0, 1.0], [100.0, 100.0]])   # the last one stays empty
    by_bincount = check(kmeans_bincount, points, start, 3, strict=True)
    by_add_at = check(kmeans_add_at, points, start, 3, strict=True)
    np.testing.assert_allclose(by_bincount[0], by_add_at[0])
    np.testing.assert_array_equal(by_bincount[1], by_add_at[1])
    np.testing.assert_array_equal(by_bincount[0][2], [100.0, 100.0])


@Phylanx
def als(ratings, mask, factors_u, factors_v, lam, iterations):
    rank = factors_u.shape[1]
    ridge = lam * np.eye(rank)
    losses = []
    for _ in range(iterations):
        # one normal-equation system per user: (V^T diag(m_u) V + lam I) u = V^T (m_u * r_u)
        lhs = np.einsum("ui,ik,il->ukl", mask, factors_v, factors_v) + ridge
        rhs = (mask * ratings) @ factors_v
        factors_u = np.linalg.solve(lhs, rhs[..., None])[..., 0]
        lhs = np.einsum("ui,uk,ul->ikl", mask, factors_u, factors_u) + ridge
        rhs = (mask * ratings).T @ factors_u
        factors_v = np.linalg.solve(lhs, rhs[:, :, np.newaxis])[:, :, 0]
        losses.append(np.sum(mask * (ratings - factors_u @ factors_v.T) ** 2))
    return factors_u, factors_v, losses


@Phylanx
def stacked_linalg(a, b):
    spd = a @ np.swapaxes(a, -1, -2) + np.eye(a.shape[-1])
    chol = np.linalg.cholesky(spd)
    return (np.linalg.solve(spd, b), np.linalg.inv(spd), np.linalg.det(spd), chol,
            np.linalg.solve(spd, b[0, 0, :, 0]))


def test_als_matches_numpy_and_lowers_the_loss():
    rng = np.random.default_rng(3)
    truth = rng.normal(size=(12, 2)) @ rng.normal(size=(2, 9))
    mask = (rng.random(truth.shape) < 0.8).astype(np.float64)
    u0, v0 = rng.normal(size=(12, 2)), rng.normal(size=(9, 2))
    u, v, losses = check(als, truth, mask, u0, v0, 0.01, 25, strict=True)
    assert u.shape == (12, 2) and v.shape == (9, 2)
    # a rank-2 matrix is recovered from 80% of its entries: the loss goes to ~0
    assert losses[-1] < 1e-3 * losses[0] and losses[-1] < 1e-4 * float(np.sum(mask * truth ** 2))


def test_stacked_solve_inv_det_cholesky_match_numpy():
    rng = np.random.default_rng(4)
    a = rng.normal(size=(2, 3, 4, 4))
    check(stacked_linalg, a, rng.normal(size=(2, 3, 4, 2)), strict=True)
    check(stacked_linalg, a.astype(np.float32),
          rng.normal(size=(1, 3, 4, 1)).astype(np.float32), strict=True)
