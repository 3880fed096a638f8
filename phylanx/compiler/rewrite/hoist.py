"""Loop-invariant code motion rule: an invariant expression in a loop is computed once.

In ``for``/``while`` loops inside a function, a pure expression (registry flags: no
side effects, no randomness, no communication, no call of unknown code) that reads no
variable the loop assigns, and applies at least :data:`MIN_SIZE` primitives, is
replaced by a *lazily bound* variable::

    block(define(__licm1, nil), define(__licm1_set, false),
          while(c, ... if(__licm1_set, __licm1,
                          block(store(__licm1, E), store(__licm1_set, true), __licm1)) ...))

``E`` is evaluated where it stood, at its first evaluation in this run of the loop, and
its value reused by the later iterations; the flags are reset each time the loop is
entered again (an outer loop).  So a loop that runs zero times evaluates nothing more
than before, an ``E`` under a condition is evaluated only when the condition holds,
and an ``E`` that raises raises at the same place.  After the first iteration an
occurrence costs three cheap nodes (``if`` and two variable reads), hence the minimum
size.  Nothing is hoisted from a program that may change arrays in place (a store into
a slice, an in-place primitive): the reused value must stay the value ``E`` computes.
"""
from __future__ import annotations

from ...language import ast
from ..dependencies import summarize_expr
from .engine import P, Phase, Rule, Sample, normal
from .tree import ExprFacts, Names, children, key, rebuild

#: the names of the lazily bound variables (fusion/loop_plan.py recognises them)
PREFIX = "__licm"
#: primitive applications an expression needs to be worth a lazily bound variable
MIN_SIZE = 2

_LOOPS = ("while", "for", "for_each")
#: forms whose bodies are evaluated in another frame or concurrently: not entered
_OPAQUE = frozenset(("parallel_block", "async", "parallel_map", "fmap", "__pymap",
                     "apply"))


def _loop(bound: dict, ctx):
    state = ctx.state("hoist", lambda: _State(ctx.names(PREFIX), ctx.facts.defined))
    out = state.loop(bound["e"])
    return None if out is bound["e"] else out


def _in_loop_of_function(e, ctx) -> bool:
    return ctx.in_function and not _OPAQUE.intersection(ctx.ancestors)


PHASE = Phase("hoist", (
    Rule("hoist_loop_invariants",
         "a pure expression reading no variable the loop assigns has the same value in "
         "every iteration: computed at its first evaluation in a run of the loop and "
         "reused after, it gives the same values, errors and evaluation count or fewer",
         P(*_LOOPS, name="e", where=_in_loop_of_function), _loop,
         Sample("def sample(x, v):\n    for _ in range(3):\n"
                "        v = DOT(DOT(x.T, x), v) / 10.0\n    return v\n", normal(("n", 3), (3,)),
                ("@", "np.dot", ".dot", "float32", "helper"),
                helper="def sample(x, v):\n    def step(u):\n        return "
                       "DOT(DOT(x.T, x), u) / 10.0\n    for _ in range(3):\n"
                       "        v = step(v)\n    return v\n")),
), order="top_down", wanted=lambda facts: facts.loops and not facts.mutates)

#: the phase alone (tests)
run = PHASE.run


class _State:
    def __init__(self, names: Names, users: frozenset):
        self.names = names
        self.users = users
        self.expr_facts = ExprFacts(users)
        self.keys: dict = {}

    def loop(self, call: ast.Call):
        """``call`` (a loop) with its invariant expressions lazily bound, or itself."""
        reads, writes, impure = summarize_expr(call, self.users, jumps_pure=True)
        if impure:
            return call                      # unknown code could change anything
        if call.func == "for_each":
            fn = call.args[0] if call.args else None
            if not (len(call.args) == 2 and type(fn) is ast.Call and fn.func == "lambda"
                    and len(fn.args) == 2 and type(fn.args[0]) is ast.Identifier):
                return call
            writes = writes | {fn.args[0].name}
            bodies = {1}                     # the iterable runs once: leave it
            body_of = (lambda c: c.args[0].args[1],
                       lambda c, new: rebuild(c, (rebuild(c.args[0], (c.args[0].args[0], new)),
                                                  c.args[1])))
        elif call.func == "while" and len(call.args) == 2:
            bodies = {0, 1}
            body_of = None
        elif call.func == "for" and len(call.args) == 4:
            bodies = {1, 2, 3}               # not the initialisation
            body_of = None
        else:
            return call
        found: dict = {}                     # structural key -> (name, flag, expr)

        def replace(e):
            t = type(e)
            if t not in (ast.Call, ast.BinOp, ast.UnaryOp, ast.KeywordArg, ast.QuotedList):
                return e
            if t is ast.Call and (e.func in _OPAQUE or e.func == "lambda"
                                  or (e.func == "define" and len(e.args) > 2)):
                return e
            if _lazily_bound(e):
                return e                     # hoisted in an earlier round
            if t in (ast.Call, ast.BinOp, ast.UnaryOp):
                r, pure, n = self.expr_facts(e)
            else:
                pure = False
            if pure and n >= MIN_SIZE and not (r & writes) and _evaluates(e):
                k = key(e, self.keys)
                if k not in found:
                    found[k] = (self.names.fresh(), self.names.fresh(), e)
                return self.lazy(found[k], e.loc)
            return rebuild(e, tuple(replace(c) for c in children(e)))

        if body_of is not None:
            new_call = body_of[1](call, replace(body_of[0](call)))
        else:
            new_call = rebuild(call, tuple(replace(a) if i in bodies else a
                                           for i, a in enumerate(call.args)))
        if not found:
            return call
        loc = call.loc
        inits = []
        for name, flag, _expr in found.values():
            inits.append(ast.Call("define", (ast.Identifier(name, loc),
                                             ast.Literal(None, loc)), None, loc))
            inits.append(ast.Call("define", (ast.Identifier(flag, loc),
                                             ast.Literal(False, loc)), None, loc))
        return ast.Call("block", (*inits, new_call), None, loc)

    def lazy(self, binding, loc):
        name, flag, expr = binding
        var = ast.Identifier(name, loc)
        fl = ast.Identifier(flag, loc)
        compute = ast.Call("block", (
            ast.Call("store", (var, expr), None, loc),
            ast.Call("store", (fl, ast.Literal(True, loc)), None, loc),
            var), None, loc)
        return ast.Call("if", (fl, var, compute), None, loc)


def _lazily_bound(e) -> bool:
    """``e`` is ``if(flag, v, block(store(v, E), store(flag, true), v))`` built here."""
    if not (type(e) is ast.Call and e.func == "if" and len(e.args) == 3):
        return False
    flag, var, compute = e.args
    return (type(flag) is ast.Identifier and flag.name.startswith(PREFIX)
            and type(var) is ast.Identifier and var.name.startswith(PREFIX)
            and type(compute) is ast.Call and compute.func == "block"
            and len(compute.args) == 3 and compute.args[2] == var)


def _evaluates(e) -> bool:
    """``e`` is an expression computing a value (not a definition or a jump)."""
    return not (type(e) is ast.Call and e.func in ("define", "define_global", "store",
                                                   "block", "if", "while", "for",
                                                   "for_each", "break", "continue",
                                                   "return"))

