"""The VJP table: one vector-Jacobian-product rule per differentiable primitive, by name.

The table itself is ``phylanx.primitives.rules.VJP`` (the registry keeps a primitive's
identity, each transformation its own rules); it covers the primitives flagged
``differentiable``, and registering a rule for any other is an error.

A VJP rule receives the output cotangent, the primitive's output and its evaluated
arguments, and returns one cotangent per argument (``None`` where no gradient flows)::

    @VJP.register("sin")
    def sin_vjp(ct, out, x, dtype=None):
        return (ct * np.cos(x),)

The engine then sums cotangents over broadcast axes and casts them to each operand's
dtype, so rules may return cotangents of the broadcast (output) shape.
"""
from __future__ import annotations

from ..primitives.rules import VJP, RuleTable

__all__ = ["VJP", "RuleTable"]
