"""``phylanx ir FILE``: print the IR (docs/ir.md) of a PhySL file or of the ``@Phylanx``
functions of a Python file.

    phylanx ir prog.physl                         the lowered program
    phylanx ir prog.physl -f g -s "f64[3,4] f64[4]"   function g, specialised for
                                                  arguments of those types
    phylanx ir code.py [-f NAME] [-s TYPES]       each @Phylanx function (or NAME)

A type is written as in the IR text (``f32[?,3]``, ``i64[]!scalar``, ``!tuple``).
``--locs`` prints each equation's source location.
"""
from __future__ import annotations

import argparse
import sys

from ..errors import PhylanxError


def signature(text: str | None):
    """The Facts of ``-s "f64[3,4] i64[]!scalar"``, or None."""
    if text is None:
        return None
    from ..ir.text import parse_var
    return tuple(parse_var(f"a.1:{t}").facts for t in text.split())


def _physl(path: str, name: str | None, sig, locs: bool) -> int:
    from ..compiler.compiler import deep_recursion
    from ..compiler.through_ir import function_ir, lowered
    from ..ir.text import renumbered, show
    from ..language import parse
    with open(path, encoding="utf-8") as f:
        program = parse(f.read(), path)
    with deep_recursion():
        fn = lowered(program) if name is None else function_ir(program, name, sig)
    print(show(renumbered(fn), locs))
    return 0


def _python(path: str, names: list[str] | None, sig, locs: bool) -> int:
    import os
    import runpy

    from ..frontend.decorator import PhylanxDecorator
    from ..ir.text import renumbered, show
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)   # as when the file is run as a script
    try:
        namespace = runpy.run_path(path, run_name="__phylanx_ir__")
    finally:
        if sys.path and sys.path[0] == folder:
            sys.path.pop(0)
    found = [v for v in namespace.values() if isinstance(v, PhylanxDecorator)]
    found.sort(key=lambda d: d.python.__code__.co_firstlineno)
    if names:
        found = [d for d in found if d.__name__ in names]
    if not found:
        print(f"no @Phylanx functions found in {path}", file=sys.stderr)
        return 1
    for dec in found:
        print(f"# {dec.__name__}")
        print(show(renumbered(dec.ir_function(sig)), locs))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="phylanx ir",
                                     description="Print the IR of a PhySL or Python file.")
    parser.add_argument("file", help="a PhySL file, or a Python file with @Phylanx functions")
    parser.add_argument("--function", "-f", action="append",
                        help="only this function (may be repeated for a Python file)")
    parser.add_argument("--signature", "-s",
                        help='argument types to specialise for, e.g. "f64[3,4] f64[4]"')
    parser.add_argument("--locs", action="store_true", help="print source locations")
    args = parser.parse_args(argv)
    try:
        sig = signature(args.signature)
        if args.file.endswith(".py"):
            return _python(args.file, args.function, sig, args.locs)
        name = args.function[0] if args.function else None
        if sig is not None and name is None:
            parser.error("--signature needs --function")
        return _physl(args.file, name, sig, args.locs)
    except (PhylanxError, LookupError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
