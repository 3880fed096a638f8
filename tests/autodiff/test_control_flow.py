"""Gradients through control flow, user-function calls and in-place changes.

Only what runs is recorded: the branch taken, the iterations made, the calls made.  The
oracle is the undecorated Python function differentiated by central differences.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx
from phylanx.autodiff import grad, value_and_grad

from .helpers import assert_grad_close, numeric_grad

RNG = np.random.default_rng(7)


def check(decorated, *args, argnum=0):
    got = grad(decorated, argnum)(*args)
    assert_grad_close(got, numeric_grad(decorated.python, args, argnum))


@Phylanx
def branchy(x, flag):
    if flag > 0:
        y = np.sum(np.exp(x))
    else:
        y = np.sum(x * x * x)
    return y


@pytest.mark.parametrize("flag", [1.0, -1.0])
def test_if_both_branches(flag):
    check(branchy, RNG.standard_normal(4), flag)


@Phylanx
def data_dependent_branch(x):
    total = 0.0
    for v in x:
        if v > 0:
            total = total + v * v
        else:
            total = total - 3.0 * v
    return total


def test_branch_chosen_per_element():
    check(data_dependent_branch, np.array([0.5, -1.2, 2.0, -0.3]))


@Phylanx
def newton_like(x, steps):
    y = x
    i = 0
    while i < steps:
        y = y - 0.1 * (y * y - 2.0)
        i += 1
    return np.sum(y)


def test_while_loop():
    check(newton_like, RNG.uniform(0.5, 1.5, 3), 5)


@Phylanx
def accumulate(x, w):
    acc = np.zeros(3)
    for i in range(4):
        acc += np.tanh(x * w[i])       # an in-place add into an array accumulator
    return np.sum(acc * acc)


def test_for_loop_with_in_place_accumulator():
    x, w = RNG.standard_normal(3), RNG.standard_normal(4)
    check(accumulate, x, w, argnum=0)
    check(accumulate, x, w, argnum=1)


@Phylanx
def scalar_accumulator(x):
    s = 0.0
    for k in range(1, 4):
        s += np.sum(x ** k) / k
    return s


def test_for_loop_with_scalar_accumulator():
    check(scalar_accumulator, RNG.uniform(0.2, 0.9, 5))


@Phylanx
def store_rows(x):
    out = np.zeros((3, 2))
    for i in range(3):
        out[i] = x[i] * x[i + 1]
    out[0, 1] = 7.0                    # overwritten: no gradient to x[0] * x[1] there
    return np.sum(out * out)


def test_store_into_slices():
    check(store_rows, RNG.standard_normal((4, 2)))


@Phylanx
def power_rec(x, n):
    if n == 0:
        return 1.0
    return x * power_rec(x, n - 1)


def test_recursion():
    assert np.isclose(grad(power_rec)(1.3, 4), 4 * 1.3 ** 3)


@Phylanx
def helper(v, scale):
    return np.sum(np.sin(v) * scale)


@Phylanx
def calls_helper(x):
    return helper(x, 2.0) + helper(x * x, 0.5)


def test_user_function_calls():
    x = RNG.standard_normal(4)
    got = grad(calls_helper)(x)
    assert_grad_close(got, 2.0 * np.cos(x) + 0.5 * np.cos(x * x) * 2 * x)


def test_physl_function_with_loop_and_lambda():
    state = phylanx.execution_tree.compiler_state()
    f = phylanx.execution_tree.eval(state, """
        block(
          define(sq, v, v * v),
          define(f, x, n, block(
            define(acc, 0.0),
            define(g, lambda(t, sum(sq(t)))),
            for(define(i, 0), i < n, store(i, i + 1), store(acc, acc + g(x * i))),
            acc)),
          f)""")
    x = RNG.standard_normal(3)
    value, g = value_and_grad(f)(x, 3)
    assert np.isclose(value, sum(np.sum((x * i) ** 2) for i in range(3)))
    assert_grad_close(g, sum(2 * i * i * x for i in range(3)))


def test_in_place_change_seen_through_a_view_is_an_error():
    @Phylanx
    def view_then_change(x):
        y = x * 1.0
        row = y[0]
        y[0, 0] = 5.0              # changes row too (a view of y)
        return np.sum(row * x[0])

    with pytest.raises(phylanx.PhylanxError, match="changed in place"):
        grad(view_then_change)(RNG.standard_normal((2, 2)))


def test_integer_index_path_needs_no_gradient():
    @Phylanx
    def pick_largest(x):
        return x[np.argmax(x)] * 2.0

    x = np.array([0.3, 2.0, -1.0])
    np.testing.assert_allclose(grad(pick_largest)(x), [0.0, 2.0, 0.0])
