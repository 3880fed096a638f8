"""Model-parallel ``fit(distributed="model")`` of a Conv1D network on 1 vs 2 localities,
at growing sizes: where does splitting the convolutions pay?

    python benchmarks/nn_model_parallel.py [--sizes 64x80x32,128x160x64] [--steps 4]
                                           [--split batch|length]

Each size ``BxLxF`` is a global batch of B sequences of L steps (3 channels) through
Conv1D(F, 5, relu) -> Conv1D(F, 5, relu) -> GlobalAveragePooling1D -> Dense(6, softmax),
SGD.  Launched under ``mpiexec -n 1`` and ``-n 2`` as ``nn_data_parallel.py`` does
(each rank pinned to its own core, one BLAS thread, one phylanx worker thread); prints
the median wall-clock time per step, the CPU time per step summed over the ranks, and
the speedup of 2 localities against 1, per size.  The first steps (compilation,
communicators) are not counted.

On a loaded machine the best step (the least disturbed) is printed too.  Then the cost
model's prediction (``cost_model.conv1d_stack_s``): the convolutions' rate and
phylanx's cost per step from the 1-locality CPU times of the smallest and the largest
size (at least two sizes), the collectives' latency and bandwidth measured by the
2-rank run (all_reduce of 8 B and 4 MiB after training, median of 5), and the speedup
predicted for the batch split with tiled activations (what runs), with gathered ones
(until stop 47) and for a split of the filters.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time

import numpy as np


def worker(args) -> None:
    from nn_data_parallel import pin, report

    from phylanx import distributed as dist
    from phylanx import nn
    pin(dist.find_here())
    batch, length, filters = (int(v) for v in args.size.split("x"))
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch * (args.steps + 2), length, 3)).astype(np.float32)
    y = rng.integers(0, 6, len(x))
    nn.set_seed(0)
    model = nn.Sequential([nn.Input((length, 3)), nn.Conv1D(filters, 5, activation="relu"),
                           nn.Conv1D(filters, 5, activation="relu"),
                           nn.GlobalAveragePooling1D(), nn.Dense(6, activation="softmax")])
    model.compile(optimizer=nn.SGD(0.01), loss="sparse_categorical_crossentropy")
    ends: list[float] = []
    cpu: list[float] = []

    class Clock(nn.Callback):
        def on_train_batch_end(self, batch, logs=None):
            ends.append(time.perf_counter())
            cpu.append(time.process_time())

    model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False,
              callbacks=[Clock()], distributed="model", conv_split=args.split)
    report(dist.find_here(), dist.num_localities(), ends, cpu)
    if dist.num_localities() > 1:
        for nbytes in (8, 4 << 20):
            value = np.zeros(nbytes // 4, np.float32)
            times = []
            for _ in range(5):
                t0 = time.perf_counter()
                dist.all_reduce(value, "sum", f"bench_{nbytes}").result()
                times.append(time.perf_counter() - t0)
            if dist.find_here() == 0:
                print(f"COLLECTIVE {nbytes} {float(np.median(times)):.6f}", flush=True)


COLLECTIVES: list[tuple[int, float]] = []


def timed_ranks(args, size: str, ranks: int) -> tuple[float, float, float]:
    from mpi_launch import rank_env, run_ranks
    done = run_ranks(__file__, ranks, ["--worker", "--size", size, "--steps", str(args.steps),
                                       "--split", args.split],
                     capture=True, timeout=3600, env=rank_env(PHYLANX_THREADS="1"))
    result = re.search(r"RESULT \d+ (\d+\.\d{6})((?: \d+\.\d+)*)", done.stdout)
    cpu = dict(re.findall(r"CPU (\d+) (\d+\.\d{6})", done.stdout))
    if done.returncode or result is None or len(cpu) != ranks:
        sys.exit(f"{size} on {ranks} ranks failed:\n{done.stdout}\n{done.stderr}")
    COLLECTIVES.extend((int(b), float(t)) for b, t in
                       re.findall(r"COLLECTIVE (\d+) (\d+\.\d+)", done.stdout))
    best = min(float(v) for v in result[2].split())
    return float(result[1]), sum(float(v) for v in cpu.values()), best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64x80x32,128x160x64,256x256x128",
                        help="comma-separated BATCHxLENGTHxFILTERS")
    parser.add_argument("--steps", type=int, default=4, help="timed steps")
    parser.add_argument("--split", choices=("batch", "length"), default="batch")
    parser.add_argument("--size", help=argparse.SUPPRESS)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    print(f"load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}; "
          f"{os.cpu_count()} CPUs; split by {args.split}", flush=True)
    results: dict = {}
    for size in args.sizes.split(","):
        found = {ranks: timed_ranks(args, size, ranks) for ranks in (1, 2)}
        for ranks, (wall, cpu, best) in found.items():
            print(f"{size}: {ranks} localit{'y' if ranks == 1 else 'ies'}: "
                  f"{1e3 * wall:.1f} ms/step wall (best step {1e3 * best:.1f}), "
                  f"{1e3 * cpu:.1f} ms/step CPU (all ranks)")
        print(f"{size}: speedup 2 vs 1 localities {found[1][0] / found[2][0]:.2f}x "
              f"(best steps {found[1][2] / found[2][2]:.2f}x; load average "
              f"{os.getloadavg()[0]:.1f})", flush=True)
        results[size] = found
    predict(results)
    return None


def _layers(filters: int) -> list[tuple[int, int, int]]:
    return [(5, 3, filters), (5, filters, filters)]


def predict(results: dict) -> None:
    """The cost model's speedups next to the measured ones (see the module doc)."""
    from phylanx.distributed import cost_model as cm
    if len(results) < 2 or not COLLECTIVES:
        return
    points = []         # (multiply-adds, 1-locality CPU seconds) per size
    for size, found in results.items():
        batch, length, filters = (int(v) for v in size.split("x"))
        points.append((cm.conv1d_stack_s(batch, length, _layers(filters), 1, cm.CLUSTER,
                                         1.0, 0.0), found[1][1]))
    (m0, t0), (m1, t1) = min(points), max(points)
    rate = max((t1 - t0) / (m1 - m0), 1e-15)
    overhead = max(t0 - m0 * rate, 0.0)
    latency, per_byte = cm.fit_collective(COLLECTIVES)
    machine = cm.Machine(latency, per_byte, 0.0, 0.0)
    print(f"cost model: {rate * 1e12:.1f} ps per conv multiply-add, {overhead * 1e3:.1f} ms "
          f"per step besides; collectives {machine.describe()}")
    for size, found in results.items():
        batch, length, filters = (int(v) for v in size.split("x"))
        one = cm.conv1d_stack_s(batch, length, _layers(filters), 1, machine, rate, overhead)
        flows = {flow: one / cm.conv1d_stack_s(batch, length, _layers(filters), 2, machine,
                                               rate, overhead, flow)
                 for flow in cm.CONV_FLOWS}
        print(f"{size}: predicted speedup " + ", ".join(f"{f} {v:.2f}x" for f, v in flows.items())
              + f"; measured {found[1][0] / found[2][0]:.2f}x wall, "
              f"{2 * found[1][1] / found[2][1]:.2f}x CPU per rank")


if __name__ == "__main__":
    main()
