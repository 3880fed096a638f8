"""Common-subexpression elimination rules: within one statement of a function body.

``define(y, exp(-x) / (1 + exp(-x)))`` becomes
``block(define(__cse1, exp(-x)), define(y, __cse1 / (1 + __cse1)))``.

A statement qualifies when its value assigns nothing and is pure (registry flags: no
side effects, randomness, communication or call of unknown code): then every variable
keeps its value while it is evaluated, so two equal subexpressions compute equal
values.  "Equal" is structural, with literal types kept (``x * 1`` is not ``x * 1.0``).
A subexpression is shared only if one occurrence is evaluated unconditionally (not
under ``if``, ``&&``/``||``, a loop or a ``lambda``), so computing it first raises no
error the statement would not raise; the statement then evaluates it before its other
parts (an error may come from a different operand than before, never from nowhere).
Nothing is shared in a program that may change arrays in place, nor at the top level
(a new name there would be a global variable).  Nor is a subexpression of which two
occurrences *escape*: reach the statement's value as themselves (returned, put in a list
or tuple, bound to a name) rather than consumed by an operator or a primitive that makes
a new array.  NumPy gives each occurrence its own array, and the caller may change one
of them (``return x * 2, x * 2`` must not return one array twice).

On the IR (the default pipeline) the same law is the rule ``share_equal_equations``:
in SSA form two equations of one primitive, parameters and operands compute equal
values when nothing changes a value in place, so a later one's readers read the earlier
one's output (raising binds it to a name when it is read twice).  It needs no facts
beyond SSA: versions of a variable are different operands.  It keeps the AST rule's
conditions: only inside functions, only in a region whose equations are all pure and
none lazy (``&&``, ``||``, ``if`` evaluate an operand conditionally, and raising nests
those operands back), not twice-escaping values, no program that may change a value in
place, and not in loop bodies (a shared value bound inside a loop would make what
reads it look loop-variant to the compiled loops of ``fusion/loop_plan.py``).
"""
from __future__ import annotations

from ...ir.core import IR_OPS
from ...language import ast
from ...primitives import registry
from ..dependencies import primitive_is_pure
from .engine import TERMS, P, Phase, Rule, Sample, normal
from .tree import ExprFacts, children, key, rebuild

#: forms whose operands (after the first, for if) are evaluated conditionally or elsewhere
_CONDITIONAL = frozenset(("if", "while", "for", "for_each", "lambda", "parallel_block",
                          "async", "parallel_map", "fmap", "__pymap", "apply", "case", "define",
                          "define_global", "store", "block"))


#: categories whose primitives return a new value, never an operand or a view of one ...
_FRESH_CATEGORIES = frozenset(("arithmetics", "statistics", "booleans"))
#: ... except these (a view of the operand, or one of the operands itself)
_PASS_THROUGH = frozenset(("__real", "__imag", "real", "imag", "__pos", "positive",
                           "__and", "__or"))
_FRESH_PRODUCTS = frozenset(("dot", "__matmul", "matmul"))


def _consumes(parent) -> bool:
    """True when ``parent`` makes a new value from its operands (they do not escape)."""
    t = type(parent)
    if t is ast.BinOp:
        return parent.op not in ("&&", "||")
    if t is ast.UnaryOp:
        return parent.op in ("-", "!")
    if t is ast.Call and parent.attribute is None:
        if parent.func in _FRESH_PRODUCTS:
            return True
        spec = registry.lookup(parent.func)
        return (spec is not None and spec.category in _FRESH_CATEGORIES
                and spec.name not in _PASS_THROUGH and parent.func not in _PASS_THROUGH)
    return False


def _purity(ctx) -> ExprFacts:
    return ctx.state("cse_purity", lambda: ExprFacts(ctx.facts.defined))


def _share(bound: dict, ctx):
    """The container with each of its statements' repeats bound first, or None."""
    e = bound["e"]
    names, purity = ctx.names("__cse"), _purity(ctx)
    if e.func == "block":
        statements = range(len(e.args))
    elif e.func == "while":
        statements = (1,)
    else:
        statements = (len(e.args) - 1,)          # a function's body
    new = list(e.args)
    for i in statements:
        new[i] = _statement(new[i], names, purity)
    out = rebuild(e, tuple(new))
    return None if out is e else out


def _holds_statements(e, ctx) -> bool:
    if TERMS.is_function(e):
        return True
    return ctx.in_function and (e.func == "block" or (e.func == "while" and len(e.args) == 2))


#: the IR's own operations that compute a value from their operands alone
_IR_VALUE_OPS = frozenset(("dot_general",))
#: the IR's own operations a straight region may hold besides pure primitives
_IR_QUIET_OPS = frozenset(("bind", "read", "dot_general", "array_literal", "function",
                           "lambda"))


def _ir_consumes(prim: str) -> bool:
    """Whether an equation of ``prim`` makes a new value of what it reads."""
    if prim in _IR_VALUE_OPS or prim in _FRESH_PRODUCTS:
        return True
    spec = registry.lookup(prim)
    return (spec is not None and spec.category in _FRESH_CATEGORIES
            and prim not in _PASS_THROUGH and spec.name not in _PASS_THROUGH)


#: equations holding a body region: they do what their body does (a ``for`` loop may
#: store into an array), whatever the registry says of the primitive itself
_IR_REGION_HOLDERS = frozenset(("for_each", "while", "async"))


def _ir_value(prim: str) -> bool:
    """An equation of ``prim`` computes its value from its operands alone, eagerly."""
    if prim in _IR_VALUE_OPS:
        return True
    if prim in IR_OPS or prim in _IR_REGION_HOLDERS:
        return False
    spec = registry.lookup(prim)
    return spec is not None and not spec.lazy and primitive_is_pure(prim)


def _straight(eqns) -> bool:
    return all(e.prim in _IR_QUIET_OPS or _ir_value(e.prim) for e in eqns)


def _shareable_equation(e, ctx) -> bool:
    terms = ctx.terms
    return (ctx.in_function and "while" not in ctx.ancestors
            and "for_each" not in ctx.ancestors and not e.outs[0].name
            and _ir_value(e.prim) and not terms.mutates and terms.region_is(_straight))


def _earlier_equal(bound: dict, ctx):
    """The earlier equation's output when the two escape at most once together."""
    e, terms = bound["e"], ctx.terms
    earlier = terms.earlier_equal(e)
    if earlier is None:
        return None
    kept = earlier.outs[0]
    escapes = sum(not _ir_consumes(p) for v in (kept, e.outs[0]) for p in terms.readers(v))
    return kept if escapes <= 1 else None


PHASE = Phase("cse", (
    Rule("share_common_subexpressions",
         "in a pure statement that assigns nothing every variable keeps its value while it "
         "is evaluated, so equal subexpressions have equal values: one evaluation, bound to "
         "a fresh variable first, serves all (one occurrence is unconditional, so "
         "evaluating it first raises nothing the statement would not); two occurrences "
         "that escape as themselves are not shared (NumPy gives each its own array)",
         P("lambda", "define", "block", "while", name="e", where=_holds_statements), _share,
         Sample("def sample(x, w):\n    y = np.tanh(DOT(x, w)) + DOT(x, w) ** 2\n"
                "    return y\n", normal(("n", 3), (3, 2)),
                ("@", "np.dot", ".dot", "float32", "helper"),
                helper="def sample(x, w):\n    def act(z):\n        return np.exp(-z) / "
                       "(1.0 + np.exp(-z))\n    return act(DOT(x, w))\n")),
    Rule("share_equal_equations",
         "in SSA form an equation's value depends only on its primitive, parameters and "
         "operands when the primitive is pure and nothing changes a value in place: an "
         "equal equation later in the same region computes the value the earlier one "
         "holds, so its readers read that (the earlier one runs first, unconditionally: "
         "its region is straight, no lazy operator); two outputs that escape as themselves "
         "are not shared (NumPy gives each its own array)",
         P(name="e", where=_shareable_equation), _earlier_equal,
         Sample("def sample(x, w):\n    y = np.tanh(DOT(x, w)) + DOT(x, w) ** 2\n"
                "    return y\n", normal(("n", 3), (3, 2)),
                ("@", "np.dot", ".dot", "float32", "helper"),
                helper="def sample(x, w):\n    def act(z):\n        return np.exp(-z) / "
                       "(1.0 + np.exp(-z))\n    p = DOT(x, w)\n    return act(p)\n"),
         substrate="ir"),
), wanted=lambda facts: not facts.mutates and bool(facts.defined))

#: the phase alone (tests)
run = PHASE.run


def _statement(s, names, purity):
    """``s`` with its common subexpressions bound to variables first, or ``s``."""
    target = None
    if (type(s) is ast.Call and s.func in ("define", "store") and len(s.args) == 2
            and type(s.args[0]) is ast.Identifier):
        target, value = s.args[0], s.args[1]
    else:
        value = s
    if type(value) not in (ast.Call, ast.BinOp, ast.UnaryOp):
        return s
    if not purity(value)[1]:
        return s                         # assigns, jumps, or is impure
    bindings: list = []                      # (name, expr), inner ones first
    for _ in range(8):                       # each round shares the largest repeat
        best = _largest_repeat(value, bindings)
        if best is None:
            break
        name = names.fresh()
        k = key(best)
        value = _substitute(value, k, name)
        bindings = [(n, _substitute(x, k, name)) for n, x in bindings]
        bindings.insert(0, (name, best))
    if not bindings:
        return s
    loc = s.loc
    stmt = rebuild(s, (target, value)) if target is not None else value
    defines = [ast.Call("define", (ast.Identifier(n, x.loc), x), None, x.loc)
               for n, x in bindings]
    return ast.Call("block", (*defines, stmt), None, loc)


def _largest_repeat(value, bindings):
    """The largest subexpression occurring twice or more (one occurrence evaluated
    unconditionally) in ``value`` and the bound expressions, or None."""
    counts: dict = {}
    escapes: dict = {}
    uncond: set = set()
    first: dict = {}
    memo: dict = {}

    def scan(e, unconditional, consumed):
        t = type(e)
        if t not in (ast.Call, ast.BinOp, ast.UnaryOp, ast.KeywordArg, ast.QuotedList):
            return
        if t in (ast.Call, ast.BinOp, ast.UnaryOp) and _shareable(e):
            k = key(e, memo)
            counts[k] = counts.get(k, 0) + 1
            if not consumed:
                escapes[k] = escapes.get(k, 0) + 1
            first.setdefault(k, e)
            if unconditional:
                uncond.add(k)
        inner = _consumes(e)
        if t is ast.Call and e.func in _CONDITIONAL:
            if e.func == "lambda":
                return
            for i, c in enumerate(e.args):
                scan(c, unconditional and e.func == "if" and i == 0,
                     e.func == "if" and i == 0)
            return
        if t is ast.BinOp and e.op in ("&&", "||"):
            scan(e.left, unconditional, False)
            scan(e.right, False, False)
            return
        for c in children(e):
            scan(c, unconditional, inner)

    scan(value, True, False)
    for _n, x in bindings:
        scan(x, True, False)
    repeats = [k for k, n in counts.items()
               if n >= 2 and k in uncond and escapes.get(k, 0) <= 1]
    if not repeats:
        return None
    return first[max(repeats, key=_weight)]


def _weight(k) -> int:
    return len(repr(k))


def _shareable(e) -> bool:
    return not (type(e) is ast.Call and e.func in _CONDITIONAL)


def _substitute(e, k, name, memo=None):
    if memo is None:
        memo = {}
    t = type(e)
    if t not in (ast.Call, ast.BinOp, ast.UnaryOp, ast.KeywordArg, ast.QuotedList):
        return e
    if t in (ast.Call, ast.BinOp, ast.UnaryOp) and key(e, memo) == k:
        return ast.Identifier(name, e.loc)
    if t is ast.Call and e.func == "lambda":
        return e
    return rebuild(e, tuple(_substitute(c, k, name, memo) for c in children(e)))
