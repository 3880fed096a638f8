"""Data-parallel training step on 1 vs 2 localities: ``fit(..., distributed="data")``.

    python benchmarks/nn_data_parallel.py [--model mlp|har] [--batch 1024] [--steps 8]

Launches itself under ``mpiexec -n 1`` and ``-n 2`` (each rank pinned to its own core,
one BLAS thread and one phylanx worker thread per rank, so the two ranks use the two
cores and one rank one core) and
reports the median time per step of each and the speedup.  ``mlp``: 784-512-512-10
(relu, softmax), ``har``: the activity recognition model of
``examples/nn_activity_recognition.py`` (80 x 3 inputs).  Data are random; the first
steps (compilation, communicators) are not counted.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def worker(args) -> None:
    from phylanx import distributed as dist
    from phylanx import nn
    if hasattr(os, "sched_setaffinity"):
        # one core per locality: a rank's task threads would otherwise run the backward
        # pass's independent products on the other core too, and one locality would
        # already be using both cores
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[
            dist.find_here() % len(os.sched_getaffinity(0))]})
    nn.set_seed(0)
    if args.model == "mlp":
        x = np.random.default_rng(0).random((args.batch * (args.steps + 2), 784), np.float32)
        model = nn.Sequential([nn.Input((784,)), nn.Dense(512, activation="relu"),
                               nn.Dense(512, activation="relu"),
                               nn.Dense(10, activation="softmax")])
    else:
        sys.path.insert(0, str(ROOT / "examples"))
        from nn_activity_recognition import activity_data, build
        x, _ = activity_data(args.batch * (args.steps + 2))
        model = build()
    y = np.random.default_rng(1).integers(0, model.output_shape[-1], len(x))
    model.compile(optimizer=nn.SGD(0.01), loss="sparse_categorical_crossentropy")
    ends: list[float] = []

    class Clock(nn.Callback):
        def on_train_batch_end(self, batch, logs=None):
            ends.append(time.perf_counter())

    model.fit(x, y, batch_size=args.batch, epochs=1, verbose=0, shuffle=False,
              callbacks=[Clock()], distributed="data")
    steps = np.diff(ends[1:])            # from the end of step 2: compiled, warmed up
    if dist.find_here() == 0:
        print(f"RESULT {dist.num_localities()} {statistics.median(steps):.6f} "
              f"{' '.join(f'{s:.4f}' for s in steps)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("mlp", "har"), default="mlp")
    parser.add_argument("--batch", type=int, default=1024, help="global batch")
    parser.add_argument("--steps", type=int, default=8, help="timed steps")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    from phylanx.cli.run import find_mpiexec
    # one core per rank: one BLAS thread, and one phylanx worker thread (the pool would
    # otherwise run a rank's large products as row blocks on every core)
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", PHYLANX_THREADS="1")
    medians = {}
    for ranks in (1, 2):
        done = subprocess.run([find_mpiexec(), "-n", str(ranks), sys.executable, __file__,
                               "--worker", "--model", args.model, "--batch", str(args.batch),
                               "--steps", str(args.steps)], env=env, capture_output=True,
                              text=True, timeout=1800)
        line = [t for t in done.stdout.splitlines() if t.startswith("RESULT")]
        if done.returncode or not line:
            sys.exit(f"{ranks} ranks failed:\n{done.stdout}\n{done.stderr}")
        _, _, median, *steps = line[0].split()
        medians[ranks] = float(median)
        print(f"{args.model}, batch {args.batch}, {ranks} localit{'y' if ranks == 1 else 'ies'}:"
              f" median {1e3 * float(median):.1f} ms/step (steps: {', '.join(steps)} s)")
    print(f"speedup 2 vs 1 localities: {medians[1] / medians[2]:.2f}x "
          f"(load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
