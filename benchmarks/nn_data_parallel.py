"""Data-parallel training step on 1 vs 2 localities: ``fit(..., distributed="data")``.

    python benchmarks/nn_data_parallel.py [--model mlp|har] [--batch 1024] [--steps 8]
                                          [--peer phylanx,mpi4py,ddp] [--rounds 3]
                                          [--bucket-mb 25]

Launches itself under ``mpiexec -n 1`` and ``-n 2`` (each rank pinned to its own core,
one BLAS thread and one phylanx worker thread per rank, so the two ranks use the two
cores and one rank one core) and
reports the median time per step of each and the speedup.  ``--peer mpi4py`` (mlp only)
times the same data-parallel step written by hand instead: ``nn_step.numpy_step`` with
each layer's gradients averaged by a blocking ``comm.Allreduce`` as soon as they exist,
what a NumPy + mpi4py user would write; the speedup phylanx can be held to.  ``--peer ddp``
(mlp only) runs ``benchmarks/ddp_peer.py``: the same MLP, data and batch trained by
``torch.nn.parallel.DistributedDataParallel`` over gloo on 1 and 2 processes pinned
alike ("not installed" without torch).  Besides the wall-clock median per step, each
run reports the CPU time per step summed over its ranks (``time.process_time``): on a
loaded machine the wall clock says more about the other users than about the step,
the CPU time still shows what a second rank adds (communication, waiting that spins).
``--bucket-mb``: phylanx's ``fit(bucket_cap_mb=...)`` (0: one all_reduce per gradient).
``mlp``: 784-512-512-10
(relu, softmax), ``har``: the activity recognition model of
``examples/nn_activity_recognition.py`` (80 x 3 inputs).  Data are random; the first
steps (compilation, communicators) are not counted.
"""
from __future__ import annotations

import argparse
import os
import re
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
    ends, cpu = [], []
    for step in range(args.steps + 2):
        lo = step * args.batch + rank * share
        numpy_step(ws, x[lo:lo + share], y[lo:lo + share], 0.01, average)
        ends.append(time.perf_counter())
        cpu.append(time.process_time())
    report(rank, size, ends, cpu)


def thread_cpu() -> dict[str, float]:
    """CPU seconds of each thread of this process so far, by Python thread name (threads
    Python did not start, BLAS's or MPI's, as "other"), from /proc (Linux; else {})."""
    import threading
    names = {t.native_id: t.name for t in threading.enumerate()}
    found: dict[str, float] = {}
    tasks = "/proc/self/task"
    for tid in os.listdir(tasks) if os.path.isdir(tasks) else ():
        try:
            with open(f"{tasks}/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:               # a thread that ended meanwhile
            continue
        name = re.sub(r"-\d+$", "", names.get(int(tid), "other"))
        ticks = int(fields[11]) + int(fields[12])      # utime + stime
        found[name] = found.get(name, 0.0) + ticks / os.sysconf("SC_CLK_TCK")
    return found


def report_threads(rank: int, before: dict[str, float], steps: int) -> None:
    """``THREADS <rank> name=ms/step ...``: each thread's CPU per timed step."""
    after = thread_cpu()
    shares = {n: (t - before.get(n, 0.0)) / steps for n, t in after.items()}
    print(f"THREADS {rank} " + " ".join(f"{n}={1e3 * v:.1f}" for n, v in
                                         sorted(shares.items(), key=lambda kv: -kv[1])
                                         if v > 0), flush=True)


def report(rank: int, size: int, ends: list[float], cpu: list[float]) -> None:
    """Rank 0's ``RESULT`` line (wall-clock steps after the first two) and every rank's
    ``CPU`` line (its median CPU seconds per step)."""
    steps = np.diff(ends[1:])
    if rank == 0:
        print(f"RESULT {size} {statistics.median(steps):.6f} "
              f"{' '.join(f'{s:.4f}' for s in steps)}", flush=True)
    print(f"CPU {rank} {statistics.median(np.diff(cpu[1:])):.6f}", flush=True)


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
    cpu: list[float] = []
    threads: dict[str, float] = {}

    class Clock(nn.Callback):
        def on_train_batch_end(self, batch, logs=None):
            ends.append(time.perf_counter())
            cpu.append(time.process_time())
            if batch == 1 and args.verbose:
                threads.update(thread_cpu())

    model.fit(x, y, batch_size=args.batch, epochs=1, verbose=0, shuffle=False,
              callbacks=[Clock()], distributed="data", bucket_cap_mb=args.bucket_mb)
    # from the end of step 2: compiled, warmed up
    report(dist.find_here(), dist.num_localities(), ends, cpu)
    if args.verbose:
        report_threads(dist.find_here(), threads, len(ends) - 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("mlp", "har"), default="mlp")
    parser.add_argument("--batch", type=int, default=1024, help="global batch")
    parser.add_argument("--steps", type=int, default=8, help="timed steps")
    parser.add_argument("--peer", default="phylanx",
                        help="phylanx, mpi4py, ddp, or several comma-separated "
                             "(interleaved)")
    parser.add_argument("--bucket-mb", type=float, default=25.0,
                        help="phylanx's fit(bucket_cap_mb=...)")
    parser.add_argument("--rounds", type=int, default=1, help="1- and 2-rank runs per peer")
    parser.add_argument("--verbose", action="store_true", help="print every step's time")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    # one core per rank: one BLAS thread, and one phylanx worker thread (the pool would
    # otherwise run a rank's large products as row blocks on every core)
    peers = args.peer.split(",")
    if {"mpi4py", "ddp"} & set(peers) and args.model != "mlp":
        sys.exit("--peer mpi4py, ddp: the mlp model only")
    print(f"load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}; "
          f"{_cpu_model()}, {os.cpu_count()} CPUs", flush=True)
    from mpi_launch import rank_env
    env = rank_env(PHYLANX_THREADS="1")
    speedups: dict[str, list[float]] = {peer: [] for peer in peers}
    two: dict[str, list[float]] = {peer: [] for peer in peers}    # 2-rank s/step
    for round_ in range(args.rounds):
        for peer in peers:           # interleaved: a slow minute of the VM hits every peer
            medians = {}
            for ranks in (1, 2):
                found = run_ranks(args, peer, ranks, env)
                if found is None:
                    print(f"round {round_ + 1}: {peer}: not installed")
                    break
                medians[ranks], steps, cpu, threads = found
                print(f"round {round_ + 1}: {peer} {args.model}, batch {args.batch}, "
                      f"{ranks} localit{'y' if ranks == 1 else 'ies'}: median "
                      f"{1e3 * medians[ranks]:.1f} ms/step wall, "
                      f"{1e3 * cpu:.1f} ms/step CPU (all ranks)"
                      + (f" (steps: {', '.join(steps)} s)" if args.verbose else ""))
                for line in threads:
                    print(f"  CPU ms per step by thread, rank {line}")
            if len(medians) < 2:
                continue
            speedups[peer].append(medians[1] / medians[2])
            two[peer].append(medians[2])
            print(f"round {round_ + 1}: {peer} speedup 2 vs 1 localities: "
                  f"{speedups[peer][-1]:.2f}x (load average {os.getloadavg()[0]:.1f})",
                  flush=True)
    for peer, values in speedups.items():
        if values:
            print(f"{peer}: median speedup {statistics.median(values):.2f}x over "
                  f"{len(values)} round(s) ({', '.join(f'{v:.2f}' for v in values)})")
    if "phylanx" in peers and two["phylanx"]:
        for peer in peers:
            if peer != "phylanx" and two[peer]:
                print(f"2 localities: {peer} / phylanx time per step "
                      f"{statistics.median(two[peer]) / statistics.median(two['phylanx']):.2f}x"
                      f" (above 1: phylanx faster)")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next((ln.split(":", 1)[1].strip() for ln in f
                         if ln.startswith("model name")), "unknown CPU")
    except OSError:
        return "unknown CPU"


def run_ranks(args, peer: str, ranks: int, env: dict):
    """Median seconds per step (and each step's) of one run on ``ranks`` processes
    (``mpiexec``, or for ``ddp`` torch's own processes), and the CPU seconds per step
    summed over the ranks; None when the peer is not installed."""
    from mpi_launch import run_ranks
    if peer == "ddp":       # torch starts its own processes
        done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "ddp_peer.py"),
                               "--ranks", str(ranks), "--batch", str(args.batch),
                               "--steps", str(args.steps)],
                              env=env, capture_output=True, text=True, timeout=1800)
    else:
        done = run_ranks(__file__, ranks, ["--worker", "--model", args.model,
                                           "--batch", str(args.batch), "--steps",
                                           str(args.steps), "--peer", peer, "--bucket-mb",
                                           str(args.bucket_mb),
                                           *(["--verbose"] if args.verbose else [])],
                         capture=True, env=env)
    if done.returncode == 0 and "NOT INSTALLED" in done.stdout:
        return None
    # (mpiexec may join one rank's line to another's: searched, not split by lines)
    result = re.search(r"RESULT \d+ (\d+\.\d{6})((?: \d+\.\d{4})*)", done.stdout)
    cpu = dict(re.findall(r"CPU (\d+) (\d+\.\d{6})", done.stdout))
    if done.returncode or result is None or len(cpu) != ranks:
        sys.exit(f"{peer} on {ranks} ranks failed:\n{done.stdout}\n{done.stderr}")
    threads = re.findall(r"THREADS (\d+ [^\n]*?)(?=RESULT|CPU|THREADS|\n|$)", done.stdout)
    return float(result[1]), result[2].split(), sum(float(v) for v in cpu.values()), threads


if __name__ == "__main__":
    main()
