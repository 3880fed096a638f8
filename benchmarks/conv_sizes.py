"""``value_and_grad`` of a Conv1D loss over several sizes beside
``jax.jit(jax.value_and_grad)`` (and phylanx with a setting on and off), calls
alternated in one process (conv50).

    python benchmarks/conv_sizes.py [--setting NAME] [--repeat 15] [--quick]
                                    [--kernels 3,7] [--dtypes float32,float64]

The loss is ``grad_mlp.py``'s Conv1D classifier (conv, bias, relu, mean over the length,
dense to 10 classes, softmax cross-entropy; gradients of the four parameters), over
kernel 3 and 7, channels 16->32 and 128->128, batch 8 and 128 (length 128), "valid" and
"same" padding, float32 and float64 (``--quick``: a corner of that grid).  Printed per
size: median wall and process CPU ms per call of each peer and the ratios to JAX (with
``--setting``: phylanx with that boolean setting on and off, e.g. ``conv_blocks``).  State
the load (printed) when quoting a figure.
"""
from __future__ import annotations

import argparse
import itertools
import os
import time

import numpy as np
from grad_mlp import conv_loss as loss_valid  # (grad_mlp.py's Conv1D loss, 'valid')
from workloads.common import optional

import phylanx
from phylanx import Phylanx, config
from phylanx.ops import conv1d


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
    parser.add_argument("--setting", default=None)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--kernels", default="3,7", help="kernel sizes, e.g. 7")
    parser.add_argument("--dtypes", default="float32,float64")
    args = parser.parse_args()
    jax = optional("jax")
    if jax is None:
        raise SystemExit("needs jax")
    jax.config.update("jax_enable_x64", True)
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(default)')}")
    grid = itertools.product([int(k) for k in args.kernels.split(",")],
                             ((16, 32), (128, 128)), (8, 128), ("valid", "same"),
                             args.dtypes.split(","))
    if args.quick:
        grid = [(5, (16, 32), 64, "valid", "float32"), (3, (16, 32), 8, "same", "float64"),
                (7, (128, 128), 128, "valid", "float32"), (3, (128, 128), 8, "same",
                                                           "float32")]
    who = "phylanx on / off" if args.setting else "phylanx"
    print(f"kernel channels batch padding dtype | wall ms {who} / jax | CPU ms {who} / jax "
          f"| ratio to jax, {who} (wall; CPU)")
    for size, (channels, outs), batch, padding, dtype in grid:
        data = arrays(batch, channels, outs, size, dtype)
        ours = phylanx.value_and_grad(loss_valid if padding == "valid" else loss_same,
                                      (0, 1, 2, 3))
        peer = jax.jit(jax.value_and_grad(jax_loss(jax, padding.upper()), (0, 1, 2, 3)))
        device = [jax.numpy.asarray(a) for a in data]
        want = peer(*device)

        def with_setting(on, ours=ours, data=data):
            if args.setting is None:
                return ours(*data)
            config.set(args.setting, on)
            try:
                return ours(*data)
            finally:
                config.reset(args.setting)
        sides = (True, False) if args.setting else (True,)
        for on in sides:
            value, grads = with_setting(on)
            tol = 2e-4 if dtype == "float32" else 1e-9
            assert np.isclose(value, float(want[0]), rtol=tol)
            for g, w in zip(grads, want[1]):
                scale = float(np.abs(np.asarray(w)).max()) or 1.0
                assert float(np.abs(g - np.asarray(w)).max()) <= tol * scale * 10
        calls = {"jax": lambda p=peer, d=device: jax.block_until_ready(p(*d))}
        for on in sides:
            calls["on" if on else "off"] = lambda on=on: with_setting(on)
        t = timed(calls, args.repeat)
        wj, cj = t["jax"]
        walls = " / ".join(f"{t[n][0]:.2f}" for n in ("on", "off") if n in t)
        cpus = " / ".join(f"{t[n][1]:.2f}" for n in ("on", "off") if n in t)
        ratios = " / ".join(f"{t[n][0] / wj:.2f}x" for n in ("on", "off") if n in t)
        cratios = " / ".join(f"{t[n][1] / cj:.2f}x" for n in ("on", "off") if n in t)
        print(f"k{size} {channels}->{outs} b{batch} {padding} {dtype} | {walls} / {wj:.2f} | "
              f"{cpus} / {cj:.2f} | {ratios}; {cratios}", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
