"""VJP rules of products and linear algebra: dot, matmul, tensordot, inner, outer, vdot, cross,
determinant, inverse, slogdet, solve.

``dot``'s rule is written as equations (:mod:`.equations`), which ``phylanx.nn``'s
symbolic backward pass emits as statements; the others are NumPy kernels.

Every contraction is written as an ``einsum`` over labelled axes; its VJP for one operand
is the ``einsum`` of the output cotangent with the other operand back to that operand's
labels, which covers all rank combinations NumPy's ``dot`` allows.
"""
from __future__ import annotations

import string

import numpy as np

from ..errors import PhylanxValueError
from .equations import eq, equation_rule, shape_of
from .rule_helpers import arr, int_list, is_wanted, selective
from .table import VJP

_LETTERS = string.ascii_letters


def contraction_subscripts(a, b, axes_a: list[int], axes_b: list[int]) -> tuple[str, str]:
    """The einsums of the cotangents of ``tensordot(a, b, (axes_a, axes_b))``: a's from
    (ct, b), b's from (ct, a)."""
    la = list(_LETTERS[:a.ndim])
    lb = list(_LETTERS[a.ndim:a.ndim + b.ndim])
    for i, j in zip(axes_a, axes_b):
        lb[j] = la[i]
    free_a = [la[i] for i in range(a.ndim) if i not in axes_a]
    free_b = [lb[j] for j in range(b.ndim) if j not in axes_b]
    lo = "".join(free_a + free_b)
    sa, sb = "".join(la), "".join(lb)
    return f"{lo},{sb}->{sa}", f"{lo},{sa}->{sb}"


def _contraction_vjp(ct, a, b, axes_a: list[int], axes_b: list[int], wanted=None):
    """Cotangents of ``tensordot(a, b, (axes_a, axes_b))`` (output: a's free axes, then b's)."""
    for_a, for_b = contraction_subscripts(a, b, axes_a, axes_b)
    ct = np.asarray(ct)
    return (np.einsum(for_a, ct, b) if is_wanted(wanted, 0) else None,
            np.einsum(for_b, ct, a) if is_wanted(wanted, 1) else None)


@VJP.register("dot")
@equation_rule
def dot_vjp(ct, out, a, b, wanted=None):
    """numpy.dot in every rank combination, as products (equations: ``grad`` evaluates
    them, ``phylanx.nn`` emits them, one statement per operand's cotangent)."""
    sa, sb = shape_of(a), shape_of(b)
    ra, rb = len(sa), len(sb)
    if ra == 0 or rb == 0 or (ra == 1 and rb == 1):     # a multiplication
        ga = eq("__mul", ct, b, shape=sa if ra else sb)
        gb = eq("__mul", ct, a, shape=sb if rb else sa)
        if ra == 0 and rb:
            ga = eq("sum", ga, shape=())
        if rb == 0 and ra:
            gb = eq("sum", gb, shape=())
    elif ra == 2 and rb == 2:                         # a layer's product
        ga = eq("dot", ct, eq("transpose", b, shape=sb[::-1]), shape=sa)
        gb = eq("dot", eq("transpose", a, shape=sa[::-1]), ct, shape=sb)
    elif rb == 1:                                     # out = a.shape[:-1]
        ga = eq("__mul", eq("expand_dims", ct, -1, shape=sa[:-1] + (1,)), b, shape=sa)
        gb = eq("tensordot", ct, a, ra - 1, shape=sb)
    elif ra == 1:                                     # out = b.shape[:-2] + b.shape[-1:]
        free_b = [i for i in range(rb) if i != rb - 2]
        ga = eq("tensordot", ct, b, [list(range(rb - 1)), free_b], shape=sa)
        gb = eq("__mul", eq("expand_dims", a, -1, shape=sa + (1,)),
                eq("expand_dims", ct, -2, shape=sb[:-2] + (1,) + sb[-1:]), shape=sb)
    else:                                             # out = a.shape[:-1] + b's free axes
        free_b = [i for i in range(rb) if i != rb - 2]
        ga = eq("tensordot", ct, b, [list(range(ra - 1, ra + rb - 2)), free_b], shape=sa)
        lead = list(range(ra - 1))
        moved = eq("tensordot", a, ct, [lead, lead], shape=sb[-2:-1] + sb[:-2] + sb[-1:])
        gb = eq("transpose", moved, list(range(1, rb - 1)) + [0, rb - 1], shape=sb)
    return (ga if is_wanted(wanted, 0) else None, gb if is_wanted(wanted, 1) else None)


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


def tensordot_axes(x: np.ndarray, y: np.ndarray, axes) -> tuple[list[int], list[int]]:
    """``tensordot``'s ``axes`` (a count, a pair of axes, a pair of lists) as two lists."""
    if isinstance(axes, (list, tuple)) and len(axes) == 2 and not all(
            isinstance(v, (int, np.integer)) for v in axes):
        axes_a = [i % max(x.ndim, 1) for i in int_list(axes[0])]
        axes_b = [j % max(y.ndim, 1) for j in int_list(axes[1])]
    elif isinstance(axes, (list, tuple)) and len(axes) == 2:
        axes_a, axes_b = [int(axes[0]) % x.ndim], [int(axes[1]) % y.ndim]
    else:
        n = int(np.asarray(axes).reshape(()))
        axes_a, axes_b = list(range(x.ndim - n, x.ndim)), list(range(n))
    return axes_a, axes_b


@VJP.register("tensordot")
def tensordot_vjp(ct, out, a, b, axes=2):
    x, y = arr(a), arr(b)
    return _contraction_vjp(ct, x, y, *tensordot_axes(x, y, axes))


@VJP.register("inner")
def inner_vjp(ct, out, a, b):
    x, y = arr(a), arr(b)
    if x.ndim == 0 or y.ndim == 0:          # a scalar operand: a product
        return (np.sum(np.asarray(ct) * y).reshape(x.shape) if x.ndim == 0 else ct * y,
                np.sum(np.asarray(ct) * x).reshape(y.shape) if y.ndim == 0 else ct * x)
    # inner contracts the last axes of both (tensordot's rule)
    return _contraction_vjp(ct, x, y, [x.ndim - 1], [y.ndim - 1])


@VJP.register("outer")
def outer_vjp(ct, out, a, b):
    x, y = arr(a).ravel(), arr(b).ravel()
    ct = np.asarray(ct)
    return (ct @ y).reshape(np.shape(a)), (x @ ct).reshape(np.shape(b))


@VJP.register("vdot")
def vdot_vjp(ct, out, a, b):
    # out = sum(conj(a) * b): b's cotangent is ct * conj(a), a's the conjugate of ct * b
    # (JAX's convention for a conjugated operand); real operands need no conj
    x, y, ct = arr(a), arr(b), np.asarray(ct)
    return (np.conj(ct * y).reshape(x.shape), (ct * np.conj(x)).reshape(y.shape))


@VJP.register("cross")
def cross_vjp(ct, out, a, b):
    x, y = arr(a), arr(b)
    ct = np.asarray(ct)
    if x.shape[-1] == 2 and y.shape[-1] == 2:       # z component only: x0*y1 - x1*y0
        gx = np.stack([ct * y[..., 1], -ct * y[..., 0]], axis=-1)
        gy = np.stack([-ct * x[..., 1], ct * x[..., 0]], axis=-1)
        return gx, gy
    x3 = x if x.shape[-1] == 3 else np.concatenate([x, np.zeros(x.shape[:-1] + (1,), x.dtype)],
                                                   -1)
    y3 = y if y.shape[-1] == 3 else np.concatenate([y, np.zeros(y.shape[:-1] + (1,), y.dtype)],
                                                   -1)
    gx, gy = np.cross(y3, ct), np.cross(ct, x3)
    return gx[..., :x.shape[-1]], gy[..., :y.shape[-1]]


@VJP.register("determinant")
def determinant_vjp(ct, out, a):
    x = arr(a)
    # d det(A) = tr(adj(A) dA): the cotangent is ct times the cofactor matrix adj(A)^T,
    # det(A) A^-T where A is invertible; a singular matrix (det exactly 0, where inv has
    # no answer) has one all the same (JAX's: rank n-1 a non-zero one), from its SVD
    singular = np.asarray(out) == 0
    cofactors = np.empty(x.shape, np.result_type(x.dtype, np.float64 if x.dtype.kind != "f"
                                                  else x.dtype))
    regular = ~singular
    if np.any(regular):
        cofactors[regular] = (np.asarray(out)[regular][..., None, None]
                              * np.swapaxes(np.linalg.inv(x[regular]), -1, -2))
    if np.any(singular):
        cofactors[singular] = _cofactors_by_svd(x[singular])
    return (np.asarray(ct)[..., None, None] * cofactors,)


def _cofactors_by_svd(x):
    """The cofactor matrices adj(A)^T of a stack of matrices, any rank: with
    A = U diag(s) V^T, adj(A)^T = det(U) det(V) U diag(p) V^T, p_i the product of the
    singular values other than s_i (products from both ends, no division by a zero s_i)."""
    u, s, vt = np.linalg.svd(x)
    ones = np.ones(s.shape[:-1] + (1,), s.dtype)
    before = np.concatenate([ones, np.cumprod(s, -1)[..., :-1]], -1)
    after = np.concatenate([np.cumprod(s[..., ::-1], -1)[..., -2::-1], ones], -1)
    sign = np.linalg.det(u) * np.linalg.det(vt)
    return sign[..., None, None] * ((u * (before * after)[..., None, :]) @ vt)


@VJP.register("inverse", "invGJE")
def inverse_vjp(ct, out, a):
    inv_t = np.swapaxes(np.asarray(out), -1, -2)
    return (-(inv_t @ np.asarray(ct) @ inv_t),)


@VJP.register("slogdet")
def slogdet_vjp(ct, out, a):
    # d log|det A| = tr(A^-1 dA); the sign is piecewise constant (no gradient)
    ct_logdet = ct[1] if ct[1] is not None else np.zeros(np.shape(out[1]))
    scale = np.asarray(ct_logdet)[..., None, None]
    return (scale * np.swapaxes(np.linalg.inv(arr(a)), -1, -2),)


@VJP.register("solve")
def solve_vjp(ct, out, a, b):
    # x = A^-1 b: b's cotangent solves A^T g = ct, A's is -g x^T (per matrix of a stack)
    x, ct = np.asarray(out), np.asarray(ct)
    a_t = np.swapaxes(arr(a), -1, -2)
    one_rhs = np.ndim(b) == 1            # one right-hand side for every matrix: (..., M)
    g = np.linalg.solve(a_t, ct[..., None] if one_rhs else ct)
    grad_a = -(g @ np.swapaxes(x[..., None] if one_rhs else x, -1, -2))
    return grad_a, g[..., 0] if one_rhs else g


def _swapped(m, rank):
    """``m`` (of rank ``rank``: an equation's own shape is not known) with its last two
    axes exchanged (each matrix of a stack transposed)."""
    return eq("transpose", m, list(range(rank - 2)) + [rank - 1, rank - 2])


@VJP.register("matrix_power")
@equation_rule
def matrix_power_vjp(ct, out, a, n, wanted=None):
    """out = B^m (B = a, m = n; B = a^-1, m = -n if n < 0):
    B̄ = sum_k (Bᵀ)^k ct (Bᵀ)^(m-1-k), and ā = -a⁻ᵀ B̄ a⁻ᵀ for the inverse.  The sum is
    the upper right block of [[Bᵀ, ct], [0, Bᵀ]]^m: one matrix_power (repeated squaring,
    O(log m) products, as JAX's), not m terms.  Equations of primitives (matrix_power
    itself among them): derivatives of any order go through."""
    m = abs(int(n))
    if m == 0 or not is_wanted(wanted, 0):
        return (None, None)             # the identity: a constant
    shape = shape_of(a)
    size, rank = shape[-1], len(shape)
    base = eq("inverse", a) if n < 0 else a
    base_t = _swapped(base, rank)
    if m == 1:
        grad = ct
    else:
        zeros = np.zeros(tuple(shape), np.result_type(getattr(ct, "dtype", float),
                                                      getattr(a, "dtype", float)))
        block = eq("concatenate", [eq("concatenate", [base_t, ct], rank - 1),
                                   eq("concatenate", [zeros, base_t], rank - 1)], rank - 2)
        ranges = [[0, k] for k in shape[:-2]] + [[0, size], [size, 2 * size]]
        grad = eq("__subscript", eq("matrix_power", block, m), *ranges)
    if n < 0:
        grad = eq("__minus", eq("matmul", eq("matmul", base_t, grad), base_t))
    return (grad, None)
