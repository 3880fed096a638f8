"""The IR pipeline (``pipeline=ir``, the default) against the former one (``ast``), side by
side in one run.

For every program of ``general_programs.py`` (quick data): the first call of a freshly
decorated function (translate, rewrite, compile, run) and the best of later calls,
under ``pipeline=ast`` and ``pipeline=ir``, their ratios, whether both give the same
value, and the cost of lowering and raising alone with the IR's size (equations,
opaque ones) and whether raising gave back the very program lowered (then the compiled
trees are the same and a later-call ratio away from 1 is the machine's noise).  The
first call pays the round trip.

Run: ``python benchmarks/ir_pipeline.py [--repeat N]``.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from general_programs import PROGRAMS  # noqa: E402

from phylanx import Phylanx, config  # noqa: E402
from phylanx.compiler import rewrite, through_ir  # noqa: E402
from phylanx.compiler.rewrite import inline  # noqa: E402
from phylanx.compiler.rewrite.engine import run_phases  # noqa: E402
from phylanx.ir.core import walk  # noqa: E402


def arguments(program, data):
    return tuple(np.copy(a) if i in program.copies else a for i, a in enumerate(data))


def measure(program, data, pipeline: str, repeat: int):
    config.set("pipeline", pipeline)
    try:
        f = Phylanx(program.fn)
        start = time.perf_counter()
        value = f(*arguments(program, data))
        first = time.perf_counter() - start
        best = float("inf")
        for _ in range(repeat):
            args = arguments(program, data)
            start = time.perf_counter()
            f(*args)
            best = min(best, time.perf_counter() - start)
    finally:
        config.reset("pipeline")
    return first, best, value, f


def same(a, b) -> bool:
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(map(same, a, b))
    return bool(np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                            equal_nan=True))


def round_trip_cost(f, repeat: int):
    program = f.translation.program
    best = float("inf")
    for _ in range(max(repeat, 3)):
        start = time.perf_counter()
        through_ir.through_ir(program)
        best = min(best, time.perf_counter() - start)
    with inline.linked(f._linked_definitions()):
        fn = through_ir.lowered(program)
        program = run_phases([p for p in rewrite.PASSES if p.name in ("inline", "normalize")],
                             program)
    eqns = list(walk(fn))
    identical = through_ir.through_ir(program) == program
    return best, len(eqns), sum(e.prim == "opaque" for e in eqns), identical


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{platform.processor() or platform.machine()}, load {os.getloadavg()[0]:.1f}, "
          f"{os.cpu_count()} CPUs")
    print(f"{'program':38} {'first ast':>10} {'first ir':>9} {'ratio':>6} "
          f"{'later ast':>10} {'later ir':>9} {'ratio':>6} {'same':>5} "
          f"{'lower+raise':>11} {'eqns':>5} {'opaque':>6} {'same AST':>8}")
    firsts, laters = [], []
    for pipeline in ("ast", "ir"):   # one-time costs (imports, caches) before timing
        measure(PROGRAMS[0], PROGRAMS[0].data(True), pipeline, 1)
    for program in PROGRAMS:
        data = program.data(True)
        t_first, t_best, t_value, f = measure(program, data, "ast", args.repeat)
        i_first, i_best, i_value, _ = measure(program, data, "ir", args.repeat)
        agree = same(t_value, i_value)
        cost, eqns, opaque, identical = round_trip_cost(f, args.repeat)
        firsts.append(i_first / t_first)
        laters.append(i_best / t_best)
        print(f"{program.name[:38]:38} {t_first * 1e3:8.1f}ms {i_first * 1e3:7.1f}ms "
              f"{firsts[-1]:6.2f} {t_best * 1e3:8.2f}ms {i_best * 1e3:7.2f}ms "
              f"{laters[-1]:6.2f} {str(agree):>5} {cost * 1e3:9.2f}ms {eqns:5d} {opaque:6d} "
              f"{str(identical):>8}")
    geo = lambda xs: float(np.exp(np.mean(np.log(xs))))  # noqa: E731
    print(f"geometric mean ir/ast: first call {geo(firsts):.2f}, later calls {geo(laters):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
