"""Fused element-wise chains against NumPy, numexpr and the unfused execution tree.

    python benchmarks/fusion.py [--sizes 1e4,1e5,1e6,1e7] [--repeat 9] [--out DIR]
    python benchmarks/fusion.py --backends     # numba loops vs numexpr vs NumPy alone
    python benchmarks/fusion.py --w1 569x30x100,20000x100x10   # W1, fusion off vs on

Chains (each a plain NumPy function; the phylanx columns run ``Phylanx(f)`` of it):
``sigmoid`` 1/(1+exp(-x)), ``abcde`` a*b+c*d-e, ``ssq`` sum((a-b)**2).

Columns: NumPy; numexpr (``ne.evaluate`` of the same expression, its thread pool);
phylanx with fusion off (``fusion=0``: one NumPy call per node) and on.  The fused
function is warmed up first with ``fusion_compile_cost_ms=0`` (so it does not wait
for the ski-rental threshold), until its kernel is checked, timed and kept — or given
back to NumPy because it was not faster: the ``fused as`` column says which
(``par``/``ser``: parallel or serial loop kept; ``numpy``: retired).  ``compile``
is the wall time of the call that compiled the kernel (both loops), with an empty
disk cache.  Every result is checked against NumPy before timing; repetitions are
interleaved (one call of every column per round, rotating), medians are reported.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from phylanx import Phylanx, config, fusion  # noqa: E402
from phylanx.fusion import hot  # noqa: E402


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def abcde(a, b, c, d, e):
    return a * b + c * d - e


def ssq(a, b):
    return np.sum((a - b) ** 2)


CHAINS = {"sigmoid": (sigmoid, 1, "1.0 / (1.0 + exp(-x0))"),
          "abcde": (abcde, 5, "x0 * x1 + x2 * x3 - x4"),
          "ssq": (ssq, 2, "sum((x0 - x1) ** 2)")}


def numexpr_call(expr, args):
    import numexpr as ne
    names = {f"x{i}": a for i, a in enumerate(args)}
    return lambda: ne.evaluate(expr, local_dict=names)


def fused_state(pf) -> str:
    regions = fusion.regions_of(pf._function.body)
    if not regions:
        return "none"
    region = regions[0]
    if region.state == hot.OFF:
        return "numpy"
    kernels = [k for k in region.kernels.values() if type(k) is hot._Kernel]
    if not kernels:
        return "cold" if region.state == hot.COLD else "not compiled"
    k = kernels[0]
    return "par" if k.kernel is k.variants[0] else "ser"


def measure(name: str, n: int, repeat: int) -> dict:
    fn, nargs, expr = CHAINS[name]
    rng = np.random.default_rng(1)
    args = [rng.normal(size=n) for _ in range(nargs)]
    expected = fn(*args)

    config.set("fusion", False)
    unfused = Phylanx(fn)
    unfused(*args)
    config.set("fusion", True)
    config.set("fusion_compile_cost_ms", 0.0)
    config.set("fusion_background", False)
    fused = Phylanx(fn)
    compile_s = 0.0
    for _ in range(40):           # cold, hot, compile, check, warm, timing runs
        start = time.perf_counter()
        fused(*args)
        compile_s = max(compile_s, time.perf_counter() - start)
        if fused_state(fused) in ("par", "ser", "numpy", "none"):
            region = fusion.regions_of(fused._function.body)
            if not region or region[0].state == hot.OFF or all(
                    type(k) is not hot._Kernel or k.timed_runs >= hot.SPEED_RUNS
                    for k in region[0].kernels.values()):
                break
    config.reset("fusion_compile_cost_ms")
    config.reset("fusion_background")

    columns = {"numpy": lambda: fn(*args), "phylanx-unfused": lambda: unfused(*args),
               "phylanx-fused": lambda: fused(*args)}
    try:
        columns["numexpr"] = numexpr_call(expr, args)
    except ImportError:
        pass
    for col, call in columns.items():
        got = call()
        err = np.max(np.abs(np.asarray(got) - expected)) / max(np.max(np.abs(expected)), 1e-300)
        if err > 1e-9:
            raise SystemExit(f"{name} n={n}: {col} disagrees with NumPy (rel err {err:.2e})")
    times = {col: [] for col in columns}
    order = list(columns)
    for r in range(repeat):
        for col in order[r % len(order):] + order[:r % len(order)]:
            start = time.perf_counter()
            columns[col]()
            times[col].append(time.perf_counter() - start)
    return {"chain": name, "n": n, "fused as": fused_state(fused), "compile_s": compile_s,
            **{col: statistics.median(ts) for col, ts in times.items()}}


def _backend_cases(n, rng, par, ser, ne) -> dict:
    a, b, c, d, e = (rng.normal(size=n) for _ in range(5))
    out = np.empty(n)
    names = {"a": a, "b": b, "c": c, "d": d, "e": e}
    return {
        "sigmoid": (lambda: 1.0 / (1.0 + np.exp(-a)),
                    lambda: ne.evaluate("1.0 / (1.0 + exp(-a))", local_dict=names),
                    lambda: par[0](out, a), lambda: ser[0](out, a)),
        "abcde": (lambda: a * b + c * d - e,
                  lambda: ne.evaluate("a * b + c * d - e", local_dict=names),
                  lambda: par[1](out, a, b, c, d, e), lambda: ser[1](out, a, b, c, d, e)),
        "ssq": (lambda: np.sum((a - b) ** 2),
                lambda: ne.evaluate("sum((a - b) ** 2)", local_dict=names),
                lambda: par[2](a, b), lambda: ser[2](a, b)),
    }


def backends(sizes: list[int], repeat: int) -> list[str]:
    """The measurement behind the choice of numba: hand-written loops (parallel and
    serial) against numexpr and NumPy, no phylanx involved."""
    import numexpr as ne
    from numba import njit, prange

    def loops(parallel):
        @njit(parallel=parallel, error_model="numpy")
        def sig(out, x):
            for i in prange(x.size):
                out[i] = 1.0 / (1.0 + np.exp(-x[i]))

        @njit(parallel=parallel, error_model="numpy")
        def five(out, a, b, c, d, e):
            for i in prange(a.size):
                out[i] = a[i] * b[i] + c[i] * d[i] - e[i]

        @njit(parallel=parallel, error_model="numpy")
        def sq(a, b):
            s = 0.0
            for i in prange(a.size):
                s += (a[i] - b[i]) ** 2
            return s
        return sig, five, sq

    par, ser = loops(True), loops(False)
    rng = np.random.default_rng(0)
    lines = ["| chain | elements | NumPy ms | numexpr | numba parallel | numba serial |",
             "|---|---:|---:|---:|---:|---:|"]
    print("\n".join(lines))
    for n in sizes:
        cases = _backend_cases(n, rng, par, ser, ne)
        for name, calls in cases.items():
            times = [[] for _ in calls]
            for call in calls:
                call()                      # compile / warm up
            for r in range(repeat):
                for k in [(r + j) % len(calls) for j in range(len(calls))]:
                    start = time.perf_counter()
                    calls[k]()
                    times[k].append(time.perf_counter() - start)
            med = [statistics.median(t) for t in times]
            lines.append(f"| {name} | {n:,} | {med[0] * 1e3:.3f} | " +
                         " | ".join(f"{m / med[0]:.2f}x" for m in med[1:]) + " |")
            print(lines[-1], flush=True)
    return lines


def w1_ab(shapes: list[tuple[int, int, int]], repeat: int, cost_ms: float | None) -> list[str]:
    """W1's logistic regression (benchmarks/workloads/w1_lra.py) compiled twice in one
    process, fusion off and on, called alternately: the in-process A/B of fusion."""
    sys.path.insert(0, str(HERE))
    from workloads.w1_lra import lra
    if cost_ms is not None:
        config.set("fusion_compile_cost_ms", cost_ms)
    lines = ["| x shape, iterations | fusion off ms | fusion on ms | on/off | regions |",
             "|---|---:|---:|---:|---|"]
    print("\n".join(lines))
    for n, d, iters in shapes:
        rng = np.random.default_rng(0)
        x = rng.normal(size=(n, d))
        y = (x @ rng.normal(size=d) > 0).astype(float)
        fns = {}
        for on in (False, True):
            config.set("fusion", on)
            fns[on] = Phylanx(lra)
            fns[on](x[:4], y[:4], 1e-3, 1)       # translate + compile outside the timing
        times = {False: [], True: []}
        for r in range(repeat):
            for on in ((False, True) if r % 2 else (True, False)):
                start = time.perf_counter()
                fns[on](x, y, 1e-3, iters)
                times[on].append(time.perf_counter() - start)
        fusion.wait_for_compiles()
        off, on = (statistics.median(times[k]) for k in (False, True))
        states = ", ".join(repr(r) for r in fusion.regions_of(fns[True]._function.body))
        lines.append(f"| {n}x{d}, {iters} | {off * 1e3:.1f} | {on * 1e3:.1f} | "
                     f"{on / off:.2f} | {states or 'given back to NumPy'} |")
        print(lines[-1], flush=True)
    config.reset("fusion")
    config.reset("fusion_compile_cost_ms")
    return lines


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e4,1e5,1e6,1e7")
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--chains", default=",".join(CHAINS))
    ap.add_argument("--out", default=None, help="also write the table to DIR/fusion-<date>.md")
    ap.add_argument("--backends", action="store_true",
                    help="measure hand-written numba loops vs numexpr vs NumPy instead")
    ap.add_argument("--w1", default=None, metavar="NxDxITERS,...",
                    help="instead: W1 (logistic regression) with fusion off/on in one "
                         "process, e.g. 569x30x100,20000x100x10")
    ap.add_argument("--compile-cost-ms", type=float, default=None,
                    help="with --w1: fusion_compile_cost_ms (default: the setting's)")
    opts = ap.parse_args(argv)
    load = os.getloadavg()
    if opts.w1:
        shapes = [tuple(int(v) for v in s.split("x")) for s in opts.w1.split(",")]
        lines = w1_ab(shapes, opts.repeat, opts.compile_cost_ms)
        _write(opts.out, "fusion-w1", lines, load)
        return
    if opts.backends:
        lines = backends([int(float(s)) for s in opts.sizes.split(",")], opts.repeat)
        _write(opts.out, "fusion-backends", lines, load)
        return
    config.set("fusion_cache_dir", tempfile.mkdtemp(prefix="phylanx-fusion-bench-"))
    rows = []
    for name in opts.chains.split(","):
        for size in opts.sizes.split(","):
            n = int(float(size))
            repeat = max(3, opts.repeat // 3) if n >= 10**7 else opts.repeat
            rows.append(measure(name, n, repeat))
            r = rows[-1]
            print(f"{name:8} n={n:>9,} " + "  ".join(
                f"{c} {r[c] * 1e3:8.3f} ms" for c in
                ("numpy", "numexpr", "phylanx-unfused", "phylanx-fused") if c in r)
                + f"  fused as {r['fused as']}, compile {r['compile_s']:.2f} s", flush=True)
    lines = ["| chain | elements | NumPy ms | numexpr | phylanx unfused | phylanx fused "
             "| fused as | compile s |", "|---|---:|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        base = r["numpy"]
        ne_col = f"{r['numexpr'] / base:.2f}x" if "numexpr" in r else "-"
        lines.append(f"| {r['chain']} | {r['n']:,} | {base * 1e3:.3f} | {ne_col} | "
                     f"{r['phylanx-unfused'] / base:.2f}x | {r['phylanx-fused'] / base:.2f}x | "
                     f"{r['fused as']} | {r['compile_s']:.2f} |")
    print("\n".join(lines))
    _write(opts.out, "fusion", lines, load)


def _write(out: str | None, stem: str, lines: list[str], load: tuple) -> None:
    after = os.getloadavg()
    head = (f"`python benchmarks/fusion.py {' '.join(sys.argv[1:])}`; ratios to NumPy's "
            f"median (lower is faster).  Load average (1 min) before/after: {load[0]:.2f} / "
            f"{after[0]:.2f} on {os.cpu_count()} cores.")
    print(head)
    if out:
        path = Path(out) / f"{stem}-{time.strftime('%Y-%m-%d')}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(head + "\n\n" + "\n".join(lines) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
