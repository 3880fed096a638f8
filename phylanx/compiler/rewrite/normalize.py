"""Lowering of spellings: the first phase of the rewrite engine, where spelling ends.

Users write one meaning several ways (``x @ w``, ``np.dot(x, w)``, ``x.dot(w)``;
``xt = x.T`` then ``xt @ r``; ``np.average(x, 0)`` for ``np.mean(x, 0)``;
``np.linalg.norm(v)`` for ``np.sqrt(np.sum(v * v))``).  The phases after this one
(``gram_rows``, ``row_blocks``, ``label_stats``, ``outer``, and the fused row passes of ``fusion/``
that read the compiled tree) match the canonical forms below only, so what they
speed up does not depend on the spelling.

Canonical forms:

* **product**: a call of one of :data:`PRODUCTS` with two positional operands.
  ``@``, ``np.matmul`` and ``np.linalg.matmul`` already translate to ``matmul``;
  ``np.dot`` and ``.dot`` to ``dot``.  The two agree whenever both operands have one or
  two axes (NumPy's definitions), and differ for scalars and stacks; ranks are not
  known when a program is compiled, so a product keeps the primitive of its spelling
  (its run-time meaning) and every rule asks :func:`product` and rebuilds with
  :func:`same_product`, never naming the primitive.  The patterns that use products
  apply only to matrices and vectors (checked on the values at run time), where the
  two are one function.
* **transpose**: ``transpose(x)`` (``x.T``, ``np.transpose(x)``, ``x.transpose()``).
  A name bound once to ``transpose(v)`` of a parameter ``v`` is read as that
  expression where a product uses it (:class:`_TransposeBindings`).
* **reductions**: ``mean`` for ``np.average`` without weights; ``np.linalg.norm(v)``
  (no order or keepdims; no axis or an integer one) as
  ``sqrt(sum(power(absolute(v), 2.0)[, axis]))``.

Each rewrite is a rule of the engine's ``normalize`` phase (:data:`PHASE`, with the law
it relies on); built nodes keep the location of the call they replace.  Setting
``normalize`` (on by default) switches the phase off, for comparisons.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from ...language import ast
from .engine import TERMS, P, Phase, Rule, Sample, normal
from .tree import children, facts, rebuild

#: primitives of the canonical product (see the module docstring for why two)
PRODUCTS = ("matmul", "dot")


def product(e) -> tuple[Any, Any] | None:
    """``(a, b)`` if ``e`` is a canonical product of two positional operands, else None."""
    if type(e) is ast.Call and e.func in PRODUCTS and len(e.args) == 2 \
            and e.attribute is None \
            and not any(type(a) is ast.KeywordArg for a in e.args):
        return e.args
    return None


def same_product(e: ast.Call, a, b, loc=None) -> ast.Call:
    """The product ``e`` (a :func:`product`) of ``a`` and ``b``, with ``e``'s meaning."""
    return ast.Call(e.func, (a, b), None, e.loc if loc is None else loc)


def transposed(e) -> Any | None:
    """``x`` if ``e`` is the canonical transpose ``transpose(x)``, else None."""
    if type(e) is ast.Call and e.func == "transpose" and len(e.args) == 1 \
            and e.attribute is None and type(e.args[0]) is not ast.KeywordArg:
        return e.args[0]
    return None


# -- rules ----------------------------------------------------------------------------------

def _keywords(call: ast.Call, start: int) -> tuple[list, dict] | None:
    """Positional and keyword arguments of ``call`` after ``start``."""
    positional = [a for a in call.args[start:] if type(a) is not ast.KeywordArg]
    keywords = {a.name: a.value for a in call.args[start:] if type(a) is ast.KeywordArg}
    if len(positional) + len(keywords) != len(call.args) - start:
        return None
    return positional, keywords


def _nil(e) -> bool:
    return type(e) is ast.Literal and e.value is None


def _false(e) -> bool:
    return type(e) is ast.Literal and e.value is False


def _average_without_weights(call: ast.Call) -> dict | None:
    """``__nptuple(average(a[, axis]))``: no weights, not ``returned``, no keepdims."""
    if len(call.args) != 1 or call.attribute is not None:
        return None
    inner = call.args[0]
    if not (type(inner) is ast.Call and inner.func == "average" and inner.attribute is None
            and inner.args and type(inner.args[0]) is not ast.KeywordArg):
        return None
    split = _keywords(inner, 1)
    if split is None:
        return None
    positional, keywords = split
    names = ("axis", "weights", "returned", "keepdims")
    if len(positional) > len(names) or set(keywords) - set(names):
        return None
    given = dict(zip(names, positional)) | keywords
    if len(given) != len(positional) + len(keywords):
        return None                       # one argument twice: let the call say so
    if not _nil(given.get("weights", ast.Literal(None))) \
            or not _false(given.get("returned", ast.Literal(False))) \
            or not _false(given.get("keepdims", ast.Literal(False))):
        return None
    return {"a": inner.args[0], "axis": given.get("axis")}


def _mean(b: dict, loc) -> ast.Call:
    axis = b["axis"]
    args = (b["a"],) if axis is None else (b["a"], ast.KeywordArg("axis", axis, loc))
    return ast.Call("mean", args, None, loc)


def _int_literal(e) -> bool:
    if type(e) is ast.UnaryOp and e.op == "-":
        e = e.operand
    return type(e) is ast.Literal and type(e.value) is int


def _plain_norm(call: ast.Call) -> dict | None:
    """``__npnorm(v)``, or with ``ord`` nil, ``axis`` nil or an integer literal and
    ``keepdims`` false."""
    if call.attribute is not None or not call.args or type(call.args[0]) is ast.KeywordArg:
        return None
    split = _keywords(call, 1)
    if split is None:
        return None
    positional, keywords = split
    names = ("ord", "axis", "keepdims")
    if len(positional) > len(names) or set(keywords) - set(names):
        return None
    given = dict(zip(names, positional)) | keywords
    if len(given) != len(positional) + len(keywords):
        return None
    axis = given.get("axis", ast.Literal(None))
    if not (_nil(given.get("ord", ast.Literal(None))) and (_nil(axis) or _int_literal(axis))
            and _false(given.get("keepdims", ast.Literal(False)))):
        return None
    return {"v": call.args[0], "axis": None if _nil(axis) else axis}


def _root_of_sum_of_squares(b: dict, loc) -> ast.Call:
    squares = ast.Call("power", (ast.Call("absolute", (b["v"],), None, loc),
                                 ast.Literal(2.0, loc)), None, loc)
    axis = () if b["axis"] is None else (ast.KeywordArg("axis", b["axis"], loc),)
    return ast.Call("sqrt", (ast.Call("sum", (squares, *axis), None, loc),), None, loc)


# -- names bound to a transpose -------------------------------------------------------------

_BINDERS = ("define", "define_global", "store", "lambda", "for_each")


def _binding_counts(program: ast.Program) -> Counter:
    """How often each name is bound anywhere in ``program``: targets of
    define/store/for_each, function and lambda parameters (with defaults too)."""
    bound: Counter = Counter()
    stack = list(program.body)
    while stack:
        e = stack.pop()
        t = type(e)
        if t is ast.KeywordArg:
            bound[e.name] += 1            # a parameter with a default
        if t is ast.Call and e.func in _BINDERS:
            params = e.args[:-1] if e.func in ("lambda", "define", "define_global") \
                and len(e.args) > 1 else e.args[:1]
            for p in params:
                if type(p) is ast.Identifier:
                    bound[p.name] += 1
        stack.extend(children(e))
    return bound


class _TransposeBindings:
    """``define(t, transpose(v))`` (``t = v.T``) read by a later product of the same
    block as ``transpose(v)`` itself, so the product's patterns see the transpose.

    Law: re-evaluating a pure expression gives the value its binding holds when nothing
    it reads was rebound and nothing was changed in place between the two.  Hence:
    ``t`` is bound exactly once, ``v`` is a parameter of the enclosing function bound
    nowhere else, the program changes no array in place (``tree.ProgramFacts``), and
    only reads of ``t`` that are operands of a product after the binding are replaced
    (other reads keep the variable and the binding).  The binding itself stays, read or
    not: ``transpose(v)`` fails on what is neither an array nor a number (Python's
    ``None.T``), and the reads it leaves may never run (a loop of no iteration).
    """

    def __init__(self, program: ast.Program):
        self.bound = _binding_counts(program)
        self.off = facts(program).mutates
        self.changed = False

    def function(self, call: ast.Call, params: frozenset):
        """The body of a ``define(f, params.., body)``/``lambda``, rewritten."""
        body = self.expr(call.args[-1], params)
        return rebuild(call, (*call.args[:-1], body))

    def expr(self, e, params: frozenset):
        if type(e) is not ast.Call:
            return rebuild(e, tuple(self.expr(c, params) for c in children(e)))
        if e.func in ("define", "define_global") and len(e.args) > 2 or (
                e.func == "lambda" and e.args):   # (an empty lambda is the compiler's error)
            names = frozenset(p.name for p in e.args[:-1] if type(p) is ast.Identifier)
            return self.function(e, names)
        args = tuple(self.expr(c, params) for c in e.args)
        if e.func == "block":
            args = self.block(args, params)
        return rebuild(e, args)

    def candidate(self, stmt, params: frozenset) -> tuple[str, Any] | None:
        if not (type(stmt) is ast.Call and stmt.func == "define" and len(stmt.args) == 2
                and type(stmt.args[0]) is ast.Identifier and stmt.attribute is None):
            return None
        v = transposed(stmt.args[1])
        name = stmt.args[0].name
        if type(v) is not ast.Identifier or v.name not in params or self.off \
                or self.bound[v.name] != 1 or self.bound[name] != 1:
            return None
        return name, stmt.args[1]

    def block(self, stmts: tuple, params: frozenset) -> tuple:
        out = list(stmts)
        for i, stmt in enumerate(out):
            found = self.candidate(stmt, params)
            if found is None:
                continue
            for j in range(i + 1, len(out)):
                out[j] = self.substituted(out[j], *found)
        return tuple(out)

    def substituted(self, e, name: str, value):
        """``e`` with ``name`` replaced by ``value`` where it is a product's operand."""
        new = tuple(self.substituted(c, name, value) for c in children(e))
        e = rebuild(e, new)
        operands = product(e)
        if operands is None:
            return e
        swapped = tuple(ast.Call(value.func, value.args, None, o.loc)
                        if type(o) is ast.Identifier and o.name == name else o
                        for o in operands)
        if all(a is b for a, b in zip(swapped, operands)):
            return e
        self.changed = True
        return same_product(e, *swapped)


# -- the phase ------------------------------------------------------------------------------

def _rule_of(match, build):
    """A builder from ``match(call) -> bindings | None`` and ``build(bindings, loc)``."""
    def builder(bound: dict, _ctx):
        found = match(bound["e"])
        return None if found is None else build(found, bound["e"].loc)
    return builder


def _read_transposes(bound: dict, ctx):
    if facts(ctx.program).mutates:
        return None
    bindings = _TransposeBindings(ctx.program)
    names = frozenset(p.name for p in bound["e"].args[:-1] if type(p) is ast.Identifier)
    out = bindings.function(bound["e"], names)
    return out if bindings.changed else None


def _outermost_function(e, ctx) -> bool:
    return not ctx.in_function and TERMS.is_function(e)


PHASE = Phase("normalize", (
    Rule("average_is_mean",
         "np.average(a, axis) with weights=None, returned=False is a.mean(axis): NumPy's "
         "own definition (numpy.average's source), same value, dtype and errors",
         P("__nptuple", name="e"), _rule_of(_average_without_weights, _mean),
         Sample("def sample(x):\n    return np.average(x, axis=0)\n", normal(("n", 4)),
                ("float32", "helper"),
                helper="def sample(x):\n    def centre(v):\n        return v - "
                       "np.average(v, 0)\n    return centre(x)\n"),
         setting="normalize"),
    Rule("norm_is_root_of_sum_of_squares",
         "np.linalg.norm(v[, axis=k]) with no ord is the 2-norm of v.ravel() (Frobenius "
         "for a matrix), or of each vector along axis k: sqrt(sum(|v_i|**2[, axis=k])), "
         "NumPy's own definition for ord None; |v|**2.0 is float for every real or complex v as "
         "norm's own cast to float is; the sum's order differs from norm's dot, so the "
         "result agrees to rounding (a few ulps times the length)",
         P("__npnorm", name="e"), _rule_of(_plain_norm, _root_of_sum_of_squares),
         Sample("def sample(x):\n    return x / np.linalg.norm(x)\n", normal(("n", 4)),
                ("float32", "helper"),
                helper="def sample(x):\n    def unit(v):\n        return v / "
                       "np.linalg.norm(v, axis=1)[:, None]\n    return unit(x)\n"),
         tolerance="rtol 1e-12 (float64), 1e-5 (float32) of the largest value",
         rtol=(1e-12, 1e-5),
         setting="normalize"),
    Rule("transpose_binding_read_as_transpose",
         "re-evaluating a pure expression gives the value its binding holds when nothing it "
         "reads was rebound or changed in place in between: t = v.T read by a product is "
         "transpose(v) (t bound once, v a parameter bound nowhere else, no in-place "
         "change in the program); the binding stays (transpose fails on a non-array)",
         P("define", "lambda", name="e", where=_outermost_function), _read_transposes,
         Sample("def sample(x, r):\n    xt = x.T\n    return DOT(xt, r)\n",
                normal(("n", 4), ("n", 2)), ("@", "np.dot", ".dot", "float32")),
         setting="normalize"),
), wanted=lambda facts: not facts.used.isdisjoint(("__nptuple", "__npnorm", "transpose")))

#: the phase alone (tests)
run = PHASE.run
