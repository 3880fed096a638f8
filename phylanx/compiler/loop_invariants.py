"""Loop-invariant code motion inside a translated loop (``scalar_translate.py``).

The rewrite rule ``hoist_loop_invariants`` works on the IR and stays away from
programs that change arrays in place; a translated loop sees more: it knows every
variable its subtree assigns and every array it stores into.  In ALS by loops
(``x[u] = solve(gram, y.T @ ratings[u])``) ``y.T``, the slice list of ``ratings[:, i]``
and the LU factors of ``gram`` are the same in every iteration of the inner loop, yet
were computed again for every row.

The law: a pure expression (kernels of plain values only, :func:`invariant`) reading no
variable the loop assigns, and no array the loop stores into, has the same value in
every iteration of one run of the loop.  The generated code computes it at its *first*
evaluation in that run and reuses it after (a lazily bound local, reset each time the
loop is entered), so a loop that runs zero times, or a branch never taken, computes
nothing more, and an error is raised where and when it was.  What is proven here, from
the subtree alone (:class:`LoopFacts`): the loop stores only into variables it never
assigns, holds no ``x += e`` and no node fusion runs through its own closure.  What is
tested once per run, when the value is first computed (:func:`keep`, an explicit kind
test): the variables read hold arrays or immutable scalars (a list could hold an array
the loop changes), none of those arrays shares memory with an array the loop stores
into (``np.may_share_memory``: a view of ``y`` changes with ``y``), and the value is an
array or an immutable scalar.  Otherwise the expression is computed every time, as
before.

Reuse is also limited by who reads the value, so that no one can change it or keep it
beyond the iteration: an operator (NumPy's result is a new array), a product (flag
``blas``), or an index of a subscript; and a kernel may declare what it computes from
one operand alone (flag ``invariant_operand``: ``solve`` factorises its matrix, see
``primitives/matrixops/numpy_products.py``): with that operand invariant, the
preparation is made once per run and the kernel given it.
"""
from __future__ import annotations

import numpy as np

from ..primitives.registry import lookup
from ..runtime.nodes import Node

#: a lazily bound value not computed yet in this run of the loop
UNSET = type("Unset", (), {"__repr__": lambda self: "UNSET", "__slots__": ()})()
#: a value found not reusable in this run (computed at every evaluation)
NEVER = type("Never", (), {"__repr__": lambda self: "NEVER", "__slots__": ()})()

#: values nothing can change in place
_IMMUTABLE = frozenset((type(None), bool, int, float, complex, str, range, slice))

_FORMS = frozenset(("block", "if", "for_each", "while", "define-variable", "store"))


class LoopFacts:
    """What one loop's subtree assigns and stores into, and whether values computed in
    it may be reused across its iterations at all (``hoisting``)."""

    def __init__(self, loop: Node, opaque: frozenset, writers: dict[int, int],
                 local_slot):
        self.node = loop
        self.writes = frozenset(writers)
        bases: set[int] = set()
        hoisting = True
        for inner in loop.walk():
            p = inner.primitive
            if inner in opaque or p == "__inplace":
                hoisting = False   # unknown changes (a fused node), or x += e in place
            elif p == "store" and inner.instance == "__subscript":
                base = inner.children[0] if inner.children else None
                if base is None or base.primitive != "access-variable":
                    hoisting = False
                    continue
                slot = local_slot(base)
                if slot in self.writes:
                    hoisting = False   # the stored-into array may be any value
                bases.add(slot)
        self.bases = tuple(sorted(bases))
        self.hoisting = hoisting
        self.lazy: list[str] = []    # its lazily bound locals (reset at its entry)
        # tests of variables it never assigns, computed at its entry: test -> local name
        # (loop_versions.Versions.index_test)
        self.entry: dict[str, str] = {}


def invariant(node: Node, facts: LoopFacts, pure, local_slot) -> tuple[int, ...] | None:
    """The slots ``node`` reads if it is an invariant expression of the loop of
    ``facts`` worth reusing: only constants, reads of variables the loop neither assigns
    nor stores into, and kernels ``pure(primitive)`` accepts; at least one of them
    something else than an arithmetic operator or an element read.  Else None."""
    if not facts.hoisting or node.is_const or node.primitive == "access-variable":
        return None
    reads: set[int] = set()
    heavy = False
    for inner in node.walk():
        if inner.is_const:
            continue
        p = inner.primitive
        if p == "access-variable":
            slot = local_slot(inner)
            if slot in facts.writes or slot in facts.bases:
                return None
            reads.add(slot)
        elif p in _FORMS or p == "__inplace" or not pure(inner):
            return None
        elif p in _LIGHT_READS:
            continue   # an element read costs what testing the lazy local costs
        elif not inner.children or len(inner.children) != 2 or p not in _OPERATORS:
            heavy = True
    return tuple(sorted(reads)) if heavy else None


#: element reads (``a[i]``, ``a[i, j]``: a slice list child is heavy itself); reusing
#: them cost a knapsack's inner loop (``values[k]``) two tests per step for one subscript
_LIGHT_READS = frozenset(("__subscript", "__pyindex"))

#: cheap two-operand operators: an expression of these alone is not worth a lazy local
_OPERATORS = frozenset(("__add", "__sub", "__mul", "__div", "__mod", "__floordiv",
                        "__eq", "__ne", "__lt", "__le", "__gt", "__ge"))


def unaliased(reads: tuple, bases: tuple) -> bool:
    """True if every value of ``reads`` is an array (not of objects) or an immutable
    scalar and no array of them shares memory with an array of ``bases`` (the arrays
    the loop stores into)."""
    for value in reads:
        t = type(value)
        if t is np.ndarray:
            if value.dtype.kind == "O":
                return False         # its items may be anything, changed anywhere
            for base in bases:
                if type(base) is np.ndarray and np.may_share_memory(value, base):
                    return False
        elif t not in _IMMUTABLE and not isinstance(value, np.generic):
            return False
    return True


def keep(value, any_kind: bool, reads: tuple, bases: tuple):
    """``value`` if it may be reused for the rest of this run of the loop, else
    :data:`NEVER`: an array (not of objects) or an immutable scalar (any value when
    ``any_kind``: its reader only looks at it, a subscript's index), read from
    :func:`unaliased` values."""
    if not any_kind:
        t = type(value)
        if t is np.ndarray:
            if value.dtype.kind == "O":
                return NEVER
        elif t not in _IMMUTABLE and not isinstance(value, np.generic):
            return NEVER
    return value if unaliased(reads, bases) else NEVER


class Emission:
    """The translator's part that writes lazily bound invariants (a mixin of
    ``scalar_translate.Translator``: its ``line``, ``emit``, ``operands``, ``name``,
    ``temp``, ``local_slot`` and state)."""

    def enter_loop(self, node: Node) -> int:
        """Start writing loop ``node`` (its header comes next); returns where its lazily
        bound locals are reset (:meth:`leave_loop`)."""
        self.loops.append(LoopFacts(node, self.opaque, self.assigned(node),
                                    self.local_slot))
        return len(self.lines)

    def leave_loop(self, node: Node, header: int) -> None:
        """Every lazily bound local of the loop reset before its header (each run of
        the loop computes its invariants again), and its entry tests computed there."""
        facts = self.loops.pop()
        self.lines[header:header] = [(self.depth, f"{h} = _UNSET", node)
                                     for h in facts.lazy] + [
            (self.depth, f"{name} = {test}", node) for test, name in facts.entry.items()]

    def loop_invariant(self, node: Node) -> tuple[int, ...] | None:
        if not self.loops or not self.invariants:
            return None
        return invariant(node, self.loops[-1], self.pure, self.local_slot)

    def bases(self) -> str:
        """The arrays the innermost loop stores into, as a tuple expression."""
        return "".join(f"v{s}, " for s in self.loops[-1].bases)

    def emit_reused(self, node: Node, any_kind: bool) -> str:
        """``node``'s value, computed at its first evaluation in this run of the
        innermost loop and reused after when it is invariant there (and
        ``loop_invariants.keep`` accepts it); else as :meth:`emit` computes it."""
        reads = self.loop_invariant(node)
        if reads is None:
            return self.emit(node)
        self.lazies += 1
        lazy = f"h{self.lazies}"
        self.loops[-1].lazy.append(lazy)
        self.reads.update(reads)
        t = self.temp()
        self.line(f"{t} = {lazy}", node)
        self.line(f"if {t} is _UNSET or {t} is _NEVER:", node)
        self.depth += 1
        value = self.emit(node)
        self.fresh.discard(value)
        self.line(f"{t} = {value}", node)
        self.prove(t, self.number(value))   # the same value at every step (loop_versions)
        read_values = "".join(f"v{s}, " for s in reads)
        self.line(f"if {lazy} is _UNSET: {lazy} = _keep({t}, {any_kind}, ({read_values}), "
                  f"({self.bases()}))", node)
        self.depth -= 1
        return t

    def emit_prepared(self, node: Node, prepared: tuple) -> str:
        """A kernel declaring what it computes from operand ``k`` alone (flag
        ``invariant_operand``: (k, prepare, kernel taking the preparation first)): with
        that operand invariant in the innermost loop, ``prepare`` runs once per run of
        the loop (nothing aliasing what the loop stores into), else never."""
        k, prepare, with_preparation = prepared
        # the kernel neither changes nor keeps operand k: an invariant expression there is
        # computed once, so the preparation is made for the very array given after
        args = self.operands(node.children, (k,))
        t = self.temp()
        kernel = self.name(lookup(node.primitive).impl, "k")
        operand = node.children[k]
        reads = (self.local_slot(operand),) if operand.primitive == "access-variable" \
            else self.loop_invariant(operand)
        if not self.invariants or not self.loops or not self.loops[-1].hoisting \
                or reads is None \
                or set(reads) & (self.loops[-1].writes | set(self.loops[-1].bases)):
            self.line(f"{t} = {kernel}({', '.join(args)})", node)
            return t
        self.lazies += 1
        lazy = f"h{self.lazies}"
        self.loops[-1].lazy.append(lazy)
        read_values = "".join(f"v{s}, " for s in reads)
        self.line(f"if {lazy} is _UNSET: {lazy} = {self.name(prepare, 'k')}({args[k]}) "
                  f"if _unaliased(({read_values}), ({self.bases()})) else None", node)
        self.line(f"{t} = {self.name(with_preparation, 'k')}({lazy}, {', '.join(args)})",
                  node)
        return t

