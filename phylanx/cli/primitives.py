"""``phylanx primitives``: the primitive registry as text, as Markdown, and its coverage.

    phylanx primitives                       every primitive by category: name, summary, patterns
    phylanx primitives NAME...               the full documentation of some primitives
    phylanx primitives --category matrixops  one category only
    phylanx primitives --markdown            docs/primitives.md (generated, do not edit by hand)
    phylanx primitives --markdown --check docs/primitives.md
                                             exit 1 if that file differs from what would be written
    phylanx primitives --coverage            which names of the original exist here, each
                                             rule table's coverage (VJP, distribution,
                                             fusion), and how many of the 200 most used
                                             NumPy functions translate under @Phylanx

Everything is read from ``phylanx.primitives.registry``; nothing is listed by hand.
"""
from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Iterable

from ..primitives.original_names import coverage_report
from ..primitives.registry import CATEGORIES, PrimitiveSpec, all_names, all_specs, lookup
from ..primitives.rules import TABLES, VJP

#: boolean flags of a spec shown in listings, in this order
FLAGS = ("elementwise", "differentiable", "distributable", "takes_tiled", "supports_dtype",
         "side_effects", "lazy", "special", "extension", "internal")

REGENERATE = "python -m phylanx primitives --markdown > docs/primitives.md"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phylanx primitives",
        description="List the PhySL primitives (read from the registry).")
    p.add_argument("names", nargs="*", metavar="NAME", help="show these primitives in full")
    p.add_argument("--category", choices=CATEGORIES, help="only this category")
    p.add_argument("--markdown", action="store_true",
                   help="print the Markdown reference (docs/primitives.md)")
    p.add_argument("--check", metavar="FILE",
                   help="with --markdown: exit 1 if FILE differs from the generated text")
    p.add_argument("--coverage", action="store_true",
                   help="report which names of the original Phylanx exist here, which "
                        "primitives each rule table (vjp, distribution, fusion) covers and "
                        "which of the 200 most used NumPy functions translate")
    return p


def flags_of(spec: PrimitiveSpec) -> list[str]:
    return [f for f in FLAGS if getattr(spec, f, False)]


def _by_category(specs: Iterable[PrimitiveSpec]) -> dict[str, list[PrimitiveSpec]]:
    groups: dict[str, list[PrimitiveSpec]] = {}
    for spec in specs:
        groups.setdefault(spec.category, []).append(spec)
    return {c: groups[c] for c in CATEGORIES if c in groups}


# -- plain listing -----------------------------------------------------------------------

def listing(category: str | None = None) -> str:
    """Every primitive by category: name and summary, then its patterns."""
    specs = [s for s in all_specs() if category is None or s.category == category]
    # long names (iterative_solver_...) overflow the column rather than widen every line
    width = min(max((len(s.name) for s in specs), default=0), 22)
    out = []
    for cat, group in _by_category(specs).items():
        out.append(f"{cat} ({len(group)})")
        for spec in group:
            out.append(f"  {spec.name:<{width}}  {spec.summary}")
            out.append(f"  {'':<{width}}    {' ; '.join(spec.patterns)}")
        out.append("")
    out.append(f"{len(specs)} primitives; {len(all_names())} callable names "
               "(with aliases and dtype variants)")
    return "\n".join(out) + "\n"


def details(spec: PrimitiveSpec) -> str:
    """The full documentation of one primitive."""
    lines = [f"{spec.name}  [{spec.category}]"]
    lines += [f"  {p}" for p in spec.patterns]
    if spec.aliases:
        lines.append(f"  aliases: {', '.join(spec.aliases)}")
    if flags_of(spec):
        lines.append(f"  flags: {', '.join(flags_of(spec))}")
    lines.append("")
    lines += [f"  {line}" if line else "" for line in spec.doc.splitlines()]
    if spec.example:
        lines.append("")
        result = f"  ->  {spec.result}" if spec.result is not None else ""
        lines.append(f"  example: {spec.example}{result}")
    return "\n".join(lines) + "\n"


# -- Markdown reference ------------------------------------------------------------------

def _cell(text: str) -> str:
    """Table-cell text: pipes escaped (also inside code spans, as GFM requires)."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    tick = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{tick}{pad}{_cell(text)}{pad}{tick}"


def markdown() -> str:
    """The text of docs/primitives.md."""
    specs = all_specs()
    groups = _by_category(specs)
    out = [
        "# PhySL primitives",
        "",
        "<!-- Generated from phylanx/primitives/registry.py by "
        "`python -m phylanx primitives --markdown`; do not edit by hand. -->",
        "",
        f"{len(specs)} primitives in {len(groups)} categories; {len(all_names())} callable "
        "names including aliases and the `name__bool`/`name__int`/`name__float` variants of "
        "primitives flagged `supports_dtype`. Pattern notation: `_N` required, `__N` "
        "variadic, `_N_kw` also by keyword `kw`, `__arg(_N_kw, default)` optional "
        "(see docs/writing-primitives.md).",
        "",
        " · ".join(f"[{c}](#{c.replace('_', '-')}) ({len(g)})" for c, g in groups.items()),
        "",
    ]
    for cat, group in groups.items():
        out += [f"## {cat}", "", "| name | patterns | summary | flags | example |",
                "|---|---|---|---|---|"]
        for spec in group:
            name = _code(spec.name)
            if spec.aliases:
                name += " (alias " + ", ".join(_code(a) for a in spec.aliases) + ")"
            patterns = "<br>".join(_code(p) for p in spec.patterns)
            example = ""
            if spec.example:
                example = _code(spec.example)
                if spec.result is not None:
                    example += " → " + _code(spec.result)
            out.append(f"| {name} | {patterns} | {_cell(spec.summary)} | "
                       f"{', '.join(flags_of(spec))} | {example} |")
        out.append("")
    return "\n".join(out)


def check_markdown(path: str) -> int:
    """0 if ``path`` holds exactly the generated Markdown; else a message and 1."""
    expected = markdown()
    try:
        with open(path, encoding="utf-8") as fh:
            actual = fh.read()
    except OSError as e:
        print(f"phylanx primitives: cannot read {path}: {e.strerror}\n"
              f"generate it with: {REGENERATE}", file=sys.stderr)
        return 1
    if actual == expected:
        return 0
    diff = list(difflib.unified_diff(actual.splitlines(), expected.splitlines(),
                                     f"{path} (on disk)", f"{path} (generated)", lineterm=""))
    shown = "\n".join(diff[:40]) + ("\n..." if len(diff) > 40 else "")
    print(f"phylanx primitives: {path} is out of date with the primitive registry.\n"
          f"Regenerate it with: {REGENERATE}  (or `make docs`)\n{shown}", file=sys.stderr)
    return 1


# -- coverage ----------------------------------------------------------------------------

def coverage_text() -> str:
    report = coverage_report()
    total = len(report.expected)
    percent = 100.0 * report.present / total if total else 100.0
    out = [
        "Coverage of the original Phylanx's registered primitives "
        "(shared/spec/phylanx-reference.md §3):",
        f"  user-visible, non-distributed names: {report.present} of {total} "
        f"({percent:.0f}%)",
    ]
    if report.missing:
        out.append(f"  missing ({len(report.missing)}):")
        for cat, names in report.missing_by_category().items():
            out.append(f"    {cat}: {' '.join(names)}")
    dist_have = len(report.distributed_expected) - len(report.distributed_missing)
    out.append(f"  distributed names (counted separately): {dist_have} of "
               f"{len(report.distributed_expected)}")
    if report.distributed_missing:
        out.append(f"    missing: {' '.join(report.distributed_missing)}")
    if report.extensions:
        out.append(f"  extensions (not in the original): {' '.join(report.extensions)}")
    out.append("Rule tables (phylanx/primitives/rules.py):")
    for table in TABLES:
        out.append(f"  {table.coverage_line()}")
        missing = table.missing()
        if missing:
            out.append(f"    without a rule: {' '.join(missing)}")
    out += gradient_coverage_lines()
    # imported here: it loads the frontend, which no other listing needs
    from .numpy_coverage import numpy_coverage_text

    return "\n".join(out) + "\n" + numpy_coverage_text()


def gradient_coverage_lines() -> list[str]:
    """Per primitive flagged differentiable, whether it has a VJP rule; and the
    piecewise-constant primitives whose gradient is zero, with the declared reason."""
    flagged = [spec.name for spec in all_specs() if spec.differentiable]
    with_rule = [name for name in flagged if name in VJP]
    without = [name for name in flagged if name not in VJP]
    percent = 100.0 * len(with_rule) / len(flagged) if flagged else 100.0
    out = [f"Gradients: {len(with_rule)} of {len(flagged)} differentiable primitives have a "
           f"VJP rule ({percent:.0f}%)",
           f"  with a VJP rule: {' '.join(with_rule)}"]
    if without:
        out.append(f"  WITHOUT a VJP rule: {' '.join(without)}")
    out += second_order_lines(with_rule)
    zero = sorted((spec.zero_gradient, spec.name) for spec in all_specs()
                  if spec.zero_gradient)
    reasons: dict[str, list[str]] = {}
    for reason, name in zero:
        reasons.setdefault(reason, []).append(name)
    out.append(f"  zero gradient, as in JAX ({len(zero)}):")
    out += [f"    {reason}: {' '.join(names)}" for reason, names in reasons.items()]
    return out


def second_order_lines(with_rule: list[str]) -> list[str]:
    """Which VJP rules carry an equation form, so that ``grad`` of ``grad`` (``hessian``,
    ``hvp``) differentiates through them (the others: a located error there)."""
    recordable = [name for name in with_rule if getattr(VJP.get(name), "recordable", None)
                  or getattr(VJP.get(name), "equations", None)]
    others = [name for name in with_rule if name not in recordable]
    return [f"Second derivatives: {len(recordable)} of {len(with_rule)} VJP rules have an "
            "equation form (grad of grad goes through them)",
            f"  without one (nested grad: a located error): {' '.join(others) or '-'}"]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.check and not args.markdown:
        print("phylanx primitives: --check needs --markdown", file=sys.stderr)
        return 2
    if args.markdown:
        if args.check:
            return check_markdown(args.check)
        sys.stdout.write(markdown())
        return 0
    if args.coverage:
        sys.stdout.write(coverage_text())
        return 0
    if args.names:
        status = 0
        for name in args.names:
            spec = lookup(name)
            if spec is None:
                print(f"phylanx primitives: no primitive named '{name}'", file=sys.stderr)
                status = 1
            else:
                sys.stdout.write(details(spec) + "\n")
        return status
    sys.stdout.write(listing(args.category))
    return 0
