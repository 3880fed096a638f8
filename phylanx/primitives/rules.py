"""Rule tables: what a later layer knows about a primitive, kept apart from its declaration.

A primitive's identity (name, signature, implementation, docs) is declared once, in
its category module.  What a *transformation* needs to know about it — how to
differentiate it, how to run it on tiled distributed arrays, whether it can be fused
into an element-wise loop — is a *rule* that the transformation's own layer attaches
by name, the way JAX keeps a primitive apart from the rules each interpreter registers.
The declaration says which primitives a table is meant to cover (a flag), the layer
supplies the rules::

    from phylanx.primitives.rules import VJP

    @VJP.register("sin")
    def sin_vjp(cotangent, x, dtype=None):
        return (cotangent * np.cos(x),)

    VJP.get("sin")          # the rule, or None
    VJP.missing()           # differentiable primitives without a rule yet

Registering a rule for an unknown name, twice, or for a primitive the table does not
apply to (a VJP rule for a primitive not flagged ``differentiable``) raises
``ValueError`` naming it.  ``phylanx primitives --coverage`` prints each table's
coverage; ``tests/primitives/test_rules.py`` checks every registered rule.

The three tables and the flag each covers (the rules' calling conventions are the
business of the layer that interprets them):

* :data:`VJP` — reverse-mode derivatives (autodiff), covers ``differentiable``;
* :data:`DISTRIBUTION` — tiled distributed execution, covers ``distributable``;
* :data:`FUSION` — element-wise loop fusion, covers ``elementwise``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .registry import PrimitiveSpec, all_specs, lookup


class RuleTable:
    """Rules of one transformation, keyed by primitive name."""

    def __init__(self, name: str, applies_to: Callable[[PrimitiveSpec], bool],
                 covers: str, filled_by: str | None = None) -> None:
        self.name = name
        self.applies_to = applies_to
        self.covers = covers            # what ``applies_to`` selects, for messages
        self._rules: dict[str, Any] = {}
        # the interpreter's package whose import registers the rules; imported on the
        # first question about the whole table, so that reports see every rule without
        # ``import phylanx`` paying for that layer.  The layer above sets it
        # (``phylanx/_wiring.py``): the primitives never name the layers above them
        self.filled_by = filled_by

    def _fill(self) -> None:
        # ``filled_by`` is cleared only once its import has *finished*: a thread asking
        # meanwhile imports it too, and Python's per-module import lock makes it wait
        # until the first thread's import is done, so no reader sees a half-filled
        # table (a missing VJP rule would read as "not differentiable").  The importing
        # thread itself re-enters without waiting (the module lock is re-entrant and
        # the half-imported module is in sys.modules).  No lock of our own: one held
        # around an import deadlocks with a thread importing the module directly.  A
        # failed import leaves ``filled_by`` set: the error reaches the caller, and the
        # next question tries again rather than answering from a partial table.
        filled_by = self.filled_by
        if filled_by is not None:
            import importlib
            importlib.import_module(filled_by)
            self.filled_by = None

    def defrule(self, primitive_name: str, rule: Any) -> Any:
        """Attach ``rule`` to the primitive ``primitive_name``; returns ``rule``."""
        spec = lookup(primitive_name)
        if spec is None or spec.name != primitive_name:
            raise ValueError(f"{self.name} rule for {primitive_name!r}: no such primitive "
                             "(an alias or dtype variant shares its primitive's rule)")
        if primitive_name in self._rules:
            raise ValueError(f"{self.name} rule for {primitive_name!r} registered twice")
        if not self.applies_to(spec):
            raise ValueError(f"{self.name} rule for {primitive_name!r}: the primitive is not "
                             f"{self.covers} (set the flag in its declaration first)")
        self._rules[primitive_name] = rule
        return rule

    def register(self, *primitive_names: str) -> Callable[[Any], Any]:
        """Decorator form of :meth:`defrule`; one rule may serve several primitives."""
        def attach(rule: Any) -> Any:
            for name in primitive_names:
                self.defrule(name, rule)
            return rule
        return attach

    def __contains__(self, primitive_name: str) -> bool:
        return self.get(primitive_name) is not None

    def get(self, primitive_name: str) -> Any | None:
        """The rule of ``primitive_name`` (aliases and dtype variants included), or None."""
        self._fill()
        spec = lookup(primitive_name)
        return None if spec is None else self._rules.get(spec.name)

    def names(self) -> list[str]:
        """The primitives that have a rule."""
        self._fill()
        return sorted(self._rules)

    def expected(self) -> list[str]:
        """The primitives this table should cover (``applies_to``)."""
        return sorted(spec.name for spec in all_specs() if self.applies_to(spec))

    def missing(self) -> list[str]:
        """The primitives this table should cover but has no rule for."""
        self._fill()
        return [name for name in self.expected() if name not in self._rules]

    def coverage_line(self) -> str:
        self._fill()
        expected = self.expected()
        covered = sum(1 for name in expected if name in self._rules)
        return f"{self.name} rules: {covered} of {len(expected)} {self.covers} primitives"

    def __repr__(self) -> str:
        return f"<RuleTable {self.name}: {len(self._rules)} rules>"


#: filled by the layers above (which one: ``phylanx/_wiring.py``; never named here)
VJP = RuleTable("vjp", lambda spec: spec.differentiable, "differentiable")


def apply_vjp(rule: Any, ct: Any, out: Any, operands: Any, wanted: tuple | None,
              saved: Any = None) -> tuple:
    """``rule``'s cotangents of ``operands`` (one per operand, None past the rule's),
    asking a selective rule (``autodiff.rule_helpers.selective``) only for ``wanted``;
    ``saved``: what the forward kept for the rule (``autodiff/saved.py``; its rules
    are selective)."""
    if saved is not None:
        grads = tuple(rule(ct, out, *operands, wanted=wanted, saved=saved))
    elif wanted is not None and getattr(rule, "selective", False):
        grads = tuple(rule(ct, out, *operands, wanted=wanted))
    else:
        grads = tuple(rule(ct, out, *operands))
    return grads + (None,) * (len(operands) - len(grads))


def sum_leading_axes(ct: Any, count: int) -> Any:
    """``ct`` summed over its first ``count`` axes (a bias's cotangent: the batch and
    positions of a layer's output).

    A C-contiguous float32/float64 array is read as a matrix of ``prod(leading)`` rows and
    summed as the product ``ones @ rows`` (BLAS's gemv): NumPy's ``sum`` over leading axes
    adds the rows one short inner loop at a time (a Conv1D bias's 7936 rows of 32: 130 us
    against 27, ``benchmarks/vjp_rules.py``, part ``bias``, loaded machine).  The same
    sum in another order of additions (both accumulate in the array's dtype); other
    arrays: ``sum``."""
    import numpy as np
    if (type(ct) is np.ndarray and ct.dtype.char in "fd" and ct.flags.c_contiguous
            and ct.ndim > count and ct.size):
        rows = int(np.prod(ct.shape[:count], dtype=np.int64))
        return (np.ones(rows, ct.dtype) @ ct.reshape(rows, -1)).reshape(ct.shape[count:])
    return ct.sum(axis=tuple(range(count)))


def unbroadcast(ct: Any, operand: Any) -> Any:
    """``ct``, a cotangent of the broadcast (output) shape, summed over the axes along
    which ``operand`` was broadcast and cast to its float dtype (float64 for an integer
    or boolean operand; the real part for a real operand): the one unbroadcast of the VJP
    convention, used by ``grad``'s tape and by the ``vjp`` primitives alike."""
    import numpy as np
    ct = np.asarray(ct)
    shape = np.shape(operand)
    if ct.shape != shape:
        extra = ct.ndim - len(shape)
        if extra > 0:
            ct = sum_leading_axes(ct, extra)
        elif extra < 0:
            ct = ct.reshape((1,) * -extra + ct.shape)
        axes = tuple(i for i, (c, s) in enumerate(zip(ct.shape, shape)) if s == 1 and c != 1)
        if axes:
            ct = ct.sum(axis=axes, keepdims=True)
        if ct.shape != shape:
            ct = np.broadcast_to(ct, shape)   # a scalar cotangent of a whole operand
    dtype = getattr(operand, "dtype", None)
    if dtype is None or dtype.kind not in "fc":      # a Python complex keeps its imaginary part
        dtype = np.dtype(np.complex128 if type(operand) is complex else np.float64)
    if ct.dtype != dtype:
        ct = ct.astype(dtype) if dtype.kind == "c" or ct.dtype.kind != "c" else \
            ct.real.astype(dtype)
    return ct


DISTRIBUTION = RuleTable("distribution", lambda spec: spec.distributable, "distributable")
FUSION = RuleTable("fusion", lambda spec: spec.elementwise, "elementwise")

#: every rule table, for coverage reports and tests
TABLES: tuple[RuleTable, ...] = (VJP, DISTRIBUTION, FUSION)
