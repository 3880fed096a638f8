"""Warm-up: the first call of a small function, and the time to the fast state.

    python benchmarks/warmup.py [--calls 60] [--seconds 5] [--cache cold,warm]
                                [--only first,W1,W2,jacobi,power] [--json FILE]
                                [--tree /tmp/old --tree .]

Every measurement runs in a fresh process (``--child``), so nothing one peer compiled or
imported helps another:

* **first call**: a ten-line NumPy function (``small``) decorated and called once —
  ``@Phylanx`` (translate, compile, first evaluation), the undecorated function (NumPy),
  and ``jax.jit`` (trace + XLA compile + first run).  The imports (``import phylanx``,
  ``import jax``) are timed apart.  Target (issue 27): phylanx's first call <= 30 ms.
* **time to the fast state**: a program is called over and over (at least ``--calls``
  calls and ``--seconds`` seconds, nobody waiting for background compiles, as a user
  would), then let settle (``workloads.common.settled``) and timed again: the median of
  those calls is its *steady state*.  Reported: the call index and the elapsed time
  (from the start of the first call) from which the median of five calls centred on
  each call is within 10% of the steady state (within 50% for every later window: a
  descheduled call on a loaded machine does not undo it).  Target: within 1 s or 20
  calls.  Programs: W1 small (logistic regression 569 x 30, 750 iterations: a compiled
  loop), W2 (k-means 30,000 x 8, k = 8: row passes), a 64 x 64 Jacobi (slices: the
  policy alone), a power iteration (300 x 300: a compiled loop).  ``--cache cold`` gives
  the child an empty kernel cache (``fusion_cache_dir``: everything is compiled),
  ``warm`` the one a previous run filled (numba's disk cache loads the kernels).

Children import modules as an installed phylanx does, from their bytecode (written by a
first child into a directory of the run, ``PYTHONPYCACHEPREFIX``), even where the
environment forbids writing bytecode; ``--no-bytecode`` keeps the environment's rule.
The first call is also given in CPU time, the calling thread's and the process's (all
threads: XLA compiles on several; OpenBLAS's idle threads spin there too): on a loaded
machine the wall time holds the time the process waited for a core.

Prints one line per measurement, ratios to NumPy where it applies; ``--json`` writes the
figures.  On a loaded machine say so with the figures (``uptime``): the per-call curve
then holds descheduled calls.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CALLS, SECONDS = 60, 5.0
WITHIN, STAYS, WINDOW = 1.10, 1.50, 5
#: where the children keep the modules' bytecode (None: as the environment says)
BYTECODE: list = [None]


def small(x, y):
    """The ten-line function of the first-call measurement (plain NumPy)."""
    a = x * 2.0 + y
    b = np.sqrt(np.abs(a))
    c = np.sum(b * b)
    d = np.maximum(a - c / x.shape[0], 0.0)
    e = np.exp(-d)
    f = e / np.sum(e)
    g = np.dot(f, y)
    h = np.where(a > 0.0, a, 0.0)
    return g + np.mean(h) * c


# -- children: one measurement each, in a fresh process -----------------------------
def first_call(peer: str) -> dict:
    """Seconds of the imports, the first and the second call of ``small`` for ``peer``."""
    out = {}
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=100), rng.normal(size=100)
    if peer == "phylanx":
        t0 = time.perf_counter()
        from phylanx import Phylanx
        t1 = time.perf_counter()
        fn = Phylanx(small)
        out["import_s"] = t1 - t0
    elif peer == "jax":
        t0 = time.perf_counter()
        sys.path.insert(0, str(HERE))
        from workloads.common import jax_x64
        jax = jax_x64()
        t1 = time.perf_counter()
        if jax is None:
            return {"skipped": "jax not installed"}
        out["import_s"] = t1 - t0
        jnp = jax.numpy

        # the same function, its ``np`` being jax.numpy
        jsmall = types.FunctionType(small.__code__, {**small.__globals__, "np": jnp})
        jitted = jax.jit(jsmall)

        def fn(x, y):
            return jitted(x, y).block_until_ready()
    else:
        out["import_s"] = 0.0
        fn = small
    t0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
    first = fn(x, y)
    t1, c1, p1 = time.perf_counter(), time.thread_time(), time.process_time()
    fn(x, y)
    t2 = time.perf_counter()
    out.update(first_s=t1 - t0, first_cpu_s=c1 - c0, first_process_s=p1 - p0,
               second_s=t2 - t1,
               agrees=bool(np.allclose(float(first), small(x, y), rtol=1e-9)))
    return out


def programs() -> dict:
    """name -> (plain NumPy function, arguments)."""
    sys.path.insert(0, str(HERE))
    from general_programs import jacobi, jacobi_data
    from loops import power
    from workloads.w1_lra import data, lra
    from workloads.w2_kmeans import kmeans
    x, y, _ = data(569, 30, True)
    rng = np.random.default_rng(2)
    centres = rng.normal(scale=6.0, size=(8, 8))
    points = (centres[rng.integers(0, 8, 30_000)] + rng.normal(size=(30_000, 8)))
    a = rng.normal(size=(300, 300))
    a = a @ a.T / 300
    return {"W1": (lra, (x, y, 1e-3, 750)),
            "W2": (kmeans, (points, centres + rng.normal(size=(8, 8)), 10)),
            "jacobi": (jacobi, jacobi_data(True)),
            "power": (power, (a, np.ones(300), 400))}


def curve(name: str, calls: int, seconds: float) -> dict:
    """Per-call seconds of ``name`` through ``@Phylanx`` from its first call, then its
    steady state; NumPy's median for the ratio."""
    fn, args = programs()[name]
    from workloads.common import settled

    from phylanx import Phylanx
    decorated = Phylanx(fn)
    times = []
    began = time.perf_counter()
    while len(times) < calls or time.perf_counter() - began < seconds:
        t0 = time.perf_counter()
        decorated(*args)
        times.append(time.perf_counter() - t0)
    settled(lambda: decorated(*args), seconds=2.0)
    steady = [_timed(decorated, args) for _ in range(15)]
    numpy = [_timed(fn, args) for _ in range(15)]
    return {"times": times, "steady_s": statistics.median(steady),
            "numpy_s": statistics.median(numpy)}


def _timed(fn, args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def reached(times: list[float], steady: float) -> int | None:
    """The first call index from which the median of ``WINDOW`` calls centred on each
    call is within ``WITHIN`` of ``steady`` and no later one exceeds ``STAYS`` of it."""
    half = WINDOW // 2
    medians = [statistics.median(times[max(0, i - half):i + half + 1])
               for i in range(len(times))]
    for i, m in enumerate(medians):
        if m <= WITHIN * steady and all(later <= STAYS * steady for later in medians[i:]):
            return i
    return None


# -- the parent: one child per measurement -------------------------------------------
def child(args: list[str], cache: str | None = None, tree: Path = HERE.parent) -> dict:
    """Run ``--child args`` in a fresh process importing phylanx from ``tree``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tree)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    if cache is not None:
        env["PHYLANX_FUSION_CACHE_DIR"] = cache
    if BYTECODE[0]:
        # as installed: pip writes the modules' bytecode at install; an environment that
        # forbids writing it (PYTHONDONTWRITEBYTECODE) would charge every import a compile
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = BYTECODE[0]
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", *args],
                          env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:] or ["exit status"]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def report_first(results: dict, label: str = "") -> None:
    numpy = results["numpy"].get("first_s")
    for peer, r in results.items():
        if "first_s" not in r:
            print(f"first call  {peer:8s}{label}: {r}")
            continue
        ratio = f", {r['first_s'] / numpy:.0f}x NumPy's first call" if numpy else ""
        print(f"first call  {peer:8s}{label}: import {1e3 * r['import_s']:7.1f} ms (apart), "
              f"first call {1e3 * r['first_s']:7.2f} ms (CPU {1e3 * r['first_cpu_s']:.2f} ms, "
              f"process {1e3 * r['first_process_s']:.1f} ms)"
              f"{ratio}, second "
              f"{1e3 * r['second_s']:.3f} ms, agrees {r['agrees']}"
              + ("  [target <= 30 ms]" if peer == "phylanx" else ""))


def report_curve(name: str, cache: str, r: dict, label: str = "") -> dict:
    if "times" not in r:
        print(f"fast state  {name:6s} {cache:4s}{label}: {r}")
        return r
    times, steady = r["times"], r["steady_s"]
    at = reached(times, steady)
    summary = {"calls": len(times), "steady_ms": 1e3 * steady,
               "numpy_ms": 1e3 * r["numpy_s"], "first_ms": 1e3 * times[0],
               "reached_call": at,
               "reached_s": None if at is None else sum(times[:at + 1]),
               "curve_ms": [round(1e3 * t, 3) for t in times]}
    where = ("not reached" if at is None else
             f"call {at} at {summary['reached_s']:.2f} s")
    print(f"fast state  {name:6s} {cache:4s}{label}: {where}  (steady {1e3 * steady:.2f} ms = "
          f"{steady / r['numpy_s']:.2f}x NumPy; first call {1e3 * times[0]:.1f} ms; "
          f"{len(times)} calls in {sum(times):.1f} s)  [target <= 1 s or 20 calls]")
    return summary


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=CALLS)
    ap.add_argument("--seconds", type=float, default=SECONDS)
    ap.add_argument("--cache", default="cold,warm",
                    help="cold (an empty kernel cache), warm (the one a run filled)")
    ap.add_argument("--only", default="first,W1,W2,jacobi,power")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="children compile every module they import (no bytecode kept)")
    ap.add_argument("--tree", action="append",
                    help="a phylanx source tree the children import (repeat it to compare "
                         "trees, run in turn: git archive <commit> | tar -x -C /tmp/old)")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        out = first_call(rest[0]) if kind == "first" else curve(
            rest[0], int(rest[1]), float(rest[2]))
        print(json.dumps(out))
        return
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, load "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    only = args.only.split(",")
    trees = {f" [{Path(t).resolve().name}]" if len(args.tree) > 1 else "": Path(t).resolve()
             for t in args.tree} if args.tree else {"": HERE.parent}
    figures: dict = {}
    with tempfile.TemporaryDirectory(prefix="phylanx-warmup-") as shared:
        if not args.no_bytecode:
            BYTECODE[0] = os.path.join(shared, "bytecode")
            for tree in trees.values():
                child(["first", "phylanx"], tree=tree)   # writes it, as an install would
        if "first" in only:
            for label, tree in trees.items():
                peers = ("numpy", "phylanx", "jax") if not label else ("numpy", "phylanx")
                figures["first" + label] = {peer: child(["first", peer], tree=tree)
                                            for peer in peers}
                report_first(figures["first" + label], label)
        for cache in args.cache.split(","):
            for name in (n for n in only if n != "first"):
                for label, tree in trees.items():   # trees in turn: the same load for each
                    # cold: a directory of its own; warm: one filled by an earlier child
                    directory = tempfile.mkdtemp(prefix=f"phylanx-{cache}-", dir=shared)
                    if cache == "warm":
                        child(["curve", name, "3", "0.5"], directory, tree)   # fills it
                    r = child(["curve", name, str(args.calls), str(args.seconds)],
                              directory, tree)
                    figures[f"{name}/{cache}{label}"] = report_curve(name, cache, r, label)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
