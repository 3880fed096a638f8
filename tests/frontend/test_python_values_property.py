"""Property: generated Python functions over scalars, tuples, lists and dicts give, decorated,
exactly what they give undecorated: the same values of the same kinds, recursively
(tuple vs list, ``int`` vs ``np.int64``, ``float`` vs ``np.float64``, ``bool``).

The source text comes from a small typed grammar: arithmetic on ints, floats and bools,
tuple building, indexing and unpacking, list operations, dicts with tuple keys,
``%``-formatting, ``divmod``, ``len``, comparisons, ``if`` and ``for`` over ``range``.
Divisors are kept non-zero so that no example depends on division by zero (a documented
difference: Phylanx gives NumPy's result with a warning).
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import Phylanx
from phylanx.errors import PhylanxError

PARAMS = {"a": "int", "b": "int", "x": "float", "flag": "bool", "arr": "array"}


def same_kind_and_value(got, want, where="result") -> str | None:
    """None when equal in value and kind at every depth, else where they differ."""
    if type(got) is not type(want):
        return f"{where}: {type(got).__name__} != {type(want).__name__} ({got!r} vs {want!r})"
    if isinstance(want, (list, tuple)):
        if len(got) != len(want):
            return f"{where}: length {len(got)} != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            found = same_kind_and_value(g, w, f"{where}[{i}]")
            if found:
                return found
        return None
    if isinstance(want, dict):
        if list(got) != list(want):
            return f"{where}: keys {list(got)} != {list(want)}"
        for k in want:
            found = same_kind_and_value(k, next(g for g in got if g == k), f"{where} key")
            found = found or same_kind_and_value(got[k], want[k], f"{where}[{k!r}]")
            if found:
                return found
        return None
    if isinstance(want, np.ndarray):
        ok = got.dtype == want.dtype and got.shape == want.shape and close(got, want)
        return None if ok else f"{where}: {got!r} != {want!r}"
    if isinstance(want, (float, complex, np.inexact)):
        return None if close(got, want) else f"{where}: {got!r} != {want!r}"
    return None if got == want else f"{where}: {got!r} != {want!r}"


def close(got, want) -> bool:
    """Equal, NaN-aware; inexact values within a few units of their dtype's precision
    (relative to the largest magnitude), as a kernel other than NumPy's may round."""
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind not in "fc":
        return bool(np.array_equal(got, want))
    tol = 4 * np.finfo(want.dtype).eps
    finite = want[np.isfinite(want)]
    scale = float(np.max(np.abs(finite))) if finite.size else 0.0
    return bool(np.allclose(got, want, rtol=tol, atol=tol * scale, equal_nan=True))


class Grammar:
    """Draws typed expressions and statements; ``names`` maps variables to their kinds."""

    def __init__(self, draw):
        self.draw = draw
        self.names = dict(PARAMS)
        self.counter = 0

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def var(self, kind):
        found = [n for n, k in self.names.items() if k == kind]
        return self.pick(found) if found else None

    def expr(self, kind, depth=2):
        leaf = depth <= 0 or self.draw(st.integers(0, 3)) == 0
        return getattr(self, "e_" + kind)(depth - 1, leaf)

    def e_int(self, d, leaf):
        v = self.var("int")
        if leaf:
            return self.pick([str(self.draw(st.integers(-5, 9))), v or "a"])
        e = lambda: self.expr("int", d)  # noqa: E731
        nonzero = f"(abs({e()}) + 1)"
        return self.pick([
            f"({e()} + {e()})", f"({e()} - {e()})", f"({e()} * {e()})",
            f"({e()} // {nonzero})", f"({e()} % {nonzero})", f"(-{e()})",
            f"({self.expr('bool', d)} + {self.expr('bool', d)})",
            f"len({self.expr('list', d)})", f"len({self.expr('tuple', d)})",
            f"divmod({e()}, {nonzero})[{self.pick(['0', '1', '-1'])}]",
            f"int({self.expr('float', d)})", f"abs({e()})", f"max({e()}, {e()})",
            f"min({e()}, {e()}, 3)", f"({e()} if {self.expr('bool', d)} else {e()})",
            f"sum({self.expr('list', d)})", f"round({self.expr('float', d)})",
            f"({e()}, {e()})[{self.pick(['0', '1'])}]", "arr.shape[0]", "len(arr)",
        ])

    def e_float(self, d, leaf):
        if leaf:
            return self.pick([repr(self.draw(st.sampled_from([0.5, -1.25, 2.0, 3.75]))),
                              self.var("float") or "x"])
        e = lambda: self.expr("float", d)  # noqa: E731
        i = lambda: self.expr("int", d)  # noqa: E731
        return self.pick([
            f"({e()} + {e()})", f"({e()} - {i()})", f"({e()} * {i()})",
            f"({i()} / (abs({i()}) + 1))", f"float({i()})", f"round({e()}, 2)",
            f"abs({e()})", f"({e()} if {self.expr('bool', d)} else {e()})",
            f"max({e()}, {e()})", f"(x, {e()})[0]", "arr.sum()",
            f"arr[{i()} % 2, {i()} % 3]", f"(arr[({i()} % 2, 1)] * {e()})",
        ])

    def e_bool(self, d, leaf):
        if leaf:
            return self.pick(["True", "False", self.var("bool") or "flag"])
        i = lambda: self.expr("int", d)  # noqa: E731
        return self.pick([
            f"({i()} < {i()})", f"({i()} == {i()})", f"(not {self.expr('bool', d)})",
            f"({self.expr('bool', d)} and {self.expr('bool', d)})",
            f"({self.expr('bool', d)} or {i()} > 2)", f"({i()} in {self.expr('tuple', d)})",
            f"({self.expr('tuple', d)} == ({i()}, {i()}))",
            f"({self.expr('float', d)} >= {self.expr('float', d)})",
        ])

    def e_tuple(self, d, leaf):
        if leaf:
            v = self.var("tuple")
            return v or f"({self.expr('int', 0)}, {self.expr('int', 0)})"
        i = lambda: self.expr("int", d)  # noqa: E731
        return self.pick([
            f"({i()}, {i()})", f"({i()}, {self.expr('float', d)}, {self.expr('bool', d)})",
            f"divmod({i()}, (abs({i()}) + 1))", f"({self.expr('tuple', d)} + ({i()},))",
            f"tuple({self.expr('list', d)})", f"({i()}, ({i()}, {i()}))",
            f"({i()},)", "arr.shape", f"tuple(sorted({self.expr('list', d)}))",
            f"({self.expr('tuple', d)}, {self.expr('str', d)})",
            f"({self.expr('tuple', d)} * 2)",
        ])

    def e_list(self, d, leaf):
        if leaf:
            return self.var("list") or f"[{self.expr('int', 0)}, {self.expr('int', 0)}]"
        i = lambda: self.expr("int", d)  # noqa: E731
        return self.pick([
            f"[{i()}, {i()}, {i()}]", f"list({self.expr('tuple', d)})",
            f"[k * {i()} for k in range({i()} % 4)]", f"({self.expr('list', d)} + [{i()}])",
            f"sorted({self.expr('list', d)})", f"[{self.expr('tuple', d)}, ({i()}, {i()})]",
            f"[k for k in {self.expr('list', d)} if k > {i()}]",
            f"list(zip({self.expr('list', d)}, {self.expr('list', d)}))",
            f"list(enumerate({self.expr('list', d)}))",
        ])

    def e_str(self, d, leaf):
        i = lambda: self.expr("int", d)  # noqa: E731
        return self.pick([
            f'"%d-%s" % ({i()}, {self.expr("bool", d)})',
            f'"%.2f|%d" % ({self.expr("float", d)}, {i()})',
            f'"%s" % ({self.expr("tuple", d)},)', f'"n=%d" % {i()}',
        ])

    def fresh(self, kind):
        name = f"v{self.counter}"
        self.counter += 1
        self.names[name] = kind
        return name

    def statement(self, indent="    "):
        choice = self.draw(st.integers(0, 6))
        # every right-hand side is drawn before its name exists (no use before assignment)
        if choice == 0:   # tuple unpacking
            p, q = self.expr("int"), self.expr("float")
            n1, n2 = self.fresh("int"), self.fresh("float")
            return [f"{indent}{n1}, {n2} = {p}, {q}",
                    f"{indent}{n1}, {n2} = ({n1}, {n2})[::-1][::-1]"]
        if choice == 1:   # dict with tuple keys
            k1, k2 = self.expr("int", 1), self.expr("int", 1)
            f1, f2 = self.expr("float", 1), self.expr("float", 1)
            d = self.fresh("dict")
            return [f"{indent}{d} = {{({k1}, {k2}): {f1}}}",
                    f"{indent}{d}[({k2}, {k1})] = {f2}",
                    f"{indent}{d}[{k1}, 7] = ({k1}, {k2}) in {d}",
                    f"{indent}{self.fresh('float')} = {d}.get(({k2}, {k1}), 0.0)"]
        if choice == 2:   # if/else
            cond, kind = self.expr("bool"), self.pick(["int", "tuple", "float"])
            then, other = self.expr(kind), self.expr(kind)
            n = self.fresh(kind)
            return [f"{indent}if {cond}:", f"{indent}    {n} = {then}",
                    f"{indent}else:", f"{indent}    {n} = {other}"]
        if choice == 3:   # for over range with an accumulator
            count, step = self.expr("int", 1), self.expr("int", 1)
            n = self.fresh("int")
            return [f"{indent}{n} = 0", f"{indent}for i in range({count} % 5):",
                    f"{indent}    {n} += i * {step}"]
        if choice == 4:   # list building
            item = self.expr("int", 1)
            n = self.fresh("list")
            return [f"{indent}{n} = []", f"{indent}for k in range(3):",
                    f"{indent}    {n}.append((k, {item}))"]
        if choice == 5:   # tuple index into an array
            i, j = self.expr("int", 1), self.expr("int", 1)
            n = self.fresh("float")
            return [f"{indent}pos = ({i} % 2, {j} % 3)", f"{indent}{n} = float(arr[pos])"]
        kind = self.pick(["int", "float", "bool", "tuple", "list", "str"])
        value = self.expr(kind)
        return [f"{indent}{self.fresh(kind)} = {value}"]


def program_text(draw, g) -> str:
    """A function of 1-4 statements drawn from grammar ``g``, returning its variables."""
    lines = ["def generated(a, b, x, flag, arr):"]
    for _ in range(draw(st.integers(1, 4))):
        lines.extend(g.statement())
    results = [n for n in g.names if n.startswith("v")] or ["a"]
    lines.append(f"    return ({', '.join(results)},)")
    return "\n".join(lines) + "\n"


@st.composite
def programs(draw):
    return program_text(draw, Grammar(draw))


ARGS = st.tuples(st.integers(-6, 9), st.integers(-6, 9),
                 st.sampled_from([0.5, -2.25, 3.0]), st.booleans())


@settings(max_examples=100, deadline=None)
@given(programs(), ARGS)
def test_decorated_equals_undecorated_in_value_and_kind(source, args):
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)
    python = namespace["generated"]
    arr = np.arange(6.0).reshape(2, 3)
    try:
        want = python(*args, arr.copy())
    except Exception as e:   # noqa: BLE001 - the oracle may fail: then Phylanx must too
        want = e
    decorated = Phylanx(source=source)(python)
    if isinstance(want, Exception):
        try:
            got = decorated(*args, arr.copy())
        except PhylanxError as e:
            # the same kind of error as Python's (PhylanxErrors keep Python's classes)
            assert isinstance(e, type(want)), f"Python raised {want!r}, Phylanx {e!r}\n{source}"
            return
        raise AssertionError(f"Python raised {want!r}, Phylanx returned {got!r}\n{source}")
    got = decorated(*args, arr.copy())
    problem = same_kind_and_value(got, want)
    assert problem is None, f"{problem}\nargs={args}\n{source}"
