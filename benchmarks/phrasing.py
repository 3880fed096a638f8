"""Speed that does not depend on phrasing: W1 and W2 as written against rewordings.

    python benchmarks/phrasing.py [--quick] [--repeat 7] [--only W1-small] [--settle 3]
                                  [--pipelines ast,ir]

Each case (W1 logistic regression small and large, W2 k-means in 2-D) is decorated in
its original form and in every rewording of :data:`REWORDINGS` for its workload (another
product spelling, a transpose bound to a name, a helper ``def``, float32 data, a mean or
a norm, a ``while`` loop with ``+=`` ...).  Every variant is settled first (its compiled
kernels built, as ``benchmarks/run.py`` does, then all once more), its result checked
against the original's, then the variants are timed in turns, one call each per round,
``--repeat`` rounds: the table gives each rewording's median time over the original's
median (target: every rewording within 1.15x).  The load average and the CPU model are
printed with it.

``--pipelines ast,ir`` compiles every variant under each pipeline (``PHYLANX_PIPELINE``,
docs/ir.md) and times them all in the same turns: each row then gives the variant's
time per pipeline and their ratio (the last pipeline's over the first's).

To add a rewording, append a :class:`Rewording` to :data:`REWORDINGS`: the source of a
function with the original's parameters (its name is free), and the dtype of the data.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.kmeans_programs import VARIANTS, kmeans_source  # noqa: E402 - after the path

#: W2 as the rewordings start from it: the sums in the points' dtype
_W2_SLOTS = VARIANTS["points_dtype"]

W1_ORIGINAL = """
def lra(x, y, alpha, iterations):
    w = np.zeros(x.shape[1], dtype=x.dtype)
    for _ in range(iterations):
        pred = 1.0 / (1.0 + np.exp(-(x @ w)))
        w = w - alpha * (x.T @ (pred - y))
    return w
"""

W2_ORIGINAL = "\n" + kmeans_source(**_W2_SLOTS)


@dataclass(frozen=True)
class Rewording:
    name: str                 # a row of the table
    workload: str             # "W1" or "W2": which cases it is timed in
    source: str               # one function with the original's parameters
    dtype: Any = np.float64   # of the data it is given


def _w1(name: str, product: Callable[[str, str], str] = lambda a, b: f"{a} @ {b}",
        xt: str = "x.T", before: str = "", dtype: Any = np.float64) -> Rewording:
    """W1 with its products and transpose spelled as given."""
    return Rewording(name, "W1", f"""
def lra(x, y, alpha, iterations):
    w = np.zeros(x.shape[1], dtype=x.dtype){before}
    for _ in range(iterations):
        pred = 1.0 / (1.0 + np.exp(-({product('x', 'w')})))
        w = w - alpha * ({product(xt, '(pred - y)')})
    return w
""", dtype)


def _w2(name: str, product: Callable[[str, str], str] = lambda a, b: f"{a} @ {b}",
        ct: str = "centres.T", sq: str = "np.sum(points * points, axis=1)",
        dtype: Any = np.float64) -> Rewording:
    """W2 with its product, transpose and squared norms spelled as given (the template
    of ``tests/kmeans_programs.py``)."""
    distances = (f"sq[:, None] - 2.0 * ({product('points', ct)}) "
                 "+ np.sum(centres * centres, axis=1)")
    return Rewording(name, "W2", "\n" + kmeans_source(
        **{**_W2_SLOTS, "norms": f"\n    sq = {sq}", "distances": distances}), dtype)


def _dot(a, b):
    return f"np.dot({a}, {b})"


def _matmul(a, b):
    return f"np.matmul({a}, {b})"


def _method(a, b):
    return f"{a}.dot({b})"


#: every rewording timed; other branches add theirs here
REWORDINGS: list[Rewording] = [
    _w1("np.dot", _dot),
    _w1("np.matmul", _matmul),
    _w1(".dot method", _method, xt="(x.T)"),
    _w1("x.T bound to a name", xt="xt", before="\n    xt = x.T"),
    _w1("np.transpose", xt="np.transpose(x)"),
    _w1("float32 data", dtype=np.float32),
    Rewording("helper def for the sigmoid", "W1", """
def lra(x, y, alpha, iterations):
    def sigmoid(z):
        return 1.0 / (1.0 + np.exp(-z))
    w = np.zeros(x.shape[1], dtype=x.dtype)
    for _ in range(iterations):
        pred = sigmoid(x @ w)
        w = w - alpha * (x.T @ (pred - y))
    return w
"""),
    Rewording("defaults in the signature", "W1", """
def lra(x, y, alpha=1e-3, iterations=750):
    w = np.zeros(x.shape[1], dtype=x.dtype)
    for _ in range(iterations):
        pred = 1.0 / (1.0 + np.exp(-(x @ w)))
        w = w - alpha * (x.T @ (pred - y))
    return w
"""),
    Rewording("while loop, counter and -=", "W1", """
def lra(x, y, alpha, iterations):
    w = np.zeros(x.shape[1], dtype=x.dtype)
    i = 0
    while i < iterations:
        pred = 1.0 / (1.0 + np.exp(-(x @ w)))
        w -= alpha * (x.T @ (pred - y))
        i += 1
    return w
"""),
    _w2("np.dot", _dot),
    _w2("np.matmul", _matmul),
    _w2(".dot method", _method),
    _w2("np.transpose", ct="np.transpose(centres)"),
    _w2("float32 data", dtype=np.float32),
    _w2("np.linalg.norm(points, axis=1) ** 2", sq="np.linalg.norm(points, axis=1) ** 2"),
    _w2("np.mean times d", sq="points.shape[1] * np.mean(points * points, axis=1)"),
    _w2("np.average times d",
        sq="points.shape[1] * np.average(points * points, axis=1)"),
    Rewording("helper def for the distance", "W2", """
def kmeans(points, centres, iterations):
    def distances(p, c, sq):
        return sq[:, None] - 2.0 * (p @ c.T) + np.sum(c * c, axis=1)
    k = centres.shape[0]
    sq = np.sum(points * points, axis=1)
    for _ in range(iterations):
        labels = np.argmin(distances(points, centres, sq), axis=1)
        counts = np.bincount(labels, minlength=k)
        sums = np.zeros((k, points.shape[1]), dtype=points.dtype)
        np.add.at(sums, labels, points)
        centres = sums / np.maximum(counts, 1)[:, None]
    return centres
"""),
]


@dataclass(frozen=True)
class Case:
    name: str
    workload: str
    original: str
    data: Callable[[Any], tuple]      # dtype -> arguments


def _lra_data(n: int, d: int, iterations: int):
    def make(dtype):
        rng = np.random.default_rng(0)
        x = rng.normal(size=(n, d))
        y = (x @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0).astype(float)
        return x.astype(dtype), y.astype(dtype), 1e-3, iterations
    return make


def _kmeans_data(n: int, d: int, iterations: int, k: int = 8):
    def make(dtype):
        rng = np.random.default_rng(1)
        truth = rng.uniform(-20, 20, size=(k, d))
        points = truth[rng.integers(0, k, n)] + rng.normal(size=(n, d))
        initial = truth + rng.normal(scale=0.5, size=(k, d))
        return points.astype(dtype), initial.astype(dtype), iterations
    return make


def cases(quick: bool) -> list[Case]:
    if quick:
        return [Case("W1-small", "W1", W1_ORIGINAL, _lra_data(120, 8, 20)),
                Case("W2-2d", "W2", W2_ORIGINAL, _kmeans_data(2000, 2, 3))]
    return [Case("W1-small", "W1", W1_ORIGINAL, _lra_data(569, 30, 750)),
            Case("W1-large", "W1", W1_ORIGINAL, _lra_data(50_000, 100, 20)),
            Case("W2-2d", "W2", W2_ORIGINAL, _kmeans_data(200_000, 2, 10))]


def compiled(source: str):
    """(decorated, plain) functions of ``source``."""
    from phylanx import Phylanx
    namespace: dict = {"np": np}
    exec(compile(source, "<phrasing>", "exec"), namespace)
    plain = [v for k, v in namespace.items() if callable(v) and not k.startswith("__")
             and k != "np"][-1]
    return Phylanx(source=source.strip() + "\n")(plain), plain


def max_rel_err(got: Any, want: Any) -> float:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        return float("inf")
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-300)
    return float(np.max(np.abs(got - want), initial=0.0)) / scale


def tolerance(dtype: Any) -> float:
    """A float32 variant against the float64 original: its rounding over the iterations."""
    return 1e-6 if np.dtype(dtype) == np.float64 else 2e-3


@dataclass
class Variant:
    name: str
    pipeline: str | None
    run: Callable[[], Any]
    result: Any
    err: float
    tol: float
    times: list


def variants(case: Case, settle: float, reworded: list[Rewording] | None = None,
             pipelines: tuple = (None,)) -> list:
    """The original and every rewording of the case's workload, settled and checked,
    compiled under each of ``pipelines`` (None: as configured)."""
    from workloads.common import first_call_under, settled
    todo = [Rewording("original", case.workload, case.original)]
    todo += [r for r in (REWORDINGS if reworded is None else reworded)
             if r.workload == case.workload]
    out: list[Variant] = []
    for r in todo:
        for pipeline in pipelines:
            fn, _plain = compiled(r.source)
            args = case.data(r.dtype)
            run = lambda fn=fn, args=args: fn(*args)  # noqa: E731
            first_call_under(pipeline, run)
            run = settled(run, seconds=settle)
            result = run()
            err = 0.0 if not out else max_rel_err(result, out[0].result)
            out.append(Variant(r.name, pipeline, run, result, err, tolerance(r.dtype), []))
    # the first variants paid numba's start in this process and compiled kernels the later
    # ones found in the disk cache: settled once more, all alike, before any is timed
    for v in out:
        settled(v.run, seconds=settle / 2)
    return out


def timed(vs: list[Variant], repeat: int) -> None:
    """One call of each variant per round, ``repeat`` rounds (the load hits all alike);
    each round starts one variant later, so none always follows the slowest."""
    for r in range(repeat):
        for v in vs[r % len(vs):] + vs[:r % len(vs)]:
            t0 = time.perf_counter()
            v.run()
            v.times.append(time.perf_counter() - t0)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes, short settling")
    p.add_argument("--repeat", type=int, default=None)
    p.add_argument("--settle", type=float, default=None, help="seconds to settle each")
    p.add_argument("--only", default=None, help="one case: W1-small, W1-large, W2-2d")
    p.add_argument("--pipelines", default=None,
                   help="comma-separated pipelines to compile each variant under "
                        "(ast,ir): times and their ratio side by side")
    a = p.parse_args(argv)
    repeat = a.repeat or (3 if a.quick else 7)
    settle = a.settle if a.settle is not None else (0.05 if a.quick else 3.0)
    pipelines = tuple(a.pipelines.split(",")) if a.pipelines else (None,)
    print(f"# phrasing: {cpu_model()}, {os.cpu_count()} cores, load "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at start, repeat {repeat}")
    failed = 0
    worst = 0.0
    across: list[float] = []
    for case in cases(a.quick):
        if a.only and case.name != a.only:
            continue
        vs = variants(case, settle, pipelines=pipelines)
        timed(vs, repeat)
        failed += sum(v.err > v.tol for v in vs)
        for p in pipelines:
            mine = [v for v in vs if v.pipeline == p]
            base = float(np.median(mine[0].times))
            print(f"\n## {case.name}{f' ({p})' if p else ''}: original {base * 1e3:.2f} ms "
                  f"(median)")
            print(f"{'rewording':40s} {'ms':>9s} {'/orig':>7s}  result"
                  + (f"  {pipelines[-1]}/{pipelines[0]}" if p == pipelines[-1]
                     and len(pipelines) > 1 else ""))
            for v in mine:
                med = float(np.median(v.times))
                ok = v.err <= v.tol
                ratio = med / base
                if v is not mine[0]:
                    worst = max(worst, ratio)
                flag = "" if ratio <= 1.15 or v is mine[0] else "  > 1.15x"
                other = ""
                if len(pipelines) > 1 and p == pipelines[-1]:
                    first = next(u for u in vs if u.name == v.name and u.pipeline == pipelines[0])
                    across.append(med / float(np.median(first.times)))
                    other = f"  {across[-1]:5.2f}x"
                print(f"{v.name:40s} {med * 1e3:9.2f} {ratio:6.2f}x  "
                      f"{'same' if ok else f'DIFFERS ({v.err:.1e})'}{flag}{other}")
    if across:
        geo = float(np.exp(np.mean(np.log(across))))
        print(f"\n# {pipelines[-1]}/{pipelines[0]}: geometric mean {geo:.2f}x, "
              f"range {min(across):.2f}x-{max(across):.2f}x over {len(across)} variants")
    print(f"\n# worst rewording / original: {worst:.2f}x; load "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at end")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
