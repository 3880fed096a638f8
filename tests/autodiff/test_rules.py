"""Every VJP rule against central finite differences of its primitive (float64).

For a random output cotangent ``ct``, the rule's cotangent of each operand must equal the
gradient of ``<ct, primitive(*args)>``, computed by central differences element by element.
Also: the table and the registry agree (every rule names a primitive; flagged primitives
without a rule, and rules of unflagged primitives, are the known lists below).
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx.autodiff import VJP
from phylanx.autodiff.tape import fit, is_float_value
from phylanx.primitives import registry

from .cases import CASES, RECORDER_ONLY


def _inner(ct, out) -> float:
    if type(out) in (list, tuple):
        return sum(_inner(c, o) for c, o in zip(ct, out) if c is not None)
    return float(np.sum(np.asarray(ct) * np.asarray(out)))


def _random_cotangent(out, rng, name):
    if type(out) in (list, tuple):
        cts = [_random_cotangent(o, rng, name) for o in out]
        if name == "categorical_crossentropy":
            cts[1] = None            # only the loss (the first result) has a gradient
        return cts
    return rng.standard_normal(np.shape(out))


def _slots(args) -> list[tuple]:
    """(argument, item or None) of every float operand, items of list operands included."""
    slots = []
    for i, a in enumerate(args):
        if type(a) is list:
            slots += [(i, j) for j, v in enumerate(a) if is_float_value(v)]
        elif is_float_value(a):
            slots.append((i, None))
    return slots


def _get(args, slot):
    i, j = slot
    return args[i] if j is None else args[i][j]


def _with(args, slot, value):
    args = [list(a) if type(a) is list else a for a in args]
    i, j = slot
    if j is None:
        args[i] = value
    else:
        args[i][j] = value
    return args


def _numeric_gradient(impl, args, slot, ct, eps=1e-6):
    base = np.asarray(_get(args, slot), dtype=np.float64)
    grad = np.zeros(base.shape)
    for idx in np.ndindex(base.shape):
        values = []
        for step in (eps, -eps):
            moved = base.copy()
            moved[idx] += step
            point = moved if moved.ndim else np.float64(moved[()])
            values.append(_inner(ct, impl(*_with(args, slot, point))))
        grad[idx] = (values[0] - values[1]) / (2 * eps)
    return grad


CASE_IDS = [(name, k) for name in sorted(CASES) for k in range(len(CASES[name]))]


def _case(name, k):
    """(arguments, the primitive's implementation, its output, a random cotangent)."""
    args = list(CASES[name][k])
    impl = registry.lookup(name).impl
    out = impl(*args)
    return args, impl, out, _random_cotangent(out, np.random.default_rng(k), name)


@pytest.mark.parametrize(("name", "k"), CASE_IDS, ids=[f"{n}-{k}" for n, k in CASE_IDS])
def test_rule_matches_finite_differences(name, k):
    args, impl, out, ct = _case(name, k)
    grads = VJP.get(name)(ct, out, *args)
    slots = _slots(args)
    assert slots, f"case {name}-{k} has no float operand to check"
    for slot in slots:
        i, j = slot
        g = grads[i] if i < len(grads) else None
        if g is not None and j is not None:
            g = g[j]
        got = np.zeros(np.shape(_get(args, slot))) if g is None else fit(g, _get(args, slot))
        want = _numeric_gradient(impl, args, slot, ct)
        scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * scale,
                                   err_msg=f"{name} case {k}, operand {slot}")


def test_every_rule_is_checked():
    unchecked = set(VJP.names()) - set(CASES) - RECORDER_ONLY
    assert not unchecked, f"VJP rules without finite-difference cases: {sorted(unchecked)}"


def test_every_rule_names_a_declared_primitive():
    for name in VJP.names():
        assert registry.lookup(name) is not None, name


def test_differentiable_means_has_a_vjp_rule():
    flagged = {s.name for s in registry.all_specs() if s.differentiable}
    assert VJP.missing() == [], "primitives flagged differentiable without a VJP rule"
    assert set(VJP.names()) == flagged


SELECTIVE_IDS = [(n, k) for n, k in CASE_IDS if getattr(VJP.get(n), "selective", False)]


def test_some_rules_are_selective():
    assert {"__mul", "dot", "matmul", "conv1d"} <= {n for n, _ in SELECTIVE_IDS}


@pytest.mark.parametrize(("name", "k"), SELECTIVE_IDS, ids=[f"{n}-{k}" for n, k in SELECTIVE_IDS])
def test_a_selective_rule_computes_only_the_wanted_cotangents(name, k):
    """``wanted=`` (what the tape passes): the operands asked for get exactly the
    cotangents of the full rule, the others None."""
    args, _, out, ct = _case(name, k)
    full = VJP.get(name)(ct, out, *args)
    operands = len(full)
    for only in range(operands):
        wanted = tuple(i == only for i in range(operands))
        some = VJP.get(name)(ct, out, *args, wanted=wanted)
        for i, (got, want) in enumerate(zip(some, full)):
            if i != only:
                assert got is None, f"{name} case {k}: operand {i} computed unasked"
            elif type(want) is list:          # list * n: one cotangent per item
                assert [g is None for g in got] == [w is None for w in want]
                for g, w in zip(got, want):
                    if w is not None:
                        np.testing.assert_allclose(g, w, rtol=1e-12, atol=0)
            elif want is None:
                assert got is None
            else:
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
