"""The one rewrite engine: rules given as data, grouped in ordered phases run to a fixpoint.

A :class:`Rule` is a pattern over terms and a builder of the replacement (tinygrad's
``PatternMatcher`` is the model).  A :class:`Pattern` names the heads it accepts (the
primitive of a term), the patterns of its children, a name the matched term is bound
to, and a predicate on the term and what the engine knows (:class:`Context`: the
program's facts, whether the term is inside a function, its ancestors' heads).  Every
rule states the law it relies on, the tolerance of the result when the law holds only
to rounding, and a :class:`Sample` program containing its pattern, which the property
tests run with and without the rule (tests/compiler/test_rewrite_engine.py).

A :class:`Phase` is a table of rules for one concern, applied over the whole program
in one of two orders (``bottom_up``: children first; ``top_down``: a term before what
its replacement holds), repeated until a round changes nothing (on the IR a rule sees a
variable read once as the equation defining it: ``ir_terms.py``).
A phase that still changes the program after :data:`MAX_ROUNDS` rounds is a
:class:`RewriteDivergenceError` located at the last term a rule rewrote.

Matching goes through a term adapter (``ctx.terms``: head, children, rebuild,
location, literal): :class:`AstTerms` for the PhySL AST, :class:`~.ir_terms.IrTerms`
for the IR of ``phylanx/ir`` (an equation's children are the equations defining its
operands in the same region), so one rule table serves both substrates.  A rule says
which it runs on (``Rule.substrate``: ``ast``, ``ir`` or ``both``); the default
pipeline runs the IR's rules between lowering and raising (``compiler/through_ir.py``)
and the others on the AST after raising.  Terms are immutable; a round that changes
nothing returns the very same object.

``PHYLANX_DISABLE_RULES=name,name`` (setting ``disable_rules``) switches single rules
off; ``PHYLANX_OPTIMIZE=0`` switches the whole engine off (``rewrite.optimize``).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...errors import PhylanxCompileError
from ...language import ast
from .tree import Names, children, facts, rebuild

#: rounds of one phase after which it is said not to converge
MAX_ROUNDS = 16


class RewriteDivergenceError(PhylanxCompileError):
    """A phase kept changing the program: two of its rules undo each other (a defect of
    the rule table, located at the last term rewritten)."""


# -- terms ----------------------------------------------------------------------------------

_BINARY_HEADS = {op: primitive for op, (_precedence, primitive) in ast.BINARY_OPS.items()}
_UNARY_HEADS = {op: primitive or "__plus" for op, primitive in ast.UNARY_OPS.items()}


class AstTerms:
    """The PhySL AST seen as terms: a call's head is its primitive, an operator's the
    primitive it stands for (``__add``; unary ``+`` is ``__plus``), a leaf's its kind."""

    _LEAVES = {ast.Identifier: "identifier", ast.Literal: "literal",
               ast.ArrayLiteral: "array", ast.KeywordArg: "keyword", ast.QuotedList: "list"}

    @staticmethod
    def head(term) -> str:
        t = type(term)
        if t is ast.Call:
            return term.func
        if t is ast.BinOp:
            return _BINARY_HEADS[term.op]
        if t is ast.UnaryOp:
            return _UNARY_HEADS[term.op]
        return AstTerms._LEAVES.get(t, "?")

    children = staticmethod(children)
    rebuild = staticmethod(rebuild)

    @staticmethod
    def location(term):
        return getattr(term, "loc", None)

    @staticmethod
    def is_function(term) -> bool:
        """A function definition: its last child is a body with its own frame."""
        return type(term) is ast.Call and bool(term.args) and (
            term.func == "lambda" or (term.func == "define" and len(term.args) > 2))

    @staticmethod
    def literal(value, like):
        """A literal term of ``value`` at the location of the term ``like`` replaces."""
        return ast.Literal(value, like.loc)


TERMS = AstTerms


# -- patterns and rules ---------------------------------------------------------------------

@dataclass(frozen=True)
class Pattern:
    """Terms whose head is one of ``heads`` (any when None), whose children match ``args``
    one by one (any children when None), and for which ``where(term, ctx)`` holds; a
    match binds the term to ``name`` when given."""

    heads: frozenset | None = None
    args: tuple | None = None
    name: str | None = None
    where: Callable[[Any, Context], bool] | None = None

    def match(self, term, ctx: Context, bound: dict) -> bool:
        terms = AstTerms if ctx is None else ctx.terms      # no context: the AST
        if self.heads is not None and terms.head(term) not in self.heads:
            return False
        if self.args is not None:
            kids = terms.children(term)
            if len(kids) != len(self.args) or not all(
                    p.match(k, ctx, bound) for p, k in zip(self.args, kids)):
                return False
        if self.where is not None and not self.where(term, ctx):
            return False
        if self.name is not None:
            bound[self.name] = term
        return True


def P(*heads: str, args: tuple | None = None, name: str | None = None,
      where: Callable | None = None) -> Pattern:
    """A :class:`Pattern` (``P("__add", args=(P("literal"), P("literal")))``)."""
    return Pattern(frozenset(heads) if heads else None, args, name, where)


@dataclass(frozen=True)
class Sample:
    """A program containing a rule's pattern, for its property test: the source of a
    Python function ``sample`` in which ``DOT(a, b)`` stands for a product (written in
    each product spelling the test tries), and ``arguments(rng, dtype, n)`` its operands
    (``n`` a size the test draws).  ``spellings`` are the ways of writing it the rule
    must fire on: product spellings ``@``, ``np.dot``, ``.dot``, ``np.matmul``, and
    ``float32`` (the data), ``helper`` (``helper`` replaces the source).  ``settings``
    are config values the sample runs under (a rule whose full form is optional)."""

    source: str
    arguments: Callable
    spellings: tuple[str, ...]
    helper: str = ""
    settings: tuple[tuple[str, Any], ...] = ()


def normal(*shapes) -> Callable:
    """``arguments(rng, dtype, n)`` of a :class:`Sample`: standard normal arrays of
    ``shapes``, ``"n"`` in a shape standing for the drawn size."""
    def arguments(rng, dtype, n):
        return tuple(rng.normal(size=tuple(n if d == "n" else d for d in shape)).astype(dtype)
                     for shape in shapes)
    return arguments


@dataclass(frozen=True)
class Rule:
    """Terms matching ``pattern`` become ``build(bound, ctx)`` (None: no rewrite)."""

    name: str
    law: str
    pattern: Pattern
    build: Callable[[dict, Context], Any]
    sample: Sample | None = None
    #: "exact", or the bound on the difference with the rule off (approximate laws)
    tolerance: str = "exact"
    #: that bound as the tests check it: relative to the largest value, (float64, float32)
    rtol: tuple[float, float] = (0.0, 0.0)
    #: the setting the rule also needs (kept for its users' configurations), or ""
    setting: str = ""
    #: what the rule runs on: "ast" (the PhySL AST), "ir" (the IR's equations) or
    #: "both" (its pattern and builder use only the term adapter)
    substrate: str = "ast"


@dataclass(frozen=True)
class Phase:
    """One concern's rules, applied in ``order`` to a fixpoint.  ``wanted(facts)`` says
    from the program's :class:`~.tree.ProgramFacts` whether there can be work at all."""

    name: str
    rules: tuple[Rule, ...]
    order: str = "bottom_up"
    wanted: Callable[[Any], bool] = lambda facts: True

    def __post_init__(self):
        for rule in self.rules:
            if not rule.law.strip():
                raise ValueError(f"rule {rule.name!r} states no law")
            if rule.sample is None:
                raise ValueError(f"rule {rule.name!r} has no sample program")

    def run(self, program: ast.Program) -> ast.Program:
        """``program`` after this phase alone."""
        return run_phase(self, program)


@dataclass(frozen=True)
class Pass:
    """A whole-program transformation kept outside the rule tables (``inline``: see its
    module for why), run in its place among the phases."""

    name: str
    run: Callable[[ast.Program], ast.Program]


# -- the context ----------------------------------------------------------------------------

@dataclass
class Context:
    """What a rule may ask while it matches: the program's facts, fresh names, the
    position of the term (inside a function; its ancestors' heads), and (for tests and
    the divergence error) which rules fired where."""

    program: Any
    fired: Counter = field(default_factory=Counter)
    #: the term adapter of the substrate the phase runs on
    terms: Any = AstTerms
    in_function: bool = False
    ancestors: list = field(default_factory=list)
    last_location: Any = None
    _names: dict = field(default_factory=dict)
    _state: dict = field(default_factory=dict)

    @property
    def facts(self):
        return facts(self.program)

    def names(self, prefix: str) -> Names:
        """Fresh names ``prefix1``, ``prefix2`` ... no part of the program uses."""
        got = self._names.get(prefix)
        if got is None:
            got = self._names[prefix] = Names(self.program, prefix)
        return got

    def state(self, key: str, make: Callable[[], Any]):
        """A rule's memo for this run of its phase (``make()`` the first time)."""
        got = self._state.get(key)
        if got is None:
            got = self._state[key] = make()
        return got


def disabled_rules() -> frozenset:
    from ... import config
    return frozenset(n.strip() for n in config.get("disable_rules").split(",") if n.strip())


def _by_head(rules) -> tuple[dict, tuple]:
    """{head: the rules that may match it, in table order}, and the rules for any head."""
    anywhere = tuple(r for r in rules if r.pattern.heads is None)
    heads = {h for r in rules for h in (r.pattern.heads or ())}
    indexed = {h: tuple(r for r in rules if r.pattern.heads is None or h in r.pattern.heads)
               for h in heads}
    return indexed, anywhere


class _Round:
    """One round of a phase over the program."""

    def __init__(self, phase: Phase, rules, ctx: Context):
        self.phase, self.ctx = phase, ctx
        self.indexed, self.anywhere = _by_head(rules)
        self.changed = False

    def rewritten(self, term):
        """The first rule's replacement of ``term``, or None."""
        terms = self.ctx.terms
        rules = self.indexed.get(terms.head(term), self.anywhere)
        if not rules:
            return None
        ctx = self.ctx
        for rule in rules:
            bound: dict = {}
            if not rule.pattern.match(term, ctx, bound):
                continue
            new = rule.build(bound, ctx)
            if new is not None and new is not term:
                ctx.fired[rule.name] += 1
                ctx.last_location = terms.location(term)
                self.changed = True
                return new
        return None

    def children_of(self, term, visit):
        kids = TERMS.children(term)
        if not kids:
            return term
        head = TERMS.head(term)
        ctx = self.ctx
        was = ctx.in_function
        ctx.ancestors.append(head)
        if not was and TERMS.is_function(term):
            ctx.in_function = True
        new = tuple([visit(k) for k in kids])
        ctx.in_function = was
        ctx.ancestors.pop()
        return TERMS.rebuild(term, new)

    def bottom_up(self, term):
        term = self.children_of(term, self.bottom_up)
        new = self.rewritten(term)
        return term if new is None else new

    def top_down(self, term):
        new = self.rewritten(term)
        return self.children_of(term if new is None else new, self.top_down)


#: the substrates of the rules the AST engine runs by default (all but the IR's own)
AST_RULES = ("ast", "both")


def enabled_rules(phase: Phase, disabled: frozenset, substrates) -> tuple[Rule, ...]:
    """The rules of ``phase`` for ``substrates`` that are neither disabled nor waiting
    for a setting."""
    from ... import config
    return tuple(r for r in phase.rules if r.name not in disabled
                 and r.substrate in substrates and (not r.setting or config.get(r.setting)))


def run_phase(phase: Phase, program: ast.Program, ctx: Context | None = None,
              disabled: frozenset | None = None, substrates=AST_RULES) -> ast.Program:
    """``program`` after ``phase`` reached its fixpoint; the same object if no rule fired."""
    if disabled is None:
        disabled = disabled_rules()
    rules = enabled_rules(phase, disabled, substrates)
    if not rules or not program.body or not phase.wanted(facts(program)):
        return program
    if ctx is None:
        ctx = Context(program)
    for _ in range(MAX_ROUNDS):
        ctx.program = program
        rnd = _Round(phase, rules, ctx)
        visit = rnd.top_down if phase.order == "top_down" else rnd.bottom_up
        body = tuple(visit(e) for e in program.body)
        if not rnd.changed or all(a is b for a, b in zip(body, program.body)):
            return program
        program = ast.Program(body, program.loc)
    raise RewriteDivergenceError(
        f"rewrite phase {phase.name!r} still changed the program after {MAX_ROUNDS} "
        f"rounds (rules fired: {dict(ctx.fired)})", ctx.last_location)


def run_phases(phases, program: ast.Program, fired: Counter | None = None,
               substrates=AST_RULES) -> ast.Program:
    """``program`` after every phase in order (their rules for ``substrates``);
    ``fired`` counts the rules that fired."""
    disabled = disabled_rules()
    for phase in phases:
        if type(phase) is Pass:
            program = phase.run(program)
            continue
        ctx = Context(program)
        program = run_phase(phase, program, ctx, disabled, substrates)
        if fired is not None:
            fired.update(ctx.fired)
    return program
