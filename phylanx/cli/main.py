"""``phylanx``: the console-script entry point; dispatches to a subcommand module.

Each subcommand lives in its own module of this package with ``main(argv) -> int``
and is imported only when used, so ``phylanx primitives`` does not load the
frontend and a missing subcommand module gives a clear message, not a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__

#: subcommand -> (module of phylanx.cli, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "physl": ("physl", "run a PhySL program (file or -c CODE)"),
    "primitives": ("primitives", "list the primitives, write docs/primitives.md, coverage"),
    "rules": ("rules", "the rewrite rules with their phases and laws (docs/rules.md)"),
    "translate": ("translate", "translate a Python function to PhySL"),
    "run": ("run", "run a program on N localities (MPI ranks): run -n N PROGRAM"),
    "trace": ("trace", "record a run as a timeline: trace [-n N] -o trace.json PROGRAM"),
    "ir": ("ir", "print the IR of a PhySL or Python file: ir FILE [-f NAME -s TYPES]"),
    "report": ("report", "an HTML report (or Gantt/scaling PNG) of a trace file"),
}


def build_parser() -> argparse.ArgumentParser:
    lines = [f"  {name:<12}{help_text}" for name, (_, help_text) in SUBCOMMANDS.items()]
    parser = argparse.ArgumentParser(
        prog="phylanx",
        description="Phylanx: NumPy-style Python and PhySL compiled to execution trees.",
        epilog="commands:\n" + "\n".join(lines)
               + "\n\n'phylanx COMMAND --help' describes a command.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"phylanx {__version__}")
    parser.add_argument("command", choices=sorted(SUBCOMMANDS), metavar="COMMAND",
                        help="one of: " + ", ".join(SUBCOMMANDS))
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments of the command")
    return parser


def run_subcommand(command: str, argv: list[str]) -> int:
    module_name, _ = SUBCOMMANDS[command]
    try:
        module = importlib.import_module(f"{__package__}.{module_name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__package__}.{module_name}":
            raise  # the module exists but something it imports is missing: show it
        print(f"phylanx: the '{command}' command is not available in this installation "
              f"(module phylanx.cli.{module_name} is missing)", file=sys.stderr)
        return 2
    return int(module.main(argv) or 0)


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``) and run the chosen subcommand."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # options before the command belong to `phylanx` itself; the rest to the command
    if argv and argv[0] in SUBCOMMANDS:
        return run_subcommand(argv[0], argv[1:])
    if not argv:
        build_parser().print_help(sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    return run_subcommand(args.command, args.args)


if __name__ == "__main__":
    sys.exit(main())
