"""What synchronising BatchNormalization costs in data-parallel training, on 2 localities.

    python benchmarks/nn_sync_batchnorm.py [--batch 256] [--steps 8] [--rounds 3]

A Conv1D model with three BatchNormalization layers (80 x 3 inputs: Conv1D(64, 5),
BN, relu, MaxPooling1D(2), Conv1D(64, 5), BN, relu, GlobalAveragePooling1D, Dense(32),
BN, relu, Dense(6, softmax)) trained with ``fit(..., distributed="data")`` under
``mpiexec -n 2`` (one BLAS thread per rank), with ``sync_batchnorm=True`` (global batch
statistics: 4 all_reduces per BN layer and step) and ``False`` (each shard's own), in
alternating runs; reports the median time per step of each run and the ratio of the
best medians.  Data are random; the first steps (compilation) are not counted.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np


def worker(args) -> None:
    from phylanx import distributed as dist
    from phylanx import nn
    nn.set_seed(0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.batch * (args.steps + 2), 80, 3)).astype(np.float32)
    y = rng.integers(0, 6, len(x))
    model = nn.Sequential([
        nn.Input((80, 3)), nn.Conv1D(64, 5, use_bias=False), nn.BatchNormalization(),
        nn.Activation("relu"), nn.MaxPooling1D(2), nn.Conv1D(64, 5, use_bias=False),
        nn.BatchNormalization(), nn.Activation("relu"), nn.GlobalAveragePooling1D(),
        nn.Dense(32, use_bias=False), nn.BatchNormalization(), nn.Activation("relu"),
        nn.Dense(6, activation="softmax")])
    model.compile(optimizer=nn.SGD(0.01), loss="sparse_categorical_crossentropy")
    ends: list[float] = []

    class Clock(nn.Callback):
        def on_train_batch_end(self, batch, logs=None):
            ends.append(time.perf_counter())

    model.fit(x, y, batch_size=args.batch, epochs=1, verbose=0, shuffle=False,
              callbacks=[Clock()], distributed="data", sync_batchnorm=args.sync == "on")
    steps = np.diff(ends[1:])            # from the end of step 2: compiled, warmed up
    if dist.find_here() == 0:
        print(f"RESULT {statistics.median(steps):.6f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=256, help="global batch")
    parser.add_argument("--steps", type=int, default=8, help="timed steps")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each setting")
    parser.add_argument("--sync", choices=("on", "off"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sync:
        return worker(args)
    from mpi_launch import run_ranks
    medians: dict[str, list[float]] = {"on": [], "off": []}
    for _ in range(args.rounds):
        for sync in ("on", "off"):
            done = run_ranks(__file__, 2, ["--sync", sync, "--batch", str(args.batch),
                                           "--steps", str(args.steps)], capture=True)
            line = [t for t in done.stdout.splitlines() if t.startswith("RESULT")]
            if done.returncode or not line:
                sys.exit(f"sync_batchnorm={sync} failed:\n{done.stdout}\n{done.stderr}")
            medians[sync].append(float(line[0].split()[1]))
    for sync, label in (("on", "sync_batchnorm=True "), ("off", "sync_batchnorm=False")):
        print(f"batch {args.batch}, 2 localities, {label}: median ms/step per run "
              f"{', '.join(f'{1e3 * m:.1f}' for m in medians[sync])}")
    print(f"synchronised / local, best medians: "
          f"{min(medians['on']) / min(medians['off']):.2f}x "
          f"(load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
