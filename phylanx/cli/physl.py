"""``phylanx physl``: the PhySL interpreter (the original's ``physl`` tool, §2.10).

    phylanx physl script.physl [ARGS...]     run a file; ARGS are PhySL expressions
                                             bound, as a list, to ``sys_argv``
    phylanx physl -c 'CODE' [--print]        run code given on the command line

Instrumentation (§5.1-§5.2 of the reference): ``--performance`` prints the tree
(Newick, DOT) and the counters CSV after the run; ``--dump-counters``,
``--dump-newick-tree``, ``--dump-dot`` write one of them (to FILE, or stdout without
one); ``--print-counters`` prints the counters as a table sorted by time;
``--dump-svg``/``--dump-png`` draw the tree coloured by time (``--color-by``).

Errors are printed as located messages (``file:line:col: ...``) with exit status 1.
"""
from __future__ import annotations

import argparse
import sys
import time

from .. import atomic
from ..compiler.compiler import deep_recursion
from ..errors import PhylanxError
from ..execution_tree import compiler_state
from ..language import parse, parse_expr, to_physl
from ..values import display


def bind_argv(state, argv: list[str]) -> None:
    """Evaluate each command-line argument as a PhySL expression and bind the list of
    values to ``sys_argv`` in ``state`` (as the original's ``physl`` driver did)."""
    values = [state.run(state.compile_text(parse_expr(a, "<argv>"), "<argv>")) for a in argv]
    state.globals[state.compiler.globals.declare("sys_argv")] = values

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phylanx physl", description="Run a PhySL program.",
        epilog="example: phylanx physl -c 'block(define(f, n, if(n < 2, n, "
               "f(n-1) + f(n-2))), f(20))' --print")
    p.add_argument("file", nargs="?", help="PhySL source file")
    p.add_argument("args", nargs="*", help="PhySL expressions bound to sys_argv")
    p.add_argument("-c", "--code", help="PhySL code to run instead of a file")
    p.add_argument("-p", "--print", dest="print_result", action="store_true",
                   help="print the value of the last expression")
    p.add_argument("-d", "--dump-ast", nargs="?", const="-", metavar="FILE",
                   help="print the canonical form of the parsed program (to FILE or stdout)")
    p.add_argument("--dry-run", action="store_true", help="parse and compile, do not run")
    p.add_argument("--time", action="store_true", help="print compile and run times")
    p.add_argument("--docs", action="store_true", help="print every primitive and its help")
    g = p.add_argument_group("instrumentation (counters, tree dumps, pictures)")
    g.add_argument("--performance", action="store_true",
                   help="after the run print the tree (Newick, DOT) and the counters CSV")
    for flag, what in (("--dump-counters", "the counters CSV"),
                       ("--dump-newick-tree", "the tree in Newick form"),
                       ("--dump-dot", "the tree in DOT form")):
        g.add_argument(flag, nargs="?", const="-", metavar="FILE",
                       help=f"write {what} to FILE (stdout without FILE)")
    g.add_argument("--print-counters", action="store_true",
                   help="print the counters as a table, slowest first")
    g.add_argument("--dump-svg", metavar="FILE", help="draw the tree, coloured by time, as SVG")
    g.add_argument("--dump-png", metavar="FILE", help="draw the tree, coloured by time, as PNG")
    g.add_argument("--color-by", choices=("time", "self"), default="time",
                   help="colour the pictures by inclusive (time) or exclusive (self) time")
    return p


def _wants_counters(args) -> bool:
    return bool(args.performance or args.dump_counters or args.dump_newick_tree
                or args.dump_dot or args.print_counters or args.dump_svg or args.dump_png)


def print_docs() -> None:
    from ..primitives.registry import all_specs
    for spec in all_specs():
        print(f"{spec.name}: {' ; '.join(spec.patterns)}")
        for line in spec.doc.splitlines():
            print(f"    {line}")
        print()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.docs:
        print_docs()
        return 0
    if args.code is not None:
        source, file_name = args.code, "<command line>"
        if args.file is not None:  # with -c, every positional is an argument
            args.args.insert(0, args.file)
    elif args.file is not None:
        file_name = args.file
        try:
            with open(args.file, encoding="utf-8") as fh:
                source = fh.read()
        except OSError as e:
            print(f"phylanx physl: cannot read {args.file}: {e.strerror}", file=sys.stderr)
            return 2
    else:
        print("phylanx physl: give a FILE or -c CODE (see --help)", file=sys.stderr)
        return 2
    try:
        t0 = time.perf_counter()
        program = parse(source, file_name)
        if args.dump_ast is not None:
            with deep_recursion():   # printing recurses along the tree's depth
                text = to_physl(program) + "\n"
            if args.dump_ast == "-":
                sys.stdout.write(text)
            else:
                atomic.write_text(args.dump_ast, text)
        state = compiler_state("physl", file_name)
        bind_argv(state, args.args)
        node = state.compile_text(program, file_name)
        if _wants_counters(args):
            from ..runtime import measure
            measure.enable(node, reset=True)
        t1 = time.perf_counter()
        if args.dry_run:
            result = None
        else:
            result = state.run(node)
        t2 = time.perf_counter()
    except PhylanxError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.print_result and not args.dry_run:
        from ..runtime.futures import resolve
        with deep_recursion():
            print(display(resolve(result)))
    if _wants_counters(args) and not args.dry_run:
        from .instruments import write_instruments
        status = write_instruments(args, node, file_name)
        if status:
            return status
    if args.time:
        print(f"compile: {1e3 * (t1 - t0):.3f} ms, run: {1e3 * (t2 - t1):.3f} ms",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
