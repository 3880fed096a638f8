"""PhySL tokenizer: turns source text into a lazy stream of :class:`Token`.

Whitespace and comments (``// ...``, ``# ...`` to end of line, ``/* ... */``) are
skipped.  Identifiers may carry position tags ``name$line$col`` which are
stripped from the name and kept in :attr:`Token.tag`.  Numbers are lexed
unsigned (the parser attaches a sign in unary position); floats are strict
(they contain ``.`` or an exponent).  Every error is a
:class:`~phylanx.errors.PhylanxSyntaxError` located at a real (1-based) position.
The lexer runs in linear time: all regular expressions are anchored and free of
nested quantifiers.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import PhylanxSyntaxError
from ..source import SourceLoc

__all__ = ["Token", "tokenize", "describe", "loc_at", "INT64_MIN", "INT64_MAX", "INCOMPLETE"]

#: how an error of input that stops too early begins (the original's wording)
INCOMPLETE = "Incomplete parse"
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
#: value given to integer tokens far too long to be an int64 (avoids huge int())
TOO_BIG = 2**70

_WS = re.compile(r"[ \t\r\n\f\v]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"(?:[0-9]+(\.[0-9]*)?|(\.)[0-9]+)([eE][+-]?[0-9]+)?")
_TAG = re.compile(r"\$(-?)([0-9]+)")
_IDENT_CHAR = re.compile(r"[A-Za-z0-9_]")
_HEX = re.compile(r"[0-9A-Fa-f]{1,2}")
_PLAIN = re.compile(r'[^"\\]+')
_ESCAPES = {
    "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
    "\\": "\\", "'": "'", '"': '"',
}
_OPS = ("||", "&&", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", "!")
_PUNCT = "()[],"


@dataclass(frozen=True, slots=True)
class Token:
    """One token.

    ``kind`` is one of ``name int float string op attr ( ) [ ] , '( eof``.
    ``value`` is the name (tags stripped), the unsigned number, the decoded
    string, the operator or the attribute text.  ``pos``/``end`` are offsets into
    the source, ``line``/``col`` the 1-based start position, and ``tag`` the
    ``(line, col)`` given by ``$`` tags on a name (``col`` is -1 when only one
    tag is present).
    """

    kind: str
    value: object
    pos: int
    end: int
    line: int
    col: int
    tag: tuple[int, int] | None = None


def describe(tok: Token, text: str) -> str:
    """A short human description of ``tok`` for error messages."""
    if tok.kind == "eof":
        return "end of input"
    if tok.kind == "name":
        return f"identifier '{tok.value}'"
    snippet = text[tok.pos : tok.end]
    if len(snippet) > 24:
        snippet = snippet[:21] + "..."
    if tok.kind in ("int", "float"):
        return f"number {snippet}"
    if tok.kind == "string":
        return f"string {snippet}"
    if tok.kind == "attr":
        return f"attribute {snippet}"
    return f"'{tok.value}'"


def _int_value(digits: str) -> int:
    stripped = digits.lstrip("0")
    return int(digits) if len(stripped) <= 20 else TOO_BIG


def tokenize(text: str, file: str = "<physl>") -> Iterator[Token]:
    """Yield the tokens of ``text``; after the last one, ``eof`` forever."""
    pos = 0
    line = 1
    line_start = 0
    n = len(text)

    def error(message: str, at: int) -> PhylanxSyntaxError:
        return PhylanxSyntaxError(message, loc_at(text, file, at))

    def newlines(start: int, stop: int) -> None:
        nonlocal line, line_start
        count = text.count("\n", start, stop)
        if count:
            line += count
            line_start = text.rfind("\n", start, stop) + 1

    while True:
        # -- skip whitespace and comments ------------------------------------
        while pos < n:
            m = _WS.match(text, pos)
            if m:
                newlines(pos, m.end())
                pos = m.end()
                continue
            c = text[pos]
            if c == "#" or text.startswith("//", pos):
                stop = text.find("\n", pos)
                pos = n if stop < 0 else stop
                continue
            if text.startswith("/*", pos):
                stop = text.find("*/", pos + 2)
                if stop < 0:
                    raise error(f"{INCOMPLETE}: unterminated comment: '/*' without '*/'",
                                pos)
                newlines(pos, stop)
                pos = stop + 2
                continue
            break
        if pos >= n:
            eof = Token("eof", None, n, n, line, n - line_start + 1)
            while True:
                yield eof
        start = pos
        col = start - line_start + 1
        c = text[pos]
        # -- names with optional $line$col tags --------------------------------
        m = _NAME.match(text, pos)
        if m:
            name = m.group()
            pos = m.end()
            tag = None
            if pos < n and text[pos] == "$":
                tags = []
                while len(tags) < 2 and pos < n and text[pos] == "$":
                    t = _TAG.match(text, pos)
                    if not t:
                        raise error(f"expected an integer after '$' in '{name}$'", pos)
                    value = _int_value(t.group(2))
                    if value > INT64_MAX:
                        raise error("position tag out of range", pos)
                    tags.append(-value if t.group(1) else value)
                    pos = t.end()
                if pos < n and _IDENT_CHAR.match(text, pos):
                    raise error(f"invalid position tag on '{name}'", start)
                tag = (tags[0], tags[1] if len(tags) > 1 else -1)
            yield Token("name", name, start, pos, line, col, tag)
            continue
        # -- numbers -----------------------------------------------------------
        m = _NUMBER.match(text, pos)
        if m:
            pos = m.end()
            if pos < n and (_IDENT_CHAR.match(text, pos) or text[pos] == "."):
                raise error(f"invalid number literal '{text[start:pos + 1]}'", start)
            lexeme = m.group()
            if m.group(1) is not None or m.group(2) is not None or m.group(3) is not None:
                yield Token("float", float(lexeme), start, pos, line, col)
            else:
                yield Token("int", _int_value(lexeme), start, pos, line, col)
            continue
        # -- strings -------------------------------------------------------------
        if c == '"':
            pos, value = _string(text, pos, error)
            yield Token("string", value, start, pos, line, col)
            newlines(start, pos)
            continue
        # -- attributes {...} ------------------------------------------------------
        if c == "{":
            stop = text.find("}", pos + 1)
            if stop < 0:
                raise error(f"{INCOMPLETE}: unterminated attribute: '{{' without '}}'", pos)
            pos = stop + 1
            yield Token("attr", text[start + 1 : stop], start, pos, line, col)
            newlines(start, pos)
            continue
        if c == "'":
            if not text.startswith("(", pos + 1):
                raise error("expected '(' after \"'\" to start a quoted list", pos)
            pos += 2
            yield Token("'(", "'(", start, pos, line, col)
            continue
        if c in _PUNCT:
            pos += 1
            yield Token(c, c, start, pos, line, col)
            continue
        for op in _OPS:
            if text.startswith(op, pos):
                pos += len(op)
                yield Token("op", op, start, pos, line, col)
                break
        else:
            hint = {"=": " (did you mean '=='?)", "&": " (did you mean '&&'?)",
                    "|": " (did you mean '||'?)"}.get(c, "")
            raise error(f"unexpected character {c!r}{hint}", pos)


def _string(text: str, pos: int, error) -> tuple[int, str]:
    """Decode the string literal starting at ``text[pos] == '"'``."""
    start = pos
    pos += 1
    n = len(text)
    parts: list[str] = []
    while True:
        m = _PLAIN.match(text, pos)
        if m:
            parts.append(m.group())
            pos = m.end()
        if pos >= n:
            raise error(f"{INCOMPLETE}: unterminated string literal", start)
        if text[pos] == '"':
            return pos + 1, "".join(parts)
        # backslash escape
        if pos + 1 >= n:
            raise error(f"{INCOMPLETE}: unterminated string literal", start)
        e = text[pos + 1]
        if e in _ESCAPES:
            parts.append(_ESCAPES[e])
            pos += 2
        elif e == "x":
            h = _HEX.match(text, pos + 2)
            if not h:
                raise error("expected 1 or 2 hex digits after '\\x'", pos)
            parts.append(chr(int(h.group(), 16)))
            pos = h.end()
        else:
            raise error(f"unknown escape sequence '\\{e}' in string", pos)


def loc_at(text: str, file: str, at: int) -> SourceLoc:
    """The 1-based location of offset ``at`` (computed from scratch: errors only)."""
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    return SourceLoc(file, line, col, text)
