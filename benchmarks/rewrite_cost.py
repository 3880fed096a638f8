"""What the rewrites cost at compile time: ``rewrite.optimize`` on the benchmark programs.

    python benchmarks/rewrite_cost.py [--repeat 50] [--physl]

Parses the PhySL of W1 and W2 in their original form and of every rewording of
``benchmarks/phrasing.py`` once, then times ``compiler.rewrite.optimize`` on each
(the fastest of ``--repeat`` calls, ms: on a shared machine the least disturbed
one) and prints the total, with the load average and the
CPU model.  It uses only ``optimize(program)``, so the same script measures an older
checkout (``PYTHONPATH=old python benchmarks/rewrite_cost.py``): run both in turns on a
busy machine and compare the totals' ratio.  ``--physl`` prints each rewritten program
instead: the same text from two checkouts means the same compiled program, whatever
their timings on a loaded machine say.
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--physl", action="store_true", help="print the rewritten programs")
    args = p.parse_args(argv)
    from phrasing import cpu_model

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
