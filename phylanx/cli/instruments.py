"""The instrumentation outputs of ``phylanx physl`` (counters, tree dumps, pictures).

Kept apart from ``physl.py`` so the interpreter's module stays about running code.
"""
from __future__ import annotations

import sys

from .. import atomic
from ..instrumentation import counter_csv, dot_tree, newick_tree, tree_data, tree_picture


def _emit(text: str, target: str) -> None:
    if target == "-":
        sys.stdout.write(text)
    else:
        atomic.write_text(target, text)


def counter_table(root) -> str:
    """The counters as an aligned table, slowest (inclusive) first."""
    rows = [n for n in root.walk() if not n.is_const and n.count]
    rows.sort(key=lambda n: -n.time_ns)
    width = max([len(n.display_name) for n in rows] + [9])
    lines = [f"{'primitive':<{width}}  {'count':>8}  {'time (ms)':>10}  {'mean (us)':>10}  "
             "eval_direct"]
    for n in rows:
        lines.append(f"{n.display_name:<{width}}  {n.count:>8}  {n.time_ns / 1e6:>10.3f}  "
                     f"{n.time_ns / n.count / 1e3:>10.2f}  {n.eval_direct:>11}")
    return "\n".join(lines) + "\n"


def write_instruments(args, node, name: str) -> int:
    """Write what the options asked for; returns an exit status (0: all written)."""
    if args.performance:
        sys.stdout.write(newick_tree(name, node) + "\n")
        sys.stdout.write(dot_tree(name, node))
        sys.stdout.write(counter_csv([node]))
    if args.dump_newick_tree:
        _emit(newick_tree(name, node) + "\n", args.dump_newick_tree)
    if args.dump_dot:
        _emit(dot_tree(name, node), args.dump_dot)
    if args.dump_counters:
        _emit(counter_csv([node]), args.dump_counters)
    if args.print_counters:
        sys.stdout.write(counter_table(node))
    status = 0
    for path in (args.dump_svg, args.dump_png):
        if not path:
            continue
        tree = tree_data.from_node(node)
        try:
            engine = tree_picture.write(tree, path, args.color_by, title=name)
        except (tree_picture.PictureUnavailable, OSError) as e:
            print(f"phylanx physl: {path}: {e}", file=sys.stderr)
            status = 1
            continue
        print(f"phylanx physl: tree picture written to {path} "
              f"({'graphviz dot' if engine == 'dot' else 'pure-Python layout'})",
              file=sys.stderr)
    return status
