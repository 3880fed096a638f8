"""Row blocks on the task pool (primitives/blas_blocks.py, used by conv_gemm): every row
written once, the BLAS thread limit restored afterwards; large products equal NumPy's."""
from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import phylanx
from phylanx.primitives import blas_blocks
from phylanx.primitives.matrixops.linalg import dot, matmul
from phylanx.runtime.executors import get_executor

RNG = np.random.default_rng(11)


def _blas_threads() -> list[int]:
    threadpoolctl = pytest.importorskip("threadpoolctl")
    return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("transposed", [False, True])
def test_blocked_products_match_numpy(dtype, transposed):
    a = RNG.normal(size=(300, 200)).astype(dtype)
    b = RNG.normal(size=(200, 150)).astype(dtype)
    if transposed:                      # the backward pass's dot(transpose(h), ct)
        a = np.ascontiguousarray(a.T).T
    expected = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(expected).max()
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for fn in (dot, matmul):
        got = fn(a, b)
        assert got.dtype == dtype and got.shape == (300, 150)
        np.testing.assert_allclose(got, expected, atol=tol * scale)
    program = phylanx.evaluate("lambda(a, b, dot(a, b))", a, b)
    np.testing.assert_allclose(program, expected, atol=tol * scale)


def test_rows_cover_every_row_once_in_blocks():
    seen = np.zeros(1000, int)
    calls = []
    lock = threading.Lock()

    def block(lo, hi):
        with lock:
            calls.append((lo, hi))
            seen[lo:hi] += 1
    blas_blocks.rows(1000, 1e12, block)
    np.testing.assert_array_equal(seen, 1)
    if get_executor().num_threads > 1:
        assert len(calls) > 1
    calls.clear()
    blas_blocks.rows(1000, 10.0, block)          # small work: one call
    assert calls == [(0, 1000)]


def test_the_blas_limit_is_restored_and_shared():
    before = _blas_threads()
    inside = []

    def block(lo, hi):
        inside.append(_blas_threads())
    blas_blocks.rows(1000, 1e12, block)
    assert _blas_threads() == before
    if len(inside) > 1 and before and before[0] > 1:
        # the blocks are like pieces: BLAS's threads are shared among them (one each here)
        cores = min(len(inside), os.cpu_count() or 1)
        assert all(t == [max(1, before[0] // cores)] * len(before) for t in inside), inside


def test_a_failing_block_restores_the_limit_and_raises():
    before = _blas_threads()

    def block(lo, hi):
        if lo == 0:
            raise ValueError("boom")
    with pytest.raises(ValueError, match="boom"):
        blas_blocks.rows(1000, 1e12, block)
    assert _blas_threads() == before
