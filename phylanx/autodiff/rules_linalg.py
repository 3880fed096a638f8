"""VJP rules of products and linear algebra: dot, matmul, tensordot, outer, cross,
determinant, inverse.

Every contraction is written as an ``einsum`` over labelled axes; its VJP for one operand
is the ``einsum`` of the output cotangent with the other operand back to that operand's
labels, which covers all rank combinations NumPy's ``dot`` allows.
"""
from __future__ import annotations

import string

import numpy as np

from ..errors import PhylanxValueError
from .rule_helpers import arr, int_list, is_wanted, selective
from .table import VJP

_LETTERS = string.ascii_letters


def _contraction_vjp(ct, a, b, axes_a: list[int], axes_b: list[int], wanted=None):
    """Cotangents of ``tensordot(a, b, (axes_a, axes_b))`` (output: a's free axes, then b's)."""
    la = list(_LETTERS[:a.ndim])
    lb = list(_LETTERS[a.ndim:a.ndim + b.ndim])
    for i, j in zip(axes_a, axes_b):
        lb[j] = la[i]
    free_a = [la[i] for i in range(a.ndim) if i not in axes_a]
    free_b = [lb[j] for j in range(b.ndim) if j not in axes_b]
    lo = "".join(free_a + free_b)
    sa, sb = "".join(la), "".join(lb)
    ct = np.asarray(ct)
    return (np.einsum(f"{lo},{sb}->{sa}", ct, b) if is_wanted(wanted, 0) else None,
            np.einsum(f"{lo},{sa}->{sb}", ct, a) if is_wanted(wanted, 1) else None)


def _dot_axes(a: np.ndarray, b: np.ndarray) -> tuple[list[int], list[int]]:
    """The contracted axes of numpy.dot: a's last with b's only (1-d) or second-last."""
    return [a.ndim - 1], [0 if b.ndim == 1 else b.ndim - 2]


@VJP.register("dot")
@selective
def dot_vjp(ct, out, a, b, wanted=None):
    x, y = arr(a), arr(b)
    ct = np.asarray(ct)
    if x.ndim == 0 or y.ndim == 0:                  # a scalar operand multiplies
        return (ct * y if is_wanted(wanted, 0) else None,
                ct * x if is_wanted(wanted, 1) else None)
    return _contraction_vjp(ct, x, y, *_dot_axes(x, y), wanted)


@VJP.register("matmul")
@selective
def matmul_vjp(ct, out, a, b, wanted=None):
    x, y = arr(a), arr(b)
    if x.ndim == 0 or y.ndim == 0:
        raise PhylanxValueError("matmul of a scalar has no gradient (it is an error in NumPy)")
    ct = np.asarray(ct)
    # 1-d operands are promoted to matrices (and the added axis removed from the result)
    x2 = x[None, :] if x.ndim == 1 else x
    y2 = y[:, None] if y.ndim == 1 else y
    if x.ndim == 1:
        ct = np.expand_dims(ct, -2 if y.ndim > 1 else -1)
    if y.ndim == 1:
        ct = np.expand_dims(ct, -1)
    grad_x = grad_y = None
    if is_wanted(wanted, 0):
        grad_x = ct @ np.swapaxes(y2, -1, -2)       # broadcast batch axes: the engine sums
        if x.ndim == 1:
            grad_x = grad_x[..., 0, :]
    if is_wanted(wanted, 1):
        grad_y = np.swapaxes(x2, -1, -2) @ ct
        if y.ndim == 1:
            grad_y = grad_y[..., :, 0]
    return grad_x, grad_y


@VJP.register("tensordot")
def tensordot_vjp(ct, out, a, b, axes=2):
    x, y = arr(a), arr(b)
    if isinstance(axes, (list, tuple)) and len(axes) == 2 and not all(
            isinstance(v, (int, np.integer)) for v in axes):
        axes_a = [i % max(x.ndim, 1) for i in int_list(axes[0])]
        axes_b = [j % max(y.ndim, 1) for j in int_list(axes[1])]
    elif isinstance(axes, (list, tuple)) and len(axes) == 2:
        axes_a, axes_b = [int(axes[0]) % x.ndim], [int(axes[1]) % y.ndim]
    else:
        n = int(np.asarray(axes).reshape(()))
        axes_a, axes_b = list(range(x.ndim - n, x.ndim)), list(range(n))
    return _contraction_vjp(ct, x, y, axes_a, axes_b)


@VJP.register("outer")
def outer_vjp(ct, out, a, b):
    x, y = arr(a).ravel(), arr(b).ravel()
    ct = np.asarray(ct)
    return (ct @ y).reshape(np.shape(a)), (x @ ct).reshape(np.shape(b))


@VJP.register("cross")
def cross_vjp(ct, out, a, b):
    x, y = arr(a), arr(b)
    ct = np.asarray(ct)
    if x.shape[-1] == 2 and y.shape[-1] == 2:       # z component only: x0*y1 - x1*y0
        gx = np.stack([ct * y[..., 1], -ct * y[..., 0]], axis=-1)
        gy = np.stack([-ct * x[..., 1], ct * x[..., 0]], axis=-1)
        return gx, gy
    x3 = x if x.shape[-1] == 3 else np.concatenate([x, np.zeros(x.shape[:-1] + (1,))], -1)
    y3 = y if y.shape[-1] == 3 else np.concatenate([y, np.zeros(y.shape[:-1] + (1,))], -1)
    gx, gy = np.cross(y3, ct), np.cross(ct, x3)
    return gx[..., :x.shape[-1]], gy[..., :y.shape[-1]]


@VJP.register("determinant")
def determinant_vjp(ct, out, a):
    x = arr(a)
    # d det(A) = det(A) tr(A^-1 dA): the cotangent is ct * det(A) * A^-T
    scale = (np.asarray(ct) * np.asarray(out))[..., None, None]
    return (scale * np.swapaxes(np.linalg.inv(x), -1, -2),)


@VJP.register("inverse", "invGJE")
def inverse_vjp(ct, out, a):
    inv_t = np.swapaxes(np.asarray(out), -1, -2)
    return (-(inv_t @ np.asarray(ct) @ inv_t),)
