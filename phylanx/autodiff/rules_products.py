"""VJP rules of NumPy's structured products: ``kron`` and ``convolve`` (both bilinear:
each operand's cotangent is the product of the output cotangent with the other operand,
read back through the product's index map).
"""
from __future__ import annotations

import numpy as np

from .rule_helpers import arr
from .table import VJP


@VJP.register("kron")
def kron_vjp(ct, out, a, b):
    """``kron(a, b)`` reshaped to interleaved axes ``(a1, b1, a2, b2, ...)`` (both padded
    with leading ones to one rank, as NumPy's) is ``a[i] * b[k]``: each cotangent is the
    other operand contracted with the cotangent over its axes."""
    x, y = arr(a), arr(b)
    rank = max(x.ndim, y.ndim)
    xs = (1,) * (rank - x.ndim) + x.shape
    ys = (1,) * (rank - y.ndim) + y.shape
    c = np.asarray(ct).reshape([d for pair in zip(xs, ys) for d in pair])
    odd, even = list(range(1, 2 * rank, 2)), list(range(0, 2 * rank, 2))
    da = np.tensordot(c, y.reshape(ys), axes=(odd, list(range(rank))))
    db = np.tensordot(c, x.reshape(xs), axes=(even, list(range(rank))))
    return np.reshape(da, x.shape), np.reshape(db, y.shape)


@VJP.register("convolve")
def convolve_vjp(ct, out, a, v, mode="full"):
    """``full[n] = sum_k a[k] v[n - k]``; "same" and "valid" are windows of it starting
    at ``(min(N, M) - 1) // 2`` and ``min(N, M) - 1`` (NumPy's), so the cotangent is put
    back in a full-length zero array first.  Then d a = correlate(full_ct, v, "valid"),
    d v = correlate(full_ct, a, "valid"), written as convolutions with the reversed
    operand (``np.correlate`` conjugates its second operand: a complex intermediate)."""
    x, y = np.atleast_1d(arr(a)), np.atleast_1d(arr(v))
    n, m = len(x), len(y)
    ct = np.atleast_1d(np.asarray(ct))
    full = np.zeros(n + m - 1, np.result_type(ct, x, y))
    start = {"full": 0, "same": (min(n, m) - 1) // 2, "valid": min(n, m) - 1}[mode]
    full[start:start + len(ct)] = ct
    da = np.convolve(full, y[::-1], "valid")
    dv = np.convolve(full, x[::-1], "valid")
    return np.reshape(da, np.shape(a)), np.reshape(dv, np.shape(v))
