"""Row passes on any mix of float32 and float64 operands, and whatever the product's spelling.

NumPy's ``x @ m`` of a float32 and a float64 operand converts the float32 one to
float64 (exactly) and multiplies in float64; the fused passes (``rowpass.py``,
``rowargmin.py``) compute the same product in the same dtype, so k-means on float32
points (whose centres become float64 after the first update: float32 sums / int64
counts) keeps its one-pass labels.  With the fixtures ``rows`` and ``installed``
(conftest.py) every pass is hot at once, so the kernel is what runs; the oracle is the
undecorated function.  Labels must equal NumPy's (the data have no near ties); a gram
``x.T @ f`` must be within 64 ulps (of the least precise dtype on the way) of the sum
of its terms' magnitudes.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.fusion import rowargmin, rowpass

from .. import kmeans_programs as w2
from ..kmeans_programs import labels

pytest.importorskip("numba")

RNG = np.random.default_rng(27)
DTYPES = ["float32", "float64"]
#: the mixes (one dtype alone fused before: tests/fusion/test_rowpass.py, test_rowargmin.py)
MIXES = [(a, b) for a in DTYPES for b in DTYPES if a != b]


def calls_of(found, kind, kernel) -> int:
    return sum(e.calls for p in found if isinstance(p, kind)
               for e in p.kernels.values() if isinstance(e, kernel))


def blobs(n, d, k, points_dtype, centres_dtype):
    return w2.blobs(RNG, n, d, k, points_dtype, centres_dtype)


@pytest.mark.parametrize("points_dtype,centres_dtype", MIXES)
@pytest.mark.parametrize("n,d,k", [(7, 2, 3), (3000, 3, 5), (20000, 16, 8)])
def test_labels_of_any_float_mix(rows, installed, points_dtype, centres_dtype, n, d, k):
    f = Phylanx(labels)
    for _ in range(4):
        points, centres = blobs(n, d, k, points_dtype, centres_dtype)
        np.testing.assert_array_equal(f(points, centres), labels(points, centres))
    assert calls_of(installed, rowargmin.RowArgmin, rowargmin.ArgKernel) >= 2


#: W2 with the points' dtype for the sums: float32 points make float64 centres after
#: the first update
kmeans = w2.kmeans("points_dtype")


@pytest.mark.parametrize("n,d,k", [(500, 2, 4), (30000, 3, 6)])
def test_float32_kmeans_keeps_its_one_pass_after_the_centres_become_float64(
        rows, installed, n, d, k):
    f = Phylanx(kmeans)
    for _ in range(3):
        points, centres = blobs(n, d, k, "float32", "float32")
        want = kmeans(points, centres, 4)
        got = f(points, centres, 4)
        assert got.dtype == want.dtype == np.float64
        # the sums are float32 in both (NumPy's add.at in sequence, the kernel's
        # per-chunk parts): a float32 rounding of each label's sum
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * np.abs(want).max())
    assert calls_of(installed, rowargmin.RowArgmin, rowargmin.StatsKernel) >= 3


def gradient(x, y, w):
    return x.T @ (1.0 / (1.0 + np.exp(-(x @ w))) - y)


def gradient_vector_first(x, y, w):
    return (1.0 / (1.0 + np.exp(-(x @ w))) - y) @ x


def gradient_dot_vector_first(x, y, w):
    return np.dot(1.0 / (1.0 + np.exp(-np.dot(x, w))) - y, x)


def assert_gram(got, want, x, w, f):
    """``got`` is ``want`` (NumPy's gram) within 64 ulps, of the least precise dtype on
    the way (a float32 ``x @ w`` under a float64 gram), of each term's magnitude: the
    product's rounding moves ``f`` by up to its ulps of ``|x| @ |w|``."""
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    eps = max(np.finfo(t).eps for t in (want.dtype, np.result_type(x, w)))
    x64 = np.abs(x).astype(np.float64)
    terms = np.abs(f).astype(np.float64) + x64 @ np.abs(w).astype(np.float64)
    bound = 64 * eps * (x64.T @ terms)
    assert np.all(np.abs(got.astype(np.float64) - want) <= bound + np.finfo(want.dtype).tiny)


@pytest.mark.parametrize("x_dtype,w_dtype,y_dtype",
                         [(a, b, c) for a in DTYPES for b in DTYPES for c in DTYPES
                          if a != b])
def test_gram_of_any_float_mix(rows, installed, x_dtype, w_dtype, y_dtype):
    f = Phylanx(gradient)
    n, d = 2000, 6
    for _ in range(4):
        x = RNG.normal(size=(n, d)).astype(x_dtype)
        w = RNG.normal(size=d).astype(w_dtype)
        y = (RNG.random(n) < 0.5).astype(y_dtype)
        residual = 1.0 / (1.0 + np.exp(-(x @ w))) - y
        assert_gram(f(x, y, w), gradient(x, y, w), x, w, residual)
    assert calls_of(installed, rowpass.RowPass, rowpass.RowKernel) >= 2


@pytest.mark.parametrize("spelling", [gradient_vector_first, gradient_dot_vector_first])
@pytest.mark.parametrize("dtype", DTYPES)
def test_gram_whatever_the_spelling(rows, installed, spelling, dtype):
    f = Phylanx(spelling)
    n, d = 1500, 5
    for _ in range(4):
        x = RNG.normal(size=(n, d)).astype(dtype)
        w = RNG.normal(size=d).astype(dtype)
        y = (RNG.random(n) < 0.5).astype(dtype)
        residual = 1.0 / (1.0 + np.exp(-(x @ w))) - y
        assert_gram(f(x, y, w), spelling(x, y, w), x, w, residual)
    assert calls_of(installed, rowpass.RowPass, rowpass.RowKernel) >= 2


def test_a_matrix_on_the_left_of_x_is_not_a_gram(rows, installed):
    """A guard (passes before the vector-first spelling fused too): ``f @ x`` is
    ``x.T @ f`` only for a vector ``f``; a matrix runs the product."""
    def left_matrix(x, w):
        return np.exp(-(x @ w)) @ x
    f = Phylanx(left_matrix)
    n, d = 40, 40
    for _ in range(4):
        x, w = RNG.normal(size=(n, d)), RNG.normal(size=(d, n))
        want = left_matrix(x, w)
        np.testing.assert_allclose(f(x, w), want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    assert calls_of(installed, rowpass.RowPass, rowpass.RowKernel) == 0
