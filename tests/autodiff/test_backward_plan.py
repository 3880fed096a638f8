"""Backward plans (autodiff/plan.py): the reverse pass compiled once per signature of the
recorded path, reused, rebuilt for new shapes, dtypes and paths, and equal bit for bit
to the tape's reverse pass (the program with and without the plan agree).

The counts of plans built are exact with ``sync_execution`` (every node in program
order): otherwise operands the runtime evaluates concurrently may be recorded in
another order, another signature with its own plan (still right, one more build)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import phylanx
from phylanx import Phylanx, config
from phylanx.autodiff import api
from phylanx.autodiff.plan import BackwardPlan

from .helpers import assert_grad_close, numeric_grad


@pytest.fixture(autouse=True)
def program_order():
    config.set("sync_execution", True)
    yield
    config.reset("sync_execution")


@Phylanx
def layer_loss(w, b, x):
    h = np.maximum(x @ w + b, 0.0)
    return np.sum(np.tanh(h) * h) / x.shape[0]


@Phylanx
def piecewise(w):
    if np.sum(w) > 0.0:
        y = np.sum(w * w * 3.0)
    else:
        y = np.sum(np.sin(w))
    return y


@Phylanx
def halving(w):
    t = w
    while np.sum(t * t) > 1.0:
        t = t * 0.5
    return np.sum(t * t * t)


def _tape_path(fn, argnums, *args):
    """The same value_and_grad by the tape's reverse pass (no plan)."""
    positions = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    return api._differentiate(api._caller(fn), fn, positions, argnums, args, {})


def test_one_plan_per_signature_reused_and_rebuilt_for_new_shapes_and_dtypes():
    rng = np.random.default_rng(0)
    w, b, x = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=(5, 4))
    vg = phylanx.value_and_grad(layer_loss, (0, 1))
    first = vg(w, b, x)
    assert vg.plans.builds == 1
    for _ in range(3):
        again = vg(w * 1.5, b, x)                 # other values, same signature
    assert vg.plans.builds == 1
    want = _tape_path(layer_loss, (0, 1), w * 1.5, b, x)
    assert again[0] == want[0]
    for g, h in zip(again[1], want[1]):
        np.testing.assert_array_equal(g, h)
    assert first[0] != again[0]
    vg(w, b, rng.normal(size=(7, 4)))             # a new batch size
    assert vg.plans.builds == 2
    vg(*(a.astype(np.float32) for a in (w, b, x)))      # a new dtype
    assert vg.plans.builds == 3
    vg(w, b, x)                                    # the first signature's plan again
    assert vg.plans.builds == 3
    other = phylanx.value_and_grad(layer_loss, 0)  # other differentiated arguments
    other(w, b, x)
    assert other.plans.builds == 1 and vg.plans.builds == 3


def test_a_value_dependent_branch_gets_a_plan_per_path_and_the_right_gradient():
    dpiece = phylanx.grad(piecewise)
    up, down = np.array([0.5, 1.0, -0.25]), np.array([-0.5, -1.0, 0.25])
    for w in (up, down, up, down):
        got = dpiece(w)
        assert_grad_close(got, numeric_grad(piecewise.python, (w,)))
        np.testing.assert_allclose(got, 6.0 * w if np.sum(w) > 0 else np.cos(w))
    assert dpiece.plans.builds == 2                # one per path, each reused


def test_a_value_dependent_loop_count_gets_a_plan_per_count():
    dhalf = phylanx.grad(halving)
    inputs = [np.array([0.3, 0.4]), np.array([1.0, 0.8]), np.array([1.5, 1.9])]
    for w in inputs + inputs:
        assert_grad_close(dhalf(w), numeric_grad(halving.python, (w,)))
    assert dhalf.plans.builds == 3


def test_a_path_longer_than_the_planned_length_runs_on_the_tape(monkeypatch):
    from phylanx.autodiff import plan
    monkeypatch.setattr(plan, "LONGEST_PLANNED_PATH", 4)
    dhalf = phylanx.grad(halving)
    for w in (np.array([0.3, 0.4]), np.array([1.5, 1.9])):    # 3 and 9 entries or so
        assert_grad_close(dhalf(w), numeric_grad(halving.python, (w,)))
    short = len(dhalf.plans._plans)
    assert dhalf.plans.builds == short <= 1        # only the short path got a plan


def test_the_least_recently_used_plan_is_dropped(monkeypatch):
    from phylanx.autodiff import plan
    monkeypatch.setattr(plan, "PLANS_PER_FUNCTION", 2)
    dpiece = phylanx.grad(piecewise)
    up, down = np.array([0.5, 1.0, -0.25]), np.array([-0.5, -1.0, 0.25])
    dpiece(up), dpiece(down), dpiece(up)           # up used last: down is the oldest
    dpiece(np.array([0.5, 1.0]))                   # a third signature drops down's plan
    dpiece(up)
    assert dpiece.plans.builds == 3                # up's plan was kept


def test_the_plan_is_immutable():
    vg = phylanx.value_and_grad(piecewise)
    vg(np.ones(2))
    plan = next(iter(vg.plans._plans.values()))
    assert isinstance(plan, BackwardPlan)
    with pytest.raises(AttributeError):
        plan.steps = ()
    assert isinstance(plan.steps, tuple) and all(isinstance(s, tuple) for s in plan.steps)


@Phylanx
def broadcasting(a, b, c):
    return np.sum(np.tanh(a * b + c) / (1.0 + b * b) - np.mean(a, axis=0) * c)


@settings(max_examples=12, deadline=None)
@given(rows=st.integers(1, 4), cols=st.integers(1, 4),
       b_shape=st.sampled_from(["row", "keep", "scalar"]),
       c_kind=st.sampled_from(["float", "int", "array"]),
       dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**16))
def test_plan_equals_the_tape_path_bit_for_bit(rows, cols, b_shape, c_kind, dtype, seed):
    """Run with program order (fixture: hypothesis calls it once for all examples).
    Broadcast operands (the plan fits their cotangents), integer and Python-number
    operands (no cotangent), float32 and float64: the plan's values are the tape's."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(rows, cols)).astype(dtype)
    b = {"row": rng.normal(size=cols), "keep": rng.normal(size=(1, cols)),
         "scalar": np.float64(rng.normal())}[b_shape]
    b = np.asarray(b, dtype) if b_shape != "scalar" else dtype(b)
    c = {"float": 0.5, "int": 2, "array": rng.normal(size=(rows, cols)).astype(dtype)}[c_kind]
    argnums = (0, 1, 2) if c_kind == "array" else (0, 1)
    vg = phylanx.value_and_grad(broadcasting, argnums)
    for _ in range(2):                     # built, then reused
        value, grads = vg(a, b, c)
    want_value, want = _tape_path(broadcasting, argnums, a, b, c)
    assert vg.plans.builds == 1
    assert value == want_value
    for g, h in zip(grads, want):
        assert np.shape(g) == np.shape(h) and np.asarray(g).dtype == np.asarray(h).dtype
        np.testing.assert_array_equal(g, h)


def test_tapes_with_containers_keep_the_tape_path(monkeypatch):
    """A tuple operand (concatenate's): the tape path serves it (decided once per
    signature)."""
    @Phylanx
    def listed(ws, x):
        return np.sum(np.concatenate((ws[0] * x, ws[1] * x * x)))
    runs = []
    real = api.tapes.backward
    monkeypatch.setattr(api.tapes, "backward", lambda *a: runs.append(1) or real(*a))
    g = phylanx.grad(listed)
    x = np.array([1.0, 2.0])
    for _ in range(2):
        gw = g([np.ones(2), np.ones(2)], x)
    np.testing.assert_allclose(gw[0], x)
    np.testing.assert_allclose(gw[1], x * x)
    assert len(runs) == 2 and g.plans.builds == 1
    assert list(g.plans._plans.values()) == [None]
