"""Unit tests of the PhySL lexer and parser (phylanx.language)."""
from __future__ import annotations

import pytest

from phylanx.errors import PhylanxSyntaxError
from phylanx.language import (
    MAX_DEPTH,
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
)
from phylanx.language.lexer import tokenize
from phylanx.language.printer import to_physl


def kinds(text: str) -> list[tuple[str, object]]:
    out = []
    for tok in tokenize(text):
        if tok.kind == "eof":
            return out
        out.append((tok.kind, tok.value))
    raise AssertionError("unreachable")


def syntax_error(text: str) -> PhylanxSyntaxError:
    with pytest.raises(PhylanxSyntaxError) as info:
        parse(text)
    err = info.value
    assert err.loc is not None and err.loc.line >= 1 and err.loc.col >= 1
    return err


# -- lexer ---------------------------------------------------------------------------


def test_comments_and_whitespace_are_skipped():
    text = "#!/usr/bin/env physl\n// line\n a /* block\n comment */ b # trailing"
    assert kinds(text) == [("name", "a"), ("name", "b")]


def test_operators_longest_match():
    assert [v for _, v in kinds("a<=b>=c==d!=e&&f||g<h>i!j")] == [
        "a", "<=", "b", ">=", "c", "==", "d", "!=", "e", "&&", "f", "||", "g", "<", "h", ">",
        "i", "!", "j"]


def test_token_positions_are_one_based():
    toks = list(zip(range(3), tokenize("a\n  bb /* x\n */ c")))
    assert [(t.line, t.col) for _, t in toks] == [(1, 1), (2, 3), (3, 5)]


@pytest.mark.parametrize(
    "text,kind,value",
    [("42", "int", 42), ("1.", "float", 1.0), (".5", "float", 0.5), ("1.0", "float", 1.0),
     ("1e-5", "float", 1e-5), ("2E+3", "float", 2000.0), ("1.e2", "float", 100.0),
     ("007", "int", 7)],
)
def test_numbers(text, kind, value):
    assert kinds(text) == [(kind, value)]


def test_tags_are_stripped():
    (tok, _eof) = list(zip(tokenize("x$3$-4"), range(2)))
    assert (tok[0].value, tok[0].tag) == ("x", (3, -4))
    assert next(tokenize("y$7")).tag == (7, -1)


@pytest.mark.parametrize(
    "text,message",
    [("/* open", "unterminated comment"), ('"abc', "unterminated string"),
     ('"\\q"', "unknown escape"), ('"\\xg"', "hex digits"), ("a = b", "'=='"),
     ("a & b", "'&&'"), ("x$", "integer after '$'"), ("1abc", "invalid number"),
     ("1e", "invalid number"), ("'x", "quoted list"), ("f{L#1", "unterminated attribute"),
     ("a @ b", "unexpected character")],
)
def test_lexical_errors(text, message):
    assert message in syntax_error(text).message


def test_string_escapes():
    assert parse_expr(r'"\a\b\f\n\r\t\v\\\'\"\x41\x7z"') == Literal(
        "\a\b\f\n\r\t\v\\'\"A\x07z")


# -- literals and names ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [("true", True), ("false", False), ("nil", None), ("42", 42), ("-3", -3), ("+3", 3),
     ("-2.5", -2.5), ("1e3", 1000.0), ("-9223372036854775808", -(2**63)),
     ("9223372036854775807", 2**63 - 1)],
)
def test_literals(text, value):
    node = parse_expr(text)
    assert node == Literal(value) and type(node.value) is type(value)


def test_other_constants_stay_identifiers():
    assert parse_expr("pi") == Identifier("pi")
    assert parse_expr("inf") == Identifier("inf")
    assert parse_expr("True") == Identifier("True")


@pytest.mark.parametrize("text", ["9223372036854775808", "-9223372036854775809",
                                  "1" * 5000, "[1, 99999999999999999999]"])
def test_int_out_of_range(text):
    assert "range" in syntax_error(text).message


def test_sign_attachment():
    assert parse_expr("- 3") == UnaryOp("-", Literal(3))
    assert parse_expr("-(3)") == UnaryOp("-", Literal(3))
    assert parse_expr("-x") == UnaryOp("-", Identifier("x"))
    assert parse_expr("x-1") == BinOp("-", Identifier("x"), Literal(1))
    assert parse_expr("x -1") == BinOp("-", Identifier("x"), Literal(1))
    assert parse_expr("a - -3") == BinOp("-", Identifier("a"), Literal(-3))
    assert parse_expr("f(-2.5)") == Call("f", (Literal(-2.5),))
    assert parse_expr("--3") == UnaryOp("-", Literal(-3))
    assert parse_expr("-3 * x") == BinOp("*", Literal(-3), Identifier("x"))


def test_locations():
    text = "a +\n  f(x$7$9, -3)"
    node = parse_expr(text, file="t.physl")
    assert (node.loc.file, node.loc.line, node.loc.col) == ("t.physl", 1, 3)
    assert node.loc.text == text
    call = node.right
    assert (call.loc.line, call.loc.col) == (2, 3)
    assert (call.args[0].loc.line, call.args[0].loc.col) == (7, 9)
    assert (call.args[1].loc.line, call.args[1].loc.col) == (2, 12)
    assert (parse_expr("define$3$4(x, 1)").loc.line, parse_expr("define$3$4(x, 1)").loc.col) \
        == (3, 4)
    assert parse_expr("- x").loc.col == 1


# -- arrays -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,value,kind,ndim",
    [("[1, 2]", (1, 2), "int", 1), ("[1, 2.5]", (1.0, 2.5), "float", 1),
     ("[1., 2]", (1.0, 2.0), "float", 1), ("[true, false]", (True, False), "bool", 1),
     ("[[1, -2], [3, 4]]", ((1, -2), (3, 4)), "int", 2), ("[]", (), "float", 1),
     ("[[]]", ((),), "float", 2), ("[[[]]]", (((),),), "float", 3),
     ("[[[[]]]]", ((((),),),), "float", 4), ("[[[[1]]]]", ((((1,),),),), "int", 4),
     ("[[], []]", ((), ()), "float", 2)],
)
def test_array_literals(text, value, kind, ndim):
    node = parse_expr(text)
    assert node == ArrayLiteral(value, kind, ndim)
    assert node.kind == kind and node.ndim == ndim


def test_float_array_values_are_floats():
    node = parse_expr("[[1, 2], [3, 4.0]]")
    assert all(type(v) is float for row in node.value for v in row)


@pytest.mark.parametrize(
    "text,message",
    [("[1, [2]]", "ragged"), ("[[1], [2, 3]]", "ragged"), ("[[[[[1]]]]]", "at most 4"),
     ("[1, true]", "mixes"), ("[x]", "expected a number"), ("[1 2]", "expected ',' or ']'"),
     ("[1,", "expected a number"), ("[-true]", "expected a number")],
)
def test_array_errors(text, message):
    assert message in syntax_error(text).message


# -- calls, lists, keywords ------------------------------------------------------------------


def test_calls_and_lists():
    assert parse_expr("f()") == Call("f")
    assert parse_expr("f{L#1}(a, 1)") == Call("f", (Identifier("a"), Literal(1)), "L#1")
    assert parse_expr("f{}(a)") == Call("f", (Identifier("a"),), "")
    assert parse_expr("'()") == QuotedList()
    assert parse_expr("'(1, '(x))") == QuotedList((Literal(1), QuotedList((Identifier("x"),))))
    assert parse_expr("true(1)") == Call("true", (Literal(1),))
    assert parse_expr("g(__arg(k, 1 + 2))") == Call(
        "g", (KeywordArg("k", BinOp("+", Literal(1), Literal(2))),))


@pytest.mark.parametrize("text", ["__arg(1, 2)", "__arg(k)", "__arg(k, 1, 2)", "__arg()",
                                  "__arg{x}(k, 1)"])
def test_bad_keyword_args(text):
    assert "__arg" in syntax_error(text).message


def test_call_needs_adjacent_paren():
    assert parse("f (x)") == Program((Identifier("f"), Identifier("x")))
    err = syntax_error("define (x, 1)")
    assert "right after the function name" in err.message
    assert "right after" in syntax_error("g(f (1))").message


# -- operators ------------------------------------------------------------------------


def test_precedence_and_associativity():
    a, b, c = Identifier("a"), Identifier("b"), Identifier("c")
    assert parse_expr("a + b * c") == BinOp("+", a, BinOp("*", b, c))
    assert parse_expr("a - b - c") == BinOp("-", BinOp("-", a, b), c)
    assert parse_expr("a - (b - c)") == BinOp("-", a, BinOp("-", b, c))
    assert parse_expr("a || b && c") == BinOp("||", a, BinOp("&&", b, c))
    assert parse_expr("a < b == b > c") == BinOp("==", BinOp("<", a, b), BinOp(">", b, c))
    assert parse_expr("!a && -b") == BinOp("&&", UnaryOp("!", a), UnaryOp("-", b))
    assert parse_expr("-a * b") == BinOp("*", UnaryOp("-", a), b)
    assert parse_expr("a % b / c") == BinOp("/", BinOp("%", a, b), c)
    assert parse_expr("((a))") == a


def test_program():
    prog = parse("define(x, 1)\n// comment\nx + 1  f(x)")
    assert prog == Program((Call("define", (Identifier("x"), Literal(1))),
                            BinOp("+", Identifier("x"), Literal(1)),
                            Call("f", (Identifier("x"),))))
    assert parse("") == Program()
    assert parse("  # only a comment") == Program()
    assert parse("a\n-3") == Program((BinOp("-", Identifier("a"), Literal(3)),))


@pytest.mark.parametrize(
    "text,message",
    [("f(1", "expected ')' to close the call of 'f' opened at 1:2, found end of input"),
     ("f(1 2)", "expected ',' or ')' to close the call of 'f'"),
     ("(1", "close the parenthesis opened at 1:1"),
     ("'(1", "close the quoted list"), ("f(1,)", "expected an expression, found ')'"),
     ("1 +", "expected an expression, found end of input"), (")", "unexpected ')'"),
     ("a, b", "unexpected ','"), ("()", "expected an expression"),
     ("f{x} (1)", "right after the attribute"), ("]", "unexpected ']'")],
)
def test_syntax_errors(text, message):
    assert message in syntax_error(text).message


def test_error_location_and_excerpt():
    err = syntax_error("define(x,\n   1 2)")
    assert (err.loc.line, err.loc.col) == (2, 6)
    assert "   1 2)" in str(err) and "^" in str(err)


def test_parse_expr_needs_exactly_one():
    with pytest.raises(PhylanxSyntaxError, match="expected an expression"):
        parse_expr("  // nothing")
    with pytest.raises(PhylanxSyntaxError, match="single expression") as info:
        parse_expr("a\nb")
    assert (info.value.loc.line, info.value.loc.col) == (2, 1)


@pytest.mark.parametrize(
    "text",
    ["(" * 600 + "1" + ")" * 600, "f(" * 600 + ")" * 600, "-" * 5000 + "x",
     "!" * 600 + "x", "+".join(["1"] * 2000), "'(" * 600 + ")" * 600,
     "[" * 1000 + "]" * 1000],
)
def test_deep_nesting_is_a_syntax_error(text):
    message = syntax_error(text).message
    assert message in ("nesting too deep", "array literals have at most 4 dimensions")


def test_moderate_nesting_is_fine():
    depth = MAX_DEPTH // 2
    node = parse_expr("f(" * depth + "x" + ")" * depth)
    for _ in range(depth):
        assert isinstance(node, Call)
        node = node.args[0]
    assert node == Identifier("x")
    assert parse_expr("(" * depth + "1" + ")" * depth) == Literal(1)


def test_long_flat_input_is_linear():
    text = "f(" + ", ".join(f"x{i} + {i}" for i in range(20000)) + ")"
    assert len(parse_expr(text).args) == 20000


@pytest.mark.parametrize("text", ["f(1", "block(1, 2", "1 +", "'(1, 2", '"abc', "f{x",
                                  "/* open", "define(f, x, x +"])
def test_input_that_stops_too_early_is_the_originals_incomplete_parse(text):
    err = syntax_error(text)
    assert isinstance(err, RuntimeError)   # the original's errors reached Python so
    assert err.message.startswith("Incomplete parse: ")


@pytest.mark.parametrize("text", ["f(1 2)", ")", "f(1,)", "a, b"])
def test_other_syntax_errors_do_not_say_incomplete(text):
    assert "Incomplete" not in syntax_error(text).message


@pytest.mark.parametrize("text", ["define(f, x, x * 2 + 1)", "f(1, __arg(k, -2.5))",
                                  'list("a", [1, 2], -x)', "'(1, 2)"])
def test_str_of_a_node_is_its_physl_text(text):
    node = parse_expr(text)
    assert str(node) == to_physl(node)
    assert parse_expr(str(node)) == node
