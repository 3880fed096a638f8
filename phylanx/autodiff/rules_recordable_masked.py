"""Equation forms (for nested differentiation; the mechanism is in
:mod:`.rules_recordable`) of adb50's rules: the NaN-skipping and masked reductions
(``nansum``, ``nanmean``, ``__masked_mean``), ``ldexp``, ``nan_to_num``, ``kron`` and
``convolve``.  Which elements count (not NaN, selected, finite) is a constant of the
derivative, as in the kernel rules; ``kron`` and ``convolve`` are bilinear, so each
operand's cotangent is the same product of the cotangent with the other operand.
``tests/autodiff/test_second_order.py`` checks them.
"""
from __future__ import annotations

import string

import numpy as np

from . import rules_arithmetic, rules_products, rules_reductions  # noqa: F401
from .equations import eq, shape_of
from .rule_helpers import arr, reduced_axes
from .rules_recordable import _kept, recordable


def _share(ct, a, axis, keepdims, kept: np.ndarray):
    """The reduction's cotangent on the ``kept`` elements divided by their count along
    the reduced axes, zero elsewhere (a mean over ``kept``)."""
    count = np.sum(kept, axis=reduced_axes(axis, kept.ndim) or None, keepdims=True)
    return eq("__npwhere", kept, eq("__div", _kept(ct, a, axis, keepdims),
                                    np.maximum(count, 1).astype(np.float64)), 0.0)


@recordable("nansum")
def nansum_equations(ct, out, a, axis=None, dtype=None, keepdims=False, wanted=None):
    return (eq("__npwhere", ~np.isnan(arr(a)), _kept(ct, a, axis, keepdims), 0.0),)


@recordable("nanmean")
def nanmean_equations(ct, out, a, axis=None, dtype=None, keepdims=False, wanted=None):
    return (_share(ct, a, axis, keepdims, ~np.isnan(arr(a))),)


@recordable("__masked_mean")
def masked_mean_equations(ct, out, a, where, axis=None, keepdims=None, dtype=None,
                          wanted=None):
    kept = np.broadcast_to(np.asarray(where), np.shape(arr(a)))
    return _share(ct, a, axis, keepdims, kept), None


@recordable("ldexp")
def ldexp_equations(ct, out, a, b, wanted=None):
    return eq("ldexp", ct, np.asarray(b)), None


@recordable("nan_to_num")
def nan_to_num_equations(ct, out, x, copy=True, nan=0.0, posinf=None, neginf=None,
                         wanted=None):
    value = np.broadcast_to(arr(x), shape_of(ct))

    def replaced(where, by):
        return None if by is None else eq("sum", eq("__npwhere", where, ct, 0.0))
    return (eq("__npwhere", np.isfinite(value), ct, 0.0), None,
            replaced(np.isnan(value), nan), replaced(np.isposinf(value), posinf),
            replaced(np.isneginf(value), neginf))


@recordable("kron")
def kron_equations(ct, out, a, b, wanted=None):
    """The kernel rule's contractions (:func:`.rules_products.kron_vjp`) as einsums."""
    xs, ys = list(shape_of(a)), list(shape_of(b))
    rank = max(len(xs), len(ys))
    xs, ys = [1] * (rank - len(xs)) + xs, [1] * (rank - len(ys)) + ys
    c = eq("reshape", ct, [d for pair in zip(xs, ys) for d in pair])
    i, k = string.ascii_letters[:rank], string.ascii_letters[rank:2 * rank]
    both = "".join(p + q for p, q in zip(i, k))
    da = eq("einsum", f"{both},{k}->{i}", c, eq("reshape", b, ys))
    db = eq("einsum", f"{both},{i}->{k}", c, eq("reshape", a, xs))
    return eq("reshape", da, list(shape_of(a))), eq("reshape", db, list(shape_of(b)))


@recordable("convolve")
def convolve_equations(ct, out, a, v, mode="full", wanted=None):
    """Mode "full" only: the other modes' windows (a padded cotangent) are not covered
    (None: a located error in nested differentiation)."""
    if mode != "full" or len(shape_of(a)) != 1 or len(shape_of(v)) != 1:
        return None
    return (eq("convolve", ct, eq("flip", v), "valid"),
            eq("convolve", ct, eq("flip", a), "valid"), None)
