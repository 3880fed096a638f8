"""The adjoints of the convolutions and poolings as primitives, so that their VJPs are
differentiable again (nested ``grad``, ``hessian`` through conv and pooling layers).

A convolution is bilinear in (input, kernel): ``__conv_input_adjoint(ct, kernel, like)``
is the input's cotangent of ``sum(conv(x, kernel) * ct)`` and
``__conv_kernel_adjoint(x, ct, like)`` the kernel's (``like`` gives the shape).  Each is
linear in both of its operands, and the three (the convolution and its two adjoints) are
each other's VJPs, so derivatives of every order stay within them.  A pooling's adjoint
``__pool_adjoint(ct, x, name, ...)`` routes the cotangent to the cells each window read
(the first maximum, or every real cell over their count), linear in ``ct`` with ``x``
only choosing the cells; ``__pool_gather`` is its transpose (reads through the same
routes), and the two are each other's VJPs.

The kernels are those of the first-order VJP rules (``autodiff/rules_keras.py`` calls
:func:`conv_cotangents` and :func:`pool_cotangent`): convolutions and pooling are sums
over kernel taps of strided slices of the padded input, so the adjoints loop over the
taps too (positions within one tap's slice are distinct, so plain ``+=`` is exact;
stride 1 with many channels: the shifted GEMMs of ``conv_gemm.py``; the kernel's with few
input channels: one product over copied windows, ``conv_windows.py``).
"""
from __future__ import annotations

import itertools

import numpy as np

from ...errors import PhylanxValueError
from ..registry import primitive
from . import conv_gemm, conv_rows, conv_windows
from ._windows import pad_amounts, padded
from .pooling import pool as forward_pool

_NO_ORACLE = ("the adjoint of a convolution or pooling, which NumPy lacks: checked against "
              "jax.vjp and central differences in tests/autodiff (test_rules_jax.py, "
              "test_rules.py, test_nested.py)")

#: the pooling primitives by name: (spatial axes, kind)
POOLS = {"max_pool2d": (2, "max"), "avg_pool2d": (2, "avg"), "max_pool3d": (3, "max"),
         "avg_pool3d": (3, "avg")}


def _as_array(value) -> np.ndarray:
    a = np.asarray(value)
    return a if a.dtype.kind in "fc" else a.astype(np.float64)


def _per_axis(value, nsp: int) -> tuple[int, ...]:
    return tuple(int(v) for v in np.broadcast_to(np.ravel(np.asarray(value)), (nsp,)))


def _tap_slices(tap, strides, dilations, out_sizes) -> tuple:
    """The padded-input cells that kernel tap ``tap`` meets, for every output position."""
    return (slice(None),) + tuple(
        slice(t * d, t * d + s * (n - 1) + 1, s)
        for t, s, d, n in zip(tap, strides, dilations, out_sizes)) + (slice(None),)


def _padded(x: np.ndarray, pads, fill=0.0) -> np.ndarray:
    if all(p == (0, 0) for p in pads):
        return x               # "valid": padding would copy the whole input for nothing
    return padded(x, pads, fill)


def _crop(grad: np.ndarray, pads) -> np.ndarray:
    return grad[(slice(None),) + tuple(slice(b, grad.shape[i + 1] - a)
                                       for i, (b, a) in enumerate(pads)) + (slice(None),)]


# -- convolutions --------------------------------------------------------------------------

def conv_cotangents(x, kernel, ct, padding="valid", strides=1, dilation_rate=1,
                    need_x=True, need_k=True, windows=None) -> tuple:
    """(input's, kernel's) cotangent of ``sum(conv(x, kernel) * ct)``; None where not
    needed.  ``windows``: the window matrix the forward convolution multiplied
    (``conv_windows.correlate_keeping``), if it was kept: the kernel's cotangent is its
    product with ``ct``, without copying the windows again."""
    x, k = _as_array(x), _as_array(kernel)
    ct = np.asarray(ct)
    nsp = k.ndim - 2
    sizes = k.shape[:nsp]
    steps, dilations = _per_axis(strides, nsp), _per_axis(dilation_rate, nsp)
    pads = pad_amounts(x.shape[1:1 + nsp], sizes, steps, dilations, str(padding).lower())
    if need_k and ct.size and conv_windows.fits(x, k):
        # few input channels: the kernel's cotangent as one product over copied windows
        dtype = np.result_type(x, k, ct)
        grad_k = None if windows is None else \
            conv_windows.kernel_cotangent_of(windows, k.shape, ct, dtype)
        if grad_k is None:
            grad_k = conv_windows.kernel_cotangent(x, k.shape, ct, steps, dilations, pads,
                                                   dtype)
        if not need_x:
            return None, grad_k
        return conv_cotangents(x, k, ct, padding, strides, dilation_rate, need_k=False)[0], \
            grad_k
    if need_k and ct.size and conv_rows.fits(x, k, steps, dilations, pads):
        # a 1-d convolution (windows up to 1 KiB): the kernel's cotangent over the window
        # matrix read in place
        grad_k = conv_rows.kernel_cotangent(x, k.shape, ct, steps, pads,
                                            np.result_type(x, k, ct))
        if not need_x:
            return None, grad_k
        return conv_cotangents(x, k, ct, padding, strides, dilation_rate, need_k=False)[0], \
            grad_k
    xpad = _padded(x, pads)
    if all(s == 1 for s in steps) and ct.size and x.shape[-1] >= conv_gemm.MIN_CHANNELS:
        grad_xpad, grad_k = conv_gemm.correlate_vjp(xpad, k, ct, dilations, need_x, need_k)
        return None if grad_xpad is None else _crop(grad_xpad, pads), grad_k
    grad_xpad = np.zeros(xpad.shape, np.result_type(x, k, ct)) if need_x else None
    grad_k = np.zeros(k.shape, np.result_type(x, k, ct)) if need_k else None
    out_sizes = ct.shape[1:1 + nsp]
    spatial = list(range(nsp + 1))                       # batch and output positions
    for tap in itertools.product(*(range(n) for n in sizes)):
        where = _tap_slices(tap, steps, dilations, out_sizes)
        if need_k:
            cells = xpad[where]                          # (B, *out, C)
            grad_k[tap] = np.tensordot(cells, ct, axes=(spatial, spatial))
        if need_x:
            grad_xpad[where] += ct @ k[tap].T
    return None if grad_xpad is None else _crop(grad_xpad, pads), grad_k


def _checked_like(like, what: str) -> np.ndarray:
    if not isinstance(like, np.ndarray) or like.ndim not in (3, 4, 5):
        raise PhylanxValueError(f"{what} takes the array whose shape it answers in (rank 3 "
                                f"to 5), got {type(like).__name__}")
    return like


@primitive(
    "__conv_input_adjoint",
    '__conv_input_adjoint(_1_ct, _2_kernel, _3_like, __arg(_4_padding, "valid"), '
    "__arg(_5_strides, 1), __arg(_6_dilation_rate, 1))",
    extension=True, internal=True, differentiable=True, no_oracle=_NO_ORACLE,
    example="__conv_input_adjoint([[[1.], [1.]]], [[[1.]], [[2.]]], [[[0.], [0.], [0.]]])",
    result="[[[1.], [3.], [2.]]]",
)
def conv_input_adjoint(ct, kernel, like, padding="valid", strides=1, dilation_rate=1):
    """The cotangent of a convolution's input for the output cotangent ``ct``.

    Shaped as ``like``: the transposed convolution of ``ct`` with ``kernel``."""
    x = _checked_like(like, "__conv_input_adjoint")
    return conv_cotangents(x, kernel, ct, padding, strides, dilation_rate,
                           need_k=False)[0]


@primitive(
    "__conv_kernel_adjoint",
    '__conv_kernel_adjoint(_1, _2_ct, _3_like, __arg(_4_padding, "valid"), '
    "__arg(_5_strides, 1), __arg(_6_dilation_rate, 1))",
    extension=True, internal=True, differentiable=True, no_oracle=_NO_ORACLE,
    example="__conv_kernel_adjoint([[[1.], [2.], [3.]]], [[[1.], [1.]]], [[[0.]], [[0.]]])",
    result="[[[3.]], [[5.]]]",
)
def conv_kernel_adjoint(x, ct, like, padding="valid", strides=1, dilation_rate=1):
    """The cotangent of a convolution's kernel for the input ``x`` and output cotangent ``ct``.

    Shaped as ``like``: the correlation of ``x`` with ``ct``."""
    kernel = _checked_like(like, "__conv_kernel_adjoint")
    return conv_cotangents(x, kernel, ct, padding, strides, dilation_rate,
                           need_x=False)[1]


# -- pooling -------------------------------------------------------------------------------

def _pool_geometry(name, x, ct, pool_size, padding, strides):
    """(nsp, kind, the layout adding batch/channel axes, sizes, steps, pads, out sizes)."""
    if name not in POOLS:
        raise PhylanxValueError(f"pooling must be one of {sorted(POOLS)}, got {name!r}")
    nsp, kind = POOLS[name]
    lead = nsp + 2 - np.ndim(x)                          # the batch/channel axes added
    layout = (np.newaxis,) * min(lead, 1) + (Ellipsis,) + (np.newaxis,) * (lead == 2)
    a4 = _as_array(x)[layout]
    sizes = _per_axis(pool_size, nsp)
    steps = _per_axis(1 if strides is None else strides, nsp)
    pads = pad_amounts(a4.shape[1:1 + nsp], sizes, steps, (1,) * nsp, str(padding).lower())
    out_sizes = np.asarray(ct)[layout].shape[1:1 + nsp]
    return nsp, kind, layout, a4, sizes, steps, pads, out_sizes


def _routes(kind, a4, best, sizes, steps, pads, out_sizes):
    """Per kernel tap: its cells' slice and, for a max, whether each is its window's first
    maximum, for an average, the count of real cells of each window (the divisor)."""
    nsp = len(sizes)
    ones = (1,) * nsp
    taps = list(itertools.product(*(range(n) for n in sizes)))
    if kind == "max":
        xpad = _padded(a4, pads, -np.inf)
        taken = np.zeros(best.shape, bool)
        for tap in taps:
            where = _tap_slices(tap, steps, ones, out_sizes)
            hit = (xpad[where] == best) & ~taken
            taken |= hit
            yield where, hit
        return
    real = _padded(np.ones((1,) + a4.shape[1:-1] + (1,)), pads)
    counts = sum(real[_tap_slices(tap, steps, ones, out_sizes)] for tap in taps)
    for tap in taps:
        yield _tap_slices(tap, steps, ones, out_sizes), counts


def pool_cotangent(ct, x, out, name, pool_size, padding="valid", strides=None):
    """The cotangent of pooling ``name``'s input ``x`` (which gave ``out``)."""
    nsp, kind, layout, a4, sizes, steps, pads, out_sizes = _pool_geometry(
        name, x, ct, pool_size, padding, strides)
    ct4 = np.asarray(ct)[layout]
    grad = np.zeros(_padded(a4, pads).shape, ct4.dtype)
    for where, route in _routes(kind, a4, np.asarray(out)[layout], sizes, steps, pads,
                                out_sizes):
        grad[where] += np.where(route, ct4, 0.0) if kind == "max" else ct4 / route
    return _crop(grad, pads).reshape(np.shape(x))


@primitive(
    "__pool_adjoint",
    '__pool_adjoint(_1_ct, _2, _3_name, _4_pool_size, __arg(_5_padding, "valid"), '
    "__arg(_6_strides, nil))",
    extension=True, internal=True, differentiable=True, no_oracle=_NO_ORACLE,
    example='__pool_adjoint([[2.]], [[1., 5.], [4., 3.]], "max_pool2d", list(2, 2))',
    result="[[0., 2.], [0., 0.]]",
)
def pool_adjoint(ct, x, name, pool_size, padding="valid", strides=None):
    """The cotangent of the input ``x`` of pooling ``name`` for the output cotangent ``ct``.

    ``ct`` routed to the first maximum of each window, or spread over its real cells."""
    out = forward_pool(x, pool_size, padding, strides, name)
    return pool_cotangent(ct, x, out, name, pool_size, padding, strides)


@primitive(
    "__pool_gather",
    '__pool_gather(_1, _2, _3_name, _4_pool_size, __arg(_5_padding, "valid"), '
    "__arg(_6_strides, nil))",
    extension=True, internal=True, differentiable=True, no_oracle=_NO_ORACLE,
    example='__pool_gather([[1., 2.], [3., 4.]], [[1., 5.], [4., 3.]], "max_pool2d", '
            'list(2, 2))',
    result="[[2.]]",
)
def pool_gather(g, x, name, pool_size, padding="valid", strides=None):
    """``g`` (shaped as the pooling's input ``x``) read through ``__pool_adjoint``'s routes.

    Per window, ``g`` at the first maximum of ``x``, or the mean of ``g`` over the
    window's real cells; shaped as the pooling's output."""
    out = forward_pool(x, pool_size, padding, strides, name)
    nsp, kind, layout, a4, sizes, steps, pads, out_sizes = _pool_geometry(
        name, x, out, pool_size, padding, strides)
    best = np.asarray(out)[layout]
    gpad = _padded(_as_array(g)[layout], pads)
    result = np.zeros(best.shape, np.result_type(gpad.dtype, np.float16))
    for where, route in _routes(kind, a4, best, sizes, steps, pads, out_sizes):
        result += np.where(route, gpad[where], 0.0) if kind == "max" \
            else gpad[where] / route
    return result.reshape(np.shape(out))
