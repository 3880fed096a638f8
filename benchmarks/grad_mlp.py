"""``value_and_grad`` of an MLP loss and of a Conv1D loss: phylanx's tape against
``jax.jit(jax.value_and_grad)`` in one run (issue 29 item 4's first figures).

    python benchmarks/grad_mlp.py [--model mlp|conv1d|both|conv1d-causal|conv1d-strided|
                                           conv1d-fresh|conv1d-residual|all]
                                  [--batch 512]
                                  [--features 256] [--dtype float32] [--repeat 20]
                                  [--profile]

``mlp``: a 256-256-10 MLP (relu hidden layer, softmax cross-entropy over one-hot
labels), batch 512.  ``conv1d``: a Conv1D classifier (16 -> 32 channels, kernel 5,
"valid", relu, mean over the length, dense to 10 classes, the same loss), batch 64,
length 128.  Two more Conv1D losses spelled otherwise, on the same arrays (that a speed-up
is not the one spelling's): ``conv1d-causal`` ("causal" padding, the layer in a helper
function, ``maximum(0.0, .)``, global max pooling, a squared error) and
``conv1d-strided`` ("same" padding, stride 2, tanh, ``sum / length``, ``np.dot``);
``conv1d-fresh`` (cg43's check on a spelling no change was made for: "same" padding,
dilation 2, a bias subtracted, ``minimum(., 1.0)``, global min pooling, ``.dot``, a
sum of squares over the batch); ``conv1d-residual`` (conv44's check: "same" padding,
tanh, a pointwise second convolution as an ``einsum``, a residual add of the input's
first channels, a mean of squares plus a label term).
Gradients with respect to the four parameters.  Both peers get the same
arrays; their values and gradients are checked to agree (float32 rounding) before
timing.  The peers' calls alternate (round robin), so that a change of the machine's
load hits both; printed per peer: the median wall milliseconds and the median process
CPU milliseconds per call (all threads: less disturbed by other processes on a shared
machine than wall time), and each ratio.  ``--profile`` adds the cProfile of phylanx's
calls (where the gap is spent).  State the machine's load when quoting a figure.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time

import numpy as np
from workloads.common import optional

import phylanx
from phylanx import Phylanx
from phylanx.ops import conv1d


@Phylanx
def mlp_loss(w1, b1, w2, b2, x, labels):
    h = np.maximum(x @ w1 + b1, 0.0)
    z = h @ w2 + b2
    shifted = z - np.max(z, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(labels * log_probs) / x.shape[0]


@Phylanx
def conv_loss(w1, b1, w2, b2, x, labels):
    h = np.maximum(conv1d(x, w1) + b1, 0.0)
    z = np.mean(h, axis=1) @ w2 + b2
    shifted = z - np.max(z, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(labels * log_probs) / x.shape[0]


@Phylanx
def causal_features(x, w1, b1):
    return np.maximum(0.0, conv1d(x, w1, "causal") + b1)


@Phylanx
def conv_loss_causal(w1, b1, w2, b2, x, labels):
    z = np.max(causal_features(x, w1, b1), axis=1) @ w2 + b2
    return np.mean((z - labels) ** 2)


@Phylanx
def conv_loss_strided(w1, b1, w2, b2, x, labels):
    h = np.tanh(conv1d(x, w1, "same", 2) + b1)
    z = np.dot(np.sum(h, axis=1) / h.shape[1], w2) + b2
    shifted = z - np.max(z, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(labels * log_probs) / x.shape[0]


@Phylanx
def conv_loss_fresh(w1, b1, w2, b2, x, labels):
    h = np.minimum(conv1d(x, w1, "same", 1, 2) - b1, 1.0)
    z = np.min(h, axis=1).dot(w2) - b2
    return np.sum((z - labels) ** 2) / x.shape[0]


@Phylanx
def conv_loss_residual(w1, b1, w2, b2, x, labels):
    h = np.tanh(conv1d(x, w1, "same") + b1)
    y = np.einsum("blc,ck->blk", h, w2) + b2 + x[:, :, :10]
    return np.mean(y ** 2) + np.sum(labels * np.mean(y, axis=1)) / x.shape[0]


LOSSES = {"mlp": mlp_loss, "conv1d": conv_loss, "conv1d-causal": conv_loss_causal,
          "conv1d-strided": conv_loss_strided, "conv1d-fresh": conv_loss_fresh,
          "conv1d-residual": conv_loss_residual}


def jax_loss(jnp, model="mlp"):
    from jax import lax

    def conv(x, w1, padding, stride=1, dilation=1):
        return lax.conv_general_dilated(x, w1, (stride,), padding, rhs_dilation=(dilation,),
                                        dimension_numbers=("NWC", "WIO", "NWC"))

    def layer(x, w1):
        if model == "mlp":
            return x @ w1
        return conv(x, w1, "VALID")

    if model == "conv1d-causal":
        def causal(w1, b1, w2, b2, x, labels):
            h = jnp.maximum(0.0, conv(x, w1, [(w1.shape[0] - 1, 0)]) + b1)
            return jnp.mean((jnp.max(h, axis=1) @ w2 + b2 - labels) ** 2)
        return causal
    if model == "conv1d-fresh":
        def fresh(w1, b1, w2, b2, x, labels):
            h = jnp.minimum(conv(x, w1, "SAME", dilation=2) - b1, 1.0)
            z = jnp.min(h, axis=1).dot(w2) - b2
            return jnp.sum((z - labels) ** 2) / x.shape[0]
        return fresh
    if model == "conv1d-residual":
        def residual(w1, b1, w2, b2, x, labels):
            h = jnp.tanh(conv(x, w1, "SAME") + b1)
            y = jnp.einsum("blc,ck->blk", h, w2) + b2 + x[:, :, :10]
            return jnp.mean(y ** 2) + jnp.sum(labels * jnp.mean(y, axis=1)) / x.shape[0]
        return residual
    if model == "conv1d-strided":
        def strided(w1, b1, w2, b2, x, labels):
            h = jnp.tanh(conv(x, w1, "SAME", 2) + b1)
            z = jnp.dot(jnp.sum(h, axis=1) / h.shape[1], w2) + b2
            shifted = z - jnp.max(z, axis=1, keepdims=True)
            log_probs = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=1, keepdims=True))
            return -jnp.sum(labels * log_probs) / x.shape[0]
        return strided

    def loss(w1, b1, w2, b2, x, labels):
        h = jnp.maximum(layer(x, w1) + b1, 0.0)
        z = (h if model == "mlp" else jnp.mean(h, axis=1)) @ w2 + b2
        shifted = z - jnp.max(z, axis=1, keepdims=True)
        log_probs = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=1, keepdims=True))
        return -jnp.sum(labels * log_probs) / x.shape[0]
    return loss


def problem(model: str, batch: int, features: int, dtype: str) -> tuple[list, str]:
    """The arrays (parameters, input, one-hot labels) and a description."""
    rng = np.random.default_rng(0)
    classes = 10
    if model == "mlp":
        n, d = batch, features
        shapes = [(d, d), (d,), (d, classes), (classes,), (n, d)]
        what = f"{d}-{d}-{classes} MLP loss, batch {n}"
    else:
        n, length, c_in, c_out, k = max(batch // 8, 1), 128, 16, 32, 5
        shapes = [(k, c_in, c_out), (c_out,), (c_out, classes), (classes,), (n, length, c_in)]
        what = (f"{model} loss ({c_in}->{c_out} channels, kernel {k}, length {length}, "
                f"{classes} classes), batch {n}")
    arrays = [rng.normal(size=s) * (0.05 if i < 4 and len(s) > 1 else 1.0) if i != 1 and
              i != 3 else np.zeros(s) for i, s in enumerate(shapes)]
    arrays.append(np.eye(classes)[rng.integers(0, classes, n)])
    return [a.astype(dtype) for a in arrays], f"{what}, {dtype}"


def alternate(calls: dict, repeat: int) -> dict:
    """(wall ms, CPU ms) of each call, the calls taken in rotating order."""
    names = list(calls)
    for fn in calls.values():
        fn()
    times = {n: ([], []) for n in names}
    for i in range(repeat):
        for n in names[i % len(names):] + names[:i % len(names)]:
            wall, cpu = time.perf_counter(), time.process_time()
            calls[n]()
            times[n][1].append((time.process_time() - cpu) * 1e3)
            times[n][0].append((time.perf_counter() - wall) * 1e3)
    return {n: (float(np.median(w)), float(np.median(c))) for n, (w, c) in times.items()}


def run(model: str, args: argparse.Namespace, jax) -> None:
    arrays, what = problem(model, args.batch, args.features, args.dtype)
    loss = LOSSES[model]
    ours = phylanx.value_and_grad(loss, (0, 1, 2, 3))
    value, grads = ours(*arrays)
    print(f"value_and_grad of a {what}")
    calls = {"phylanx value_and_grad": lambda: ours(*arrays)}
    if jax is None:
        print("  JAX is not installed: no peer")
    else:
        peer = jax.jit(jax.value_and_grad(jax_loss(jax.numpy, model), (0, 1, 2, 3)))
        on_device = [jax.numpy.asarray(a) for a in arrays]
        want_value, want = peer(*on_device)
        tol = 1e-4 if args.dtype == "float32" else 1e-10
        assert np.isclose(value, float(want_value), rtol=tol), (value, want_value)
        for g, w in zip(grads, want):
            scale = float(np.abs(np.asarray(w)).max()) or 1.0
            assert float(np.abs(g - np.asarray(w)).max()) <= tol * scale * 10
        calls["jax.jit(jax.value_and_grad)"] = lambda: jax.block_until_ready(peer(*on_device))
    timings = alternate(calls, args.repeat)
    for label, (wall, cpu) in timings.items():
        print(f"  {label}: {wall:.2f} ms (CPU {cpu:.2f} ms)")
    if len(timings) == 2:
        (ours_wall, ours_cpu), (jax_wall, jax_cpu) = timings.values()
        print(f"  ratio phylanx / JAX: {ours_wall / jax_wall:.2f}x "
              f"(CPU {ours_cpu / max(jax_cpu, 1e-9):.2f}x)")
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(args.repeat):
            ours(*arrays)
        profile.disable()
        pstats.Stats(profile, stream=sys.stdout).sort_stats("tottime").print_stats(18)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=(*LOSSES, "both", "all"), default="both")
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--features", type=int, default=256)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    jax = optional("jax")
    if jax is not None and args.dtype == "float64":
        jax.config.update("jax_enable_x64", True)
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    models = {"both": ("mlp", "conv1d"), "all": tuple(LOSSES)}.get(args.model, (args.model,))
    for model in models:
        run(model, args, jax)


if __name__ == "__main__":
    main()
