"""Old against new: the compiler's optimisations on and off, alternating runs.

Runs ``benchmarks/run.py`` (``--quick`` by default) for the chosen workloads and
``benchmarks/overhead.py`` as separate processes, alternately with
``PHYLANX_OPTIMIZE=1`` (rewrites of compiler/rewrite and in-place reuse of temporaries,
runtime/inplace.py) and ``PHYLANX_OPTIMIZE=0`` (the program compiled as written), so a
burst of load from other users of the machine hits both settings alike.  Prints, per
case and setting, the median over rounds of phylanx's ratio to NumPy from the same run,
and the best (lowest) round; and the inline per-node and fib(20) overhead figures.

    python benchmarks/optimize_ab.py --rounds 5 --only W1
    python benchmarks/optimize_ab.py --rounds 3 --only W1 --full

``--inprocess`` times W1 and a least-squares loop with loop invariants (the NumPy
function, and ``Phylanx`` of it compiled once with and once without the optimisations)
in one process, interleaved call by call, which cuts the noise of a shared machine
further: ``--inprocess --rounds 21`` (``OPENBLAS_NUM_THREADS=1`` cuts it more).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def one_run(optimize: bool, only: str, repeat: int, full: bool) -> dict:
    env = dict(os.environ, PHYLANX_OPTIMIZE="1" if optimize else "0")
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, str(HERE / "run.py"), "--only", only,
               "--peers", "numpy,phylanx", "--repeat", str(repeat), "--out", out]
        if not full:
            cmd.append("--quick")
        subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
        data = json.loads(next(Path(out).glob("*.json")).read_text())
    ratios = {}
    for case in data["cases"]:
        p = case["peers"].get("phylanx", {})
        if p.get("status") == "ok":
            ratios[case["name"]] = (p["ratio_to_numpy"], p["median_s"])
    return ratios


def overhead_run(optimize: bool) -> dict:
    env = dict(os.environ, PHYLANX_OPTIMIZE="1" if optimize else "0")
    text = subprocess.run([sys.executable, str(HERE / "overhead.py")], env=env, check=True,
                          capture_output=True, text=True).stdout
    figures = {}
    for label, pattern in (("inline us/node", r"([\d.]+)\s*us per (?:primitive )?node"),
                           ("fib(20) ratio", r"fib\(20\).*?([\d.]+)\s*x"),
                           ("compile ms", r"compiled in ([\d.]+) ms")):
        m = re.search(pattern, text)
        if m:
            figures[label] = float(m.group(1))
    return figures


def least_squares(x, y, alpha, iterations):
    """Gradient descent on ||x w - y||^2 written the direct way: x.T @ x and x.T @ y are
    recomputed every iteration (invariants the hoisting pass computes once)."""
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        w = w - alpha * ((x.T @ x) @ w - x.T @ y)
    return w


def _time_case(fn, n: int, d: int, iters: int, rounds: int) -> dict:
    """Median seconds of NumPy's ``fn`` and phylanx's with optimize on (True) / off (False)."""
    import time

    from benchmarks.workloads import w1_lra
    from phylanx import Phylanx, config
    x, y, _what = w1_lra.data(n, d, sklearn_ok=True)
    alpha = 1e-3 if n < 1000 else 1e-5
    compiled = {}
    for flag in (True, False):
        config.set("optimize", flag)
        f = Phylanx(fn)
        f(x[:4], y[:4], alpha, 1)                 # translate + compile with this setting
        compiled[flag] = f
    config.reset("optimize")
    ref = fn(x, y, alpha, iters)
    for f in compiled.values():
        got = f(x, y, alpha, iters)
        assert np.max(np.abs(got - ref)) <= 1e-9 * np.max(np.abs(ref)), \
            "phylanx disagrees with NumPy"
    runs = {"numpy": lambda: fn(x, y, alpha, iters),
            True: lambda: compiled[True](x, y, alpha, iters),
            False: lambda: compiled[False](x, y, alpha, iters)}
    times: dict = {k: [] for k in runs}
    order = list(runs)
    for r in range(rounds):
        for k in order[r % 3:] + order[:r % 3]:
            t0 = time.perf_counter()
            runs[k]()
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def inprocess(rounds: int, full: bool) -> None:
    """W1 (and a least-squares loop with invariants), NumPy and phylanx with optimize
    on/off, interleaved call by call."""
    sys.path.insert(0, str(HERE.parent))
    from benchmarks.workloads import w1_lra
    sizes = [(569, 30, 750 if full else 100), (200_000, 100, 50) if full else (20_000, 100, 10)]
    print(f"{'case':40s} {'numpy':>16s} {'optimize=1':>22s} {'optimize=0':>22s}")
    for label, fn in (("W1", w1_lra.lra), ("least squares", least_squares)):
        for n, d, iters in sizes:
            med = _time_case(fn, n, d, iters, rounds)
            cells = [f"{1e3 * med['numpy']:.2f} ms"] + [
                f"{med[k] / med['numpy']:.2f}x ({1e3 * med[k]:.2f} ms)" for k in (True, False)]
            name = f"{label} {n}x{d}, {iters} it."
            print(f"{name:40s} {cells[0]:>16s} {cells[1]:>22s} {cells[2]:>22s}")
    print("medians over", rounds, "interleaved calls; ratios to NumPy's median")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="W1")
    ap.add_argument("--repeat", type=int, default=5, help="timed calls per run.py run")
    ap.add_argument("--full", action="store_true", help="full sizes instead of --quick")
    ap.add_argument("--no-overhead", action="store_true")
    ap.add_argument("--inprocess", action="store_true", help="W1 interleaved in one process")
    args = ap.parse_args()
    print("load at start:", os.getloadavg())
    if args.inprocess:
        inprocess(args.rounds, args.full)
        print("load at end:", os.getloadavg())
        return
    ratios: dict = {True: {}, False: {}}
    over: dict = {True: {}, False: {}}
    for r in range(args.rounds):
        for optimize in ((True, False) if r % 2 == 0 else (False, True)):
            for name, (ratio, _t) in one_run(optimize, args.only, args.repeat,
                                             args.full).items():
                ratios[optimize].setdefault(name, []).append(ratio)
            if not args.no_overhead:
                for k, v in overhead_run(optimize).items():
                    over[optimize].setdefault(k, []).append(v)
    print("load at end:", os.getloadavg())
    print(f"\n{args.rounds} alternating rounds; phylanx / NumPy (same run), median [best]")
    print(f"{'case':70s} {'optimize=1':>18s} {'optimize=0':>18s}")
    for name in ratios[True]:
        cells = []
        for optimize in (True, False):
            xs = ratios[optimize].get(name, [])
            cells.append(f"{statistics.median(xs):.2f}x [{min(xs):.2f}x]" if xs else "-")
        print(f"{name:70s} {cells[0]:>18s} {cells[1]:>18s}")
    for k in over[True]:
        cells = [f"{statistics.median(over[o][k]):.3f} [{min(over[o][k]):.3f}]"
                 if over[o].get(k) else "-" for o in (True, False)]
        print(f"{'overhead: ' + k:70s} {cells[0]:>18s} {cells[1]:>18s}")


if __name__ == "__main__":
    main()
