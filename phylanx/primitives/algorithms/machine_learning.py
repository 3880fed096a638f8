"""Whole algorithms as single primitives: ``lra``, ``als``, ``kmeans``, ``lda_trainer``.

They are the native counterparts of the examples of the original (reference §6.2);
each is plain NumPy here.  Randomness: ``als`` starts from a fixed seed (so it is
deterministic, like the original's ``set_seed(0)``); ``kmeans`` uses its ``seed``
argument; ``kmeans`` without a seed and ``lda_trainer`` draw from the global generator
of ``set_seed`` (``matrixops_random``), so ``set_seed(n)`` makes them reproducible.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import display, type_name
from ..dtypes import to_bool, to_count
from ..lazy_modules import lazy_module
from ..registry import primitive
from ..solvers.direct import factorise

# SciPy loads on first use (``import phylanx`` stays fast)
scipy = lazy_module("scipy")

#: seed of the initial factors of ``als``
ALS_SEED = 0


def _with_global_generator(draw: Callable[[np.random.Generator], Any]) -> Any:
    """``draw(rng)`` with the generator that ``set_seed`` controls."""
    from ..matrixops.random_numbers import with_generator
    return with_generator(draw)


def _matrix(value: Any, what: str) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf":
        raise PhylanxTypeError(f"{what} must be a numeric matrix, got a {type_name(value)}")
    if arr.ndim != 2:
        raise PhylanxValueError(f"{what} must be a 2-d matrix, got a {arr.ndim}-d array of "
                                f"shape {arr.shape}")
    return arr.astype(np.float64)


def _number(value: Any, what: str) -> float:
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf" or arr.size != 1:
        raise PhylanxTypeError(f"{what} must be a number, got a {type_name(value)}")
    return float(arr.reshape(()))


def _say(*parts: Any) -> None:
    sys.stdout.write(" ".join(p if isinstance(p, str) else display(p) for p in parts) + "\n")
    sys.stdout.flush()


# --- logistic regression ------------------------------------------------------------------

@primitive("lra", "lra(_1, _2, _3, _4, _5)", "lra(_1, _2, _3, _4)",
           side_effects=True,  # prints with enable_output
           no_oracle="an iterative algorithm; checked in tests against a NumPy reference",
           example="lra([[1.0, 2.0], [2.0, 1.0], [-1.0, -1.5]], [1.0, 1.0, 0.0], 0.1, 2)",
           result="[0.34090491453779925, 0.38377782160623475]")
def lra(x, y, alpha, iterations, enable_output=False):
    """Logistic regression by batch gradient descent -> the weight vector.

    Arguments: features ``x`` (n x m), labels ``y`` (n, 0/1), step ``alpha``, number
    of ``iterations``, ``enable_output`` (print the step and weights every iteration).
    From zero weights, each step computes ``pred = sigmoid(x @ w)``,
    ``grad = x.T @ (pred - y)`` and ``w -= alpha * grad`` (no intercept term: add a
    column of ones to ``x`` for one)."""
    features = _matrix(x, "x")
    labels = np.asarray(y, dtype=np.float64) if np.asarray(y).dtype.kind in "biuf" else None
    if labels is None or labels.ndim != 1 or labels.shape[0] != features.shape[0]:
        raise PhylanxValueError(f"y must be a vector of {features.shape[0]} labels (one per row "
                                f"of x), got a {type_name(y)}")
    step = _number(alpha, "alpha")
    steps = to_count(iterations, "iterations")
    verbose = to_bool(enable_output)
    weights = np.zeros(features.shape[1])
    transposed = features.T
    for k in range(steps):
        # expit is the overflow-free sigmoid 1 / (1 + exp(-z))
        error = scipy.special.expit(features @ weights) - labels
        weights = weights - step * (transposed @ error)
        if verbose:
            _say(f"step {k}:", weights)
    return weights


# --- implicit-feedback alternating least squares ------------------------------------------

def _als_sweep(factors: np.ndarray, other: np.ndarray, confidence: np.ndarray,
               regularization: float) -> None:
    """Solve every row of ``factors`` against the fixed ``other`` factors (in place)."""
    gram = other.T @ other + regularization * np.eye(other.shape[1])
    for row, conf in enumerate(confidence):
        preference = (conf != 0).astype(np.float64)
        system = gram + other.T @ (conf[:, None] * other)        # Y^T Y + Y^T C_u Y + reg I
        rhs = other.T @ ((conf + 1.0) * preference)               # Y^T (C_u + I) p_u
        # LU with the relative pivot test: np.linalg.solve would accept a numerically
        # singular system (rounding leaves tiny pivots, not zeros) and return garbage
        lu, singular = factorise(system, "getrf")
        if singular is not None:
            raise PhylanxValueError(
                f"a least-squares system of ALS (row {row}) is singular: "
                f"{singular.reason('LU')}; use a positive regularization")
        factors[row] = scipy.linalg.lu_solve(lu, rhs, check_finite=False)


@primitive("als", "als(_1, _2, _3, _4, _5, _6)", "als(_1, _2, _3, _4, _5)",
           side_effects=True,  # prints with enable_output
           no_oracle="an iterative algorithm; checked in tests against a NumPy reference",
           example="__len(car(als([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]], 0.1, 2, 3, 40.0)))",
           result="3")
def als(ratings, regularization, num_factors, iterations, alpha, enable_output=False):
    """Implicit-feedback ALS (Hu, Koren, Volinsky) of a ratings matrix -> ``list(X, Y)``.

    Arguments: ``ratings`` (users x items), ``regularization`` lambda, ``num_factors`` f,
    ``iterations``, confidence scale ``alpha``, ``enable_output`` (print progress).
    With ``C = alpha * ratings`` and ``p = (C != 0)``, every iteration solves each user
    row ``X[u] = inv(Y^T Y + Y^T C_u Y + lambda I) Y^T (C_u + I) p_u`` and then each
    item row of ``Y`` likewise against the new ``X``.  ``X`` (users x f) and ``Y``
    (items x f) start uniform in [0, 1) from a fixed seed (``ALS_SEED``: the same
    input always gives the same factors).  A (numerically) singular system, possible
    without regularization, is a PhylanxValueError (see
    ``linear_solver_lu``)."""
    r = _matrix(ratings, "ratings")
    reg = _number(regularization, "regularization")
    factors = to_count(num_factors, "num_factors", 1)
    steps = to_count(iterations, "iterations")
    confidence = _number(alpha, "alpha") * r
    verbose = to_bool(enable_output)
    rng = np.random.default_rng(ALS_SEED)
    users = rng.random((r.shape[0], factors))
    items = rng.random((r.shape[1], factors))
    for k in range(steps):
        _als_sweep(users, items, confidence, reg)
        _als_sweep(items, users, confidence.T, reg)
        if verbose:
            loss = np.sum((confidence + 1.0) * ((confidence != 0) - users @ items.T) ** 2)
            _say(f"iteration {k}: weighted loss {loss:.6g}")
    return [users, items]


# --- k-means ------------------------------------------------------------------------------

@primitive("kmeans",
           "kmeans(_1_points, __arg(_2_num_centroid, 3), __arg(_3_iterations, 10), "
           "__arg(_4_show_result, false), __arg(_5_seed, nil), __arg(_6_initial_centroids, nil))",
           side_effects=True,
           no_oracle="an iterative algorithm; checked in tests against a NumPy reference",
           example="kmeans([[0, 0], [0, 1], [10, 10], [10, 11]], 2, 5, false, nil, "
                   "[[0.0, 0.0], [10.0, 10.0]])",
           result="[[0.0, 0.5], [10.0, 10.5]]")
def kmeans(points, num_centroid=3, iterations=10, show_result=False, seed=None,
           initial_centroids=None):
    """K-means clustering (Lloyd's algorithm) of the rows of ``points`` -> the centroids.

    ``points`` is n x d (the original took 2 columns; any d works).  The start is
    ``initial_centroids`` (k x d; it then fixes k and ``num_centroid`` is not used) or
    ``num_centroid`` distinct points picked at random: with ``seed``, the rows
    ``numpy.random.default_rng(seed).choice(n, k, replace=False)``; without, the same
    draw from the global generator (``set_seed``).  Each iteration assigns every point
    to its nearest centroid (squared Euclidean distance; ties to the lower index) and
    moves each centroid to the mean of its points; a centroid with no points stays
    where it is.  ``show_result`` prints the final centroids and cluster sizes."""
    data = _matrix(points, "points")
    n = data.shape[0]
    steps = to_count(iterations, "iterations")
    if initial_centroids is not None:
        centroids = _matrix(initial_centroids, "initial_centroids").copy()
        if centroids.shape[1] != data.shape[1] or centroids.shape[0] == 0:
            raise PhylanxValueError(f"initial_centroids must be k x {data.shape[1]} with k >= 1, "
                                    f"got shape {centroids.shape}")
    else:
        k = to_count(num_centroid, "num_centroid", 1)
        if k > n:
            raise PhylanxValueError(f"num_centroid {k} is larger than the number of points {n}")

        def pick(rng: np.random.Generator) -> np.ndarray:
            return rng.choice(n, k, replace=False)
        chosen = (pick(np.random.default_rng(to_count(seed, "seed"))) if seed is not None
                  else _with_global_generator(pick))
        centroids = data[chosen].copy()
    labels = np.zeros(n, dtype=np.int64)
    for _ in range(steps):
        distances = ((data[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
        labels = np.argmin(distances, axis=1)
        for j in range(centroids.shape[0]):
            members = data[labels == j]
            if len(members):
                centroids[j] = members.mean(axis=0)
    if to_bool(show_result):
        sizes = np.bincount(labels, minlength=centroids.shape[0])
        _say("centroids:", centroids)
        _say("cluster sizes:", sizes)
    return centroids


# --- LDA ----------------------------------------------------------------------------------

def _tokens(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Word and document of every token: ``matrix[w, d]`` copies of (w, d), row-major."""
    counts = matrix.astype(np.int64).ravel()
    cells = np.repeat(np.arange(counts.size), counts)
    return cells // matrix.shape[1], cells % matrix.shape[1]


@primitive("lda_trainer", "lda_trainer(_1, _2, _3, _4, _5)",
           side_effects=True,
           no_oracle="a random sampler; checked in tests against a NumPy reference",
           example="__len(car(lda_trainer([[1, 2], [0, 3], [2, 0]], 2, 0.1, 0.01, 5)))",
           result="3")
def lda_trainer(word_doc_matrix, topics, alpha, beta, iterations):
    """LDA by collapsed Gibbs sampling -> ``list(word_topic, document_topic)`` counts.

    Arguments: ``word_doc_matrix`` (W words x D documents, non-negative integer counts),
    number of ``topics`` T, Dirichlet priors ``alpha`` (documents) and ``beta`` (words),
    number of ``iterations``.  Returns float64 count matrices W x T and D x T.  (The
    original defined this primitive but did not register it; here it is registered.)

    Tokens are the ``matrix[w, d]`` copies of each (w, d), in row-major order.  Their
    topics start as ``rng.integers(0, T, size=N)``; each iteration draws
    ``u = rng.random(N)`` and, token by token, removes the token's counts, computes
    ``p(t) ~ (wt[w] + beta) (dt[d] + alpha) / (total + T beta)`` (T beta as in the
    original, where the textbook has W beta), takes the first t whose cumulative sum
    exceeds ``u[i] * sum(p)`` and adds the counts back.  ``rng`` is the global
    generator, so ``set_seed`` makes the result reproducible."""
    matrix = _matrix(word_doc_matrix, "word_doc_matrix")
    if np.any(matrix < 0) or np.any(matrix != np.round(matrix)):
        raise PhylanxValueError("word_doc_matrix must hold non-negative integer counts")
    n_topics = to_count(topics, "topics", 1)
    a, b = _number(alpha, "alpha"), _number(beta, "beta")
    if not (a > 0 and b > 0):
        raise PhylanxValueError(f"alpha and beta must be positive, got {a} and {b}")
    steps = to_count(iterations, "iterations")
    words, docs = _tokens(matrix)
    n_tokens = words.size

    def draw_all(rng: np.random.Generator):
        return rng.integers(0, n_topics, size=n_tokens), [rng.random(n_tokens)
                                                          for _ in range(steps)]
    assignment, uniforms = _with_global_generator(draw_all)
    word_topic = np.zeros((matrix.shape[0], n_topics))
    doc_topic = np.zeros((matrix.shape[1], n_topics))
    np.add.at(word_topic, (words, assignment), 1.0)
    np.add.at(doc_topic, (docs, assignment), 1.0)
    totals = word_topic.sum(axis=0)
    normaliser = n_topics * b
    for u in uniforms:
        for i in range(n_tokens):
            w, d, t = words[i], docs[i], assignment[i]
            word_topic[w, t] -= 1.0
            doc_topic[d, t] -= 1.0
            totals[t] -= 1.0
            weights = np.cumsum((word_topic[w] + b) * (doc_topic[d] + a) / (totals + normaliser))
            t = min(int(np.searchsorted(weights, u[i] * weights[-1], side="right")),
                    n_topics - 1)
            assignment[i] = t
            word_topic[w, t] += 1.0
            doc_topic[d, t] += 1.0
            totals[t] += 1.0
    return [word_topic, doc_topic]
