"""Per-step time of a training step: phylanx.nn's compiled step vs plain NumPy vs torch.

    python benchmarks/nn_step.py [--sizes 784,512,512,10] [--batch 256] [--steps 30]

The model is an MLP (relu hidden layers, softmax output, sparse categorical
cross-entropy) trained with SGD, float32 throughout.  The NumPy reference does the same
forward, backward and update with the same formulas; torch (if installed) uses one
thread per core like NumPy's BLAS.  Reports the median time per step of each and the
ratio to NumPy.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from phylanx import nn


def numpy_step(ws, x, labels, lr, reduce=None):
    """One SGD step of the MLP in plain NumPy; returns the loss.  ``reduce(gw, gb)``, if
    given, replaces each layer's gradients in place before its update, as soon as they
    exist (``nn_data_parallel.py``'s mpi4py peer averages them over the ranks)."""
    acts, pre = [x], []
    for i in range(0, len(ws) - 2, 2):
        z = acts[-1] @ ws[i] + ws[i + 1]
        pre.append(z)
        acts.append(np.maximum(z, 0))
    z = acts[-1] @ ws[-2] + ws[-1]
    e = np.exp(z - z.max(1, keepdims=True))
    p = e / e.sum(1, keepdims=True)
    n = len(x)
    loss = -np.mean(np.log(np.clip(p[np.arange(n), labels], 1e-7, 1)))
    delta = p
    delta[np.arange(n), labels] -= 1
    delta /= n
    for layer in range(len(ws) // 2 - 1, -1, -1):
        gw, gb = acts[layer].T @ delta, delta.sum(0)
        if layer:
            delta = (delta @ ws[2 * layer].T) * (pre[layer - 1] > 0)
        if reduce is not None:
            reduce(gw, gb)
        ws[2 * layer] -= lr * gw
        ws[2 * layer + 1] -= lr * gb
    return loss


def timed(step, count):
    times = []
    for _ in range(count):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--sizes", default="784,512,512,10", help="layer widths")
    parser.add_argument("--batch", type=int, default=256, help="samples per step")
    parser.add_argument("--steps", type=int, default=30, help="timed steps (after warm-up)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], args.batch)

    nn.set_seed(0)
    model = nn.Sequential([nn.Input((sizes[0],))] +
                          [nn.Dense(s, activation="relu") for s in sizes[1:-1]] +
                          [nn.Dense(sizes[-1], activation="softmax")])
    model.compile(nn.SGD(0.01), "sparse_categorical_crossentropy")
    step = model._program("train")
    weights = model.get_weights()
    labels = y.astype(np.int64)

    def phylanx_step():
        model._train_batch(step, x, labels, True, 0, 0, None)

    for _ in range(10):                  # warm-up: the policy decides what to spawn
        phylanx_step()
    results = {"phylanx.nn (one tree)": timed(phylanx_step, args.steps)}
    ws = [w.copy() for w in weights]
    numpy_step(ws, x, y, 0.01)
    results["NumPy"] = timed(lambda: numpy_step(ws, x, y, 0.01), args.steps)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
        net = torch.nn.Sequential(*layers[:-1])
        opt = torch.optim.SGD(net.parameters(), lr=0.01)
        tx, ty = torch.tensor(x), torch.tensor(y)

        def torch_step():
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(tx), ty).backward()
            opt.step()
        torch_step()
        results["torch"] = timed(torch_step, args.steps)
    base = results["NumPy"]
    print(f"MLP {args.sizes}, batch {args.batch}, float32, SGD; median of {args.steps} steps; "
          f"{step.statements} statements in the compiled step")
    for name, seconds in results.items():
        print(f"  {name:<24}{seconds * 1e3:8.2f} ms/step   {seconds / base:5.2f}x NumPy")


if __name__ == "__main__":
    main()
