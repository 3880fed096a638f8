"""``phylanx rules``: the rewrite engine's rule table as Markdown (docs/rules.md)."""
from __future__ import annotations


def main(argv: list[str]) -> int:
    from ..compiler.rewrite import rules_markdown
    if argv:
        print("usage: phylanx rules > docs/rules.md")
        return 2
    print(rules_markdown(), end="")
    return 0
