"""Count the PhySL programs of tests/ and examples/ whose IR keeps an opaque statement.

The corpus is every string constant of ``tests/`` and ``examples/`` that parses as PhySL
with a call (``tests/ir/test_text.py``, ``repository_programs``).  Each is lowered as
``pipeline=ir`` lowers it (``phylanx/ir/lower.py``; primitives told from functions
called by name by the registry, without the inline/normalize passes), and every
``opaque`` equation is counted by the head of the statement it holds (``define``,
``store``, ``parallel_block`` ...), and apart the programs whose opaque statements hold
a ``lambda`` (the measure docs/ir.md gave before lambdas were lowered)::

    python tools/ir_opaque_count.py [--examples N]
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def reason(stmt) -> str:
    """What an opaque statement is: the head of the statement."""
    from phylanx.language import ast
    return stmt.func if type(stmt) is ast.Call else type(stmt).__name__


def holds_lambda(stmt) -> bool:
    from phylanx.language import ast
    stack = [stmt]
    while stack:
        x = stack.pop()
        if type(x) is ast.Call and x.func == "lambda":
            return True
        stack.extend(ast.children(x))
    return False


def census():
    """(programs, programs keeping an opaque statement, of them those holding a lambda,
    Counter of programs by reason, reason -> its statements)."""
    from phylanx.compiler.through_ir import is_primitive
    from phylanx.ir import lower
    from phylanx.ir.core import walk
    from tests.ir.test_text import repository_programs
    programs = repository_programs()
    kept = with_lambda = 0
    by_reason: Counter = Counter()
    examples: dict[str, list] = {}
    for program in programs:
        held = [e.param("ast") for e in walk(lower(program, is_primitive))
                if e.prim == "opaque"]
        kept += bool(held)
        with_lambda += any(holds_lambda(s) for s in held)
        reasons = {reason(s) for s in held}
        by_reason.update(reasons)
        for s in held:
            examples.setdefault(reason(s), []).append(s)
    return len(programs), kept, with_lambda, by_reason, examples


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--examples", type=int, default=0, help="statements shown per reason")
    args = p.parse_args(argv)
    from phylanx.language.printer import to_physl
    total, kept, with_lambda, by_reason, examples = census()
    print(f"{kept} of {total} programs keep an opaque statement ({with_lambda} of them "
          f"holding a lambda); programs by the head of the statement:")
    for what, count in by_reason.most_common():
        print(f"{count:6d}  {what}")
        for s in examples[what][:args.examples]:
            print(f"          {to_physl(s)[:120]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
