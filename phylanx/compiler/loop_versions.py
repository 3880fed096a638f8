"""Two versions of a translated loop: one without per-step kind tests, chosen at entry.

A translated loop (``scalar_translate.py``) tests kinds at every step where it cannot
prove them: ``a[i, j]`` is NumPy's subscript only if ``a`` is an ``ndarray``,
``min(x, y, z)`` is Python's only if every operand is a number, ``if c`` is Python's
truth only if ``c`` is a bool.  Profiling the edit distance (issue 27 item 5, task ed47)
put a quarter of its time beside CPython's in those tests.

The law (loop versioning): a test of a variable the loop never assigns has the same
outcome at every step of one run of the loop (an array's type, ``ndim`` and ``dtype``
never change in place).  So the translator writes the loop twice: the general version,
as before, and a *fast* one in which each such test is assumed true and dropped; the
generated function evaluates those tests once at entry (its flags) and runs the fast
version when all it assumed hold, else the general one.  Both compute what the tree
computes: the fast one only leaves out the branches its assumptions rule out.

What the fast version additionally proves, per expression (:class:`Versions`): that a
value is a *number* (a type of :data:`NUMBERS`), under which flags:

* literals of those types and proven Python ints, unconditionally;
* ``a[i, ...]`` of a variable the loop never assigns, every index a proven int, under
  the flag ``type(a) is ndarray and a.ndim == <indices> and a.dtype.type in _NUMBERS``
  (an element, a NumPy scalar of that type);
* ``x op y`` (``+ - * / // %`` and the comparisons) of numbers: NumPy's and Python's
  arithmetic of those types gives those types or raises (``**`` is left out: a negative
  float to a fractional power is complex); ``x == y`` and ``x != y`` of numbers or
  one-character strings (``s[i]`` of a ``str``, under ``... or type(s) is str``): a bool;
* an ``if`` whose branches are both numbers; a local bound to a number, until the next
  assignment the translator cannot follow (in a branch, a loop, a fused node).

Where such a fact is used (``min``/``max`` of numbers is Python's, the truth of a number
is ``bool``, ``x op= e`` of a number is the operator) its flags join the assumptions.
An error is still located by its generated line (both versions' lines belong to nodes).
The setting ``loop_versions`` switches this off (only the general version is written).
"""
from __future__ import annotations

import numpy as np

#: number types for which ``min``/``max`` of Python are the ``__pymin``/``__pymax`` kernels
#: (their ``<`` gives a bool or NumPy bool, whose truth is ``bool``)
NUMBERS = frozenset((bool, int, float, np.bool_, np.int8, np.int16, np.int32, np.int64,
                     np.uint8, np.uint16, np.uint32, np.uint64, np.float16, np.float32,
                     np.float64))

#: infix operators whose result is a number when both operands are
NUMBER_CLOSED = frozenset(("+", "-", "*", "/", "//", "%",
                           "==", "!=", "<", "<=", ">", ">="))


class Versions:
    """The translator's part proving numbers and collecting the fast version's
    assumptions (a mixin of ``scalar_translate.Translator``: its ``flags``, ``names``,
    ``writers``, ``is_int`` and state)."""

    def start_versions(self, enabled: bool) -> None:
        self.versions = enabled
        self.assume = False          # writing the fast version
        self.assumed: set[str] = set()
        self.numbers: dict[str, frozenset] = {}
        # element reads that are a number or a string (an item of a str): ``==`` and
        # ``!=`` of those give a bool (LCS of two strings)
        self.comparable: dict[str, frozenset] = {}
        # expressions that are Python ints when some variables the innermost loop never
        # assigns are: expr -> (that loop's LoopFacts, the variables)
        self.loop_ints: dict[str, tuple] = {}
        self.entry_flags = 0

    def versions_state(self) -> tuple:
        """What the facts keyed by value names hold now: a failed alternative restores
        it with the temps' counter, so a reused temp never inherits a stale fact."""
        return dict(self.numbers), dict(self.comparable), dict(self.loop_ints)

    def restore_versions_state(self, state: tuple) -> None:
        self.numbers, self.comparable, self.loop_ints = state

    def start_fast(self) -> None:
        """Reset what the general version's pass proved; the flags are kept (the same
        tests get the same names)."""
        self.assume = True
        self.numbers = {}
        self.comparable = {}

    # -- flags --------------------------------------------------------------
    def flag(self, base: str, test: str) -> str | None:
        """The name of ``test`` (about ``base``'s kind) computed once per run, if
        ``base`` is a variable the subtree never assigns; else None (an empty ``test``:
        only whether it is such a variable, "")."""
        if not (base.startswith("v") and base[1:].isdigit()
                and int(base[1:]) not in self.writers):
            return None
        if not test:
            return ""
        for known, text in self.flags.items():
            if text == test:
                return known
        name = f"f{len(self.flags)}"
        self.flags[name] = test
        return name

    # -- numbers -------------------------------------------------------------
    def number(self, expr: str) -> frozenset | None:
        """The entry tests (pairs (variable, test)) under which ``expr`` holds a number,
        None if not proven."""
        if self.is_int(expr) or expr in ("True", "False"):
            return frozenset()
        known = self.numbers.get(expr)
        if known is not None:
            return known
        value = self.names.get(expr, self) if expr.startswith("c") else self
        if value is not self and type(value) in NUMBERS:
            return frozenset()
        return None

    def numbers_of(self, exprs) -> frozenset | None:
        """The entry tests under which every one of ``exprs`` is a number, else None."""
        flags: frozenset = frozenset()
        for expr in exprs:
            known = self.number(expr)
            if known is None:
                return None
            flags |= known
        return flags

    def use_numbers(self, exprs) -> bool:
        """True if the code being written may take every one of ``exprs`` as a number
        (its entry tests then join the fast version's assumptions)."""
        flags = self.numbers_of(exprs)
        if flags is None or (flags and not self.assume):
            return False
        # the flags are named (computed at entry) only where a fact is used
        self.assumed.update(self.flag(base, test) for base, test in flags)
        return True

    def equality(self, target: str, infix: str, args: list[str]) -> None:
        """``target = args[0] <infix> args[1]``: a number (bool) when both operands are
        numbers, or for ``==``/``!=`` numbers or strings."""
        if infix not in ("==", "!="):
            self.prove(target, self.numbers_of(args))
            return
        flags: frozenset | None = frozenset()   # a number or a string, each
        for arg in args:
            known = self.comparable.get(arg)
            if known is None:
                known = self.number(arg)
            if known is None:
                flags = None
                break
            flags |= known
        self.prove(target, flags)

    def prove(self, target: str, flags: frozenset | None) -> None:
        if flags is None:
            self.numbers.pop(target, None)
        else:
            self.numbers[target] = flags

    def element(self, target: str, base: str, indices: list[str]) -> None:
        """``target = base[indices]`` was written directly: an element of a numeric array
        when every index is a proven int (fast version only)."""
        if not self.assume or not all(self.is_int(i) for i in indices):
            return
        if self.flag(base, "") is not None:   # a variable the loop never assigns
            test = (f"(type({base}) is _nd and {base}.ndim == {len(indices)} "
                    f"and {base}.dtype.type in _NUMBERS)")
            self.numbers[target] = frozenset(((base, test),))
            if len(indices) == 1:
                either = f"({test} or type({base}) is _str)"
                self.comparable[target] = frozenset(((base, either),))

    # -- integer indices ------------------------------------------------------
    def loop_int_variables(self, value: str) -> frozenset | None:
        """The variables that, being Python ints at the entry of the innermost loop,
        make ``value`` a Python int throughout it (None: not proven): each is one the
        loop never assigns or one of its inductive ints (:func:`inductive_ints`)."""
        if not self.loops or self.is_int(value):
            return None
        facts = self.loops[-1]
        known = self.loop_ints.get(value)
        if known is not None:
            return known[1] if known[0] is facts else None
        if value.startswith("v") and value[1:].isdigit():
            slot = int(value[1:])
            if slot not in facts.writes:
                return frozenset((value,))
            sources = self.inductive(facts).get(slot)
            if sources is not None:   # every variable its int-ness rests on
                return frozenset(f"v{s}" for s in sources)
        return None

    def inductive(self, facts) -> dict:
        known = getattr(facts, "inductive", None)
        if known is None:
            known = facts.inductive = inductive_ints(facts.node)
        return known

    def note_int(self, target: str, args: list[str]) -> None:
        """``target`` is ``args[0] <op> args[1]`` for an operator closed over Python
        ints: record it as a Python int when some variables are at the innermost
        loop's entry (:meth:`loop_int_variables`, tested once per run of that loop)."""
        need: set[str] = set()
        for arg in args:
            if self.is_int(arg):
                continue
            variables = self.loop_int_variables(arg)
            if variables is None:
                return
            need |= variables
        if need:
            self.loop_ints[target] = (self.loops[-1], frozenset(need))

    def int_flag(self, value: str) -> str | None:
        """The name of the innermost loop's entry test under which ``value`` is a
        Python int at every step (a knapsack's ``best[c - w]``, ``w`` read in the outer
        loop; ``d[i, j]`` of a ``while j <= n: ... j += 1``), None if not proven."""
        variables = self.loop_int_variables(value)
        if variables is None:
            return None
        facts = self.loops[-1]
        text = " and ".join(f"type({v}) is int" for v in sorted(variables))
        name = facts.entry.get(text)
        if name is None:
            name = facts.entry[text] = f"g{self.entry_flags}"
            self.entry_flags += 1
        return name

    def index_test(self, value: str) -> str:
        """The generated test that ``value`` is an integer index (``_INDEX_INTS``): the
        loop's entry flag first where :meth:`int_flag` proves one."""
        test = f"type({value}) in _ints"
        flag = self.int_flag(value)
        return test if flag is None else f"({flag} or {test})"

    def forget(self, slots) -> None:
        """The locals of ``slots`` may have been assigned where this pass cannot follow."""
        for slot in slots:
            self.numbers.pop(f"v{slot}", None)

    def versioned(self, general: list, fast: list, fast_result: str) -> list:
        """The lines of both versions: the fast one under its assumptions, returning;
        the general one after it.  Just the general one if nothing was assumed."""
        if not self.assumed:
            return general
        condition = " and ".join(sorted(self.assumed, key=lambda f: int(f[1:])))
        return ([(1, f"if {condition}:", None)]
                + [(depth + 1, text, node) for depth, text, node in fast]
                + [(2, f"return {fast_result}", None)] + general)


#: operators of Python ints giving a Python int (or raising)
_INT_OPERATORS = frozenset(("__add", "__sub", "__mul", "__floordiv", "__mod"))


def inductive_ints(loop) -> dict[int, frozenset]:
    """The slots of local variables that every assignment in ``loop``'s subtree keeps a
    Python int when the variables it reads are (an int literal, ``len``, a ``range``
    loop's counter, ``+ - * // %`` of those; ``j += 1``), each mapped to the slots whose
    being Python ints at the loop's entry makes it one at every step of that run (by
    induction over the assignments): itself and every variable its assignments read,
    transitively (``j = k`` rests on ``k``: an array ``k`` makes ``j`` one)."""
    forms: dict[int, list] = {}
    for inner in loop.walk():
        p = inner.primitive
        variable = inner.variable
        if p == "define-variable" or (p == "store" and inner.instance != "__subscript"):
            value = inner.children[0] if len(inner.children) == 1 else None
        elif p == "for_each":
            value = inner.children[0] if inner.children else None
            value = ("range",) if value is not None and (
                value.primitive == "range" and not value.is_const
                or value.is_const and type(value.value) is range) else None
        else:
            continue
        if variable is None or variable[0] is None:
            continue
        slot = variable[2] if variable[0][0] == 0 else -1
        forms.setdefault(slot, []).append(value)
    candidates = {slot for slot in forms if slot >= 0}
    reads: dict[int, set] = {}
    changed = True
    while changed:
        changed = False
        for slot in sorted(candidates):
            read: set = set()
            if not all(_int_form(value, candidates, read) for value in forms[slot]):
                candidates.discard(slot)
                changed = True
            reads[slot] = read
    sources: dict[int, frozenset] = {}
    for slot in candidates:   # the transitive closure of the reads
        closure, todo = {slot}, [slot]
        while todo:
            for other in reads[todo.pop()]:
                if other not in closure:
                    closure.add(other)
                    todo.append(other)
        sources[slot] = frozenset(closure)
    return sources


def _int_form(node, candidates: set, reads: set) -> bool:
    """True if ``node`` gives a Python int when the variables of ``candidates`` hold one
    (the ones it reads are added to ``reads``)."""
    if node is None:
        return False
    if type(node) is tuple:   # a range loop's counter
        return True
    if node.is_const:
        return type(node.value) is int
    p = node.primitive
    if p == "access-variable":
        variable = node.variable
        if (variable is None or variable[0] is None or variable[0][0] != 0
                or variable[2] not in candidates):
            return False
        reads.add(variable[2])
        return True
    if p == "__len":
        return True
    if p in _INT_OPERATORS and len(node.children) == 2:
        return all(_int_form(c, candidates, reads) for c in node.children)
    if p == "__inplace" and len(node.children) == 2:
        # x op= e on a number is op(x, e) (scalar_translate.emit_update; the kernel gives
        # its second operand for a value neither an array nor a list)
        return _int_form(node.children[1], candidates, reads)
    return False
