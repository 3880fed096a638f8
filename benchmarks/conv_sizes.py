"""``value_and_grad`` of a Conv1D loss over several sizes: phylanx with a setting on and
off beside ``jax.jit(jax.value_and_grad)``, calls alternated in one process (conv50).

    python benchmarks/conv_sizes.py [--setting conv_rows] [--repeat 15] [--quick]

The loss is ``grad_mlp.py``'s Conv1D classifier (conv, bias, relu, mean over the length,
dense to 10 classes, softmax cross-entropy; gradients of the four parameters), over
kernel 3 and 7, channels 16->32 and 128->128, batch 8 and 128 (length 128), "valid" and
"same" padding, float32 and float64 (``--quick``: a corner of that grid).  Printed per
size: median wall and process CPU ms per call of each peer, and the ratios to JAX
(phylanx with the setting on / off).  State the load (printed) when quoting a figure.
"""
from __future__ import annotations

import argparse
import itertools
import os
import time

import numpy as np
from workloads.common import optional

import phylanx
from phylanx import Phylanx, config
from phylanx.ops import conv1d


@Phylanx
def loss_valid(w1, b1, w2, b2, x, labels):
    h = np.maximum(conv1d(x, w1) + b1, 0.0)
    z = np.mean(h, axis=1) @ w2 + b2
    shifted = z - np.max(z, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(labels * log_probs) / x.shape[0]


@Phylanx
def loss_same(w1, b1, w2, b2, x, labels):
    h = np.maximum(conv1d(x, w1, "same") + b1, 0.0)
    z = np.mean(h, axis=1) @ w2 + b2
    shifted = z - np.max(z, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(labels * log_probs) / x.shape[0]


def jax_loss(jax, padding):
    jnp = jax.numpy

    def loss(w1, b1, w2, b2, x, labels):
        h = jax.lax.conv_general_dilated(x, w1, (1,), padding,
                                         dimension_numbers=("NWC", "WIO", "NWC"))
        h = jnp.maximum(h + b1, 0.0)
        z = jnp.mean(h, axis=1) @ w2 + b2
        shifted = z - jnp.max(z, axis=1, keepdims=True)
        log_probs = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=1, keepdims=True))
        return -jnp.sum(labels * log_probs) / x.shape[0]
    return loss


def arrays(batch, channels, outs, size, dtype):
    rng = np.random.default_rng(0)
    shapes = [(size, channels, outs), (outs,), (outs, 10), (10,), (batch, 128, channels)]
    out = [rng.normal(size=s) * (0.05 if i in (0, 2) else 1.0) for i, s in enumerate(shapes)]
    out.append(np.eye(10)[rng.integers(0, 10, batch)])
    return [a.astype(dtype) for a in out]


def timed(calls: dict, repeat: int) -> dict:
    names = list(calls)
    times = {n: ([], []) for n in names}
    for i in range(repeat):
        for n in names[i % len(names):] + names[:i % len(names)]:
            wall, cpu = time.perf_counter(), time.process_time()
            calls[n]()
            times[n][1].append((time.process_time() - cpu) * 1e3)
            times[n][0].append((time.perf_counter() - wall) * 1e3)
    return {n: (float(np.median(w)), float(np.median(c))) for n, (w, c) in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setting", default="conv_rows")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    jax = optional("jax")
    if jax is None:
        raise SystemExit("needs jax")
    jax.config.update("jax_enable_x64", True)
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(default)')}")
    grid = itertools.product((3, 7), ((16, 32), (128, 128)), (8, 128), ("valid", "same"),
                             ("float32", "float64"))
    if args.quick:
        grid = [(5, (16, 32), 64, "valid", "float32"), (3, (16, 32), 8, "same", "float64"),
                (7, (128, 128), 128, "valid", "float32"), (3, (128, 128), 8, "same",
                                                           "float32")]
    print("kernel channels batch padding dtype | wall ms on / off / jax | CPU ms on / off / "
          "jax | ratio to jax, on / off (wall; CPU)")
    for size, (channels, outs), batch, padding, dtype in grid:
        data = arrays(batch, channels, outs, size, dtype)
        ours = phylanx.value_and_grad(loss_valid if padding == "valid" else loss_same,
                                      (0, 1, 2, 3))
        peer = jax.jit(jax.value_and_grad(jax_loss(jax, padding.upper()), (0, 1, 2, 3)))
        device = [jax.numpy.asarray(a) for a in data]
        want = peer(*device)

        def with_setting(on, ours=ours, data=data):
            config.set(args.setting, on)
            try:
                return ours(*data)
            finally:
                config.reset(args.setting)
        for on in (True, False):
            value, grads = with_setting(on)
            tol = 2e-4 if dtype == "float32" else 1e-9
            assert np.isclose(value, float(want[0]), rtol=tol)
            for g, w in zip(grads, want[1]):
                scale = float(np.abs(np.asarray(w)).max()) or 1.0
                assert float(np.abs(g - np.asarray(w)).max()) <= tol * scale * 10
        t = timed({"on": lambda: with_setting(True), "off": lambda: with_setting(False),
                   "jax": lambda p=peer, d=device: jax.block_until_ready(p(*d))},
                  args.repeat)
        (won, con), (woff, coff), (wj, cj) = t["on"], t["off"], t["jax"]
        print(f"k{size} {channels}->{outs} b{batch} {padding} {dtype} | {won:.2f} / "
              f"{woff:.2f} / {wj:.2f} | {con:.2f} / {coff:.2f} / {cj:.2f} | "
              f"{won / wj:.2f}x / {woff / wj:.2f}x; {con / cj:.2f}x / {coff / cj:.2f}x",
              flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
