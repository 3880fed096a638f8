"""Per-step time of the transformer encoder block (examples/transformer.py): phylanx.nn
vs Keras 3 on JAX (vs torch, if installed), side by side in one run.

    python benchmarks/transformer_step.py [--steps 32] [--dim 64] [--batch 64] [--calls 30]

The model is the example's (TokenAndPositionEmbedding, MultiHeadAttention, Add,
LayerNormalization, Dense feed-forward, dropout, GlobalAveragePooling1D, softmax
Dense), trained with Adam on the example's generated data.  The peers start from the
same weights; calls alternate between them (round robin), so a change in the
machine's load hits all alike.  Keras runs ``train_on_batch`` (its step compiled by
XLA); torch (optional) the same layers with ``torch.nn.MultiheadAttention``.  Reports
the median time per step of each (wall clock and CPU time, ``time.process_time``: on a
loaded machine the latter says more), the ratio to Keras and, when torch is installed,
to torch (issue 29's target: within 1.5x of PyTorch), the load average and the CPU.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import platform
import statistics
import sys
import time

os.environ.setdefault("KERAS_BACKEND", "jax")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))

import numpy as np  # noqa: E402
import transformer  # noqa: E402

from phylanx import nn  # noqa: E402


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def torch_step_of(torch, sizes: dict, dropout: float, weights: list, x, y, lr: float):
    """The same model in torch (weights copied from the phylanx layout), or None."""
    steps, vocab, dim, heads, hidden = (sizes[k] for k in ("steps", "vocab", "dim", "heads",
                                                           "hidden"))
    tn = torch.nn

    class Block(tn.Module):
        def __init__(self):
            super().__init__()
            self.tokens, self.positions = tn.Embedding(vocab, dim), tn.Embedding(steps, dim)
            self.attention = tn.MultiheadAttention(dim, heads, dropout=dropout,
                                                   batch_first=True)
            self.norm1, self.norm2 = tn.LayerNorm(dim, eps=1e-6), tn.LayerNorm(dim, eps=1e-6)
            self.ff1, self.ff2 = tn.Linear(dim, hidden), tn.Linear(hidden, dim)
            self.out = tn.Linear(dim, 2)
            self.drop = tn.Dropout(dropout)

        def forward(self, ids):
            h = self.tokens(ids) + self.positions.weight[:ids.shape[1]]
            a, _ = self.attention(h, h, h, need_weights=False)
            h = self.norm1(h + self.drop(a))
            f = self.ff2(torch.relu(self.ff1(h)))
            h = self.norm2(h + self.drop(f))
            return self.out(self.drop(h.mean(dim=1)))

    net = Block()
    w = [torch.tensor(v) for v in weights]
    with torch.no_grad():       # phylanx's order: see examples/transformer.py
        net.tokens.weight.copy_(w[0])
        net.positions.weight.copy_(w[1])
        qkv = [w[i].reshape(dim, dim).T for i in (2, 4, 6)]
        net.attention.in_proj_weight.copy_(torch.cat(qkv))
        net.attention.in_proj_bias.copy_(torch.cat([w[i].reshape(-1) for i in (3, 5, 7)]))
        net.attention.out_proj.weight.copy_(w[8].reshape(dim, dim).T)
        net.attention.out_proj.bias.copy_(w[9])
        for layer, k in ((net.norm1, 10), (net.ff1, 12), (net.ff2, 14), (net.norm2, 16),
                         (net.out, 18)):
            layer.weight.copy_(w[k].T if w[k].ndim == 2 else w[k])
            layer.bias.copy_(w[k + 1])
    opt = torch.optim.Adam(net.parameters(), lr=lr, eps=1e-7)
    ids, labels = torch.tensor(x.astype(np.int64)), torch.tensor(y)

    def step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(ids), labels).backward()
        opt.step()
    return step


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--steps", type=int, default=32, help="tokens per sequence")
    parser.add_argument("--vocab", type=int, default=64, help="vocabulary size")
    parser.add_argument("--dim", type=int, default=64, help="embedding width")
    parser.add_argument("--heads", type=int, default=4, help="attention heads")
    parser.add_argument("--batch", type=int, default=64, help="samples per step")
    parser.add_argument("--dropout", type=float, default=0.1, help="dropout rate")
    parser.add_argument("--calls", type=int, default=30, help="timed steps per peer")
    parser.add_argument("--warmup", type=int, default=5, help="untimed steps per peer")
    args = parser.parse_args(argv)
    sizes = {"steps": args.steps, "vocab": args.vocab, "dim": args.dim, "heads": args.heads,
             "hidden": 2 * args.dim}
    x, y = transformer.order_data(args.batch, args.steps, args.vocab, seed=0)
    lr = 1e-3

    nn.set_seed(0)
    model = transformer.build(**sizes, dropout=args.dropout)
    model.compile(nn.Adam(lr), "sparse_categorical_crossentropy")
    program = model._program("train")
    weights = model.get_weights()
    peers = {"phylanx.nn (one tree)": lambda: model._train_batch(program, x, y, True, 0, 0,
                                                                 None)}
    import keras
    theirs = transformer.keras_model(**sizes, dropout=args.dropout)
    theirs.set_weights(weights)
    theirs.compile(keras.optimizers.Adam(lr), "sparse_categorical_crossentropy")
    xi = x.astype(np.int32)
    peers["Keras 3 (JAX, XLA)"] = lambda: theirs.train_on_batch(xi, y)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        peers["torch (eager)"] = torch_step_of(torch, sizes, args.dropout, weights, x, y, lr)

    # (fit makes the optimizer's slots; the step is called directly here)
    model.optimizer.init_state([w.value for w in program.trainable])
    for _ in range(args.warmup):
        for step in peers.values():
            step()
    times: dict[str, list[float]] = {name: [] for name in peers}
    cpu: dict[str, list[float]] = {name: [] for name in peers}
    for _ in range(args.calls):                 # round robin: the load hits all alike
        for name, step in peers.items():
            start, used = time.perf_counter(), time.process_time()
            step()
            times[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - used)
    medians = {name: statistics.median(t) for name, t in times.items()}
    cpus = {name: statistics.median(t) for name, t in cpu.items()}
    base = medians["Keras 3 (JAX, XLA)"]
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"transformer block: {args.steps} steps, vocab {args.vocab}, dim {args.dim}, "
          f"{args.heads} heads, feed-forward {2 * args.dim}, batch {args.batch}, dropout "
          f"{args.dropout}, Adam; median of {args.calls} round-robin steps; "
          f"{program.statements} statements in phylanx's step")
    print(f"machine: {cpu_name()}, {os.cpu_count()} CPUs, load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (above ~1: a LOADED run)")
    mark = "torch (eager)"
    for name, seconds in medians.items():
        against = f"   {seconds / medians[mark]:6.2f}x torch" if mark in medians else ""
        print(f"  {name:<24}{seconds * 1e3:9.2f} ms/step ({cpus[name] * 1e3:8.2f} ms CPU)"
              f"   {seconds / base:6.2f}x Keras{against}")
    return medians


if __name__ == "__main__":
    main()
