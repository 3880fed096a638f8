"""Data-parallel training step on 1 vs 2 localities: ``fit(..., distributed="data")``.

    python benchmarks/nn_data_parallel.py [--model mlp|har] [--batch 1024] [--steps 8]
                                          [--peer phylanx,mpi4py] [--rounds 3]

Launches itself under ``mpiexec -n 1`` and ``-n 2`` (each rank pinned to its own core,
one BLAS thread and one phylanx worker thread per rank, so the two ranks use the two
cores and one rank one core) and
reports the median time per step of each and the speedup.  ``--peer mpi4py`` (mlp only)
times the same data-parallel step written by hand instead: ``nn_step.numpy_step`` with
each layer's gradients averaged by a blocking ``comm.Allreduce`` as soon as they exist,
what a NumPy + mpi4py user would write; the speedup phylanx can be held to.  ``mlp``: 784-512-512-10
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


def pin(rank: int) -> None:
    """Every thread of this process (MPI's and phylanx's progress and pool threads,
    started before this call, included) on core ``rank`` (modulo the cores)."""
    if not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    core = {cores[rank % len(cores)]}
    for task in os.listdir("/proc/self/task") if os.path.isdir("/proc/self/task") else [0]:
        try:
            os.sched_setaffinity(int(task), core)
        except OSError:          # a thread that ended meanwhile
            pass


def mpi4py_worker(args) -> None:
    """The hand-written peer: NumPy step, gradients averaged with mpi4py."""
    from mpi4py import MPI
    from nn_step import numpy_step
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    pin(rank)
    rng = np.random.default_rng(0)
    sizes = [784, 512, 512, 10]
    ws = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        ws += [(rng.normal(size=(a, b)) * np.sqrt(2.0 / a)).astype(np.float32),
               np.zeros(b, np.float32)]
    share = args.batch // size
    x = rng.random((args.batch * (args.steps + 2), 784), np.float32)
    y = rng.integers(0, 10, len(x))

    def average(*grads):
        for g in grads:
            comm.Allreduce(MPI.IN_PLACE, g, op=MPI.SUM)
            g /= size
    ends = []
    for step in range(args.steps + 2):
        lo = step * args.batch + rank * share
        numpy_step(ws, x[lo:lo + share], y[lo:lo + share], 0.01, average)
        ends.append(time.perf_counter())
    steps = np.diff(ends[1:])
    if rank == 0:
        print(f"RESULT {size} {statistics.median(steps):.6f} "
              f"{' '.join(f'{s:.4f}' for s in steps)}", flush=True)


def worker(args) -> None:
    if args.peer == "mpi4py":
        return mpi4py_worker(args)
    from phylanx import distributed as dist
    from phylanx import nn
    # one core per locality: a rank's task threads would otherwise run the backward
    # pass's independent products on the other core too, and one locality would
    # already be using both cores
    pin(dist.find_here())
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
    parser.add_argument("--peer", default="phylanx",
                        help="phylanx, mpi4py, or both comma-separated (interleaved)")
    parser.add_argument("--rounds", type=int, default=1, help="1- and 2-rank runs per peer")
    parser.add_argument("--verbose", action="store_true", help="print every step's time")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    # one core per rank: one BLAS thread, and one phylanx worker thread (the pool would
    # otherwise run a rank's large products as row blocks on every core)
    peers = args.peer.split(",")
    if "mpi4py" in peers and args.model != "mlp":
        sys.exit("--peer mpi4py: the mlp model only")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join((str(ROOT), str(ROOT / "benchmarks"))),
               OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", PHYLANX_THREADS="1")
    speedups: dict[str, list[float]] = {peer: [] for peer in peers}
    for round_ in range(args.rounds):
        for peer in peers:           # interleaved: a slow minute of the VM hits every peer
            medians = {}
            for ranks in (1, 2):
                medians[ranks], steps = run_ranks(args, peer, ranks, env)
                print(f"round {round_ + 1}: {peer} {args.model}, batch {args.batch}, "
                      f"{ranks} localit{'y' if ranks == 1 else 'ies'}: median "
                      f"{1e3 * medians[ranks]:.1f} ms/step"
                      + (f" (steps: {', '.join(steps)} s)" if args.verbose else ""))
            speedups[peer].append(medians[1] / medians[2])
            print(f"round {round_ + 1}: {peer} speedup 2 vs 1 localities: "
                  f"{speedups[peer][-1]:.2f}x (load average {os.getloadavg()[0]:.1f})",
                  flush=True)
    for peer, values in speedups.items():
        print(f"{peer}: median speedup {statistics.median(values):.2f}x over {len(values)} "
              f"round(s) ({', '.join(f'{v:.2f}' for v in values)})")


def run_ranks(args, peer: str, ranks: int, env: dict) -> tuple[float, list[str]]:
    """Median seconds per step (and each step's) of one ``mpiexec -n ranks`` run."""
    from phylanx.cli.run import find_mpiexec
    done = subprocess.run([find_mpiexec(), "-n", str(ranks), sys.executable, __file__,
                           "--worker", "--model", args.model, "--batch", str(args.batch),
                           "--steps", str(args.steps), "--peer", peer], env=env,
                          capture_output=True, text=True, timeout=1800)
    line = [t for t in done.stdout.splitlines() if t.startswith("RESULT")]
    if done.returncode or not line:
        sys.exit(f"{peer} on {ranks} ranks failed:\n{done.stdout}\n{done.stderr}")
    _, _, median, *steps = line[0].split()
    return float(median), steps


if __name__ == "__main__":
    main()
