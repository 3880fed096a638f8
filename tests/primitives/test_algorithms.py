"""lra, als, kmeans and lda_trainer against small NumPy references written here.

The references follow the definitions of reference §6.2 in the plainest form
(explicit inverses and diagonal matrices, per-point loops), not the primitives' code.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxTypeError, PhylanxValueError
from phylanx.primitives.registry import lookup

from ..shared_data import shared_file
from .harness import evaluate_with

# --- references -----------------------------------------------------------------------------

def lra_reference(x, y, alpha, iterations):
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        with np.errstate(over="ignore"):
            pred = 1.0 / (1.0 + np.exp(-(x @ w)))
        w = w - alpha * (x.T @ (pred - y))
    return w


def als_reference(ratings, reg, factors, iterations, alpha):
    rng = np.random.default_rng(0)
    users, items = ratings.shape
    x = rng.random((users, factors))
    y = rng.random((items, factors))
    conf = alpha * ratings
    for _ in range(iterations):
        yty = y.T @ y
        for u in range(users):
            c_u = np.diag(conf[u])
            p_u = (conf[u] != 0).astype(float)
            a = yty + y.T @ c_u @ y + reg * np.eye(factors)
            x[u] = np.linalg.inv(a) @ y.T @ (c_u + np.eye(items)) @ p_u
        xtx = x.T @ x
        for i in range(items):
            c_i = np.diag(conf[:, i])
            p_i = (conf[:, i] != 0).astype(float)
            a = xtx + x.T @ c_i @ x + reg * np.eye(factors)
            y[i] = np.linalg.inv(a) @ x.T @ (c_i + np.eye(users)) @ p_i
    return x, y


def kmeans_reference(points, centroids, iterations):
    centroids = np.array(centroids, dtype=float)
    for _ in range(iterations):
        labels = []
        for p in points:
            best = min(range(len(centroids)),
                       key=lambda j: (float(np.sum((p - centroids[j]) ** 2)), j))
            labels.append(best)
        labels = np.array(labels)
        for j in range(len(centroids)):
            if np.any(labels == j):
                centroids[j] = points[labels == j].mean(axis=0)
    return centroids


def lda_reference(matrix, topics, alpha, beta, iterations, seed):
    rng = np.random.default_rng(seed)
    tokens = [(w, d) for w in range(matrix.shape[0]) for d in range(matrix.shape[1])
              for _ in range(int(matrix[w, d]))]
    z = list(rng.integers(0, topics, size=len(tokens)))
    wt = np.zeros((matrix.shape[0], topics))
    dt = np.zeros((matrix.shape[1], topics))
    for (w, d), t in zip(tokens, z):
        wt[w, t] += 1
        dt[d, t] += 1
    total = wt.sum(axis=0)
    for _ in range(iterations):
        u = rng.random(len(tokens))
        for i, (w, d) in enumerate(tokens):
            t = z[i]
            wt[w, t] -= 1
            dt[d, t] -= 1
            total[t] -= 1
            p = [(wt[w, k] + beta) * (dt[d, k] + alpha) / (total[k] + topics * beta)
                 for k in range(topics)]
            target, acc, t = u[i] * sum(p), 0.0, topics - 1
            for k in range(topics):
                acc += p[k]
                if acc > target:
                    t = k
                    break
            z[i] = t
            wt[w, t] += 1
            dt[d, t] += 1
            total[t] += 1
    return wt, dt


# --- lra ----------------------------------------------------------------------------------

def _classification_data(n=40, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3))
    y = (x @ np.array([1.5, -2.0, 0.5]) > 0).astype(float)
    return x, y


@pytest.mark.parametrize("alpha, iterations", [(0.01, 1), (0.05, 50), (0.1, 0)])
def test_lra_matches_reference(alpha, iterations):
    x, y = _classification_data()
    w = evaluate_with("lra(a0, a1, a2, a3)", x, y, alpha, iterations)
    assert w.shape == (3,) and w.dtype == np.float64
    np.testing.assert_allclose(w, lra_reference(x, y, alpha, iterations), rtol=1e-12, atol=1e-15)


def test_lra_learns_a_separating_direction():
    x, y = _classification_data(200)
    w = evaluate_with("lra(a0, a1, 0.05, 200)", x, y)
    accuracy = np.mean(((x @ w) > 0) == (y == 1))
    assert accuracy > 0.95


def test_lra_breast_cancer_like_the_original_example():
    BREAST_CANCER = shared_file("breast_cancer.csv")
    data = np.loadtxt(BREAST_CANCER, delimiter=",", skiprows=1)
    x, y = data[:, :30], data[:, 30]
    w = evaluate_with(f'block(define(d, file_read_csv("{BREAST_CANCER.as_posix()}")), '
            "lra(a0, a1, 1e-5, 750))", x, y)
    np.testing.assert_allclose(w, lra_reference(x, y, 1e-5, 750), rtol=1e-9, atol=1e-12)


def test_lra_enable_output_prints_every_step(capsys):
    x, y = _classification_data(10)
    evaluate_with("lra(a0, a1, 0.1, 3, true)", x, y)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["step 0", "step 1", "step 2"]


@pytest.mark.parametrize("code, error, message", [
    ("lra([[1.0, 2.0]], [1.0, 0.0], 0.1, 2)", PhylanxValueError, "vector of 1 labels"),
    ("lra([1.0, 2.0], [1.0, 0.0], 0.1, 2)", PhylanxValueError, "2-d matrix"),
    ("lra([[1.0]], [1.0], 0.1, -1)", PhylanxValueError, "iterations must be non-negative"),
    ("lra([[1.0]], [1.0], \"fast\", 1)", PhylanxTypeError, "alpha must be a number"),
])
def test_lra_errors(code, error, message):
    with pytest.raises(error, match=message):
        phylanx.evaluate(code)


# --- als ----------------------------------------------------------------------------------

def _ratings():
    ratings = np.zeros((10, 5))
    cells = [(0, 0, 5), (0, 3, 1), (1, 1, 3), (2, 2, 4), (3, 0, 1), (4, 4, 2), (5, 1, 4),
             (6, 3, 5), (7, 2, 2), (8, 4, 1), (9, 0, 3), (9, 2, 2)]
    for u, i, r in cells:
        ratings[u, i] = r
    return ratings


@pytest.mark.parametrize("iterations, factors", [(1, 3), (5, 2)])
def test_als_matches_reference(iterations, factors):
    ratings = _ratings()
    x, y = evaluate_with("als(a0, 0.1, a1, a2, 40.0)", ratings, factors, iterations)
    ref_x, ref_y = als_reference(ratings, 0.1, factors, iterations, 40.0)
    assert x.shape == (10, factors) and y.shape == (5, factors)
    np.testing.assert_allclose(x, ref_x, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(y, ref_y, rtol=1e-8, atol=1e-10)


def test_als_is_deterministic_and_fits_preferences():
    ratings = _ratings()
    first = evaluate_with("als(a0, 0.1, 3, 10, 40.0)", ratings)
    second = evaluate_with("als(a0, 0.1, 3, 10, 40.0, false)", ratings)
    np.testing.assert_array_equal(first[0], second[0])
    scores = first[0] @ first[1].T
    # observed cells score higher than unobserved ones on average
    assert scores[ratings != 0].mean() > scores[ratings == 0].mean() + 0.5


def test_als_enable_output(capsys):
    evaluate_with("als(a0, 0.1, 2, 2, 40.0, true)", _ratings())
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("iteration 0: weighted loss")


def test_als_errors():
    with pytest.raises(PhylanxValueError, match="num_factors must be positive"):
        evaluate_with("als(a0, 0.1, 0, 1, 40.0)", _ratings())
    with pytest.raises(PhylanxValueError, match="2-d matrix"):
        phylanx.evaluate("als([1.0, 2.0], 0.1, 2, 1, 40.0)")


# --- kmeans -------------------------------------------------------------------------------

def _three_clusters(seed=11):
    rng = np.random.default_rng(seed)
    centres = np.array([[-3.0, 15.0], [1.5, 3.0], [4.0, -1.0]])
    return np.vstack([c + 0.5 * rng.standard_normal((10, 2)) for c in centres])


INITIAL = np.array([[-3.0, 14.75], [1.5, 2.75], [3.0, 0.0]])


@pytest.mark.parametrize("iterations", [1, 5])
def test_kmeans_with_initial_centroids(iterations):
    points = _three_clusters()
    got = evaluate_with("kmeans(a0, 3, a1, false, nil, a2)", points, iterations, INITIAL)
    np.testing.assert_allclose(got, kmeans_reference(points, INITIAL, iterations), rtol=1e-12)


def test_kmeans_keywords_and_defaults():
    points = _three_clusters()
    got = evaluate_with("kmeans(a0, __arg(initial_centroids, a1))", points, INITIAL)
    np.testing.assert_allclose(got, kmeans_reference(points, INITIAL, 10), rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 7])
def test_kmeans_seed_picks_distinct_points(seed):
    points = _three_clusters()
    start = points[np.random.default_rng(seed).choice(len(points), 3, replace=False)]
    got = evaluate_with("kmeans(a0, 3, 4, false, a1)", points, seed)
    np.testing.assert_allclose(got, kmeans_reference(points, start, 4), rtol=1e-12)


def test_kmeans_without_seed_uses_the_global_generator():
    if lookup("set_seed") is None:
        pytest.skip("set_seed is not available")
    points = _three_clusters()
    first = evaluate_with("block(set_seed(21), kmeans(a0, 3, 0))", points)
    second = evaluate_with("block(set_seed(21), kmeans(a0, 3, 0))", points)
    np.testing.assert_array_equal(first, second)
    start = points[np.random.default_rng(21).choice(len(points), 3, replace=False)]
    np.testing.assert_array_equal(first, start)


def test_kmeans_empty_cluster_keeps_its_centroid_and_3d_points():
    points = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]])
    initial = np.array([[0.0, 0.5, 0.0], [100.0, 100.0, 100.0]])
    got = evaluate_with("kmeans(a0, 2, 3, false, nil, a1)", points, initial)
    np.testing.assert_allclose(got, kmeans_reference(points, initial, 3))
    np.testing.assert_array_equal(got[1], [100.0, 100.0, 100.0])


def test_kmeans_show_result(capsys):
    evaluate_with("kmeans(a0, 3, 2, true, nil, a1)", _three_clusters(), INITIAL)
    out = capsys.readouterr().out
    assert out.startswith("centroids:") and "cluster sizes: [10, 10, 10]" in out


@pytest.mark.parametrize("code, message", [
    ("kmeans([[1.0, 2.0]], 2)", "larger than the number of points"),
    ("kmeans([[1.0, 2.0]], 0)", "num_centroid must be positive"),
    ("kmeans([[1.0, 2.0]], 1, 1, false, nil, [[1.0, 2.0, 3.0]])", "k x 2"),
])
def test_kmeans_errors(code, message):
    with pytest.raises(PhylanxValueError, match=message):
        phylanx.evaluate(code)


# --- lda_trainer --------------------------------------------------------------------------

CORPUS = np.array([[2, 1, 0, 0], [1, 3, 0, 0], [0, 1, 0, 0],
                   [0, 0, 2, 1], [0, 0, 1, 2], [0, 0, 0, 3]])


def test_lda_count_invariants():
    word_topic, doc_topic = evaluate_with("lda_trainer(a0, 3, 0.1, 0.01, 4)", CORPUS)
    assert word_topic.shape == (6, 3) and doc_topic.shape == (4, 3)
    np.testing.assert_array_equal(word_topic.sum(axis=1), CORPUS.sum(axis=1))
    np.testing.assert_array_equal(doc_topic.sum(axis=1), CORPUS.sum(axis=0))
    assert np.all(word_topic >= 0) and np.all(word_topic == np.round(word_topic))


def test_lda_single_topic_is_exact():
    word_topic, doc_topic = evaluate_with("lda_trainer(a0, 1, 0.1, 0.01, 2)", CORPUS)
    np.testing.assert_array_equal(word_topic[:, 0], CORPUS.sum(axis=1))
    np.testing.assert_array_equal(doc_topic[:, 0], CORPUS.sum(axis=0))


@pytest.mark.parametrize("seed, topics, iterations", [(0, 2, 3), (5, 3, 10)])
def test_lda_matches_reference_after_set_seed(seed, topics, iterations):
    if lookup("set_seed") is None:
        pytest.skip("set_seed is not available")
    got = evaluate_with(
        f"block(set_seed({seed}), lda_trainer(a0, {topics}, 0.1, 0.01, {iterations}))", CORPUS)
    expected = lda_reference(CORPUS, topics, 0.1, 0.01, iterations, seed)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])


def test_lda_separates_two_disjoint_vocabularies():
    if lookup("set_seed") is None:
        pytest.skip("set_seed is not available")
    corpus = np.kron(np.eye(2), np.full((5, 5), 3))     # words 0-4 in docs 0-4, 5-9 in 5-9
    _, doc_topic = evaluate_with("block(set_seed(1), lda_trainer(a0, 2, 0.1, 0.01, 30))", corpus)
    dominant = doc_topic.argmax(axis=1)
    share = doc_topic.max(axis=1) / doc_topic.sum(axis=1)
    assert len(set(dominant[:5])) == 1 and len(set(dominant[5:])) == 1
    assert dominant[0] != dominant[5] and share.min() > 0.9


@pytest.mark.parametrize("matrix, message", [
    (np.array([[1.5, 0.0]]), "non-negative integer counts"),
    (np.array([[-1, 0]]), "non-negative integer counts"),
])
def test_lda_errors(matrix, message):
    with pytest.raises(PhylanxValueError, match=message):
        evaluate_with("lda_trainer(a0, 2, 0.1, 0.01, 1)", matrix)
    with pytest.raises(PhylanxValueError, match="must be positive"):
        evaluate_with("lda_trainer(a0, 2, 0.0, 0.01, 1)", CORPUS)
