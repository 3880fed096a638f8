"""``c = a @ b + beta * c`` in place, one BLAS ``gemm`` call that releases the GIL.

Why: the shifted-GEMM convolutions (``keras_support/conv_gemm.py``) accumulate one
product per kernel tap into the same output, which NumPy cannot do without a temporary
and an add (``matmul`` has no ``beta``).  SciPy's ``gemm`` wrapper does, but keeps the
GIL for the whole product, so row blocks run on two task threads took as long as on one
(``python benchmarks/conv_forms.py``, W5's forward as two row blocks on 2 cores:
17.7/19.3 ms through SciPy's wrapper, 8.5/9.2 ms through this call,
``benchmarks/results/2026-12-04-conv-forms.txt``).  Here the
same Fortran ``?gemm`` of SciPy's BLAS (``scipy.linalg.cython_blas``, its public C
API) is called through ``ctypes``, which drops the GIL during the call.

``a`` and ``b`` are 2-D views with one unit stride each (row-major or a transposed
row-major array), ``c`` a row-major view; anything else, an output sharing memory with
an operand, an integer dtype, or sizes past BLAS's 32-bit integers go
through NumPy instead, with the same result.  SciPy's BLAS is a library of its own, so
loading it asks ``runtime/blas_threads.py`` to include it in the thread policy.
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from ..runtime import blas_threads

_FUNCTIONS = {np.dtype(np.float32): "sgemm", np.dtype(np.float64): "dgemm",
              np.dtype(np.complex64): "cgemm", np.dtype(np.complex128): "zgemm"}
_INT_MAX = 2**31 - 1
_lock = threading.Lock()
_loaded: dict[np.dtype, object] | None = None
_NO, _YES = ctypes.c_char(b"N"), ctypes.c_char(b"T")


def _load() -> dict[np.dtype, object]:
    """The four ``?gemm`` of SciPy's BLAS as ctypes functions ({} if unavailable)."""
    global _loaded
    if _loaded is not None:
        return _loaded
    with _lock:
        if _loaded is None:
            found = {}
            try:
                from scipy.linalg import cython_blas
                # own prototypes: pythonapi's shared function objects stay untouched
                pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object,
                                            ctypes.c_char_p)(("PyCapsule_GetPointer",
                                                              ctypes.pythonapi))
                name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(
                    ("PyCapsule_GetName", ctypes.pythonapi))
                signature = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 13)
                for dtype, routine in _FUNCTIONS.items():
                    capsule = cython_blas.__pyx_capi__[routine]
                    found[dtype] = signature(pointer(capsule, name(capsule)))
            except (ImportError, KeyError, AttributeError, OSError):  # pragma: no cover
                found = {}
            if found:
                blas_threads.include_loaded_libraries()
            _loaded = found
    return _loaded


def _layout(m: np.ndarray) -> tuple[ctypes.c_char, int] | None:
    """How BLAS (column-major) reads the transpose of the row-major-indexed view ``m``:
    (trans flag, leading dimension), None when ``m`` has no unit stride."""
    item = m.itemsize
    rows, cols = m.shape
    s0, s1 = m.strides
    if (s1 == item or cols == 1) and s0 % item == 0 and s0 // item >= max(cols, 1):
        return _NO, s0 // item           # its transpose is column-major as stored
    if (s0 == item or rows == 1) and s1 % item == 0 and s1 // item >= max(rows, 1):
        return _YES, s1 // item          # it is column-major itself: BLAS transposes
    return None


def _numpy(a: np.ndarray, b: np.ndarray, c: np.ndarray, beta: float) -> None:
    if beta == 0:
        np.matmul(a, b, out=c)
    else:
        if beta != 1:
            c *= beta
        c += a @ b


def gemm(a: np.ndarray, b: np.ndarray, c: np.ndarray, beta: float = 0.0) -> None:
    """``c[...] = a @ b + beta * c`` for 2-D ``a (m, k)``, ``b (k, n)``, ``c (m, n)`` of
    one dtype (``c`` overlapping ``a`` or ``b`` is computed through NumPy, which copies).
    With ``beta = 0`` ``c`` is never read (it may hold anything, NaN included)."""
    if a.ndim != 2 or b.ndim != 2 or c.ndim != 2:
        raise ValueError(f"gemm: 2-d operands needed, got {a.ndim}-d @ {b.ndim}-d -> "
                         f"{c.ndim}-d")
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2 or c.shape != (m, n) or not (a.dtype == b.dtype == c.dtype):
        raise ValueError(f"gemm: shapes {a.shape} @ {b.shape} -> {c.shape}, dtypes "
                         f"{a.dtype}, {b.dtype}, {c.dtype} do not fit")
    if m == 0 or n == 0:
        return
    if k == 0:
        if beta == 0:
            c.fill(0)
        else:
            c *= beta
        return
    call = _load().get(c.dtype)
    out = _layout(c)
    # C^T (n x m, column-major as C is stored) = B^T A^T: BLAS's first operand is b
    first, second = _layout(b), _layout(a)
    if (call is None or out is None or out[0] is _YES or first is None or second is None
            or max(m, n, k, out[1], first[1], second[1]) > _INT_MAX
            or not c.flags.writeable
            or np.may_share_memory(c, a) or np.may_share_memory(c, b)):
        _numpy(a, b, c, beta)
        return
    scalars = np.array([1, beta], c.dtype)
    alpha, beta_p = scalars.ctypes.data, scalars.ctypes.data + c.itemsize
    ref = ctypes.byref
    call(ref(first[0]), ref(second[0]), ref(ctypes.c_int(n)), ref(ctypes.c_int(m)),
         ref(ctypes.c_int(k)), alpha, b.ctypes.data, ref(ctypes.c_int(first[1])),
         a.ctypes.data, ref(ctypes.c_int(second[1])), beta_p, c.ctypes.data,
         ref(ctypes.c_int(out[1])))
