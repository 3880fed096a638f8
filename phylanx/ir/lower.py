"""Lowering: PhySL AST -> IR (after the rewrite phases before the first IR rule).

Spelling ends here: ``matmul`` (``@``, ``np.matmul``) and ``dot`` (``np.dot``, ``.dot``)
are one ``dot_general`` whose ``rule`` keeps NumPy's rank rules of the spelling
(the two agree on vectors and matrices only); infix operators and their ``__add``
spellings are one op; a PhySL variable is a chain of SSA versions (``define``/``store``
make a new one); an element write ``store(__subscript(x, i), v)`` is an ``update`` whose
output may alias ``x`` (a fact).  ``if`` is ``cond``, ``while`` and ``for_each`` are
loops with explicit carried values (the variables of the function their regions
assign).

A ``lambda`` is a ``lambda`` equation whose region ``fn`` is its body (a function of its
own, as a ``define``d one) and whose output is the function value; ``async(e)`` an
``async`` equation whose region ``body`` computes ``e`` (in a task: the output is its
future) when ``e`` binds no name.

Whatever is not understood stays PhySL: an ``opaque`` equation holds the statement's
AST, reads the variables it names and gives new versions of those it assigns.  That is
a binding inside an expression, a ``block`` used as an operand (one bound to a name
is its statements then the binding), a store into a variable of
an enclosing function or into an unknown one, a parameter default reading a name (a
constant default, ``n=3`` in Python, is the ``function`` equation's ``defaults``: the
PhySL of each, evaluated by the call that omits it).  Never an error,
never a changed meaning: raising (``raising.py``) gives back the same statements, by
name, in the same order.
"""
from __future__ import annotations

from collections.abc import Callable

from ..language import ast
from .core import IR_OPS, Eqn, Facts, Function, Literal, Var, params
from .scan import assigned, read_names, rebound, statements

#: PhySL spellings of the canonical product (``normalize.PRODUCTS``): rule name
PRODUCTS = ("matmul", "dot")
#: forms that bind names or leave the expression: only lowered where a statement is
BINDERS = frozenset(("define", "define_global", "store", "lambda", "return", "for_each",
                     "while", "block", "parallel_block", "async", "__arg"))
#: element-store targets of ``store`` (compiler/special_forms.py)
INDEXERS = frozenset(("__subscript", "slice", "slice_row", "slice_column", "slice_page",
                      "tuple_slice", "slice_row_d", "slice_column_d"))


def _plain_parameters(items) -> bool:
    """A ``define``'s parameters the IR holds: names, then names with a default
    (``__arg(b, 10)``) that is a constant (evaluated in the new
    frame at a call that omits it: kept as PhySL in the ``function`` equation's
    ``defaults``, given back as written); distinct names.  Anything else (a default
    reading a name, a name after a default: the compiler's error) stays opaque."""
    names, seen_default = [], False
    for p in items:
        if type(p) is ast.KeywordArg:
            if not _constant(p.value):
                return False
            seen_default = True
        elif type(p) is not ast.Identifier or seen_default:
            return False
        names.append(p.name)
    return len(set(names)) == len(names)


def _constant(e) -> bool:
    """A literal, an array literal, or a sign applied to one: nothing read or run."""
    while type(e) is ast.UnaryOp:
        e = e.operand
    return type(e) in (ast.Literal, ast.ArrayLiteral)


def _is_block(e) -> bool:
    return type(e) is ast.Call and e.func == "block" and e.attribute is None \
        and not any(type(a) is ast.KeywordArg for a in e.args)


class _Opaque(Exception):
    """A statement the lowering keeps as PhySL (never leaves this module)."""


class _Env:
    """Names -> current Var, for one PhySL function (``outer``: the enclosing one).

    ``mutable``: the function's names bound more than once (or in a loop): a nested
    function reads them when it is called (late binding, as in Python), so it reads
    them by name (``read``), never as the version current where it is defined."""

    def __init__(self, outer: _Env | None, names: dict | None = None,
                 mutable: frozenset = frozenset()):
        self.outer = outer
        self.names: dict[str, Var] = dict(names or {})
        self.mutable = mutable

    def region(self) -> _Env:
        return _Env(self.outer, self.names, self.mutable)

    def lookup(self, name: str) -> Var | None:
        if name in self.names:
            return self.names[name]
        env = self.outer
        while env is not None:
            if name in env.names:
                return None if name in env.mutable else env.names[name]
            env = env.outer
        return None


class Lowering:
    """One lowering: ``is_primitive(name)`` tells a primitive from a function called by
    name (a global definition, a recursive call): the caller knows the registry."""

    def __init__(self, is_primitive: Callable[[str], bool] | None = None):
        self.is_primitive = is_primitive or (lambda name: True)

    # -- functions and regions ---------------------------------------------------------
    def program(self, program: ast.Program) -> Function:
        env = _Env(None, mutable=rebound(program.body))
        eqns: list[Eqn] = []
        value = self.body(program.body, env, eqns)
        return Function((), tuple(eqns), (value,), "")

    def function(self, name: str, param_names, body, outer: _Env) -> Function:
        env = _Env(outer, mutable=rebound(body))
        ps = tuple(Var.new(p) for p in param_names)
        env.names.update(zip(param_names, ps))
        eqns: list[Eqn] = []
        value = self.body(statements(body), env, eqns)
        return Function(ps, tuple(eqns), (value,), name)

    def region(self, stmts, env: _Env, carried: list[str], extra=()) -> Function:
        """A branch or loop body: params are ``extra`` then new versions of ``carried``;
        results its value then the versions of ``carried`` at its end."""
        inner = env.region()
        ps = list(extra)
        for name in carried:
            v = Var.new(name)
            inner.names[name] = v
            ps.append(v)
        for v in extra:
            inner.names[v.name] = v
        eqns: list[Eqn] = []
        value = self.body(stmts, inner, eqns)
        return Function(tuple(ps), tuple(eqns),
                        (value, *(inner.names[n] for n in carried)), "")

    def body(self, stmts, env: _Env, eqns: list) -> Var | Literal:
        value: Var | Literal = Literal(None)
        for stmt in stmts:
            mark = len(eqns)
            snapshot = dict(env.names)
            # a statement is lowered whole or kept whole: _Opaque unwinds a partly
            # lowered one (raised by the lowering itself, never by running anything)
            try:
                value = self.statement(stmt, env, eqns)
            except _Opaque:
                del eqns[mark:]
                env.names = snapshot
                value = self.opaque(stmt, env, eqns)
        return value

    # -- statements ---------------------------------------------------------------------
    def statement(self, s, env: _Env, eqns: list):
        if type(s) is ast.Call and s.attribute is None:
            f, args = s.func, s.args
            if f == "block":
                return self.body(statements(s), env, eqns)
            if f == "define" and len(args) == 2 and type(args[0]) is ast.Identifier:
                return self.bind(args[0].name, args[1], env, eqns, s.loc)
            if f == "define" and len(args) > 2 and type(args[0]) is ast.Identifier \
                    and _plain_parameters(args[1:-1]):
                fn = self.function(args[0].name, [p.name for p in args[1:-1]],
                                   args[-1], env)
                out = Var.new(args[0].name, Facts(kind="function"))
                defaults = tuple(p.value if type(p) is ast.KeywordArg else None
                                 for p in args[1:-1])
                ps = params(fn=fn, defaults=defaults if any(defaults) else None)
                eqns.append(Eqn("function", ps, (), (out,), s.loc))
                env.names[out.name] = out
                return out
            if f == "store" and len(args) == 2:
                return self.store(args[0], args[1], env, eqns, s.loc)
            if f == "while" and len(args) == 2:
                return self.while_(args[0], args[1], env, eqns, s.loc)
            if f == "for_each" and len(args) == 2:
                return self.for_each(args[0], args[1], env, eqns, s.loc)
            if f == "return" and len(args) <= 1:
                ins = (self.expr(args[0], env, eqns),) if args else ()
                out = Var.new()
                eqns.append(Eqn("return", (), ins, (out,), s.loc))
                return out
        return self.expr(s, env, eqns)

    def bind(self, name: str, e, env: _Env, eqns: list, loc) -> Var:
        # a block value (an inlined helper with locals): its statements, then the
        # binding of its last one's value (blocks open no scope; the whole block is
        # evaluated before the name is bound, in this order either way)
        while _is_block(e) and e.args:
            *first, e = statements(e)
            self.body(first, env, eqns)
        mark = len(eqns)
        atom = self.expr(e, env, eqns)
        last = eqns[-1] if len(eqns) > mark else None
        if last is not None and last.outs[0] is atom and not atom.name:
            out = Var.new(name, atom.facts)
            eqns[-1] = Eqn(last.prim, last.params, last.ins, (out, *last.outs[1:]), last.loc)
        else:
            alias = atom.id if type(atom) is Var else None
            out = Var.new(name, Facts(alias_of=alias))
            eqns.append(Eqn("bind", (), (atom,), (out,), loc))
        env.names[name] = out
        return out

    def store(self, target, e, env: _Env, eqns: list, loc):
        if type(target) is ast.Identifier:
            if target.name not in env.names:
                raise _Opaque           # a variable of an enclosing function, or unknown
            self.bind(target.name, e, env, eqns, loc)
            return Literal(None)        # store's value is nil
        if type(target) is ast.Call and target.func in INDEXERS and target.args \
                and target.attribute is None and type(target.args[0]) is ast.Identifier \
                and target.args[0].name in env.names \
                and not any(type(a) is ast.KeywordArg for a in target.args):
            base = env.names[target.args[0].name]
            idx = [self.expr(a, env, eqns) for a in target.args[1:]]
            value = self.expr(e, env, eqns)
            out = Var.new(base.name, Facts(alias_of=base.id))
            eqns.append(Eqn("update", params(indexer=target.func), (base, *idx, value),
                            (out,), loc))
            env.names[base.name] = out
            return Literal(None)
        raise _Opaque

    def carried(self, parts, env: _Env) -> list[str]:
        names: set[str] = set()
        for p in parts:
            names |= assigned(p)
        return sorted(n for n in names if n in env.names)

    def while_(self, cond, body, env: _Env, eqns: list, loc):
        carried = self.carried((cond, body), env)
        if set(carried) & assigned(cond):
            raise _Opaque               # a condition that changes a carried variable
        ins = tuple(env.names[n] for n in carried)
        cond_fn = self.region(statements(cond), env, carried)
        body_fn = self.region(statements(body), env, carried)
        outs = (Var.new(), *(Var.new(n) for n in carried))
        eqns.append(Eqn("while", params(cond=cond_fn, body=body_fn), ins, outs, loc))
        env.names.update(zip(carried, outs[1:]))
        return outs[0]

    def for_each(self, fn, iterable, env: _Env, eqns: list, loc):
        if not (type(fn) is ast.Call and fn.func == "lambda" and len(fn.args) == 2
                and type(fn.args[0]) is ast.Identifier and fn.attribute is None):
            raise _Opaque
        it = self.expr(iterable, env, eqns)
        var = fn.args[0].name
        carried = [n for n in self.carried((fn.args[1],), env) if n != var]
        ins = (it, *(env.names[n] for n in carried))
        body_fn = self.region(statements(fn.args[1]), env, carried, (Var.new(var),))
        outs = (Var.new(), *(Var.new(n) for n in carried))
        eqns.append(Eqn("for_each", params(body=body_fn), ins, outs, loc))
        env.names.update(zip(carried, outs[1:]))
        env.names.pop(var, None)        # after the loop: the last item, read by name
        return outs[0]

    def opaque(self, s, env: _Env, eqns: list) -> Var:
        names = read_names(s)
        ins = tuple(v for n in sorted(names) if (v := env.lookup(n)) is not None)
        changed = sorted(n for n in assigned(s) if n in env.names)
        outs = (Var.new(), *(Var.new(n) for n in changed))
        eqns.append(Eqn("opaque", params(ast=s), ins, outs, getattr(s, "loc", None)))
        env.names.update(zip(changed, outs[1:]))
        return outs[0]

    # -- expressions --------------------------------------------------------------------
    def emit(self, prim: str, ps, ins, eqns: list, loc, written=()) -> Var:
        """``written``: the operands' AST nodes, whose locations raising gives back."""
        out = Var.new()
        locs = tuple(getattr(w, "loc", None) for w in written)
        eqns.append(Eqn(prim, ps, tuple(ins), (out,), loc, locs))
        return out

    def expr(self, e, env: _Env, eqns: list):
        t = type(e)
        if t is ast.Literal:
            return Literal(e.value)
        if t is ast.Identifier:
            v = env.lookup(e.name)
            return v if v is not None else self.emit("read", params(name=e.name), (),
                                                     eqns, e.loc)
        if t is ast.BinOp:
            a = self.expr(e.left, env, eqns)
            b = self.expr(e.right, env, eqns)
            return self.emit(ast.BINARY_OPS[e.op][1], (), (a, b), eqns, e.loc,
                             (e.left, e.right))
        if t is ast.UnaryOp:
            prim = ast.UNARY_OPS[e.op]
            a = self.expr(e.operand, env, eqns)
            return a if prim is None else self.emit(prim, (), (a,), eqns, e.loc, (e.operand,))
        if t is ast.ArrayLiteral:
            return self.emit("array_literal", params(value=e.value, kind=e.kind, ndim=e.ndim),
                             (), eqns, e.loc)
        if t is ast.QuotedList:
            items = [self.expr(i, env, eqns) for i in e.items]
            return self.emit("list", params(quoted=True), items, eqns, e.loc, e.items)
        if t is ast.Call:
            return self.call(e, env, eqns)
        raise _Opaque                   # a keyword argument out of place

    def call(self, e: ast.Call, env: _Env, eqns: list):
        if e.func == "lambda" and e.attribute is None and e.args:
            return self.lambda_(e, env, eqns)
        if e.func == "async" and e.attribute is None and len(e.args) == 1 \
                and type(e.args[0]) is not ast.KeywordArg and not assigned(e.args[0]):
            # a branch of its own (compiler._BRANCHES) that binds nothing: a region
            # reading the variables around it, with no carried values
            body = self.region(statements(e.args[0]), env, [])
            return self.emit("async", params(body=body), (), eqns, e.loc)
        if e.func in BINDERS:
            raise _Opaque
        if e.func == "if" and e.attribute is None and len(e.args) in (2, 3) \
                and not any(type(a) is ast.KeywordArg for a in e.args):
            return self.cond(e, env, eqns)
        names = tuple(a.name if type(a) is ast.KeywordArg else "" for a in e.args)
        ins = [self.expr(a.value if type(a) is ast.KeywordArg else a, env, eqns)
               for a in e.args]
        kw = names if any(names) else None
        callee = env.lookup(e.func)
        if callee is not None:
            return self.emit("call", params(kw=kw, attribute=e.attribute), (callee, *ins),
                             eqns, e.loc, (e, *e.args))
        if e.func in PRODUCTS and len(ins) == 2 and kw is None and e.attribute is None:
            return self.emit("dot_general", params(rule=e.func), ins, eqns, e.loc, e.args)
        if not self.is_primitive(e.func) or e.func in IR_OPS:
            return self.emit("call", params(name=e.func, kw=kw, attribute=e.attribute), ins,
                             eqns, e.loc, e.args)
        return self.emit(e.func, params(kw=kw, attribute=e.attribute), ins, eqns, e.loc,
                         e.args)

    def lambda_(self, e: ast.Call, env: _Env, eqns: list) -> Var:
        """A function value: its body is a function of its own (a scope, as a ``define``d
        function's: compiler/special_forms.py), reading the enclosing variables by the
        rules of :class:`_Env` (late binding for those bound again)."""
        names = [p.name for p in e.args[:-1] if type(p) is ast.Identifier]
        if len(names) != len(e.args) - 1 or len(set(names)) != len(names):
            raise _Opaque               # a parameter that is not a plain name
        fn = self.function("", names, e.args[-1], env)
        out = Var.new("", Facts(kind="function"))
        eqns.append(Eqn("lambda", params(fn=fn), (), (out,), e.loc))
        return out

    def cond(self, e: ast.Call, env: _Env, eqns: list):
        pred = self.expr(e.args[0], env, eqns)
        carried = self.carried(e.args[1:], env)
        then = self.region(statements(e.args[1]), env, carried)
        other = self.region(statements(e.args[2]), env, carried) if len(e.args) == 3 else None
        ins = (pred, *(env.names[n] for n in carried))
        outs = (Var.new(), *(Var.new(n) for n in carried))
        eqns.append(Eqn("cond", params(then=then, other=other), ins, outs, e.loc))
        env.names.update(zip(carried, outs[1:]))
        return outs[0]


def lower(program: ast.Program, is_primitive: Callable[[str], bool] | None = None) -> Function:
    """The IR of ``program`` (a Function of no parameters whose result is its value)."""
    return Lowering(is_primitive).program(program)
