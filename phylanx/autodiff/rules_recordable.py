"""Equation forms of the common VJP rules, for nested differentiation (``grad(grad(f))``).

The reverse pass of an inner ``grad`` is differentiated by the outer one only if its
steps are primitive applications the outer tape can record (``tape._recorded_rule``).
The kernel rules are NumPy code, fast for a first derivative; the rules below also
carry ``rule.recordable``: the same derivative written as equations of primitives
(:mod:`.equations`), which the engine evaluates primitive by primitive, recording each,
when (and only when) an outer ``grad`` tracks the values.  A rule with neither form is a
located error in nested differentiation, never a missing term.
``tests/autodiff/test_nested.py`` checks every form against its kernel rule on the
finite-difference cases, and second derivatives against JAX.

Cotangents may have the broadcast (output) shape: the engine fits them to the operands
(a recorded step too).  A builder returns None for a spelling it does not cover (a
``__div`` of three operands), which is the same error.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import (  # noqa: F401 (the rules annotated here are registered by these)
    rules_arithmetic,
    rules_keras,
    rules_linalg,
    rules_reductions,
    rules_shape,
    rules_structure,
)
from .equations import eq, shape_of
from .expressions import derivative_equation
from .rule_helpers import count_reduced, is_wanted, reduced_axes, to_bool
from .table import VJP


def recordable(*names: str):
    """Attach ``builder`` as the equation form of the rules of ``names`` (a rule shared by
    several primitives gets one form: attaching a second is an error)."""
    def attach(builder):
        for name in names:
            rule = VJP.get(name)
            if getattr(rule, "recordable", builder) is not builder:
                raise ValueError(f"the VJP rule of {name!r} has an equation form already")
            rule.recordable = builder
        return builder
    return attach


@recordable("__add")
def add_equations(ct, out, *operands, wanted=None):
    if isinstance(out, (list, tuple)):
        return None                      # list + list: Python's concatenation
    return (ct,) * len(operands)


@recordable("__pos")
def pos_equations(ct, out, a, wanted=None):
    return (ct,)


@recordable("__sub")
def sub_equations(ct, out, first, *rest, wanted=None):
    return (ct,) + (eq("__minus", ct),) * len(rest)


@recordable("__minus")
def minus_equations(ct, out, a, wanted=None):
    return (eq("__minus", ct),)


@recordable("__mul")
def mul_equations(ct, out, *operands, wanted=None):
    if isinstance(out, (list, tuple)):
        return None                      # list * n: Python's repetition
    grads = []
    for i in range(len(operands)):
        others = [v for j, v in enumerate(operands) if j != i]
        grads.append(eq("__mul", ct, *others) if is_wanted(wanted, i) else None)
    return tuple(grads)


@recordable("__div")
def div_equations(ct, out, a, *rest, wanted=None):
    # out = a / (b c ...): d a = ct / (b c ...), d b = -ct out / b
    divisor = rest[0] if len(rest) == 1 else eq("__mul", *rest)
    return (eq("__div", ct, divisor) if is_wanted(wanted, 0) else None,) + tuple(
        eq("__minus", eq("__div", eq("__mul", ct, out), b)) if is_wanted(wanted, i + 1)
        else None for i, b in enumerate(rest))


@recordable("power")
def power_equations(ct, out, a, p, wanted=None):
    # d a**p = p a**(p-1) da + a**p log(a) dp
    return (eq("__mul", ct, p, eq("power", a, eq("__sub", p, 1.0)))
            if is_wanted(wanted, 0) else None,
            eq("__mul", ct, out, eq("log", a)) if is_wanted(wanted, 1) else None)


def _unary(derivative):
    def builder(ct, out, x, dtype=None, wanted=None):
        return (eq("__mul", ct, derivative(x, out)),)
    return builder


recordable("exp")(_unary(lambda x, out: out))
recordable("log")(_unary(lambda x, out: eq("__div", 1.0, x)))
recordable("sin")(_unary(lambda x, out: eq("cos", x)))
recordable("cos")(_unary(lambda x, out: eq("__minus", eq("sin", x))))
recordable("tanh")(_unary(lambda x, out: eq("__sub", 1.0, eq("__mul", out, out))))
recordable("square")(_unary(lambda x, out: eq("__mul", 2.0, x)))
recordable("sqrt")(_unary(lambda x, out: eq("__div", 0.5, out)))
recordable("reciprocal")(_unary(lambda x, out: eq("__minus", eq("__mul", out, out))))


def _kept(ct, a, axis, keepdims):
    """The reduction's cotangent with the reduced axes as length 1 (the engine then
    spreads it over the operand)."""
    if axis is None or to_bool(keepdims):
        return ct
    axes = reduced_axes(axis, len(shape_of(a)))
    shape = [1 if i in axes else n for i, n in enumerate(shape_of(a))]
    return eq("reshape", ct, shape)


@recordable("sum")
def sum_equations(ct, out, a, axis=None, keepdims=None, initial=None, dtype=None,
                  wanted=None):
    return (_kept(ct, a, axis, keepdims), None, None, None if initial is None else ct)


@recordable("mean")
def mean_equations(ct, out, a, axis=None, keepdims=None, dummy=None, dtype=None,
                   wanted=None):
    return (eq("__div", _kept(ct, a, axis, keepdims), float(max(count_reduced(a, axis), 1))),)


@recordable("transpose")
def transpose_equations(ct, out, a, axes=None, wanted=None):
    if axes is None:
        return (eq("transpose", ct),)
    order = [int(v) % max(len(shape_of(a)), 1) for v in np.ravel(axes)]
    return (eq("transpose", ct, [int(v) for v in np.argsort(order)]),)


# one rule: reshape, squeeze, expand_dims, astype, __view, __asndarray (rules_shape.py)
@recordable("reshape", "squeeze", "expand_dims", "astype", "__view", "__asndarray")
def reshape_equations(ct, out, a, *rest, wanted=None):
    # back to the operand's shape (the engine casts the cotangent to its dtype)
    return (eq("reshape", ct, list(shape_of(a))),)


@recordable("__copy")
def copy_equations(ct, out, a, wanted=None):
    return None if isinstance(a, (list, tuple, dict)) else (ct,)


def _swapped(m: Any) -> Any:
    """``m`` with its last two axes exchanged (a transpose with axes: recordable too)."""
    rank = len(shape_of(m))
    return eq("transpose", m, list(range(rank - 2)) + [rank - 1, rank - 2])


@recordable("matmul")
def matmul_equations(ct, out, a, b, wanted=None):
    ra, rb = len(shape_of(a)), len(shape_of(b))
    if ra <= 2 and rb <= 2:
        return VJP.get("dot").equations(ct, out, a, b, wanted=wanted)   # matmul is dot here
    if ra < 2 or rb < 2:
        return None                      # a vector times a stack: not covered
    # stacks: the batch axes broadcast, and the engine sums the cotangents over them
    return (eq("matmul", ct, _swapped(b)) if is_wanted(wanted, 0) else None,
            eq("matmul", _swapped(a), ct) if is_wanted(wanted, 1) else None)


# -- piecewise-linear functions and selections: the masks are constants of the derivative

def _extremum_equations(ct, out, *operands, wanted=None):
    """maximum/minimum/fmax/fmin: ``ct`` times the (constant) share of each operand equal
    to the result, ties sharing equally, as the kernel rule."""
    result = np.asarray(out)
    hits = [np.asarray(v) == result for v in operands]
    ties = np.maximum(np.sum([h.astype(np.float64) for h in hits], axis=0), 1.0)
    return tuple(eq("__mul", ct, hit / ties) if is_wanted(wanted, i) else None
                 for i, hit in enumerate(hits))


recordable("maximum", "minimum")(_extremum_equations)


def _nan_ignoring_equations(name: str):
    """fmax/fmin: ``ct`` routed by the (constant) choice of the kernel rule."""
    def builder(ct, out, a, b, wanted=None):
        chosen = np.broadcast_to(rules_arithmetic.nan_ignoring_choice(name, out, a, b),
                                 np.shape(out))
        return (eq("__npwhere", chosen, ct, 0.0) if is_wanted(wanted, 0) else None,
                eq("__npwhere", ~chosen, ct, 0.0) if is_wanted(wanted, 1) else None)
    builder.__name__ = f"{name}_equations"
    return builder


for _name in ("fmax", "fmin"):
    recordable(_name)(_nan_ignoring_equations(_name))


def _where_equations(ct, out, condition, x=None, y=None, wanted=None):
    """where/np.where: ``ct`` routed by the (constant) condition, as the kernel rule
    (``where(c, ct, 0)`` keeps an infinite cotangent where chosen; a product by the mask
    would make NaN where it is not)."""
    chosen = np.asarray(condition).astype(bool)
    return (None,
            eq("__npwhere", chosen, ct, 0.0) if is_wanted(wanted, 1) else None,
            eq("__npwhere", ~chosen, ct, 0.0) if is_wanted(wanted, 2) else None)


recordable("where", "__npwhere")(_where_equations)
# constant slopes, as equations (the kernel rules' ``full_like`` evaluated on an equation
# is not one: the derived form would be wrong, not refused)
recordable("deg2rad")(lambda ct, out, x, dtype=None, wanted=None: (
    eq("__mul", ct, np.pi / 180),))
recordable("rad2deg")(lambda ct, out, x, dtype=None, wanted=None: (
    eq("__mul", ct, 180 / np.pi),))


@recordable("absolute", "__pyabs", "fabs")
def absolute_equations(ct, out, x, dtype=None, wanted=None):
    """|x|: its slope is a constant of the derivative (+1 at 0, as the kernel rule and
    JAX); a complex ``x`` is not covered."""
    if np.iscomplexobj(x):
        return None
    return (eq("__mul", ct, rules_arithmetic.abs_slope(x)),)


@recordable("relu")
def relu_equations(ct, out, x, alpha=rules_keras.NOT_AN_OPERAND, max_value=None,
                   threshold=0.0, wanted=None):
    """x's cotangent times relu's (constant) slope; the settings' cotangents, when they
    are differentiated too, are not covered."""
    if any(is_wanted(wanted, i) for i in (1, 2, 3)) and wanted is not None:
        return None
    alpha = 0.0 if alpha is rules_keras.NOT_AN_OPERAND else float(alpha)
    v = np.asarray(x)
    below = v <= float(threshold)        # at the threshold: the slope from below (the kernel's)
    capped = np.zeros(v.shape, bool) if max_value is None else v >= float(max_value)
    clamped = ~below & (v <= 0)          # at or above a negative threshold: 0 (the kernel's)
    slope = np.where(capped | clamped, 0.0, np.where(below, alpha, 1.0))
    return (eq("__mul", ct, slope),)


# -- the other element-wise functions: their kernel rule's own derivative, on equations ----------

def _derived(derivative):
    """The equation form of ``unary(derivative)``: ``derivative`` evaluated on equations
    (:mod:`.expressions`), the kernel rule's formula itself."""
    def builder(ct, out, x, dtype=None, wanted=None):
        return (eq("__mul", ct, derivative_equation(derivative, x, out)),)
    builder.__name__ = f"{getattr(derivative, '__name__', 'unary')}_equations"
    return builder


#: slope 1 (real operands): the cotangent itself
_IDENTITIES = ("real", "__real", "positive")
recordable(*_IDENTITIES)(lambda ct, out, x, dtype=None, wanted=None: (ct,))


@recordable("conj", "__pyconj")
def conj_equations(ct, out, x, dtype=None, wanted=None):
    return (eq("conj", ct) if np.iscomplexobj(ct) else ct,)


@recordable("imag", "__imag")
def imag_equations(ct, out, x, dtype=None, wanted=None):
    return (eq("__mul", -1j, ct),) if np.iscomplexobj(x) else (None,)
for _name in rules_arithmetic._UNARY:
    if getattr(VJP.get(_name), "recordable", None) is None:
        recordable(_name)(_derived(VJP.get(_name).derivative))


@recordable("sigmoid")
def sigmoid_equations(ct, out, x, wanted=None):
    return (eq("__mul", ct, eq("__mul", out, eq("__sub", 1.0, out))),)


@recordable("softplus")
def softplus_equations(ct, out, x, wanted=None):
    return (eq("__mul", ct, eq("sigmoid", x)),)


@recordable("softsign")
def softsign_equations(ct, out, x, wanted=None):
    return (eq("__div", ct, eq("square", eq("__add", 1.0, eq("absolute", x)))),)


@recordable("softmax")
def softmax_equations(ct, out, x, axis=-1, wanted=None):
    if np.ndim(out) == 0:
        return None
    ax = int(axis) % np.ndim(out)
    weighted = eq("sum", eq("__mul", ct, out), ax, True)
    return (eq("__mul", out, eq("__sub", ct, weighted)),)


@recordable("bias_add")
def bias_add_equations(ct, out, x, bias, wanted=None):
    return (ct, ct)                      # the engine sums the bias's over the leading axes


@recordable("logaddexp")
def logaddexp_equations(ct, out, a, b, wanted=None):
    return tuple(eq("__mul", ct, eq("exp", eq("__sub", v, out))) for v in (a, b))


@recordable("logaddexp2")
def logaddexp2_equations(ct, out, a, b, wanted=None):
    return tuple(eq("__mul", ct, eq("exp2", eq("__sub", v, out))) for v in (a, b))


@recordable("arctan2")
def arctan2_equations(ct, out, y, x, wanted=None):
    r2 = eq("__add", eq("square", x), eq("square", y))
    return (eq("__div", eq("__mul", ct, x), r2),
            eq("__minus", eq("__div", eq("__mul", ct, y), r2)))


@recordable("hypot")
def hypot_equations(ct, out, a, b, wanted=None):
    if np.any(np.asarray(out) == 0):
        return None                      # the kink at 0: the kernel's one-sided choice
    return tuple(eq("__div", eq("__mul", ct, v), out) for v in (a, b))


@recordable("float_power")
def float_power_equations(ct, out, a, b, wanted=None):
    return (eq("__mul", ct, eq("__mul", b, eq("float_power", a, eq("__sub", b, 1.0)))),
            eq("__mul", ct, eq("__mul", out, eq("log", a))))


def _stepped(step):
    """a % b, fmod: slope 1 in a, ``-step(a / b)`` in b (a constant between the jumps)."""
    def builder(ct, out, a, b, wanted=None):
        return (ct, eq("__mul", ct, -step(np.asarray(a, float) / np.asarray(b, float))))
    return builder


recordable("__mod")(_stepped(np.floor))
recordable("fmod")(_stepped(np.trunc))


@recordable("copysign")
def copysign_equations(ct, out, a, b, wanted=None):
    return (eq("__mul", ct, np.copysign(1.0, np.asarray(a, float)) *
               np.copysign(1.0, np.asarray(b, float))), None)


@recordable("clip")
def clip_equations(ct, out, a, a_min=None, a_max=None, wanted=None):
    """``ct`` times the (constant) derivatives of the kernel rule (ties halved)."""
    from .rules_arithmetic import clip_factors

    def route(factor):
        if factor is None:
            return None
        if np.all((factor == 0) | (factor == 1)):          # no tie: a mask
            return eq("__npwhere", factor != 0, ct, 0.0)
        return eq("__mul", ct, np.array(factor))
    return tuple(route(f) for f in clip_factors(a, a_min, a_max))


@recordable("hard_sigmoid")
def hard_sigmoid_equations(ct, out, x, wanted=None):
    inner = 0.2 * np.asarray(x, float) + 0.5
    return (eq("__npwhere", (inner > 0) & (inner < 1), eq("__mul", 0.2, ct), 0.0),)


# -- indexing: scatter and gather are each other's adjoints ----------------------------------

@recordable("__subscript")
def subscript_equations(ct, out, value, *indices, wanted=None):
    if type(value) is not np.ndarray:
        return None                      # lists, tuples, dicts: not covered
    return (eq("__subscript_adjoint", ct, value, *indices),)


@recordable("__subscript_adjoint")
def subscript_adjoint_equations(ct, out, g, like, *indices, wanted=None):
    return (eq("__subscript", ct, *indices), None)


# -- convolutions and pooling: their adjoints are primitives (rules_keras.py) -------------------

@recordable("conv1d", "conv2d")
def conv_equations(ct, out, x, kernel, padding="valid", strides=1, dilation_rate=1,
                   wanted=None):
    settings = (padding, strides, dilation_rate)
    return (eq("__conv_input_adjoint", ct, kernel, x, *settings) if is_wanted(wanted, 0)
            else None,
            eq("__conv_kernel_adjoint", x, ct, kernel, *settings) if is_wanted(wanted, 1)
            else None)


def _pool_equations(name: str):
    def builder(ct, out, x, pool_size, padding="valid", strides=None, wanted=None):
        return (eq("__pool_adjoint", ct, x, name, pool_size, padding, strides),)
    builder.__name__ = f"{name}_equations"
    return builder


for _name in rules_keras.POOLS:
    recordable(_name)(_pool_equations(_name))
