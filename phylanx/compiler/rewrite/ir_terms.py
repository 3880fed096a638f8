"""The rewrite engine on the IR: the term adapter over equations and the walk of a phase.

:class:`IrTerms` shows an IR :class:`~phylanx.ir.core.Function` to the rules of
:mod:`.engine` as terms: an equation's head is its primitive, its children are its
operands, each resolved to the equation defining it in the same region (a literal is a
leaf ``literal``; a parameter, a loop-carried value or a variable of an enclosing region
a leaf ``identifier``).  A rule's replacement of an equation is an atom (a literal or a
variable: the equation's output is that value) or equations whose last one defines the
replaced equation's outputs (``rebuild``).  Every equation built keeps the location of
the one it replaces.  A replacement that computes the values of earlier equations of
its region itself *absorbs* them (:meth:`IrTerms.absorb`): they go at the end of the
region's walk if nothing reads them any more.  Loops (several outputs) are offered only
to rules whose pattern names their head.

:func:`run_ir_phases` walks each region in program order (an equation's operands are
defined before it: the walk is bottom-up, as the AST engine's ``bottom_up`` order),
a region held by an equation before the equation itself, and repeats a phase until a
round changes nothing.  A replaced temporary (an output with no PhySL name) is
substituted by its value in every later reader; a replaced named variable keeps its
binding (``bind``), so raising gives the name back where the program defined it.

Besides the AST adapter's services, the IR adapter answers what SSA makes cheap: the
equal equation earlier in the same region (:meth:`IrTerms.earlier_equal`), the readers
of a variable (:meth:`IrTerms.readers`) and whether the program may change a value in
place (:attr:`IrTerms.mutates`).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace

from ...ir.core import IR_OPS, Eqn, Function, Literal, Var, regions
from ...primitives import registry
from .engine import (
    MAX_ROUNDS,
    Context,
    Phase,
    RewriteDivergenceError,
    _by_head,
    disabled_rules,
    enabled_rules,
)
from .tree import _NON_MUTATING, ProgramFacts

#: the substrates of the rules the IR engine runs
IR_RULES = ("ir", "both")

#: the IR's operation writing into a value (an element store)
_MUTATING_OPS = frozenset(("update",))


def _opaque_mutates(eqn: Eqn) -> bool:
    """Whether the PhySL statement an ``opaque`` equation holds may change a value in
    place (the AST engine's own answer: ``tree.ProgramFacts``)."""
    from ...language import ast
    return ProgramFacts(ast.Program((eqn.param("ast"),), eqn.loc)).mutates


def _may_mutate(fn: Function) -> bool:
    """Whether running ``fn`` may change an array or list in place (an element write,
    an in-place primitive, a held PhySL statement, a call of a function not in it)."""
    defined: set[str] = set()
    eqns = []

    def collect(f: Function):
        for eqn in f.eqns:
            eqns.append(eqn)
            if eqn.prim == "function":
                defined.add(eqn.outs[0].name)
            for region in regions(eqn):
                collect(region)
    collect(fn)
    for eqn in eqns:
        p = eqn.prim
        if p in _MUTATING_OPS or (p == "opaque" and _opaque_mutates(eqn)):
            return True
        if p == "call":
            name = eqn.param("name")
            callee = name if name is not None else eqn.ins[0].name
            if callee not in defined:
                return True
            continue
        if p in IR_OPS:
            continue
        spec = registry.lookup(p)
        if spec is None or (spec.side_effects and p not in _NON_MUTATING):
            return True
    return False


def _readers(fn: Function, out: defaultdict) -> defaultdict:
    """{variable id: the primitives reading it, "result" for a region's result}."""
    for eqn in fn.eqns:
        for a in eqn.ins:
            if type(a) is Var:
                out[a.id].append(eqn.prim)
        for region in regions(eqn):
            _readers(region, out)
    for r in fn.results:
        if type(r) is Var:
            out[r.id].append("result")
    return out


def _value_key(eqn: Eqn):
    """What makes two equations compute the same value (None: not compared: one holding
    a region or a PhySL statement, whose deep comparison would cost more than it finds).
    Operands are compared by variable id (SSA) and literal value."""
    for _, v in eqn.params:
        if type(v) not in _PLAIN_PARAMS:
            return None
    key = (eqn.prim, eqn.params, tuple(a.id if type(a) is Var else a for a in eqn.ins))
    try:
        hash(key)
    except TypeError:
        return None
    return key


#: equations never equal to another in effect (bindings, reads, structure)
_UNSHARED = ("bind", "read", "function", "lambda", "opaque", "cond", "while", "for_each",
             "call", "update", "return", "async")

#: parameter values compared as they are (a region or a statement is not)
_PLAIN_PARAMS = frozenset((str, int, float, bool, type(None), tuple))


class IrTerms:
    """The IR seen as terms (one per run of a phase; it follows the walk's regions)."""

    def __init__(self, program: Function):
        self.program = program
        self._defs: list[dict] = []        # per open region: var id -> defining equation
        self._kept: list[dict] = []        # per open region: value key -> equation
        self._open: list[list] = []        # per open region: [its equations, memo]
        # per open region: the absorbed equations by id (held: an equation made later at a
        # dropped one's address must not be taken for it, as the inliner's lets were)
        self._absorbed: list[dict] = []
        self._readers: defaultdict | None = None
        self._mutates: bool | None = None

    # -- the adapter the engine's patterns use --------------------------------------------

    @staticmethod
    def head(term) -> str:
        t = type(term)
        if t is Eqn:
            return term.prim
        return "literal" if t is Literal else "identifier"

    def children(self, term) -> tuple:
        if type(term) is not Eqn:
            return ()
        defs = self._defs[-1] if self._defs else {}
        return tuple(defs.get(a.id, a) if type(a) is Var else a for a in term.ins)

    @staticmethod
    def rebuild(term, new: tuple):
        """``term`` reading the values of the terms ``new`` (the same object if they are
        its operands)."""
        ins = tuple(k.outs[0] if type(k) is Eqn else k for k in new)
        return term if ins == term.ins else replace(term, ins=ins)

    @staticmethod
    def location(term):
        return getattr(term, "loc", None)

    @staticmethod
    def is_function(term) -> bool:
        return type(term) is Eqn and term.prim in ("function", "lambda")

    @staticmethod
    def literal(value, like):
        return Literal(value)

    # -- what SSA makes cheap -------------------------------------------------------------

    def defining(self, var: Var) -> Eqn | None:
        """The equation of the open region defining ``var`` (one output), or None."""
        got = self._defs[-1].get(var.id) if self._defs else None
        return got if type(got) is Eqn and len(got.outs) == 1 else None

    def earlier_equal(self, eqn: Eqn) -> Eqn | None:
        """The equation before ``eqn`` in its region computing the same primitive of the
        same parameters and operands, or None."""
        key = _value_key(eqn)
        if key is None or not self._kept:
            return None
        return self._kept[-1].get(key)

    def readers(self, var: Var) -> list:
        """The primitives reading ``var`` ("result": a function or region gives it)."""
        if self._readers is None:
            self._readers = _readers(self.program, defaultdict(list))
        return self._readers[var.id]

    @property
    def mutates(self) -> bool:
        if self._mutates is None:
            self._mutates = _may_mutate(self.program)
        return self._mutates

    # -- the walk's bookkeeping -----------------------------------------------------------

    def region_is(self, predicate) -> bool:
        """``predicate(equations)`` of the region being walked (as it was before this
        round), computed once per region and predicate."""
        eqns, memo = self._open[-1]
        got = memo.get(predicate)
        if got is None:
            got = memo[predicate] = bool(predicate(eqns))
        return got

    def region_equations(self) -> tuple:
        """The equations of the region being walked, as they were before this round."""
        return self._open[-1][0]

    def open_region(self, fn: Function) -> None:
        self._defs.append({})
        self._kept.append({})
        self._open.append([fn.eqns, {}])
        self._absorbed.append({})

    def close_region(self) -> None:
        self._defs.pop()
        self._kept.pop()
        self._open.pop()
        self._absorbed.pop()

    def absorb(self, eqns) -> None:
        """A rule's replacement computes the values of ``eqns`` (of the open region)
        itself: at the end of the region's walk they go if nothing else reads them."""
        self._absorbed[-1].update((id(e), e) for e in eqns)

    def absorbed(self) -> dict:
        return self._absorbed[-1]

    def keep(self, eqn: Eqn) -> None:
        defs = self._defs[-1]
        for out in eqn.outs:
            defs[out.id] = eqn
        if len(eqn.outs) == 1 and not eqn.prim.startswith(_UNSHARED):
            key = _value_key(eqn)
            if key is not None:
                self._kept[-1].setdefault(key, eqn)

    def substituted(self, old: Var, new) -> None:
        """``old``'s readers read ``new`` from now on."""
        if self._readers is not None and type(new) is Var:
            self._readers[new.id].extend(self._readers.pop(old.id, ()))


class _IrRound:
    """One round of a phase over an IR function."""

    def __init__(self, phase: Phase, rules, ctx: Context):
        self.phase, self.ctx = phase, ctx
        self.indexed, self.anywhere = _by_head(rules)
        self.subst: dict[int, object] = {}
        self.changed = False

    def atom(self, a):
        while type(a) is Var and a.id in self.subst:   # a replacement may be replaced
            a = self.subst[a.id]
        return a

    def function(self, fn: Function) -> Function:
        terms = self.ctx.terms
        terms.open_region(fn)
        eqns = []
        for eqn in fn.eqns:
            eqn = self.operands_and_regions(eqn)
            new = self.rewritten(eqn)
            if new is None:
                eqns.append(eqn)
                terms.keep(eqn)
            elif type(new) in (Var, Literal):
                self.replaced_by(eqn, new, eqns)
            else:
                for made in new:
                    eqns.append(made)
                    terms.keep(made)
        if terms.absorbed():
            eqns = _unread_dropped(eqns, fn.results, terms.absorbed())
        terms.close_region()
        results = tuple(self.atom(r) for r in fn.results)
        if results == fn.results and len(eqns) == len(fn.eqns) and all(
                a is b for a, b in zip(eqns, fn.eqns)):
            return fn
        return Function(fn.params, tuple(eqns), results, fn.name)

    def replaced_by(self, eqn: Eqn, value, eqns: list) -> None:
        (out,) = eqn.outs
        if out.name:                       # a PhySL variable: its binding stays
            bound = Eqn("bind", (), (value,), eqn.outs, eqn.loc)
            eqns.append(bound)
            self.ctx.terms.keep(bound)
            return
        self.subst[out.id] = value
        self.ctx.terms.substituted(out, value)

    def operands_and_regions(self, eqn: Eqn) -> Eqn:
        ins = tuple(self.atom(a) for a in eqn.ins) if self.subst else eqn.ins
        params = eqn.params
        if any(type(v) is Function for _, v in params):
            ctx = self.ctx
            was = ctx.in_function
            ctx.ancestors.append(eqn.prim)
            if ctx.terms.is_function(eqn):
                ctx.in_function = True
            params = tuple((k, self.function(v) if type(v) is Function else v)
                           for k, v in params)
            ctx.in_function = was
            ctx.ancestors.pop()
            if all(a[1] is b[1] for a, b in zip(params, eqn.params)):
                params = eqn.params
        if ins == eqn.ins and params is eqn.params:
            return eqn
        return replace(eqn, ins=ins, params=params)

    def rewritten(self, eqn: Eqn):
        """The first rule's replacement of ``eqn``, or None."""
        ctx = self.ctx
        rules = self.indexed.get(eqn.prim, self.anywhere)
        if not rules or (len(eqn.outs) != 1 and eqn.prim not in self.indexed):
            return None             # equations of several outputs: to rules naming them
        for rule in rules:
            bound: dict = {}
            if not rule.pattern.match(eqn, ctx, bound):
                continue
            new = rule.build(bound, ctx)
            if new is not None and new is not eqn:
                ctx.fired[rule.name] += 1
                ctx.last_location = eqn.loc
                self.changed = True
                return new
        return None


def _unread_dropped(eqns: list, results, absorbed: dict) -> list:
    """``eqns`` without the absorbed equations whose outputs nothing reads (the
    replacement that absorbed them computes their values where it needs them)."""
    reads: Counter = Counter()

    def count(fn_eqns, fn_results, step):
        for e in fn_eqns:
            for a in e.ins:
                if type(a) is Var:
                    reads[a.id] += step
            for region in regions(e):
                count(region.eqns, region.results, step)
        for r in fn_results:
            if type(r) is Var:
                reads[r.id] += step
    count(eqns, results, 1)
    kept = list(eqns)
    for i in range(len(kept) - 1, -1, -1):        # readers come after: one pass back
        e = kept[i]
        if absorbed.get(id(e)) is e and not any(reads[o.id] for o in e.outs):
            count((e,), (), -1)
            del kept[i]
    return kept


def run_phase_ir(phase: Phase, fn: Function, fired: Counter | None = None,
                 disabled: frozenset | None = None) -> Function:
    """``fn`` after ``phase``'s IR rules reached their fixpoint (the same object when
    none fired)."""
    rules = enabled_rules(phase, disabled_rules() if disabled is None else disabled,
                          IR_RULES)
    if not rules or not fn.eqns:
        return fn
    ctx = Context(fn, terms=IrTerms(fn))
    for _ in range(MAX_ROUNDS):
        rnd = _IrRound(phase, rules, ctx)
        new = rnd.function(fn)
        if not rnd.changed:
            break
        fn = new
        ctx.program, ctx.terms = fn, IrTerms(fn)
    else:
        raise RewriteDivergenceError(
            f"rewrite phase {phase.name!r} still changed the program after {MAX_ROUNDS} "
            f"rounds (rules fired: {dict(ctx.fired)})", ctx.last_location)
    if fired is not None:
        fired.update(ctx.fired)
    return fn


def run_ir_phases(phases, fn: Function, fired: Counter | None = None) -> Function:
    """``fn`` after the IR rules of every phase of ``phases``, in order."""
    disabled = disabled_rules()
    for phase in phases:
        if type(phase) is Phase:
            fn = run_phase_ir(phase, fn, fired, disabled)
    return fn


def has_ir_rules(phase) -> bool:
    return type(phase) is Phase and any(r.substrate in IR_RULES for r in phase.rules)
