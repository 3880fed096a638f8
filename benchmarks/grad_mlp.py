"""``value_and_grad`` of an MLP loss: phylanx's tape against ``jax.jit(jax.value_and_grad)``
in one run (issue 29 item 4's first figure).

    python benchmarks/grad_mlp.py [--batch 512] [--features 256] [--dtype float32]
                                  [--repeat 20] [--profile]

The loss: a 256-256-10 MLP (relu hidden layer, softmax cross-entropy over one-hot
labels), batch 512, gradients with respect to the four parameters.  Both peers get the
same arrays; their values and gradients are checked to agree (float32 rounding) before
timing.  Prints the median milliseconds of each and the ratio; ``--profile`` adds the
cumulative cProfile of phylanx's call (where the gap is spent).  State the machine's
load when quoting a figure: the machine is shared.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys

import numpy as np
from workloads.common import median_ms, optional

import phylanx
from phylanx import Phylanx


@Phylanx
def mlp_loss(w1, b1, w2, b2, x, labels):
    h = np.maximum(x @ w1 + b1, 0.0)
    z = h @ w2 + b2
    shifted = z - np.max(z, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(labels * log_probs) / x.shape[0]


def jax_loss(jnp):
    def loss(w1, b1, w2, b2, x, labels):
        h = jnp.maximum(x @ w1 + b1, 0.0)
        z = h @ w2 + b2
        shifted = z - jnp.max(z, axis=1, keepdims=True)
        log_probs = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=1, keepdims=True))
        return -jnp.sum(labels * log_probs) / x.shape[0]
    return loss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--features", type=int, default=256)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n, d, hidden, classes = args.batch, args.features, args.features, 10
    arrays = [rng.normal(size=(d, hidden)) * 0.05, np.zeros(hidden),
              rng.normal(size=(hidden, classes)) * 0.05, np.zeros(classes),
              rng.normal(size=(n, d)), np.eye(classes)[rng.integers(0, classes, n)]]
    arrays = [a.astype(args.dtype) for a in arrays]
    argnums = (0, 1, 2, 3)
    ours = phylanx.value_and_grad(mlp_loss, argnums)
    value, grads = ours(*arrays)
    print(f"value_and_grad of a {d}-{hidden}-{classes} MLP loss, batch {n}, {args.dtype}; "
          f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    timings = {"phylanx value_and_grad": median_ms(lambda: ours(*arrays), args.repeat)}
    jax = optional("jax")
    if jax is None:
        print("  JAX is not installed: no peer")
    else:
        if args.dtype == "float64":
            jax.config.update("jax_enable_x64", True)
        peer = jax.jit(jax.value_and_grad(jax_loss(jax.numpy), argnums))
        on_device = [jax.numpy.asarray(a) for a in arrays]
        want_value, want = peer(*on_device)
        tol = 1e-4 if args.dtype == "float32" else 1e-10
        assert np.isclose(value, float(want_value), rtol=tol), (value, want_value)
        for g, w in zip(grads, want):
            scale = float(np.abs(np.asarray(w)).max()) or 1.0
            assert float(np.abs(g - np.asarray(w)).max()) <= tol * scale * 10
        timings["jax.jit(jax.value_and_grad)"] = median_ms(
            lambda: jax.block_until_ready(peer(*on_device)), args.repeat)
    for label, ms in timings.items():
        print(f"  {label}: {ms:.2f} ms")
    if len(timings) == 2:
        ratio = timings["phylanx value_and_grad"] / timings["jax.jit(jax.value_and_grad)"]
        print(f"  ratio phylanx / JAX: {ratio:.2f}x")
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(args.repeat):
            ours(*arrays)
        profile.disable()
        pstats.Stats(profile, stream=sys.stdout).sort_stats("tottime").print_stats(18)


if __name__ == "__main__":
    main()
