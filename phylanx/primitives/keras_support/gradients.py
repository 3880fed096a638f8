"""Keras-support gradients: ``vjp``, one recorded VJP rule applied inside an execution tree.

``phylanx.nn`` compiles a training step (forward, backward, update) into one PhySL
function.  Its backward statements are generated from the forward statements; most are
ordinary primitives (``dot``, ``transpose``, arithmetic), but the cotangents of kernels
such as ``conv1d`` or ``categorical_crossentropy`` are what their VJP rule computes, and
``vjp`` applies that rule as a pure primitive, so the statements around it may still run
concurrently (a call of a Python function value would stop the block's overlap).
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxValueError
from ..registry import primitive
from ..rules import VJP, apply_vjp, unbroadcast


def _rule(name: str):
    # the rules are registered by phylanx.autodiff, a layer above the primitives: the
    # table imports it on first use, so PhySL code may call vjp without importing it
    rule = VJP.get(name)
    if rule is None:
        raise PhylanxValueError(f"vjp: '{name}' has no VJP rule (see docs/autodiff.md)")
    return rule


def _fit(ct, operand):
    """``ct`` as the cotangent of ``operand`` (the VJP convention's one ``unbroadcast``);
    None for an operand that carries no gradient (integer, boolean, string, nil); a list
    operand's cotangents as the rule gave them."""
    if ct is None or isinstance(operand, (list, str)) or operand is None:
        return ct if isinstance(operand, list) else None
    if np.asarray(operand).dtype.kind not in "fc":
        return None                    # integer and boolean operands carry no gradient
    ct = unbroadcast(ct, np.asarray(operand))
    return ct[()] if ct.ndim == 0 else ct


@primitive(
    "vjp", "vjp(_1_primitive, _2_cotangent, _3_output, __1)", extension=True,
    no_oracle="applies the VJP rules, which tests/autodiff/test_rules.py checks against "
    "finite differences; vjp itself is checked in tests/nn/test_graph.py",
    example='vjp("__mul", 1.0, 6.0, 2.0, 3.0)', result="list(3.0, 2.0)",
)
def vjp(primitive, cotangent, output, *operands):
    """The cotangents of ``operands`` of ``output = primitive(*operands)`` for ``cotangent``.

    One item per operand, shaped and typed like it (nil where no gradient flows: integer
    operands, or operands the rule leaves out).  The operands must be passed positionally,
    exactly as the primitive got them.
    """
    return _cotangents(primitive, None, cotangent, output, operands)


def _cotangents(primitive, wanted, cotangent, output, operands) -> list:
    grads = apply_vjp(_rule(str(primitive)), cotangent, output, operands, wanted)
    return [None if wanted is not None and not wanted[i] else _fit(g, a)
            for i, (g, a) in enumerate(zip(grads, operands))]


@primitive(
    "vjp_of", "vjp_of(_1_primitive, _2_wanted, _3_cotangent, _4_output, __1)",
    extension=True,
    no_oracle="vjp for the operands flagged in wanted: tests/nn/test_graph.py compares "
    "it with vjp",
    example='vjp_of("__mul", list(true, false), 1.0, 6.0, 2.0, 3.0)', result="list(3.0, nil)",
)
def vjp_of(primitive, wanted, cotangent, output, *operands):
    """Like ``vjp``, for the operands flagged in ``wanted`` only (the others are nil).

    ``wanted`` has one boolean per operand.  A rule that can skip work (declared
    selective, e.g. ``conv1d``: a first layer's input needs no cotangent) does.
    """
    flags = tuple(bool(w) for w in wanted)
    if len(flags) != len(operands):
        raise PhylanxValueError(f"vjp_of: {len(flags)} wanted flags for {len(operands)} "
                                "operands")
    return _cotangents(primitive, flags, cotangent, output, operands)
