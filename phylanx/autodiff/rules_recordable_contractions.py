"""Equation forms of the contraction rules written with ``einsum``: ``einsum`` itself,
``tensordot`` and ``cross`` (for nested differentiation; the mechanism is in
:mod:`.rules_recordable`).

Each is linear in every operand, so an operand's cotangent is the same contraction of
the output's cotangent with the other operands (one ``einsum``, as the kernel rule
computes it: :func:`.rules_einsum.cotangent_einsums`, :func:`.rules_linalg.
contraction_subscripts`), and ``cross``'s are ``cross`` products again.  The identity
and ones factors the einsums take are constants of the derivative.
``tests/autodiff/test_second_order.py`` checks their second derivatives.
"""
from __future__ import annotations

import numpy as np

from .equations import eq, shape_of
from .rule_helpers import arr
from .rules_einsum import cotangent_einsums
from .rules_linalg import contraction_subscripts, tensordot_axes
from .rules_recordable import recordable


def _at(value, shape: list):
    """``value`` broadcast to ``shape`` (a recorded step only where it is not that)."""
    return value if list(shape_of(value)) == shape else eq("broadcast_to", value, shape)


@recordable("einsum")
def einsum_equations(ct, out, subscripts, *operands, wanted=None):
    terms, sizes, output, plans = cotangent_einsums(subscripts, list(operands))
    full = [_at(v, [sizes[c] for c in t]) for t, v in zip(terms, operands)]
    seed = _at(ct, [sizes[c] for c in output])
    dtype = np.result_type(np.asarray(ct), *(arr(v) for v in operands))
    grads = []
    for spec, keys in plans:
        factors = [k.astype(dtype, copy=False) if isinstance(k, np.ndarray)
                   else seed if isinstance(k, str) else full[k] for k in keys]
        grads.append(eq("einsum", spec, *factors))
    return (None, *grads)


@recordable("tensordot")
def tensordot_equations(ct, out, a, b, axes=2, wanted=None):
    x, y = arr(a), arr(b)
    for_a, for_b = contraction_subscripts(x, y, *tensordot_axes(x, y, axes))
    return eq("einsum", for_a, ct, b), eq("einsum", for_b, ct, a), None


def _component(v, k: int):
    """``v[..., k]``."""
    return eq("__subscript", v, *([None] * (len(shape_of(v)) - 1)), k)


@recordable("cross")
def cross_equations(ct, out, a, b, wanted=None):
    na, nb = shape_of(a)[-1], shape_of(b)[-1]
    if na == nb == 3:           # <ct, a x b> = <b x ct, a> = <ct x a, b>
        return eq("cross", b, ct), eq("cross", ct, a)
    if na == nb == 2:           # the z component only: a0 b1 - a1 b0
        return (eq("__npstack", [eq("__mul", ct, _component(b, 1)),
                                 eq("__minus", eq("__mul", ct, _component(b, 0)))], -1),
                eq("__npstack", [eq("__minus", eq("__mul", ct, _component(a, 1))),
                                 eq("__mul", ct, _component(a, 0))], -1))
    return None                 # a 2-vector with a 3-vector: not covered
