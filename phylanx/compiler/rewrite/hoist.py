"""Loop-invariant code motion: an invariant expression in a loop is computed once.

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

import dataclasses

from ...language import ast
from ..dependencies import summarize_expr
from .tree import ExprFacts, Names, children, facts, key, rebuild

#: the names of the lazily bound variables (fusion/loop_plan.py recognises them)
PREFIX = "__licm"
#: primitive applications an expression needs to be worth a lazily bound variable
MIN_SIZE = 2

_LOOPS = ("while", "for", "for_each")
#: forms whose bodies are evaluated in another frame or concurrently: not entered
_OPAQUE = frozenset(("parallel_block", "async", "parallel_map", "fmap", "__pymap",
                     "apply"))


def run(program: ast.Program) -> ast.Program:
    known = facts(program)
    if known.mutates or not known.loops:
        return program
    state = _State(Names(program, PREFIX), known.defined)
    body = tuple(state.visit(e, in_function=False) for e in program.body)
    if all(a is b for a, b in zip(body, program.body)):
        return program
    return dataclasses.replace(program, body=body)


class _State:
    def __init__(self, names: Names, users: frozenset):
        self.names = names
        self.users = users
        self.generated: set[int] = set()    # ids of the lazy bindings built here
        self.expr_facts = ExprFacts(users)
        self.keys: dict = {}

    def visit(self, e, in_function: bool):
        t = type(e)
        if t not in (ast.Call, ast.BinOp, ast.UnaryOp, ast.KeywordArg, ast.QuotedList):
            return e
        if id(e) in self.generated:
            return e
        if t is ast.Call:
            if e.func in _OPAQUE:
                return e
            if e.func == "lambda" or (e.func == "define" and len(e.args) > 2):
                new = tuple(self.visit(c, True) for c in e.args)
                return rebuild(e, new)
            if in_function and e.func in _LOOPS:
                e = self.loop(e)
                if type(e) is ast.Call and e.func == "block" and id(e) in self.generated:
                    # the loop now sits last in the block of its bindings
                    inner = e.args[-1]
                    new_inner = rebuild(inner, tuple(self.visit(c, True) for c in inner.args))
                    return rebuild(e, (*e.args[:-1], new_inner))
        return rebuild(e, tuple(self.visit(c, in_function) for c in children(e)))

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
        out = ast.Call("block", (*inits, new_call), None, loc)
        self.generated.add(id(out))
        return out

    def lazy(self, binding, loc):
        name, flag, expr = binding
        var = ast.Identifier(name, loc)
        fl = ast.Identifier(flag, loc)
        compute = ast.Call("block", (
            ast.Call("store", (var, expr), None, loc),
            ast.Call("store", (fl, ast.Literal(True, loc)), None, loc),
            var), None, loc)
        out = ast.Call("if", (fl, var, compute), None, loc)
        self.generated.add(id(out))
        return out


def _evaluates(e) -> bool:
    """``e`` is an expression computing a value (not a definition or a jump)."""
    return not (type(e) is ast.Call and e.func in ("define", "define_global", "store",
                                                   "block", "if", "while", "for",
                                                   "for_each", "break", "continue",
                                                   "return"))

