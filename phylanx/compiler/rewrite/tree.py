"""AST plumbing shared by the rewrite rules: children, rebuilding, names, purity.

The AST is frozen dataclasses, so a rule rebuilds the path to what it changes and
returns the very same objects where nothing changed (``optimize`` relies on identity to
tell a round changed nothing).  Rebuilt nodes keep the location of the node they replace.
"""
from __future__ import annotations

import dataclasses
import itertools

from ...language import ast
from ..dependencies import primitive_is_pure

#: operator primitives called by name (``__add(2, 3)``): literal arithmetic like ``2 + 3``
_OPERATOR_CALLS = frozenset(("__add", "__sub", "__mul", "__div", "__mod", "__minus", "__plus"))

children = ast.children


def rebuild(e, new: tuple):
    """``e`` with children ``new`` (``e`` itself when they are the same objects)."""
    old = children(e)
    if len(old) == len(new) and all(a is b for a, b in zip(old, new)):
        return e
    t = type(e)
    if t is ast.Call:
        return dataclasses.replace(e, args=tuple(new))
    if t is ast.BinOp:
        return dataclasses.replace(e, left=new[0], right=new[1])
    if t is ast.UnaryOp:
        return dataclasses.replace(e, operand=new[0])
    if t is ast.KeywordArg:
        return dataclasses.replace(e, value=new[0])
    if t is ast.QuotedList:
        return dataclasses.replace(e, items=tuple(new))
    return e


def walk(e):
    """``e`` and everything below it (function bodies included)."""
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(children(n))


class ProgramFacts:
    """What the passes need to know about a whole program, from one walk over it:
    the names it uses and binds, whether it may change arrays in place, whether it has
    loops and literal arithmetic (a phase with nothing to do returns at once)."""

    __slots__ = ("used", "defined", "mutates", "loops", "literal_ops")

    def __init__(self, program: ast.Program):
        from ...primitives import registry
        used: set = set()
        defined: set = set()
        calls: list = []
        loops = literal_ops = False
        stack = list(program.body)
        while stack:
            n = stack.pop()
            t = type(n)
            if t is ast.Identifier:
                used.add(n.name)
                continue
            if t is ast.Call:
                f = n.func
                used.add(f)
                calls.append(n)
                if f in ("define", "define_global", "lambda"):
                    for a in (n.args[:-1] if f == "lambda" else n.args[:-1] or n.args):
                        if type(a) is ast.Identifier or type(a) is ast.KeywordArg:
                            defined.add(a.name)
                elif f in ("while", "for", "for_each"):
                    loops = True
                elif f in _OPERATOR_CALLS and n.args:   # __add(2, 3) is 2 + 3
                    literal_ops = literal_ops or all(type(a) is ast.Literal for a in n.args)
                stack.extend(n.args)
            elif t is ast.BinOp:
                literal_ops = literal_ops or (type(n.left) is ast.Literal
                                              and type(n.right) is ast.Literal)
                stack += (n.left, n.right)
            elif t is ast.UnaryOp:
                literal_ops = literal_ops or type(n.operand) is ast.Literal
                stack.append(n.operand)
            elif t is ast.KeywordArg:
                stack.append(n.value)
            elif t is ast.QuotedList:
                stack.extend(n.items)
        mutates = False
        for n in calls:
            f = n.func
            if f == "store" and n.args and type(n.args[0]) is not ast.Identifier:
                mutates = True
                break
            if f in defined:
                continue                 # its body is in this program, scanned here
            spec = registry.lookup(f)
            if spec is None or (spec.side_effects and f not in _NON_MUTATING):
                mutates = True           # an in-place primitive, or unknown code
                break
        self.used, self.defined = used, frozenset(defined)
        self.mutates, self.loops, self.literal_ops = mutates, loops, literal_ops


_facts_memo: list = [None, None]


def facts(program: ast.Program) -> ProgramFacts:
    """:class:`ProgramFacts` of ``program``, computed once for consecutive passes."""
    memo = _facts_memo
    if memo[0] is not program:
        memo[1] = ProgramFacts(program)
        memo[0] = program                # held: its id cannot be reused meanwhile
    return memo[1]


class Names:
    """Fresh variable names no part of the program uses (``__licm1``, ``__cse2`` ...)."""

    def __init__(self, program: ast.Program, prefix: str):
        self.used = set(facts(program).used)
        self.prefix = prefix
        self.counter = itertools.count(1)

    def fresh(self) -> str:
        while True:
            name = f"{self.prefix}{next(self.counter)}"
            if name not in self.used:
                self.used.add(name)
                return name


#: side-effect primitives that change no array or list they are given (``__print``,
#: Python's ``print``, writes text as ``cout`` does)
_NON_MUTATING = frozenset(("cout", "__print", "random", "randn", "random_integers",
                           "random_sample", "random_d", "set_seed"))

#: forms that bind, jump or build closures: an expression holding one is not movable
_NOT_MOVABLE = frozenset(("define", "define_global", "store", "lambda", "for_each",
                          "break", "continue", "return"))


#: forms without side effects of their own (what they contain decides)
_PURE_FORMS = frozenset(("block", "if", "while", "for"))


def _closed_function_first(name: str) -> bool:
    """Whether ``name``'s first argument is a function a rewrite built from pure code
    reading only its parameters (registry flag ``pure_function``, e.g.
    ``__matmul_outer_rows``): a call of it is as pure and movable as its other operands."""
    from ...primitives import registry
    spec = registry.lookup(name)
    return spec is not None and bool(spec.flags.get("pure_function"))


class ExprFacts:
    """Bottom-up facts of subexpressions, memoised by identity for one pass over one
    program: (variables read, pure and movable, primitive applications).  "Pure" is
    :func:`~phylanx.compiler.dependencies.summarize_expr`'s purity (the registry flags),
    and an expression that assigns, jumps or makes a closure is not movable."""

    def __init__(self, user_names: frozenset):
        self.users = user_names
        self.memo: dict = {}

    def __call__(self, e) -> tuple[frozenset, bool, int]:
        got = self.memo.get(id(e))
        if got is not None and got[0] is e:
            return got[1]
        t = type(e)
        if t is ast.Identifier:
            out = (frozenset((e.name,)), True, 0)
        elif t in (ast.Literal, ast.ArrayLiteral):
            out = (frozenset(), True, 0)
        else:
            reads: frozenset = frozenset()
            pure = True
            n = 0
            parts = children(e)
            if t is ast.Call and _closed_function_first(e.func) and parts:
                parts = parts[1:]      # a closed function of pure code: reads nothing
            for c in parts:
                r, p, k = self(c)
                reads, pure, n = reads | r, pure and p, n + k
            if t is ast.Call:
                n += 1
                f = e.func
                if f in _NOT_MOVABLE or e.attribute is not None or f in self.users:
                    pure = False
                elif pure and f not in _PURE_FORMS:
                    pure = primitive_is_pure(f)
            elif t in (ast.BinOp, ast.UnaryOp):
                n += 1
            out = (reads, pure, n)
        self.memo[id(e)] = (e, out)
        return out


def key(e, memo: dict | None = None):
    """A structural key of ``e``: equal for expressions that compute the same thing
    (locations ignored, literal types kept: ``1`` and ``1.0`` differ).  ``memo``
    (id -> (expr, key)) saves recomputing the keys of subexpressions."""
    if memo is not None:
        got = memo.get(id(e))
        if got is not None and got[0] is e:
            return got[1]
    t = type(e)
    if t is ast.Literal:
        k = ("L", type(e.value).__name__, repr(e.value))
    elif t is ast.ArrayLiteral:
        k = ("A", e.kind, e.ndim, repr(e.value))
    elif t is ast.Identifier:
        k = ("I", e.name)
    elif t is ast.Call:
        k = ("C", e.func, e.attribute, tuple(key(a, memo) for a in e.args))
    elif t is ast.BinOp:
        k = ("B", e.op, key(e.left, memo), key(e.right, memo))
    elif t is ast.UnaryOp:
        k = ("U", e.op, key(e.operand, memo))
    elif t is ast.KeywordArg:
        k = ("K", e.name, key(e.value, memo))
    elif t is ast.QuotedList:
        k = ("Q", tuple(key(i, memo) for i in e.items))
    else:
        k = ("?", id(e))
    if memo is not None:
        memo[id(e)] = (e, k)
    return k
