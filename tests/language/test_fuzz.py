"""Fuzzing the parser: any text either parses or raises a located PhylanxSyntaxError.

Never another exception type (RecursionError, ValueError, IndexError...) and never
a hang: each example runs quickly because the lexer and parser are linear.
"""
from __future__ import annotations

import dataclasses
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phylanx.errors import PhylanxSyntaxError
from phylanx.language import parse, to_physl

SAMPLES = [
    "define(fib, n, if(n < 2, n, fib(n - 1) + fib(n - 2)))\nfib(10)",
    "#!/usr/bin/env physl\ndefine$1$0(x, [[1, 2.5], [-3, 4e-2]]) // comment\n"
    "block(store(x, x * -2), slice(x, 0, nil))",
    "define{L#1}(f, a, __arg(b, 3), lambda(y, a + b * y))\nf(1, __arg(b, 2))",
    "'(1, \"two\\n\\x41\", '(), [true, false], [[[[]]]]) /* block\ncomment */",
    "for(define(i, 0), i < 10 && !done || i == -1, store(i, i + 1), cout(i % 3))",
    "a - -3 - (b - c) * (d / .5) != 1. >= 2E+3",
]
# characters that matter to the lexer, so mutations hit interesting paths
ALPHABET = st.sampled_from(list("()[]{},'\"\\$#/*-+!<>=&|%.eE0123456789xa_ \n\t") + ["__arg"])


def check(text: str) -> None:
    try:
        prog = parse(text)
    except PhylanxSyntaxError as err:
        assert err.loc is not None and err.loc.line >= 1 and err.loc.col >= 1, err
        assert err.loc.text == text
        str(err)  # formatting the excerpt never fails
    else:
        # whatever parses prints canonically and reads back as the same tree, except
        # that overflowing floats (1e999 -> inf) print as the identifier ``inf``
        if all_finite(prog):
            assert parse(to_physl(prog)) == prog


def all_finite(node) -> bool:
    if isinstance(node, float):
        return math.isfinite(node)
    if isinstance(node, tuple):
        return all(all_finite(x) for x in node)
    if dataclasses.is_dataclass(node):
        return all(all_finite(getattr(node, f.name)) for f in dataclasses.fields(node))
    return True


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SAMPLES))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(st.one_of(ALPHABET, st.text(max_size=2)))
        if action == "insert":
            text = text[:i] + piece + text[i:]
        elif action == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 5)):]
        else:
            text = text[:i] + piece + text[i + 1:]
    return text


SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.text(max_size=60))
def test_arbitrary_text(text):
    check(text)


@SETTINGS
@given(st.lists(ALPHABET, max_size=40).map("".join))
def test_token_soup(text):
    check(text)


@SETTINGS
@given(mutated())
def test_mutated_programs(text):
    check(text)


def test_samples_parse():
    for text in SAMPLES:
        check(text)
        assert parse(text).body


def test_overflowing_float_is_inf():
    (lit,) = parse("1e310").body
    assert lit.value == math.inf and to_physl(lit) == "inf"


def test_pathological_inputs_do_not_hang():
    for text in ["(" * 100000, "f(" * 100000, "-" * 100000, "[" * 100000, "'(" * 100000,
                 "1+" * 50000, "/*" + "*" * 100000, '"' + "\\\\" * 50000, "x$1" * 30000,
                 "9" * 100000, "1." + "0" * 100000 + "e5"]:
        check(text)
