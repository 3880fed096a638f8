"""Equation forms of the array rules: reductions, scans, products and solvers, joins and
rearrangements (for nested differentiation; the element-wise ones and the mechanism are
in :mod:`.rules_recordable`).

Each form is its kernel rule's formula written with primitives, so that an outer
``grad`` records the inner reverse pass step by step.  What the kernel computes from the
primal values only to select (a maximum's ties, a sort's order) is a constant of the
derivative, as in the kernel rule.  A form returns None where it does not cover the
operands (a zero operand of ``prod``, stacks of matrices): a located error in nested
differentiation, never a missing term.
``tests/autodiff/test_second_order.py`` checks every form's second derivative against
JAX's over the registry.
"""
from __future__ import annotations

import numpy as np

from . import rules_linalg, rules_rearrange, rules_reductions, rules_shape  # noqa: F401
from .equations import eq, shape_of
from .rule_helpers import count_reduced, expand_reduced, int_list, reduced_axes
from .rules_recordable import _kept, recordable


def _kept_value(value, a, axis, keepdims):
    """A reduction's output (or cotangent) with the reduced axes as length 1."""
    return _kept(value, a, axis, keepdims)


# -- reductions and scans --------------------------------------------------------------------

@recordable("prod")
def prod_equations(ct, out, a, axis=None, keepdims=None, initial=None, dtype=None,
                   wanted=None):
    if np.any(np.asarray(a) == 0) or (initial is not None and initial == 0):
        return None                 # out / x: the kernel's exclusive products are not covered
    share = eq("__div", _kept_value(out, a, axis, keepdims), a)
    return (eq("__mul", _kept(ct, a, axis, keepdims), share), None, None,
            None if initial is None else eq("__div", eq("__mul", ct, out), initial))


def _extreme_equations(ct, out, a, axis=None, keepdims=None, initial=None, dtype=None,
                       wanted=None):
    """amax/amin: the elements equal to their result share its cotangent (constants)."""
    x = np.asarray(a)
    hits = x == expand_reduced(out, x, axis, keepdims)
    count = np.sum(hits, axis=reduced_axes(axis, x.ndim) or None, keepdims=True)
    return (eq("__mul", _kept(ct, a, axis, keepdims), hits / np.maximum(count, 1)),)


recordable("amax", "amin")(_extreme_equations)


def _centred(a, axis):
    return eq("__sub", a, eq("mean", a, axis, True))


@recordable("var")
def var_equations(ct, out, a, axis=None, keepdims=None, dummy=None, dtype=None, ddof=0,
                  wanted=None):
    n = count_reduced(a, axis) - ddof
    return (eq("__mul", _kept(ct, a, axis, keepdims),
               eq("__mul", _centred(a, axis), 2.0 / n)),)


@recordable("std")
def std_equations(ct, out, a, axis=None, keepdims=None, dummy=None, dtype=None, ddof=0,
                  wanted=None):
    n = count_reduced(a, axis) - ddof
    scale = eq("__mul", _kept_value(out, a, axis, keepdims), float(n))
    return (eq("__div", eq("__mul", _kept(ct, a, axis, keepdims), _centred(a, axis)),
               scale),)


@recordable("logsumexp")
def logsumexp_equations(ct, out, a, axis=None, keepdims=None, dummy=None, dtype=None,
                        wanted=None):
    return (eq("__mul", _kept(ct, a, axis, keepdims),
               eq("exp", eq("__sub", a, _kept_value(out, a, axis, keepdims)))),)


def _suffix_sums(ct, a, axis):
    """The reversed cumulative sums of ``ct`` along the scanned axis (cumsum's adjoint),
    back in ``a``'s shape."""
    ax = rules_reductions._scan_axis(a, axis)
    if ax is None:                  # the flattened operand was scanned
        flat = eq("flip", eq("cumsum", eq("flip", ct, 0), 0), 0)
        return eq("reshape", flat, list(shape_of(a)))
    return eq("flip", eq("cumsum", eq("flip", ct, ax), ax), ax)


@recordable("cumsum")
def cumsum_equations(ct, out, a, axis=None, dtype=None, wanted=None):
    return (_suffix_sums(ct, a, axis),)


@recordable("cumprod")
def cumprod_equations(ct, out, a, axis=None, dtype=None, wanted=None):
    if np.any(np.asarray(a) == 0):
        return None     # the quotient form needs operands without zeros
    ax = rules_reductions._scan_axis(a, axis)
    scanned = eq("__mul", ct, out)
    if ax is None:
        scanned = eq("reshape", scanned, [int(np.size(a))])
    return (eq("__div", _suffix_sums(scanned, a, axis), a),)


@recordable("trace")
def trace_equations(ct, out, a, dtype=None, offset=0, wanted=None):
    shape = shape_of(a)
    eye = np.eye(shape[0], shape[1], int(offset)).reshape(shape[:2] + (1,) * (len(shape) - 2))
    return (eq("__mul", ct, eye),)


# -- products and solvers (single matrices; stacks are not covered) --------------------------

def _transposed(m):
    return eq("transpose", m)


@recordable("outer")
def outer_equations(ct, out, a, b, wanted=None):
    if len(shape_of(a)) != 1 or len(shape_of(b)) != 1:
        return None
    return (eq("dot", ct, b), eq("dot", a, ct))


@recordable("vdot")
def vdot_equations(ct, out, a, b, wanted=None):
    sa, sb = list(shape_of(a)), list(shape_of(b))
    return (eq("__mul", ct, eq("reshape", b, sa)), eq("__mul", ct, eq("reshape", a, sb)))


@recordable("inverse", "invGJE")
def inverse_equations(ct, out, a, wanted=None):
    if len(shape_of(a)) != 2:
        return None
    inv_t = _transposed(out)
    return (eq("__minus", eq("dot", eq("dot", inv_t, ct), inv_t)),)


@recordable("determinant")
def determinant_equations(ct, out, a, wanted=None):
    if len(shape_of(a)) != 2 or np.any(np.asarray(out) == 0):
        return None     # a singular matrix: the kernel's SVD cofactors are not equations
    return (eq("__mul", eq("__mul", ct, out), _transposed(eq("inverse", a))),)


@recordable("slogdet")
def slogdet_equations(ct, out, a, wanted=None):
    if len(shape_of(a)) != 2:
        return None
    if ct[1] is None:
        return (None,)              # only the (piecewise constant) sign was used
    return (eq("__mul", ct[1], _transposed(eq("inverse", a))),)


@recordable("solve")
def solve_equations(ct, out, a, b, wanted=None):
    if len(shape_of(a)) != 2:
        return None
    g = eq("solve", _transposed(a), ct)
    if len(shape_of(b)) == 1:
        return (eq("__minus", eq("outer", g, out)), g)
    return (eq("__minus", eq("dot", g, _transposed(out))), g)


# -- joins and rearrangements: linear, their adjoints move the cotangent back --------------

@recordable("concatenate")
def concatenate_equations(ct, out, arrays, axis=0, wanted=None):
    if axis is None or not isinstance(arrays, (list, tuple)):
        return None
    rank = len(shape_of(out))
    ax, start, parts = int(axis) % rank, 0, []
    for piece in arrays:
        width = shape_of(piece)[ax]
        ranges = [[0, n] for n in shape_of(out)]
        ranges[ax] = [start, start + width]
        parts.append(eq("__subscript", ct, *ranges))
        start += width
    return (parts,)


@recordable("flip")
def flip_equations(ct, out, a, axis=None, wanted=None):
    return (eq("flip", ct, axis),)


recordable("flipud")(lambda ct, out, a, wanted=None: (eq("flipud", ct),))
recordable("fliplr")(lambda ct, out, a, wanted=None: (eq("fliplr", ct),))


@recordable("flatten", "ravel")
def flatten_equations(ct, out, a, order=None, wanted=None):
    if order == "F":
        return None
    return (eq("reshape", ct, list(shape_of(a))),)


@recordable("__npreshape")
def npreshape_equations(ct, out, a, shape, order="C", wanted=None):
    return (eq("__npreshape", ct, list(shape_of(a)), order or "C"), None, None)


@recordable("broadcast_to")
def broadcast_to_equations(ct, out, a, shape, wanted=None):
    return (ct, None)               # the engine sums it over the broadcast axes (recorded)


@recordable("tril")
def tril_equations(ct, out, m, k=0, wanted=None):
    return (eq("tril", ct, int(k)), None)


@recordable("triu")
def triu_equations(ct, out, m, k=0, wanted=None):
    return (eq("triu", ct, int(k)), None)


@recordable("roll")
def roll_equations(ct, out, a, shift, axis=None, wanted=None):
    back = [-s for s in int_list(shift)]
    return (eq("roll", ct, back if len(back) > 1 else back[0], axis), None, None)


@recordable("diag")
def diag_equations(ct, out, v, k=0, wanted=None):
    shape = shape_of(v)
    if len(shape) != 1 and (len(shape) != 2 or shape[0] != shape[1]):
        return None                 # the diagonal of a non-square matrix: not covered
    return (eq("diag", ct, 0 if k is None else int(k)),)


@recordable("constant_like", "__npconstant_like")
def constant_like_equations(ct, out, value, a, dtype=None, wanted=None):
    # the value's cotangent: ct, which the engine sums over what it was broadcast to
    return (ct if np.asarray(out).dtype.kind in "fc" else None, None, None)


@recordable("full_like")
def full_like_equations(ct, out, a, value, dtype=None, wanted=None):
    return (None, ct if np.asarray(out).dtype.kind in "fc" else None, None)
