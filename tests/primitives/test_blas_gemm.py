"""blas_gemm.gemm: ``c = a @ b + beta * c`` through BLAS without the GIL, against NumPy."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from phylanx.primitives import blas_gemm

RNG = np.random.default_rng(3)
FLOATS = [np.float32, np.float64, np.complex64, np.complex128]


def _operand(shape, dtype, layout):
    """A view of ``shape`` laid out as asked: row-major, a transpose, or rows of a wider
    array (leading dimension larger than the row)."""
    def fill(s):
        v = RNG.normal(size=s)
        if np.dtype(dtype).kind == "c":
            v = v + 1j * RNG.normal(size=s)
        return v.astype(dtype)
    if layout == "rows":
        return np.ascontiguousarray(fill(shape))
    if layout == "transposed":
        return np.ascontiguousarray(fill(shape[::-1])).T
    return fill((shape[0], shape[1] + 3))[:, 1:1 + shape[1]]        # "wide"


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("la", ["rows", "transposed", "wide"])
@pytest.mark.parametrize("lb", ["rows", "transposed", "wide"])
@pytest.mark.parametrize("beta", [0.0, 1.0, -0.5])
def test_gemm_matches_numpy(dtype, la, lb, beta):
    m, k, n = 37, 19, 23
    a, b = _operand((m, k), dtype, la), _operand((k, n), dtype, lb)
    c = _operand((m, n), dtype, "wide")
    if beta == 0:
        c[...] = np.nan                   # beta 0: c is never read
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    want = a.astype(wide) @ b.astype(wide) + (0 if beta == 0 else beta * c.astype(wide))
    blas_gemm.gemm(a, b, c, beta)
    tol = 1e-5 if dtype in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(c, want, atol=tol * np.abs(want).max())


def test_contiguous_float_operands_take_the_blas_call(monkeypatch):
    def refuse(*args):
        raise AssertionError("fell back to NumPy")
    monkeypatch.setattr(blas_gemm, "_numpy", refuse)
    a, b = RNG.normal(size=(64, 32)), RNG.normal(size=(32, 16))
    c = np.empty((64, 16))
    blas_gemm.gemm(a, b.T.copy().T, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-12, atol=1e-12 * np.abs(a @ b).max())


@pytest.mark.parametrize("case", ["int", "float16", "c transposed", "no unit stride",
                                  "read-only c"])
def test_other_operands_go_through_numpy(case):
    a, b = RNG.normal(size=(8, 5)), RNG.normal(size=(5, 6))
    c = np.zeros((8, 6))
    if case == "int":
        a, b, c = (a * 10).astype(np.int64), (b * 10).astype(np.int64), c.astype(np.int64)
    elif case == "float16":
        a, b, c = a.astype(np.float16), b.astype(np.float16), c.astype(np.float16)
    elif case == "c transposed":
        c = np.zeros((6, 8)).T
    elif case == "no unit stride":
        a = RNG.normal(size=(16, 10))[::2, ::2]
    if case == "read-only c":
        c.flags.writeable = False
        with pytest.raises(ValueError):
            blas_gemm.gemm(a, b, c, 1.0)
        return
    blas_gemm.gemm(a, b, c, 1.0)
    np.testing.assert_allclose(c, a @ b, rtol=1e-2 if case == "float16" else 1e-12)


def test_empty_and_zero_depth_products():
    c = np.full((3, 4), 2.0)
    blas_gemm.gemm(np.empty((3, 0)), np.empty((0, 4)), c, 0.5)
    np.testing.assert_array_equal(c, 1.0)
    blas_gemm.gemm(np.empty((3, 0)), np.empty((0, 4)), c, 0.0)
    np.testing.assert_array_equal(c, 0.0)
    blas_gemm.gemm(np.empty((0, 2)), np.empty((2, 4)), np.empty((0, 4)))


def test_shapes_that_do_not_fit_are_refused():
    with pytest.raises(ValueError, match="do not fit"):
        blas_gemm.gemm(np.ones((2, 3)), np.ones((4, 2)), np.empty((2, 2)))
    with pytest.raises(ValueError, match="do not fit"):
        blas_gemm.gemm(np.ones((2, 3), np.float32), np.ones((3, 2)), np.empty((2, 2)))


def test_concurrent_calls_agree():
    """Row blocks from several threads into disjoint rows of one output (conv_gemm's use)."""
    a, b = RNG.normal(size=(4000, 64)).astype(np.float32), RNG.normal(size=(64, 48)).astype(
        np.float32)
    c = np.empty((4000, 48), np.float32)
    threads = [threading.Thread(target=blas_gemm.gemm, args=(a[i:i + 1000], b, c[i:i + 1000]))
               for i in range(0, 4000, 1000)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_allclose(c, a @ b, atol=1e-4 * np.abs(a @ b).max())


def test_an_output_sharing_memory_with_an_operand_is_still_right():
    x = RNG.normal(size=(4, 4))
    want = x @ x
    blas_gemm.gemm(x, x, x, 0.0)
    np.testing.assert_allclose(x, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    y = RNG.normal(size=(8, 4))
    want = y[:4] @ y[4:] + y[2:6]
    blas_gemm.gemm(y[:4], y[4:], y[2:6], 1.0)
    np.testing.assert_allclose(y[2:6], want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


def test_operands_must_be_matrices():
    with pytest.raises(ValueError, match="2-d operands"):
        blas_gemm.gemm(np.ones(3), np.ones((3, 2)), np.empty((1, 2)))
