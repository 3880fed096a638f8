"""Round-trip law of the canonical printer: parse(to_physl(tree)) == tree."""
from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phylanx.language import (
    BINARY_OPS,
    UNARY_OPS,
    ArrayLiteral,
    BinOp,
    Call,
    Identifier,
    KeywordArg,
    Literal,
    Program,
    QuotedList,
    UnaryOp,
    parse,
    parse_expr,
    to_physl,
)

RESERVED = {"true", "false", "nil"}
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True).filter(
    lambda s: s not in RESERVED)
call_names = names.filter(lambda s: s != "__arg")
int64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
finite = st.floats(allow_nan=False, allow_infinity=False)
literals = st.one_of(
    int64, finite, st.text(max_size=8), st.sampled_from([None, True, False])).map(Literal)


@st.composite
def arrays(draw):
    ndim = draw(st.integers(1, 4))
    # only the last dimension may be 0: ((), ()) always reads back with ndim 2
    shape = draw(st.lists(st.integers(1, 3), min_size=ndim - 1, max_size=ndim - 1))
    shape.append(draw(st.integers(0, 3)))
    kind = draw(st.sampled_from(["bool", "int", "float"]))
    leaf = {"bool": st.booleans(), "int": int64, "float": finite}[kind]

    def build(dims):
        if not dims:
            return draw(leaf)
        return tuple(build(dims[1:]) for _ in range(dims[0]))

    value = build(shape)
    if 0 in shape:  # empty arrays come back as float arrays with the same ndim
        kind = "float"
        value = build(shape)
    return ArrayLiteral(value, kind, ndim)


leaves = st.one_of(literals, names.map(Identifier), arrays())


def extend(children):
    args = st.lists(children, max_size=3).map(tuple)
    attributes = st.none() | st.text(max_size=6).filter(lambda s: "}" not in s)
    return st.one_of(
        st.builds(Call, call_names, args, attributes),
        st.builds(KeywordArg, names, children),
        st.builds(QuotedList, args),
        st.builds(UnaryOp, st.sampled_from(sorted(UNARY_OPS)), children),
        st.builds(BinOp, st.sampled_from(sorted(BINARY_OPS)), children, children),
    )


exprs = st.recursive(leaves, extend, max_leaves=12)
programs = st.lists(exprs, max_size=4).map(lambda body: Program(tuple(body)))


def strict_equal(a, b) -> bool:
    """Structural equality that also compares literal types and float signs."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if dataclasses.is_dataclass(a):
        return all(strict_equal(getattr(a, f.name), getattr(b, f.name))
                   for f in dataclasses.fields(a) if f.name != "loc")
    return a == b


SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(exprs)
def test_expression_roundtrip(tree):
    text = to_physl(tree)
    back = parse_expr(text)
    assert back == tree, text
    assert strict_equal(back, tree), text
    assert to_physl(back) == text


@SETTINGS
@given(programs)
def test_program_roundtrip(prog):
    text = to_physl(prog)
    back = parse(text)
    assert back == prog, text
    assert strict_equal(back, prog), text


@pytest.mark.parametrize(
    "tree,text",
    [(UnaryOp("-", Literal(3)), "-(3)"), (UnaryOp("-", Literal(-3)), "-(-3)"),
     (UnaryOp("!", BinOp("&&", Identifier("a"), Identifier("b"))), "!(a && b)"),
     (UnaryOp("+", Identifier("x")), "+x"), (Literal(-3), "-3"), (Literal(2.0), "2.0"),
     (Literal(1e100), "1e+100"), (Literal(float("inf")), "inf"),
     (Literal(float("-inf")), "-inf"), (Literal(float("nan")), "nan"),
     (Literal("a\"b\\\n\x01é"), '"a\\"b\\\\\\n\\x01é"'),
     (Literal(None), "nil"), (Literal(True), "true"),
     (BinOp("-", Identifier("a"), BinOp("-", Identifier("b"), Identifier("c"))), "a - (b - c)"),
     (BinOp("-", BinOp("-", Identifier("a"), Identifier("b")), Identifier("c")), "a - b - c"),
     (BinOp("*", BinOp("+", Identifier("a"), Identifier("b")), Literal(-1)), "(a + b) * -1"),
     (Call("f", (Identifier("a"), Identifier("b"))), "f(a, b)"),
     (Call("f", (Identifier("a"),), "L#1"), "f{L#1}(a)"), (Call("f"), "f()"),
     (KeywordArg("k", Literal(1)), "__arg(k, 1)"), (QuotedList(), "'()"),
     (ArrayLiteral(((1, 2), (3, 4)), "int", 2), "[[1, 2], [3, 4]]"),
     (ArrayLiteral((1.0, 2.5), "float", 1), "[1.0, 2.5]"),
     (ArrayLiteral((True, False), "bool", 1), "[true, false]"),
     (ArrayLiteral(((),), "float", 2), "[[]]"),
     (Program((Identifier("a"), Literal(-3), Identifier("f"),
               BinOp("*", BinOp("+", Identifier("a"), Identifier("b")), Identifier("c")))),
      "a\n(-3)\nf\n(a + b) * c")],
)
def test_canonical_forms(tree, text):
    assert to_physl(tree) == text


@pytest.mark.parametrize(
    "tree",
    [Identifier("1x"), Identifier("true"), Call("__arg", (Identifier("k"), Literal(1))),
     Call("f", (), "a}b"), KeywordArg("not a name", Literal(1)), BinOp("**", Literal(1),
                                                                        Literal(2)),
     UnaryOp("~", Literal(1)), ArrayLiteral((1.5,), "int", 1), ArrayLiteral((1,), "int", 5),
     ArrayLiteral((), "float", 2), ArrayLiteral(((), ()), "int", 3),
     Literal(object())],
)
def test_unprintable_trees_raise_value_error(tree):
    with pytest.raises(ValueError):
        to_physl(tree)


def test_printer_handles_deep_trees():
    tree = Identifier("x")
    for _ in range(5000):
        tree = BinOp("+", tree, Literal(1))
    assert to_physl(tree).count("+") == 5000
