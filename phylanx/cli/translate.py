"""``phylanx translate FILE.py``: print the PhySL of every ``@Phylanx`` function in a file.

The file is run as a module named ``__phylanx_translate__`` (so its
``if __name__ == "__main__":`` block does not run); each decorated function
found in it is translated and printed, in source order, after a comment line
naming it; the plain Python functions it calls are translated with it and printed
before it.  Translation errors are printed located, and the exit status is 1.
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys

from ..errors import PhylanxError
from ..language import ast as past
from ..language import to_physl

_WIDTH = 96


def pretty(expr, indent: int = 0) -> str:
    """PhySL text of ``expr``, one argument per line where a call is too long."""
    flat = to_physl(expr)
    if len(flat) + indent <= _WIDTH or not isinstance(expr, past.Call) or not expr.args:
        return flat
    pad = " " * (indent + 4)
    parts = [pad + pretty(a, indent + 4) if not isinstance(a, past.KeywordArg)
             else pad + to_physl(a) for a in expr.args]
    return f"{expr.func}(\n" + ",\n".join(parts) + "\n" + " " * indent + ")"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="phylanx translate",
        description="Print the PhySL generated for each @Phylanx function of a Python file.")
    parser.add_argument("file", help="a Python file with @Phylanx functions")
    parser.add_argument("--function", "-f", action="append",
                        help="only these functions (may be repeated)")
    args = parser.parse_args(argv)

    from ..frontend.decorator import PhylanxDecorator
    folder = os.path.dirname(os.path.abspath(args.file))
    sys.path.insert(0, folder)   # as when the file is run as a script
    try:
        namespace = runpy.run_path(args.file, run_name="__phylanx_translate__")
    except PhylanxError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except Exception as e:   # the user's module failed to import
        print(f"error: cannot load {args.file}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    finally:
        if sys.path and sys.path[0] == folder:
            sys.path.pop(0)
    found = [v for v in namespace.values() if isinstance(v, PhylanxDecorator)]
    found.sort(key=lambda d: d.python.__code__.co_firstlineno)
    if args.function:
        found = [d for d in found if d.__name__ in args.function]
    if not found:
        print(f"no @Phylanx functions found in {args.file}", file=sys.stderr)
        return 1
    status, shown = 0, set()
    for dec in found:
        status |= _show(dec, shown)
    return status


def _show(dec, shown: set) -> int:
    """Print the PhySL of ``dec`` after that of the plain Python functions it calls (they
    are translated with it); 1 if any of them cannot be translated."""
    if id(dec) in shown:
        return 0
    shown.add(id(dec))
    try:
        text = pretty(dec.generate_ast()[0])
    except PhylanxError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    status = 0
    for dep in dec.translation.deps:
        if dep is not dec:
            status |= _show(dep, shown)
    print(f"# {dec.__name__} ({dec.file}:{dec.python.__code__.co_firstlineno})")
    print(text)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
