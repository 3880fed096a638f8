"""What the rewrites cost at compile time: ``rewrite.optimize`` on the benchmark programs.

    python benchmarks/rewrite_cost.py [--repeat 50] [--physl] [--pipelines ast,ir]

Parses the PhySL of W1 and W2 in their original form and of every rewording of
``benchmarks/phrasing.py`` once, then times ``compiler.rewrite.optimize`` on each
(the fastest of ``--repeat`` calls, ms: on a shared machine the least disturbed
one) and prints the total, with the load average and the
CPU model.  It uses only ``optimize(program)``, so the same script measures an older
checkout (``PYTHONPATH=old python benchmarks/rewrite_cost.py``): run both in turns on a
busy machine and compare the totals' ratio.  ``--physl`` prints each rewritten program
instead: the same text from two checkouts means the same compiled program, whatever
their timings on a loaded machine say.

``--pipelines ast,ir`` compares the pipelines (``PHYLANX_PIPELINE``, docs/ir.md) in one
interleaved run: per program, the rewrites alone (``optimize`` against
``optimize_through_ir``: lowering and raising included) and the whole compile of a
freshly decorated function (translation, rewrites, building the tree; nothing run),
each the fastest of ``--repeat`` turns, the pipelines alternating within every turn;
then each column's total and its ratio to the first pipeline's.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def programs() -> list[tuple[str, object]]:
    """(name, parsed PhySL program) of every original and rewording of phrasing.py."""
    import phrasing

    from phylanx.language import parser
    sources = [("W1 original", phrasing.W1_ORIGINAL), ("W2 original", phrasing.W2_ORIGINAL)]
    sources += [(f"{r.workload} {r.name}", r.source) for r in phrasing.REWORDINGS]
    out = []
    for name, source in sources:
        decorated, _plain = phrasing.compiled(source)
        out.append((name, parser.parse(decorated.get_physl_source())))
    return out


def _rewrite_under(pipeline: str):
    from phylanx.compiler.rewrite import optimize
    from phylanx.compiler.through_ir import optimize_through_ir
    return optimize_through_ir if pipeline == "ir" else optimize


def _compile_under(pipeline: str, source: str) -> float:
    """Seconds to decorate ``source`` and compile it (translation, rewrites, tree)."""
    import phrasing

    from phylanx import config
    config.set("pipeline", pipeline)
    try:
        t0 = time.perf_counter()
        decorated, _plain = phrasing.compiled(source)
        decorated._ensure_compiled()      # PhySL AST -> execution tree, as overhead.py
        return time.perf_counter() - t0
    finally:
        config.reset("pipeline")


def compare_pipelines(pipelines: tuple, repeat: int, cpu: str) -> int:
    import phrasing
    print(f"# compile cost by pipeline: {cpu}, {os.cpu_count()} cores, "
          f"load {' '.join(f'{v:.2f}' for v in os.getloadavg())}, best of {repeat}")
    sources = [("W1 original", phrasing.W1_ORIGINAL), ("W2 original", phrasing.W2_ORIGINAL)]
    sources += [(f"{r.workload} {r.name}", r.source) for r in phrasing.REWORDINGS]
    parsed = dict(programs())
    head = "".join(f"{'rewrite ' + q:>14}" for q in pipelines) \
        + "".join(f"{'compile ' + q:>14}" for q in pipelines)
    print(f"{'program':<44}{head}")
    totals = {(kind, q): 0.0 for kind in ("rewrite", "compile") for q in pipelines}
    for name, source in sources:
        best = {key: float("inf") for key in totals}
        for _ in range(repeat):
            for q in pipelines:       # alternating: the load hits both alike
                rewrite = _rewrite_under(q)
                t0 = time.perf_counter()
                rewrite(parsed[name])
                best["rewrite", q] = min(best["rewrite", q], time.perf_counter() - t0)
                best["compile", q] = min(best["compile", q], _compile_under(q, source))
        for key, value in best.items():
            totals[key] += value
        print(f"{name:<44}" + "".join(f"{best[key] * 1e3:11.3f} ms" for key in totals))
    print(f"{'total':<44}" + "".join(f"{totals[key] * 1e3:11.3f} ms" for key in totals))
    for kind in ("rewrite", "compile"):
        base = totals[kind, pipelines[0]]
        print(f"# {kind}: " + ", ".join(f"{q}/{pipelines[0]} {totals[kind, q] / base:.2f}x"
                                         for q in pipelines[1:]))
    print(f"# load {' '.join(f'{v:.2f}' for v in os.getloadavg())} at end")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--physl", action="store_true", help="print the rewritten programs")
    p.add_argument("--pipelines", default=None,
                   help="compare pipelines (ast,ir): rewrite and whole-compile cost")
    args = p.parse_args(argv)
    from phrasing import cpu_model
    if args.pipelines:
        return compare_pipelines(tuple(args.pipelines.split(",")), args.repeat, cpu_model())

    from phylanx.compiler.rewrite import optimize
    from phylanx.language.printer import to_physl
    if args.physl:
        for name, program in programs():
            print(f"## {name}")
            print("\n".join(to_physl(e) for e in optimize(program).body))
        return 0
    print(f"# rewrite cost: {cpu_model()}, {os.cpu_count()} cores, "
          f"load {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    total = 0.0
    for name, program in programs():
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            optimize(program)
            times.append(time.perf_counter() - t0)
        ms = min(times) * 1e3
        total += ms
        print(f"{name:<48}{ms:8.3f} ms")
    print(f"{'total':<48}{total:8.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
