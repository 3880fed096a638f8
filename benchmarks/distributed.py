"""Strong scaling from 1 to 2 localities, and all_reduce against raw mpi4py.

    python benchmarks/distributed.py [--repeat 3] [--quick] [--out benchmarks/results]

Launches (with the mpiexec next to this Python) this script on 1 and then on 2
ranks, each rank with one BLAS thread (``OPENBLAS_NUM_THREADS=1``, so that 2 ranks
use 2 cores, not 2 x 2 threads), then ``distributed_allreduce.py`` on 2 ranks, and
writes ``<out>/<date>-distributed.json`` and ``.md``.  Workloads, timed after a
warm-up run (translation, communicators), slowest rank, min and median of
``--repeat``:

* logistic regression, 200,000 x 100, 50 iterations, row tiling (the gradient
  all-reduced): ``examples/distributed_lra.py``'s ``lra_rows``, data generated on each
  rank for its own rows from the seed (nothing is shipped);
* conv1d split by batch: batch 1000, length 1000, 3 -> 100 channels, kernel 10
  (float32, as Keras): the ``conv1d`` primitive on each rank's batch block, then
  ``all_gather`` of the outputs (every rank gets the whole output); also the
  convolution alone;
* ``dot_d`` (4000 x 4000) and ``conv1d_d`` when the distributed-array primitives exist
  (``phylanx.primitives.registry.lookup("dot_d")``), else reported as skipped.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "examples"))


# -- the worker: runs on every rank -----------------------------------------------------
def _timed(fn, repeat: int) -> dict:
    """Slowest rank's seconds for ``fn()``, min and median of ``repeat`` runs."""
    from phylanx import distributed as dist
    times = []
    for i in range(repeat):
        dist.barrier(name="bench_start").result()
        start = time.perf_counter()
        fn()
        times.append(dist.all_reduce(time.perf_counter() - start, "max",
                                     name="bench_time").result())
        del i
    return {"min_s": min(times), "median_s": statistics.median(times), "all_s": times}


def bench_lra(args) -> dict:
    from _tiles import block, classification
    from distributed_lra import correct_rows, lra_rows

    from phylanx import distributed as dist
    rank, size = dist.find_here(), dist.num_localities()
    start = time.perf_counter()
    x, y = classification(0, args.features, *block(args.samples, size, rank))
    generated = time.perf_counter() - start
    alpha = 2.0 / args.samples        # a mean-gradient step of 2: converges, no overflow
    lra_rows(x, y, alpha, 1)          # translate, compile, open the communicators
    result = _timed(lambda: lra_rows(x, y, alpha, args.iterations), args.repeat)
    weights = lra_rows(x, y, alpha, args.iterations)
    result.update(accuracy=float(correct_rows(x, y, weights)) / args.samples,
                  weights_checksum=float(np.sum(weights)), generate_s=generated,
                  shape=[args.samples, args.features], iterations=args.iterations)
    return result


def bench_conv1d_by_batch(args) -> dict:
    from _tiles import block, seeded_rows

    from phylanx import Phylanx
    from phylanx import distributed as dist
    from phylanx.ops import all_gather, conv1d

    @Phylanx
    def conv_local(x, kernel):
        return conv1d(x, kernel)

    @Phylanx
    def conv_gathered(x, kernel):
        return np.concatenate(all_gather(conv1d(x, kernel), "conv_out"))

    rank, size = dist.find_here(), dist.num_localities()
    batch, length = args.batch, args.length
    x, = seeded_rows(lambda rng, _first, rows: (
        rng.standard_normal((rows, length, 3), dtype=np.float32),),
        1, *block(batch, size, rank))
    kernel = np.random.default_rng([1, 2**31]).standard_normal((10, 3, 100), dtype=np.float32)
    conv_gathered(x[:2], kernel)      # translate, compile, open the communicator
    out = conv_gathered(x, kernel)
    return {"with_all_gather": _timed(lambda: conv_gathered(x, kernel), args.repeat),
            "conv_only": _timed(lambda: conv_local(x, kernel), args.repeat),
            "output_shape": list(out.shape), "output_checksum": float(np.sum(out, dtype=float)),
            "dtype": "float32"}


def bench_distributed_arrays(args) -> dict:
    """dot_d and conv1d_d, when the distributed-array primitives exist."""
    from phylanx import evaluate
    from phylanx.primitives.registry import lookup
    out = {}
    n = 1000 if args.quick else 4000
    programs = {
        "dot_d": f'dot_d(random_d(list({n}, {n}), find_here(), num_localities(), "bench_a", '
                 f'"row"), random_d(list({n}, {n}), find_here(), num_localities(), "bench_b", '
                 f'"column"))',
        "conv1d_d": f'conv1d_d(random_d(list({args.batch}, {args.length}, 3), find_here(), '
                    'num_localities(), "bench_x", "page"), random(list(10, 3, 100)))',
    }
    for name, code in programs.items():
        try:
            if lookup(name) is None:
                raise LookupError
        except Exception:   # noqa: BLE001 - the registry may raise or return None
            out[name] = "not available yet (skipped)"
            continue
        try:
            evaluate(code)
            out[name] = _timed(lambda code=code: evaluate(code), args.repeat)
        except Exception as e:   # noqa: BLE001 - a report, not a crash of the whole run
            out[name] = f"failed: {type(e).__name__}: {e}"
    return out


def worker(args) -> None:
    from phylanx import distributed as dist
    result = {"ranks": dist.num_localities(),
              "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "unset"),
              "lra": bench_lra(args), "conv1d_by_batch": bench_conv1d_by_batch(args)}
    result.update(bench_distributed_arrays(args))
    if dist.find_here() == 0:
        Path(args.json).write_text(json.dumps(result, indent=1))
    dist.barrier().result()


# -- the driver ---------------------------------------------------------------------------
def launch(ranks: int, script: Path, *extra: str, timeout: float) -> None:
    from phylanx.cli.run import find_mpiexec
    mpiexec = find_mpiexec()
    if mpiexec is None:
        sys.exit("no mpiexec: pip install 'phylanx[mpi]'")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                        os.environ.get("PYTHONPATH")])))
    subprocess.run([mpiexec, "-n", str(ranks), sys.executable, str(script), *extra],
                   env=env, check=True, timeout=timeout)


def speedup(one: dict, two: dict) -> dict:
    return {k: one[k] / two[k] for k in ("min_s", "median_s")}


def markdown(report: dict) -> str:
    one, two = report["scaling"]["1"], report["scaling"]["2"]
    lines = [f"# Distributed benchmarks, {report['date']}", "",
             f"{report['machine']}; {report['note']}", "",
             "| workload | 1 locality, s (min / median) | 2 localities, s | speed-up "
             "(min / median) | target |", "|---|---|---|---|---|"]
    rows = [("logistic regression 200,000 x 100, 50 it.", "lra", None, ">= 1.7x"),
            ("conv1d by batch + all_gather", "conv1d_by_batch", "with_all_gather", ">= 1.7x"),
            ("conv1d by batch, convolution only", "conv1d_by_batch", "conv_only", "")]
    for label, key, sub, target in rows:
        a, b = (one[key], two[key]) if sub is None else (one[key][sub], two[key][sub])
        s = speedup(a, b)
        lines.append(f"| {label} | {a['min_s']:.3f} / {a['median_s']:.3f} | "
                     f"{b['min_s']:.3f} / {b['median_s']:.3f} | "
                     f"{s['min_s']:.2f}x / {s['median_s']:.2f}x | {target} |")
    for name in ("dot_d", "conv1d_d"):
        value = two.get(name)
        if isinstance(value, dict):
            s = speedup(one[name], value)
            lines.append(f"| {name} | {one[name]['min_s']:.3f} | {value['min_s']:.3f} | "
                         f"{s['min_s']:.2f}x | >= 1.7x |")
        else:
            lines.append(f"| {name} | {value} | | | |")
    lines += ["", f"LRA accuracy: {one['lra']['accuracy']:.4f} (1 locality), "
                  f"{two['lra']['accuracy']:.4f} (2)", ""]
    ar = report.get("all_reduce")
    if ar:
        lines += ["all_reduce on 2 localities, us per call (median; min in the JSON), "
                  "ratio to raw mpi4py `comm.Allreduce`:", "",
                  "| size | raw | phylanx | ratio | no header check | ratio | GB/s phylanx |",
                  "|---|---|---|---|---|---|---|"]
        for row in ar["sizes"]:
            lines.append(
                f"| {row['bytes']} B | {row['raw']['median_us']:.1f} | "
                f"{row['phylanx']['median_us']:.1f} | {row['ratio_phylanx']['median_us']:.2f} "
                f"| {row['phylanx_nocheck']['median_us']:.1f} | "
                f"{row['ratio_phylanx_nocheck']['median_us']:.2f} | "
                f"{row['bandwidth_GBps']['phylanx']:.3f} |")
        prof = ar["profile_8B"]
        lines += ["", "8 B all_reduce, where the time goes (us per call, median): " + ", ".join(
            f"{k} {v['median_us']:.1f}" for k, v in prof.items() if "median_us" in v),
            "derived: " + ", ".join(f"{k} {v:.1f}"
                                    for k, v in prof["derived_median_us"].items())]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per workload")
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    ap.add_argument("--no-allreduce", action="store_true", help="skip the all_reduce sweep")
    ap.add_argument("--out", default=str(HERE / "results"), help="where the results go")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--json", help=argparse.SUPPRESS)
    ap.add_argument("--samples", type=int, default=200_000, help=argparse.SUPPRESS)
    ap.add_argument("--features", type=int, default=100, help=argparse.SUPPRESS)
    ap.add_argument("--iterations", type=int, default=50, help=argparse.SUPPRESS)
    ap.add_argument("--batch", type=int, default=1000, help=argparse.SUPPRESS)
    ap.add_argument("--length", type=int, default=1000, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.quick:
        args.samples, args.batch, args.length = 20_000, 100, 200
    if args.worker:
        worker(args)
        return
    sizes = ["--samples", str(args.samples), "--batch", str(args.batch),
             "--length", str(args.length), "--repeat", str(args.repeat)]
    report = {"date": datetime.date.today().isoformat(),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                         f"{platform.python_version()}, NumPy {np.__version__}",
              # the note follows the measured load, not an assumption
              "note": ("other work was running (load average above 1): timings are noisy"
                       if os.getloadavg()[0] > 1.0 else "quiet machine (load average below 1)"),
              "load_average_before": os.getloadavg(), "scaling": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for ranks in (1, 2):
            out = Path(tmp) / f"scaling{ranks}.json"
            launch(ranks, Path(__file__), "--worker", "--json", str(out), *sizes,
                   timeout=1800)
            report["scaling"][str(ranks)] = json.loads(out.read_text())
        if not args.no_allreduce:
            out = Path(tmp) / "allreduce.json"
            launch(2, HERE / "distributed_allreduce.py", "--json", str(out),
                   "--repeat", str(max(args.repeat, 3)), "--collectives", "all_reduce",
                   timeout=1800)
            report["all_reduce"] = json.loads(out.read_text())
    report["load_average_after"] = os.getloadavg()
    text = markdown(report)
    print(text)
    dest = Path(args.out)
    dest.mkdir(parents=True, exist_ok=True)
    stem = dest / f"{report['date']}-distributed{'-quick' if args.quick else ''}"
    stem.with_suffix(".json").write_text(json.dumps(report, indent=1))
    stem.with_suffix(".md").write_text(text)
    print(f"written: {stem}.json, {stem}.md")


if __name__ == "__main__":
    main()
