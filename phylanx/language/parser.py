"""PhySL parser: token stream -> :mod:`phylanx.language.ast` trees.

The parser is iterative (an explicit stack of open constructs plus shunting-yard
precedence climbing inside each expression), so deep nesting can never raise
``RecursionError``; nesting of brackets/unary operators and the depth of the
resulting tree are both capped at :data:`MAX_DEPTH` ("nesting too deep").  It
runs in time linear in the input.

Decisions beyond the grammar of the reference (§2.1-2.2):

* a call needs its ``(`` (or ``{attribute}``) immediately after the name:
  ``f(x)`` is a call, ``f (x)`` is the identifier ``f`` followed by ``(x)``;
* ``-``/``+`` glued to a number in operand position makes a signed literal
  (``-3``, ``a - -3``); ``- 3``, ``-(3)`` and ``-x`` are :class:`UnaryOp`;
* ``true``/``false``/``nil`` are literals; other constants stay identifiers;
* ``__arg(k, v)`` is a :class:`KeywordArg` everywhere.
"""
from __future__ import annotations

from ..errors import PhylanxSyntaxError
from ..source import SourceLoc
from .ast import (
    BINARY_OPS,
    UNARY_OPS,
    UNARY_PRECEDENCE,
    ArrayLiteral,
    BinOp,
    Call,
    Expr,
    Identifier,
    KeywordArg,
    Literal,
    Program,
    QuotedList,
    UnaryOp,
)
from .lexer import INCOMPLETE, INT64_MAX, INT64_MIN, Token, describe, loc_at, tokenize

__all__ = ["parse", "parse_expr", "MAX_DEPTH", "MAX_ARRAY_DIMS"]

#: maximum nesting of brackets/unary operators and maximum depth of a parsed tree
MAX_DEPTH = 500
MAX_ARRAY_DIMS = 4
_NAMED_LITERALS = {"true": True, "false": False, "nil": None}


class _Frame:
    """An open construct: the program, ``( ... )``, ``f( ... )`` or ``'( ... )``.

    ``operands`` holds ``(node, depth)`` pairs and ``ops`` pending operators
    ``(op, precedence, is_unary, token)`` of the expression being read;
    ``items`` the finished arguments/items (or program statements).
    """

    __slots__ = ("kind", "tok", "name_tok", "attr", "items", "starts", "operands", "ops",
                 "after_name")

    def __init__(self, kind: str, tok: Token | None, name_tok: Token | None = None,
                 attr: str | None = None):
        self.kind = kind
        self.tok = tok
        self.name_tok = name_tok
        self.attr = attr
        self.items: list[tuple[Expr, int]] = []
        self.starts: list[Token] = []
        self.operands: list[tuple[Expr, int]] = []
        self.ops: list[tuple[str, int, bool, Token]] = []
        self.after_name = False


class _Parser:
    def __init__(self, text: str, file: str):
        self.text = text
        self.file = file
        self._tokens = tokenize(text, file)
        self.cur = next(self._tokens)
        self.prev: Token | None = None
        self._ahead: Token | None = None

    # -- token helpers ---------------------------------------------------------
    def advance(self) -> Token:
        prev = self.prev = self.cur
        if self._ahead is not None:
            self.cur, self._ahead = self._ahead, None
        else:
            self.cur = next(self._tokens)
        return prev

    def peek(self) -> Token:
        if self._ahead is None:
            self._ahead = next(self._tokens)
        return self._ahead

    def loc(self, tok: Token) -> SourceLoc:
        return SourceLoc(self.file, tok.line, tok.col, self.text)

    def node_loc(self, tok: Token) -> SourceLoc:
        """The location a node gets: the ``$`` tags if any, else the token's position."""
        if tok.tag is not None:
            return SourceLoc(self.file, tok.tag[0], tok.tag[1], self.text)
        return self.loc(tok)

    def error(self, message: str, tok: Token) -> PhylanxSyntaxError:
        if tok.kind == "eof":   # the original's wording for input that stops too early
            message = f"{INCOMPLETE}: {message}"
        return PhylanxSyntaxError(message, self.loc(tok))

    def found(self, tok: Token) -> str:
        return describe(tok, self.text)

    def where(self, tok: Token) -> str:
        return f"{tok.line}:{tok.col}"

    # -- literals ----------------------------------------------------------------
    def number(self, num: Token, sign: Token | None) -> Literal:
        """A numeric literal, negated when ``sign`` is a glued ``-``."""
        value = num.value
        if sign is not None and sign.value == "-":
            value = -value
        if num.kind == "int" and not INT64_MIN <= value <= INT64_MAX:
            raise self.error("integer literal out of the int64 range", sign or num)
        return Literal(value, self.loc(sign or num))

    def signed_number(self) -> Literal | None:
        """If ``cur`` is ``-``/``+`` glued to a number, consume both and return it."""
        tok = self.cur
        if tok.kind == "op" and tok.value in ("-", "+"):
            nxt = self.peek()
            if nxt.kind in ("int", "float") and nxt.pos == tok.end:
                self.advance()
                self.advance()
                return self.number(nxt, tok)
        return None

    def array(self) -> ArrayLiteral:
        open_tok = self.cur
        raw, shape = self._array_level(1)
        leaves: list[tuple[Token, object]] = []
        _collect_leaves(raw, len(shape), leaves)
        kinds = {type(v) for _, v in leaves}
        if not leaves or kinds == {float} or kinds == {int, float}:
            kind, convert = "float", float
        elif kinds == {int}:
            kind, convert = "int", int
        elif kinds == {bool}:
            kind, convert = "bool", bool
        else:
            first = type(leaves[0][1]) is bool
            bad = next(t for t, v in leaves if (type(v) is bool) != first)
            raise self.error("array literal mixes booleans and numbers", bad)
        return ArrayLiteral(_convert(raw, len(shape), convert), kind, len(shape),
                            self.loc(open_tok))

    def _array_level(self, dims: int) -> tuple[list, tuple[int, ...]]:
        """Read one ``[...]`` level; returns nested lists of (token, value) and the shape."""
        open_tok = self.advance()
        if dims > MAX_ARRAY_DIMS:
            raise self.error(f"array literals have at most {MAX_ARRAY_DIMS} dimensions", open_tok)
        elems: list = []
        shape: tuple[int, ...] | None = None
        if self.cur.kind == "]":
            self.advance()
            return elems, (0,)
        while True:
            start = self.cur
            if start.kind == "[":
                elem, sub = self._array_level(dims + 1)
            else:
                elem, sub = self._array_leaf(), ()
            if shape is None:
                shape = sub
            elif sub != shape:
                raise self.error(
                    f"ragged array literal: element {len(elems) + 1} has shape {sub}, "
                    f"expected {shape}", start)
            elems.append(elem)
            tok = self.advance()
            if tok.kind == "]":
                return elems, (len(elems),) + shape
            if tok.kind != ",":
                raise self.error(
                    f"expected ',' or ']' to close the array opened at {self.where(open_tok)}, "
                    f"found {self.found(tok)}", tok)

    def _array_leaf(self) -> tuple[Token, object]:
        tok = self.cur
        sign = None
        if tok.kind == "op" and tok.value in ("-", "+"):
            sign = self.advance()
        num = self.cur
        if num.kind in ("int", "float"):
            self.advance()
            return tok, self.number(num, sign).value
        if sign is None and num.kind == "name" and num.value in ("true", "false"):
            self.advance()
            return tok, num.value == "true"
        raise self.error("expected a number, 'true' or 'false' in array literal, "
                         f"found {self.found(num)}", num)

    # -- expressions -------------------------------------------------------------
    def push_operand(self, frame: _Frame, node: Expr, depth: int, tok: Token) -> None:
        if depth > MAX_DEPTH:
            raise self.error("nesting too deep", tok)
        frame.operands.append((node, depth))

    def reduce(self, frame: _Frame) -> None:
        op, _, unary, tok = frame.ops.pop()
        if unary:
            operand, depth = frame.operands.pop()
            self.push_operand(frame, UnaryOp(op, operand, self.loc(tok)), depth + 1, tok)
        else:
            right, rdepth = frame.operands.pop()
            left, ldepth = frame.operands.pop()
            node = BinOp(op, left, right, self.loc(tok))
            self.push_operand(frame, node, max(ldepth, rdepth) + 1, tok)

    def finish(self, frame: _Frame) -> tuple[Expr, int]:
        while frame.ops:
            self.reduce(frame)
        return frame.operands.pop()

    def close(self, frame: _Frame) -> tuple[Expr, int]:
        """Build the node of a closed call / quoted list."""
        args = tuple(node for node, _ in frame.items)
        depth = 1 + max((d for _, d in frame.items), default=0)
        name_tok = frame.name_tok
        if frame.kind == "qlist":
            return QuotedList(args, self.loc(frame.tok)), depth
        assert name_tok is not None
        if name_tok.value == "__arg":
            if frame.attr is not None:
                raise self.error("'__arg' does not take an attribute", name_tok)
            if len(args) != 2 or not isinstance(args[0], Identifier):
                raise self.error(
                    "'__arg' expects a keyword name and a value, as in __arg(name, value)",
                    name_tok)
            return KeywordArg(args[0].name, args[1], self.node_loc(name_tok)), depth
        return Call(name_tok.value, args, frame.attr, self.node_loc(name_tok)), depth

    def close_message(self, frame: _Frame, tok: Token) -> str:
        where = self.where(frame.tok)
        if frame.kind == "paren":
            return f"expected ')' to close the parenthesis opened at {where}"
        what = ("the quoted list" if frame.kind == "qlist"
                else f"the call of '{frame.name_tok.value}'")
        sep = "')'" if tok.kind == "eof" else "',' or ')'"
        return f"expected {sep} to close {what} opened at {where}"

    def program(self) -> tuple[list[tuple[Expr, int]], list[Token]]:
        top = _Frame("top", None)
        stack = [top]
        expect_operand = True
        while True:
            frame = stack[-1]
            tok = self.cur
            if expect_operand:
                if not frame.operands and not frame.ops and frame is top:
                    if tok.kind == "eof":
                        return top.items, top.starts
                    top.starts.append(tok)
                lit = self.signed_number()
                if lit is not None:
                    self.push_operand(frame, lit, 1, tok)
                    expect_operand = False
                elif tok.kind == "op" and tok.value in UNARY_OPS:
                    self.advance()
                    frame.ops.append((tok.value, UNARY_PRECEDENCE, True, tok))
                    if len(frame.ops) + len(stack) > MAX_DEPTH:
                        raise self.error("nesting too deep", tok)
                elif tok.kind in ("int", "float"):
                    self.push_operand(frame, self.number(self.advance(), None), 1, tok)
                    expect_operand = False
                elif tok.kind == "string":
                    self.advance()
                    self.push_operand(frame, Literal(tok.value, self.loc(tok)), 1, tok)
                    expect_operand = False
                elif tok.kind == "name":
                    self.advance()
                    nxt = self.cur
                    if nxt.kind in ("(", "attr") and nxt.pos == tok.end:
                        attr = None
                        if nxt.kind == "attr":
                            attr = nxt.value
                            self.advance()
                            if self.cur.kind != "(" or self.cur.pos != nxt.end:
                                raise self.error(
                                    f"expected '(' right after the attribute of '{tok.value}', "
                                    f"found {self.found(self.cur)}", self.cur)
                        stack.append(_Frame("call", self.advance(), tok, attr))
                    elif tok.value in _NAMED_LITERALS:
                        node = Literal(_NAMED_LITERALS[tok.value], self.node_loc(tok))
                        self.push_operand(frame, node, 1, tok)
                        expect_operand = False
                    else:
                        self.push_operand(frame, Identifier(tok.value, self.node_loc(tok)), 1,
                                          tok)
                        expect_operand = False
                elif tok.kind in ("(", "'("):
                    after_name = self.prev is not None and self.prev.kind == "name"
                    stack.append(_Frame("paren" if tok.kind == "(" else "qlist", self.advance()))
                    stack[-1].after_name = after_name and tok.kind == "("
                elif tok.kind == "[":
                    self.push_operand(frame, self.array(), 1, tok)
                    expect_operand = False
                elif (tok.kind == ")" and frame.kind in ("call", "qlist") and not frame.items
                      and not frame.ops):
                    self.advance()
                    stack.pop()
                    node, depth = self.close(frame)
                    self.push_operand(stack[-1], node, depth, frame.name_tok or frame.tok)
                    expect_operand = False
                elif frame is top and not frame.operands and not frame.ops:
                    raise self.error(f"unexpected {self.found(tok)}", tok)
                else:
                    raise self.error(f"expected an expression, found {self.found(tok)}", tok)
                if len(stack) > MAX_DEPTH:
                    raise self.error("nesting too deep", tok)
                continue
            # an operand has been read: expect an operator or the end of the expression
            if tok.kind == "op" and tok.value in BINARY_OPS:
                self.advance()
                prec = BINARY_OPS[tok.value][0]
                while frame.ops and frame.ops[-1][1] >= prec:
                    self.reduce(frame)
                frame.ops.append((tok.value, prec, False, tok))
                expect_operand = True
            elif frame is top:
                top.items.append(self.finish(frame))
                expect_operand = True
            elif tok.kind == "," and frame.kind != "paren":
                self.advance()
                frame.items.append(self.finish(frame))
                expect_operand = True
            elif tok.kind == ")":
                self.advance()
                stack.pop()
                if frame.kind == "paren":
                    node, depth = self.finish(frame)
                    stack[-1].operands.append((node, depth))
                else:
                    frame.items.append(self.finish(frame))
                    node, depth = self.close(frame)
                    self.push_operand(stack[-1], node, depth, frame.name_tok or frame.tok)
            else:
                message = f"{self.close_message(frame, tok)}, found {self.found(tok)}"
                if tok.kind == "(" or (frame.after_name and tok.kind == ","):
                    message += " (a call needs its '(' right after the function name)"
                raise self.error(message, tok)


def parse(text: str, file: str = "<physl>") -> Program:
    """Parse a PhySL program: zero or more expressions separated by whitespace."""
    items, _ = _Parser(text, file).program()
    return Program(tuple(node for node, _ in items), SourceLoc(file, 1, 1, text))


def parse_expr(text: str, file: str = "<physl>") -> Expr:
    """Parse exactly one PhySL expression."""
    parser = _Parser(text, file)
    items, starts = parser.program()
    if len(items) == 1:
        return items[0][0]
    if not items:
        raise PhylanxSyntaxError("expected an expression, found end of input",
                                 loc_at(text, file, len(text)))
    extra = starts[1]
    raise PhylanxSyntaxError(
        f"expected a single expression, found {describe(extra, text)} after it",
        parser.loc(extra))


def _collect_leaves(raw: list, dims: int, out: list) -> None:
    if dims == 1:
        out.extend(raw)
    else:
        for sub in raw:
            _collect_leaves(sub, dims - 1, out)


def _convert(raw: list, dims: int, convert) -> tuple:
    if dims == 1:
        return tuple(convert(v) for _, v in raw)
    return tuple(_convert(sub, dims - 1, convert) for sub in raw)
