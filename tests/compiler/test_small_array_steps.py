"""Small array steps of translated loops pay no kernel frame they need not (task nk47).

A loop of 2- and 3-element steps (Newton, an ODE step, a Kalman update) costs each
kernel's own Python frames: a list display went through ``list_`` and ``gathered``, a
dead temporary of a few elements through ``_reuse_*`` and its test, ``exp`` of a NumPy
scalar through four helpers.  Oracle: the undecorated function (values, dtypes, scalar
or array); the frames are counted with ``tests/python_calls.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.primitives.arithmetics import elementwise_math
from tests.python_calls import python_calls


def pendulum(y0, h, steps):
    y = np.array([y0, 0.0])
    for _ in range(steps):
        k1 = np.array([y[1], -np.sin(y[0])])
        m = y + 0.5 * h * k1
        k2 = np.array([[m[1]], [-np.exp(m[0] * 0.1)]])
        y = y + h * (k1 + k2[:, 0]) * 0.5
    return y


def mixed_lists(x, steps):
    out = np.zeros(2, dtype=x.dtype)
    for i in range(steps):
        pair = np.array([x[i % 2], x[1 - i % 2]])   # float32 items stay float32
        count = np.array([i, 2])                      # Python ints: int64
        out = out + pair * count[1]
    return out, count


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_small_steps_are_the_undecorated_functions(dtype):
    y0 = dtype(0.7)
    for fn, args in ((pendulum, (y0, dtype(0.05), 6)),
                     (mixed_lists, (np.array([1.5, -2.0], dtype=dtype), 5))):
        got, want = Phylanx(fn)(*args), fn(*args)
        for g, w in zip(got if isinstance(got, tuple) else [got],
                        want if isinstance(want, tuple) else [want]):
            assert type(g) is type(w) and g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def test_a_small_step_calls_no_list_or_buffer_helper():
    """The helpers run as often for 2 steps as for 6: never inside the loop (the
    first ``np.array`` is outside it, run by the tree)."""
    decorated = Phylanx(pendulum)
    decorated(0.7, 0.05, 2)   # compiled, translated
    counts = []
    for steps in (2, 6):
        result, called = python_calls(decorated, 0.7, 0.05, steps)
        np.testing.assert_array_equal(result, pendulum(0.7, 0.05, steps))
        counts.append({h: called.count(h) for h in (
            "list_", "gathered", "reuse_left", "reuse_right", "_writable_into",
            "as_numeric", "finish", "scalarize", "to_dtype", "truth")})
    assert counts[0] == counts[1]
    assert called.count("array") >= 2 * 6    # the loop ran translated, calling kernels


@pytest.mark.parametrize("value", [np.float16(0.5), np.float32(0.5), np.float64(0.5),
                                   np.longdouble(0.5), np.complex64(0.5 + 1j),
                                   np.complex128(0.5 - 1j)])
@pytest.mark.parametrize("name", ["exp", "sin", "sqrt", "absolute", "log"])
def test_elementwise_of_a_numpy_scalar_is_numpys(value, name):
    got, want = getattr(elementwise_math, name)(value), getattr(np, name)(value)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("base", [np.float32(1.5), np.float64(-2.0), np.complex64(1 + 1j),
                                  np.array(2.5), np.array([1.5, -2.0], dtype=np.float32),
                                  np.array([[0.5]], dtype=np.complex128)])
@pytest.mark.parametrize("exponent", [2, -1, 0.5, 3.0])
def test_power_of_a_float_base_is_pythons_operator(base, exponent):
    from phylanx.primitives.matrixops.sort import power
    with np.errstate(all="ignore"):
        got, want = power(base, exponent), base ** exponent
    assert type(got) is type(want) and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def negations(x, flag, steps):
    total = x * 0
    for _ in range(steps):
        total = total + -x - (-flag)
    return total


@pytest.mark.parametrize("x", [np.float32(1.5), 3, np.array([1, -2], dtype=np.int8),
                               np.array([0.5, 2.0])])
def test_a_negation_in_a_loop_is_the_prefix_operator(x):
    got, want = Phylanx(negations)(x, True, 3), negations(x, True, 3)
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def test_a_negated_bool_array_in_a_loop_is_located():
    from phylanx.errors import PhylanxError
    with pytest.raises(TypeError):
        negations(np.array([True]), True, 2)
    with pytest.raises(PhylanxError, match="test_small_array_steps.py:"):
        Phylanx(negations)(np.array([True]), True, 2)
