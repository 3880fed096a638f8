"""W5: conv1d forward + backward, batch 32, length 1024, 64 -> 64 channels, kernel 5
("valid"), float32 and float64.

The scalar is ``sum(conv1d(x, w) * g)`` for a fixed cotangent ``g``; every peer returns
its value and the gradients with respect to the input and the kernel.  The value is
part of the result so that every peer runs the forward convolution: under ``jax.jit``,
``jax.grad`` alone drops it (the loss is linear in the convolution's output, so no
gradient needs it), measured 21.7 ms against 29.2 ms for ``jax.value_and_grad`` at
float32 here; it was timed that way up to 2026-12-03's runs.  Layout is channels-last
(``(batch, length, channels)``, kernel ``(k, in, out)``) as in phylanx/Keras; torch gets
its own (batch, channels, length) layout prepared outside the timing.
phylanx: ``phylanx.ops.conv1d`` inside ``@Phylanx`` and ``phylanx.value_and_grad``;
NumPy: ``sliding_window_view`` + ``einsum`` with the backward written by hand.
phylanx's setup calls it for 1.5 s first (``common.settled``), as W1-W3's do and as JAX's
jit compiles in its own: the evaluation policy decides after a few calls (here its first
calls take what later ones do: ``benchmarks/conv_step.py``).
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

import phylanx
from phylanx import Phylanx
from phylanx.ops import conv1d

from .common import Case, settled


def conv_loss(x, w, g):
    """The phylanx workload: the scalar whose gradient is taken."""
    return np.sum(conv1d(x, w) * g)


conv_loss_grad = phylanx.value_and_grad(Phylanx(conv_loss), argnums=(0, 1))


def conv_numpy(x, w, g):
    """Forward and hand-written backward in NumPy; returns (value, (d/dx, d/dw))."""
    k = w.shape[0]
    win = sliding_window_view(x, k, axis=1)                # (B, L', C, k)
    y = np.einsum("btcj,jco->bto", win, w, optimize=True)
    value = np.sum(y * g)
    gw = np.einsum("btcj,bto->jco", win, g, optimize=True)
    gp = np.pad(g, ((0, 0), (k - 1, k - 1), (0, 0)))
    gwin = sliding_window_view(gp, k, axis=1)[..., ::-1]   # (B, L, O, k), taps flipped
    gx = np.einsum("bsoj,jco->bsc", gwin, w, optimize=True)
    return value, (gx, gw)


def setups(x, w, g):
    s = {"numpy": lambda: lambda: conv_numpy(x, w, g)}

    def phylanx_setup():
        # the evaluation policy decides after a few calls: timed is its steady state
        return settled(lambda: conv_loss_grad(x, w, g), seconds=1.5)
    s["phylanx"] = phylanx_setup

    def torch_setup():
        import torch
        tx = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 2, 1))).requires_grad_()
        tw = torch.from_numpy(np.ascontiguousarray(w.transpose(2, 1, 0))).requires_grad_()
        tg = torch.from_numpy(np.ascontiguousarray(g.transpose(0, 2, 1)))

        def run():
            tx.grad = tw.grad = None
            value = (torch.nn.functional.conv1d(tx, tw) * tg).sum()
            value.backward()
            return value, (tx.grad.transpose(1, 2), tw.grad.permute(2, 1, 0))
        return run
    s["torch"] = torch_setup

    def jax_setup():
        from .common import jax_x64
        jax = jax_x64()
        jnp = jax.numpy

        def loss(x, w, g):
            y = jax.lax.conv_general_dilated(x, w, (1,), "VALID",
                                             dimension_numbers=("NWC", "WIO", "NWC"))
            return jnp.sum(y * g)
        fn = jax.jit(jax.value_and_grad(loss, argnums=(0, 1)))
        jx, jw, jg = jnp.asarray(x), jnp.asarray(w), jnp.asarray(g)
        jax.block_until_ready(fn(jx, jw, jg))
        return lambda: jax.block_until_ready(fn(jx, jw, jg))
    s["jax"] = jax_setup
    return s


def cases(quick: bool) -> list[Case]:
    batch, length, ch, k = (8, 256, 64, 5) if quick else (32, 1024, 64, 5)
    rng = np.random.default_rng(5)
    out = []
    for dtype, tol in ((np.float32, 1e-3), (np.float64, 1e-9)):
        x = rng.normal(size=(batch, length, ch)).astype(dtype)
        w = (rng.normal(size=(k, ch, ch)) / np.sqrt(k * ch)).astype(dtype)
        g = rng.normal(size=(batch, length - k + 1, ch)).astype(dtype)
        out.append(Case("W5", f"W5 conv1d fwd+bwd {batch}x{length}, {ch}->{ch} ch, k={k}, "
                              f"{np.dtype(dtype).name}", setups(x, w, g), tol=tol,
                        why_missing={"dask": "no autodiff", "numexpr": "no convolution"}))
    return out
