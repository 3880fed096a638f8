"""Second derivatives through every VJP rule of the registry (issue 29 item 3).

For every primitive with a rule and input cases (``cases.py``), on its first case:
``F(x) = sum(o * (q + r * o))`` over the primitive's float outputs ``o`` (random ``q``,
``r``: the output's cotangent then depends on ``x``, so the rule is differentiated in
both its operands and its cotangent), and the Hessian-vector product
``grad(x -> <v, grad(F)(x)>)`` over all float operands at once (cross terms included).
The inner reverse pass is recorded on the outer tape step by step
(``tape._recorded_rule``), so the second derivative comes from the rule's own equation
form, never from a second hand-written rule; a rule without one is a located error.

Oracles: every primitive against central differences of the first-order gradient along
``v`` (kernel rules, each compared with ``jax.vjp`` by ``test_rules_jax.py``); the
primitives of ``JAX_ALWAYS`` against JAX's reverse-over-reverse product, and all with a
JAX counterpart when ``PHYLANX_SECOND_ORDER_JAX=1`` (JAX runs op by op here: about
0.3 s a primitive idle, too slow for every run).  ``NOT_YET_RECORDABLE`` lists the rules
without an equation form (strict xfails: a form added must remove its entry), and
``phylanx primitives --coverage`` reports the same.
"""
from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from phylanx.autodiff import VJP, PhylanxGradientError, grad
from phylanx.autodiff.recording import recording_kernel
from phylanx.cli.primitives import gradient_coverage_lines
from phylanx.primitives import registry

from .cases import CASES, RECORDER_ONLY
from .test_rules_jax import JAX, _place, _slots

jax.config.update("jax_enable_x64", True)

#: primitives whose second derivative JAX itself does not give, with the reason
JAX_CANNOT: dict[str, str] = {}

NAMES = sorted(n for n in CASES if n in VJP.names() and n not in RECORDER_ONLY
               and n not in JAX_CANNOT)

#: rules without an equation form yet (a located error in nested differentiation);
#: strict: a form added makes its test pass, and the entry must go
NOT_YET_RECORDABLE: dict[str, str] = {     # (svd, pinv, lstsq until ad46)
    **{name: "ad50's first-order rule (NumPy code, no equation form yet)" for name in (
        "take", "take_along_axis", "diff", "rot90", "inner", "__pyconvert", "__pymath")},
    **{name: "adb50's first-order rule (NumPy code, no equation form yet)" for name in (
        "interp", "average", "__npappend")},
}

#: compared with JAX's second derivative on every run: a scan, a masked function, a
#: solver (JAX's reverse-over-reverse runs op by op here: about 0.3 s a primitive idle,
#: so the whole registry is compared only with PHYLANX_SECOND_ORDER_JAX=1, within the
#: suite's time budget; every run compares all with central differences of the
#: first-order gradient, itself compared with jax.vjp rule by rule; matrix_power's
#: Hessian is compared with JAX's in test_matrix_power.py)
JAX_ALWAYS = ("cumsum", "clip", "solve")
JAX_NAMES = [n for n in NAMES if n in JAX and (
    n in JAX_ALWAYS or os.environ.get("PHYLANX_SECOND_ORDER_JAX"))]


def _call(name, *args):
    """``name(*args)`` as a differentiated function's primitive runs: recorded on the
    active tapes (the inner one and, nested, the outer one)."""
    return recording_kernel(name, registry.lookup(name).impl, None)(*args)


def _as_list(out):
    return list(out) if type(out) in (list, tuple) else [out]


def _differentiable(o) -> bool:
    return np.asarray(o).dtype.kind == "f"


def _transform(fn):
    # differentiated as Python under the outer tape, as grad(f) itself is
    fn.__phylanx_transform__ = True
    return fn


def _weights(name, outs, seed):
    rng = np.random.default_rng(seed)
    weights = [(rng.standard_normal(np.shape(o)), rng.standard_normal(np.shape(o)))
               for o in outs]
    if name == "categorical_crossentropy" and len(outs) == 2:
        weights[1] = (np.zeros(np.shape(outs[1])),) * 2    # the loss carries the gradient
    return weights


def phylanx_hvp_inner(name, args, slots, weights):
    """grad(F) over all float operands, F as in the module doc."""
    def scalar(*values):
        total = None
        for o, (q, r) in zip(_as_list(_call(name, *_place(args, slots, values))), weights):
            if not _differentiable(o):
                continue
            term = _call("sum", _call("__mul", o, _call("__add", q, _call("__mul", r, o))))
            total = term if total is None else _call("__add", total, term)
        return total

    return grad(_transform(scalar), tuple(range(len(slots))))


def phylanx_hvp(name, args, slots, floats, weights, directions):
    positions = tuple(range(len(floats)))
    gradient = phylanx_hvp_inner(name, args, slots, weights)

    def along(*values):
        total = None
        for g, v in zip(gradient(*values), directions):
            term = _call("sum", _call("__mul", g, v))
            total = term if total is None else _call("__add", total, term)
        return total

    return grad(_transform(along), positions)(*floats)


def jax_hvp(name, args, slots, floats, weights, directions):
    def scalar(*values):
        outs = _as_list(JAX[name](*_place(args, slots, values)))
        return sum(jnp.sum(o * (q + r * o)) for o, (q, r) in zip(outs, weights)
                   if jnp.issubdtype(jnp.asarray(o).dtype, jnp.floating))

    positions = tuple(range(len(floats)))

    def along(*values):
        return sum(jnp.vdot(g, v) for g, v in zip(jax.grad(scalar, positions)(*values),
                                                  directions))

    return jax.grad(along, positions)(*[jnp.asarray(v) for v in floats])


def _problem(name, k=0):
    args = list(CASES[name][k])
    slots = _slots(args)
    floats = [np.asarray(args[i] if j is None else args[i][j], np.float64) for i, j in slots]
    outs = _as_list(registry.lookup(name).impl(*args))
    weights = _weights(name, outs, 29)
    directions = [np.random.default_rng(k + 3).standard_normal(np.shape(v))
                  for k, v in enumerate(floats)]
    return args, slots, floats, weights, directions


def _not_yet(names):
    return [pytest.param(n, marks=pytest.mark.xfail(
        raises=PhylanxGradientError, strict=True, reason=NOT_YET_RECORDABLE[n]))
        if n in NOT_YET_RECORDABLE else n for n in names]


def _assert_close(got, want, name, rtol):
    for k, (g, w) in enumerate(zip(got, want)):
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0)))
        np.testing.assert_allclose(np.asarray(g, np.float64), w, rtol=rtol,
                                   atol=rtol * 1e-2 * scale, err_msg=f"{name}, operand {k}")


def first_order_difference(name, args, slots, floats, weights, directions, eps=1e-5):
    """``(g(x + eps v) - g(x - eps v)) / 2 eps`` of the first-order gradient ``g`` of the
    same function (kernel rules, each checked against ``jax.vjp`` by test_rules_jax)."""
    def gradient(sign):
        moved = [x + sign * eps * v for x, v in zip(floats, directions)]
        return phylanx_hvp_inner(name, args, slots, weights)(*moved)
    return [(p - m) / (2 * eps) for p, m in zip(gradient(1.0), gradient(-1.0))]


@pytest.mark.parametrize("name", _not_yet(NAMES))
def test_second_derivative_equals_central_differences_of_the_gradient(name):
    problem = _problem(name)
    got = phylanx_hvp(name, *problem)
    _assert_close(got, first_order_difference(name, *problem), name, 1e-6)


#: the SVD family (forms since ad46) on every case, not only the first: tall and wide,
#: full_matrices, compute_uv false, hermitian, several right-hand sides
EVERY_CASE = [(n, k) for n in ("lstsq", "pinv", "svd") for k in range(1, len(CASES[n]))]


@pytest.mark.parametrize(("name", "k"), EVERY_CASE, ids=[f"{n}-{k}" for n, k in EVERY_CASE])
def test_second_derivative_of_every_svd_case_equals_central_differences(name, k):
    problem = _problem(name, k)
    _assert_close(phylanx_hvp(name, *problem), first_order_difference(name, *problem),
                  f"{name} case {k}", 1e-6)


@pytest.mark.parametrize("name", _not_yet(JAX_NAMES))
def test_second_derivative_equals_jax(name):
    problem = _problem(name)
    got = phylanx_hvp(name, *problem)
    _assert_close(got, jax_hvp(name, *problem), name, 1e-8)


def test_coverage_reports_the_rules_without_an_equation_form():
    line = next(line for line in gradient_coverage_lines()
                if "without one (nested grad" in line)
    without = set(line.split(":", 1)[1].split())
    assert set(NOT_YET_RECORDABLE) <= without
    # passing without a form: list/tuple build containers, whose items the tape follows
    # (their rules never run)
    assert (set(NAMES) - set(NOT_YET_RECORDABLE)) & without == {"list", "tuple"}


def test_every_rule_is_checked_or_listed():
    assert not set(JAX_CANNOT) - set(VJP.names())
    assert set(NAMES) | set(JAX_CANNOT) >= {n for n in CASES if n in JAX}
    assert set(NOT_YET_RECORDABLE) <= set(NAMES)
