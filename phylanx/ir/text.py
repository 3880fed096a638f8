"""The IR as text that reads like PhySL with types, and back: ``parse(show(f)) == f``.

::

    fn f(a.1:f64[?,3], b.2:f64[3,4]) {
      c.3:f64[?,4] = dot_general[rule="matmul"](a.1, b.2)
      return c.3
    }

A variable is ``name.id`` (``%id`` for a temporary) followed by its facts:
``dtype[dims]!kind{layout=...,alias=id}``, each part optional (``?`` an unknown dim;
an array's kind is implied by a dtype or a shape; ``!?`` says the kind is unknown
although they are).  Parameters are literals, tuples, nested functions (regions), and
for an ``opaque`` equation the PhySL it holds, ``physl"..."``.  ``show(..., locs=True)``
adds each equation's source location after ``@`` (the parser skips it: equality ignores
locations).
"""
from __future__ import annotations

import json
import math
import re

from ..language.parser import parse_expr
from ..language.printer import to_physl
from .core import DTYPES, Eqn, Facts, Function, Literal, Var, reserve_ids

_SHORT = DTYPES
_LONG = {v: k for k, v in DTYPES.items()}


# -- printing -----------------------------------------------------------------------------

def facts_text(f: Facts) -> str:
    s = _SHORT.get(f.dtype, f.dtype) if f.dtype else ""
    if f.shape is not None:
        s += "[" + ",".join("?" if d is None else str(d) for d in f.shape) + "]"
    if f.kind is None and s:
        s += "!?"
    elif f.kind is not None and (f.kind != "array" or not s):
        s += "!" + f.kind
    attrs = [f"layout={f.layout}"] if f.layout is not None else []
    if f.alias_of is not None:
        attrs.append(f"alias={f.alias_of}")
    return s + ("{" + ",".join(attrs) + "}" if attrs else "")


def var_text(v: Var, typed: bool = True) -> str:
    name = f"{v.name}.{v.id}" if v.name else f"%{v.id}"
    facts = facts_text(v.facts) if typed else ""
    return f"{name}:{facts}" if facts else name


def _value(x, indent: str) -> str:
    t = type(x)
    if t is Literal:
        return _value(x.value, indent)
    if t is Var:
        return var_text(x, typed=False)
    if x is None or t is bool:
        return repr(x)
    if t is int:
        return str(x)
    if t is float:
        return repr(x) if math.isfinite(x) else ("nan" if x != x else ("inf" if x > 0 else "-inf"))
    if t is str:
        return json.dumps(x)
    if t is tuple:
        items = [_value(i, indent) for i in x]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if t is Function:
        return _function(x, indent)
    return "physl" + json.dumps(to_physl(x))


def _eqn(e: Eqn, indent: str, locs: bool) -> str:
    outs = " ".join(var_text(v) for v in e.outs)
    ps = ", ".join(f"{k}={_value(v, indent + '  ')}" for k, v in e.params)
    ins = ", ".join(_value(a, indent) for a in e.ins)
    text = f"{indent}{outs} = {e.prim}{'[' + ps + ']' if ps else ''}({ins})"
    if locs and e.loc is not None and getattr(e.loc, "line", 0):
        text += f" @ {json.dumps(str(e.loc))}"
    return text


def _function(fn: Function, indent: str, locs: bool = False) -> str:
    head = "fn" + (f" {fn.name}" if fn.name else "")
    params = ", ".join(var_text(p) for p in fn.params)
    lines = [f"{head}({params}) {{"]
    lines += [_eqn(e, indent + "  ", locs) for e in fn.eqns]
    results = ", ".join(_value(r, indent) for r in fn.results)
    lines.append(f"{indent}  return {results}" if results else f"{indent}  return")
    lines.append(indent + "}")
    return "\n".join(lines)


def show(fn: Function, locs: bool = False) -> str:
    """``fn`` as text (with each equation's source location if ``locs``)."""
    return _function(fn, "", locs)


def renumbered(fn: Function) -> Function:
    """``fn`` with its variables numbered 1, 2, ... in order of definition (the same
    program: for display, where ids from earlier lowerings would only distract)."""
    ids: dict[int, int] = {}

    def var(v: Var) -> Var:
        if v.id not in ids:
            ids[v.id] = len(ids) + 1
        alias = v.facts.alias_of
        facts = v.facts.with_(alias_of=ids.get(alias, alias)) if alias is not None else v.facts
        return Var(ids[v.id], v.name, facts)

    def atom(a):
        return var(a) if type(a) is Var else a

    def function(f: Function) -> Function:
        ps = tuple(var(p) for p in f.params)
        eqns = []
        for e in f.eqns:
            ins = tuple(atom(a) for a in e.ins)
            params = tuple((k, function(v) if type(v) is Function else v) for k, v in e.params)
            eqns.append(Eqn(e.prim, params, ins, tuple(var(o) for o in e.outs), e.loc,
                            e.in_locs))
        return Function(ps, tuple(eqns), tuple(atom(r) for r in f.results), f.name)

    return function(fn)


# -- parsing ------------------------------------------------------------------------------

_TYPE = r"(?::[a-z0-9]*(?:\[[0-9?,]*\])?(?:![a-z?]+)?(?:\{[^{}]*\})?)?"
_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<var>(?:%\d+|[A-Za-z_$][\w$]*\.\d+)""" + _TYPE + r""")
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<num>-?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+|inf\b|nan\b))
  | (?P<name>[A-Za-z_$][\w$]*)
  | (?P<punct>[=\[\](){},@])
""", re.VERBOSE)
_VAR = re.compile(r"(?:%(?P<tid>\d+)|(?P<name>[A-Za-z_$][\w$]*)\.(?P<id>\d+))"
                  r"(?::(?P<dt>[a-z][a-z0-9]*)?(?:\[(?P<dims>[0-9?,]*)\])?"
                  r"(?:!(?P<kind>[a-z?]+))?(?:\{(?P<attrs>[^{}]*)\})?)?")


class IRSyntaxError(ValueError):
    """Text that is not IR (with the offset where reading stopped)."""


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise IRSyntaxError(f"unexpected character {text[pos]!r} at offset {pos}")
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group(), pos))
        pos = m.end()
    return out


def parse_var(text: str) -> Var:
    m = _VAR.fullmatch(text)
    if m is None:
        raise IRSyntaxError(f"not a variable: {text!r}")
    if m["tid"]:
        vid, name = int(m["tid"]), ""
    else:
        vid, name = int(m["id"]), m["name"]
    dtype = _LONG.get(m["dt"], m["dt"]) if m["dt"] else None
    shape = None
    if m["dims"] is not None:
        shape = tuple(None if d == "?" else int(d) for d in m["dims"].split(",") if d)
    kind = m["kind"]
    if kind is None and (dtype is not None or shape is not None):
        kind = "array"
    elif kind == "?":
        kind = None
    layout = alias = None
    for item in (m["attrs"] or "").split(","):
        if item.startswith("layout="):
            layout = item[7:]
        elif item.startswith("alias="):
            alias = int(item[6:])
    return Var(vid, name, Facts(shape, dtype, kind, layout, alias))


class _Parser:
    def __init__(self, text: str):
        self.toks = _tokens(text)
        self.i = 0
        self.max_id = 0
        self.defined: dict[int, Var] = {}

    def peek(self, k: int = 0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ("eof", "", -1)

    def take(self, kind: str | None = None, text: str | None = None) -> str:
        tok = self.peek()
        if (kind and tok[0] != kind) or (text is not None and tok[1] != text):
            raise IRSyntaxError(f"expected {text or kind}, found {tok[1]!r} at offset {tok[2]}")
        self.i += 1
        return tok[1]

    def var(self) -> Var:
        """A definition (a parameter or an output), with its facts."""
        v = parse_var(self.take("var"))
        self.max_id = max(self.max_id, v.id)
        self.defined[v.id] = v
        return v

    def use(self) -> Var:
        """A read: printed without facts, it is the variable defined before."""
        v = parse_var(self.take("var"))
        return self.defined.get(v.id, v)

    def function(self) -> Function:
        self.take("name", "fn")
        name = self.take("name") if self.peek()[0] == "name" else ""
        self.take("punct", "(")
        params = []
        while self.peek()[1] != ")":
            params.append(self.var())
            if self.peek()[1] == ",":
                self.take()
        self.take("punct", ")")
        self.take("punct", "{")
        eqns = []
        while self.peek()[1] != "return":
            eqns.append(self.eqn())
        self.take("name", "return")
        results = []
        while self.peek()[1] != "}":
            v = self.value()
            results.append(v if type(v) is Var else Literal(v))
            if self.peek()[1] == ",":
                self.take()
        self.take("punct", "}")
        return Function(tuple(params), tuple(eqns), tuple(results), name)

    def eqn(self) -> Eqn:
        outs = []
        while self.peek()[0] == "var":
            outs.append(self.var())
        self.take("punct", "=")
        prim = self.take("name")
        ps = []
        if self.peek()[1] == "[":
            self.take()
            while self.peek()[1] != "]":
                key = self.take("name")
                self.take("punct", "=")
                ps.append((key, self.value()))
                if self.peek()[1] == ",":
                    self.take()
            self.take("punct", "]")
        self.take("punct", "(")
        ins = []
        while self.peek()[1] != ")":
            v = self.value()
            ins.append(v if type(v) is Var else Literal(v))
            if self.peek()[1] == ",":
                self.take()
        self.take("punct", ")")
        if self.peek()[1] == "@":
            self.take()
            self.take("str")
        return Eqn(prim, tuple(ps), tuple(ins), tuple(outs))

    def value(self):
        kind, text, _ = self.peek()
        if kind == "var":
            return self.use()
        if kind == "num":
            self.take()
            if text.lstrip("-") in ("inf", "nan"):
                return float(text)
            return float(text) if any(c in text for c in ".eE") else int(text)
        if kind == "str":
            self.take()
            return json.loads(text)
        if kind == "name":
            if text == "fn":
                return self.function()
            self.take()
            if text == "physl":
                return parse_expr(json.loads(self.take("str")), "<ir>")
            consts = {"None": None, "True": True, "False": False}
            if text in consts:
                return consts[text]
            raise IRSyntaxError(f"unknown name {text!r}")
        if text == "(":
            self.take()
            items = []
            while self.peek()[1] != ")":
                items.append(self.value())
                if self.peek()[1] == ",":
                    self.take()
            self.take("punct", ")")
            return tuple(items)
        raise IRSyntaxError(f"unexpected {text!r} at offset {self.peek()[2]}")


def parse(text: str) -> Function:
    """The function ``text`` shows (fresh variables made later get larger ids)."""
    parser = _Parser(text)
    fn = parser.function()
    if parser.peek()[0] != "eof":
        raise IRSyntaxError(f"text after the function at offset {parser.peek()[2]}")
    reserve_ids(parser.max_id)
    return fn


