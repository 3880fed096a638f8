"""Loop-invariant code motion as an IR rule: an invariant expression in a loop is
computed once per run of the loop.

The rule matches a ``while`` or ``for_each`` equation inside a function.  In SSA form
invariance is a fact of the operands: an equation of the loop's body whose operands
are literals, variables defined outside the loop, or outputs of other invariant
equations, and whose primitive is pure (registry flags: no side effects, randomness,
communication, laziness or method call; ``dot_general``), computes the same value in
every iteration.  The invariant equations of one expression (an output read once, by
another invariant equation of its region) form a tree; a tree of at least
:data:`MIN_SIZE` primitive applications is replaced, where its root stood, by a
*lazily bound* value (``v``, ``flag``: a pair of fresh PhySL names ``__licm<n>``
carried by the loop and by every branch on the way to the root)::

    v = None; flag = False
    loop ... (root = cond(flag, v, {v = <tree>; flag = True; v})) ...

so that raising gives the PhySL ``if(flag, v, block(store(v, E), store(flag, true), v))``
``fusion/loop_plan.py`` recognises.  ``E`` is evaluated where it stood, at its first
evaluation in this run of the loop, and its value reused by the later iterations; the
flag is reset each time the loop is entered again (an outer loop).  So a loop that runs
zero times evaluates nothing more than before, an ``E`` under a condition is evaluated
only when the condition holds, and an ``E`` that raises raises at the same place.

Trees are looked for in the loop's body and in the branches of its ``cond`` equations,
not in the condition region of a ``while`` (a condition changes no carried value), nor
in nested loops (each is a loop of its own, rewritten first), functions or ``async``
bodies (run in another frame or concurrently).  A ``read`` of a name bound outside the
function is invariant only when the loop calls no function and holds no PhySL statement
(either might bind the name again).  Nothing is hoisted from a program that may change
arrays in place (the reused value must stay the value ``E`` computes).
"""
from __future__ import annotations

from dataclasses import replace

from ...ir.core import Eqn, Function, Literal, Var, params, regions, walk
from .cse import _ir_value
from .engine import P, Phase, Rule, Sample, normal

#: the names of the lazily bound variables (fusion/loop_plan.py recognises them)
PREFIX = "__licm"
#: primitive applications an expression needs to be worth a lazily bound variable
MIN_SIZE = 2

_LOOPS = ("while", "for_each")
#: invariant equations that apply no primitive (a name's value, a constant array)
_LEAVES = frozenset(("read", "array_literal"))
#: forms evaluated in another frame or concurrently: loops inside are not rewritten
_OPAQUE = frozenset(("async",))


def _in_loop_of_function(eqn, ctx) -> bool:
    return (ctx.in_function and not _OPAQUE.intersection(ctx.ancestors)
            and not ctx.terms.mutates)


def _hoist(bound: dict, ctx):
    names = ctx.state("hoist_names", lambda: _FreshNames(ctx.program))
    return _Hoisting(bound["e"], names).rewritten()


PHASE = Phase("hoist", (
    Rule("hoist_loop_invariants",
         "an equation whose operands are not written in the loop (literals, values defined "
         "before it, other such equations) and which has no effects has the same value in "
         "every iteration: computed at its first evaluation in a run of the loop and reused "
         "after, it gives the same values, errors and evaluation count or fewer (a loop "
         "that runs zero times, or a branch never taken, evaluates it never)",
         P(*_LOOPS, name="e", where=_in_loop_of_function), _hoist,
         Sample("def sample(x, v):\n    for _ in range(3):\n"
                "        v = DOT(DOT(x.T, x), v) / 10.0\n    return v\n", normal(("n", 3), (3,)),
                ("@", "np.dot", ".dot", "np.matmul", "float32", "helper"),
                helper="def sample(x, v):\n    def step(u):\n        return "
                       "DOT(DOT(x.T, x), u) / 10.0\n    for _ in range(3):\n"
                       "        v = step(v)\n    return v\n"),
         substrate="ir"),
), wanted=lambda facts: facts.loops and not facts.mutates)

#: the phase alone (tests; on the AST it leaves a program as it is)
run = PHASE.run


class _FreshNames:
    """``__licm1``, ``__licm2`` ... (``prefix`` then a number) no variable or read of the
    program uses."""

    def __init__(self, program: Function, prefix: str = PREFIX):
        self.prefix = prefix
        self.used = {p.name for p in program.params}
        for eqn in walk(program):
            self.used.update(v.name for v in eqn.outs)
            self.used.update(p.name for r in regions(eqn) for p in r.params)
            if eqn.prim == "read":
                self.used.add(eqn.param("name"))
        self.n = 0

    def fresh(self) -> str:
        while True:
            self.n += 1
            name = f"{self.prefix}{self.n}"
            if name not in self.used:
                self.used.add(name)
                return name


def _is_lazy_binding(eqn: Eqn) -> bool:
    """A ``cond`` this rule built (its predicate is a flag of a lazily bound value)."""
    return (eqn.prim == "cond" and bool(eqn.ins) and type(eqn.ins[0]) is Var
            and eqn.ins[0].name.startswith(PREFIX))


def _movable(eqn: Eqn, reads_invariant: bool) -> bool:
    if len(eqn.outs) != 1:
        return False
    if eqn.prim == "read":
        return reads_invariant
    if eqn.prim == "array_literal":
        return True
    return eqn.param("attribute") is None and _ir_value(eqn.prim)


def _free_reads(eqn: Eqn) -> tuple[set[int], set[str]]:
    """The variables the regions of ``eqn`` (a function value's body) read from around
    them, and the names they read when called (late binding, ``read``): operands of
    ``eqn`` as much as its ``ins``."""
    defined: set[int] = set()
    read: set[int] = set()
    names: set[str] = set()
    for region in regions(eqn):
        defined.update(p.id for p in region.params)
        read.update(r.id for r in region.results if type(r) is Var)
        for inner in walk(region):
            defined.update(v.id for v in inner.outs)
            defined.update(p.id for r in regions(inner) for p in r.params)
            read.update(a.id for a in inner.ins if type(a) is Var)
            read.update(r.id for sub in regions(inner) for r in sub.results if type(r) is Var)
            if inner.prim == "read":
                names.add(inner.param("name"))
    return read - defined, names


class _Hoisting:
    """One loop equation and the lazily bound trees of its body."""

    def __init__(self, loop: Eqn, names: _FreshNames):
        self.loop, self.names = loop, names
        inside = [e for r in regions(loop) for e in walk(r)]
        #: variables the loop defines (its regions' parameters, every output in them)
        self.local = {p.id for r in regions(loop) for p in r.params}
        self.local.update(p.id for e in inside for r in regions(e) for p in r.params)
        self.local.update(v.id for e in inside for v in e.outs)
        self.local_names = {v.name for r in regions(loop) for v in r.params}
        self.local_names.update(v.name for e in inside for v in e.outs)
        self.reads_invariant = not any(e.prim in ("call", "opaque") for e in inside)
        self.pair_of: dict[int, int] = {}     # id(root equation) -> its pair's index
        self.moved: set[int] = set()          # id() of equations moved into a root's branch
        self.threaded: set[int] = set()       # id() of conds on the way to a root
        self.pairs: list[tuple[str, str]] = []  # (value name, flag name)

    def closed(self, eqn: Eqn) -> bool:
        """``eqn``'s regions, if any, read nothing the loop binds."""
        if not regions(eqn):
            return True
        ids, names = _free_reads(eqn)
        return not (ids & self.local or names & self.local_names)

    # -- finding the trees ----------------------------------------------------------------
    def plan(self, fn: Function) -> bool:
        """Choose the roots to bind lazily in ``fn`` and the branches under it; whether
        there is one."""
        invariant: dict[int, Eqn] = {}           # output id -> invariant equation
        for eqn in fn.eqns:
            if _movable(eqn, self.reads_invariant) and all(
                    type(a) is Literal or a.id not in self.local or a.id in invariant
                    for a in eqn.ins) and self.closed(eqn):
                invariant[eqn.outs[0].id] = eqn
        readers: dict[int, list] = {i: [] for i in invariant}
        for eqn in fn.eqns:
            for a in eqn.ins:
                if type(a) is Var and a.id in readers:
                    readers[a.id].append(eqn)
            for region in regions(eqn):           # a read in a branch is not the tree's
                for inner in walk(region):
                    for a in inner.ins:
                        if type(a) is Var and a.id in readers:
                            readers[a.id].append(None)
                for r in region.results:
                    if type(r) is Var and r.id in readers:
                        readers[r.id].append(None)
        for r in fn.results:
            if type(r) is Var and r.id in readers:
                readers[r.id].append(None)

        def inner_node(eqn) -> bool:        # read once, by an invariant equation here
            got = readers[eqn.outs[0].id]
            return (not eqn.outs[0].name and len(got) == 1 and got[0] is not None
                    and got[0].outs[0].id in invariant)

        def tree(eqn) -> list:
            members = [invariant[a.id] for a in eqn.ins
                       if type(a) is Var and a.id in invariant and inner_node(invariant[a.id])]
            return [m for c in members for m in tree(c)] + [eqn]

        found = False
        for eqn in fn.eqns:
            if eqn.outs and eqn.outs[0].id in invariant:
                if inner_node(eqn):
                    continue
                members = tree(eqn)
                if sum(m.prim not in _LEAVES for m in members) < MIN_SIZE:
                    continue
                self.pair_of[id(eqn)] = len(self.pairs)
                self.pairs.append((self.names.fresh(), self.names.fresh()))
                self.moved.update(id(m) for m in members[:-1])
                found = True
            elif eqn.prim == "cond" and not _is_lazy_binding(eqn):
                if any([self.plan(r) for r in regions(eqn)]):
                    self.threaded.add(id(eqn))
                    found = True
        return found

    # -- building -------------------------------------------------------------------------
    def rewritten(self):
        """The equations replacing the loop (initial pairs, then the loop), or None."""
        loop = self.loop
        body = loop.param("body")
        if body is None or not self.plan(body):
            return None
        inits, start, inside, after = [], [], [], []
        for value, flag in self.pairs:
            for name, init in ((value, None), (flag, False)):
                out = Var.new(name)
                inits.append(Eqn("bind", (), (Literal(init),), (out,), loop.loc))
                start.append(out)
                inside.append(Var.new(name))
                after.append(Var.new(name))
        eqns, ends = self.region(body.eqns, inside)
        new_params = {"body": Function(body.params + tuple(inside), tuple(eqns),
                                       body.results + tuple(ends), body.name)}
        cond = loop.param("cond")
        if cond is not None:         # the condition passes the pairs on unchanged
            passed = tuple(Var.new(v.name) for v in inside)
            new_params["cond"] = Function(cond.params + passed, cond.eqns,
                                          cond.results + passed, cond.name)
        ps = tuple((k, new_params.get(k, v)) for k, v in loop.params)
        return [*inits, replace(loop, params=ps, ins=loop.ins + tuple(start),
                                outs=loop.outs + tuple(after))]

    def region(self, eqns, current: list) -> tuple[list, list]:
        """``eqns`` with their roots bound lazily and the pairs threaded through; the
        pairs' versions at the end."""
        current = list(current)
        out: list = []
        by_output = {e.outs[0].id: e for e in eqns if len(e.outs) == 1}
        for eqn in eqns:
            if id(eqn) in self.moved:
                continue
            k = self.pair_of.get(id(eqn))
            if k is not None:
                out.append(self.lazy(eqn, self.members(eqn, by_output), k, current))
            elif id(eqn) in self.threaded:
                out.append(self.thread(eqn, current))
            else:
                out.append(eqn)
        return out, current

    def members(self, root: Eqn, by_output: dict) -> list:
        """The moved equations of ``root``'s tree, in program order."""
        found = []

        def visit(eqn):
            for a in eqn.ins:
                if type(a) is Var and a.id in by_output and id(by_output[a.id]) in self.moved:
                    visit(by_output[a.id])
            found.append(eqn)
        visit(root)
        return found[:-1]

    def lazy(self, root: Eqn, members: list, k: int, current: list) -> Eqn:
        """``root`` as ``cond(flag, v, {v = tree; flag = True; v})``."""
        value, flag = self.pairs[k]
        v, f = current[2 * k], current[2 * k + 1]
        loc = root.loc
        tv, tf = Var.new(value), Var.new(flag)
        then = Function((tv, tf), (), (tv, tv, tf))
        ov, of = Var.new(value), Var.new(flag)
        computed, set_flag = Var.new(value), Var.new(flag)
        other = Function((ov, of), (*members, replace(root, outs=(computed,)),
                                    Eqn("bind", (), (Literal(True),), (set_flag,), loc)),
                         (computed, computed, set_flag))
        current[2 * k], current[2 * k + 1] = Var.new(value), Var.new(flag)
        return Eqn("cond", params(then=then, other=other), (f, v, f),
                   (root.outs[0], current[2 * k], current[2 * k + 1]), loc)

    def thread(self, eqn: Eqn, current: list) -> Eqn:
        """A ``cond`` on the way to a root, carrying every pair through its branches."""
        ins = tuple(current)
        ps = []
        for key, region in eqn.params:
            if type(region) is Function:
                entry = [Var.new(v.name) for v in ins]
                body, ends = self.region(region.eqns, entry)
                region = Function(region.params + tuple(entry), tuple(body),
                                  region.results + tuple(ends), region.name)
            ps.append((key, region))
        outs = tuple(Var.new(v.name) for v in ins)
        current[:] = outs
        return replace(eqn, params=tuple(ps), ins=eqn.ins + ins, outs=eqn.outs + outs)
