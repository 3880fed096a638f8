"""VJP rules of collectives over localities: a summing ``all_reduce``.

SPMD: every rank's objective depends on the sum of the ranks' addends, and the
objectives add up, so the cotangent of a rank's addend is the sum over the ranks of
their output cotangents: the same collective applied to the cotangent (JAX's ``psum``
is its own transpose).  The rule is written as equations (:mod:`.equations`), so
``phylanx.nn``'s backward pass emits the collective as a statement of its own, started
in program order on every rank, with its own name (``<name>/ct``).  Other reductions
(``max``, ``min`` ...) have no rule: a located error, never a zero gradient; a caller
whose objective does not depend on them (a softmax's shift) says so by making the value
a constant (``Graph.op(..., constant=True)``).
"""
from __future__ import annotations

from ..errors import PhylanxValueError
from .equations import eq, equation_rule, shape_of
from .rule_helpers import is_wanted
from .table import VJP


@VJP.register("all_reduce")
@equation_rule
def all_reduce_vjp(ct, out, value, op="sum", name="", check=None, wanted=None):
    if str(op) != "sum":
        raise PhylanxValueError(
            f"all_reduce with op {str(op)!r} has no gradient rule (only a summing "
            "all_reduce is differentiable); make its result a constant if the objective "
            "does not depend on it")
    if not is_wanted(wanted, 0):
        return (None,)
    extra = () if check is None else (check,)
    return (eq("all_reduce", ct, "sum", f"{name}/ct" if name else "", *extra,
               shape=shape_of(value)),)
