"""Fused reductions over any axes: tuples of axes, keepdims, broadcast operands, float mixes.

``x.sum(axis=(1, 2))``, ``np.mean(e, axis=(0, 2), keepdims=True)``, ``np.max(e, axis=(2,
0))``: the region ends in the reduction (``regions.py`` takes a tuple of int literals as
its axis) and ``strided.py``'s kernel reads the broadcast operands in place, the
reduced axes moved after the kept ones when they are not next to each other.

With the fixtures ``eager`` and ``installed`` (conftest.py) every region is hot at once
and kept even when slower, so the kernel is what runs (asserted).  The oracle is the
undecorated function: same type, dtype and shape, NaN where NumPy has NaN, and each
element within ``TOLERANCE_ULPS`` ulps (of the least precise of the result's and the
operands' dtypes: a float32 operand's ``tanh`` is float32) of the reduction of its
terms' magnitudes (sum of ``|t|`` for a sum, their mean for a mean, the largest for
max/min): the kernel adds in float64 in sequence, NumPy pairwise in the dtype, and
libm's transcendental functions differ from NumPy's by ulps.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phylanx import Phylanx
from phylanx.fusion import hot, rowreduce, strided

pytest.importorskip("numba")

RNG = np.random.default_rng(2027)
CALLS = 4               # plan, check, and two calls of the kernel (timed turns)
TOLERANCE_ULPS = 1024


def strided_calls(found) -> int:
    return sum(e.calls for r in found for e in r.kernels.values()
               if isinstance(e, strided.StridedKernel))


def reduction_calls(found) -> int:
    """Calls of the kernels of regions ending in the reduction (a contiguous operand
    reduced along its last axis is ``rowreduce.py``'s kernel, the rest ``strided.py``'s;
    the chain fused alone does not count)."""
    return sum(e.calls for r in found if isinstance(r, rowreduce.RowReduction)
               for e in r.kernels.values() if isinstance(e, hot._Kernel))


def magnitude(terms, reduction, axis, keepdims):
    """Each result element's scale: the reduction of its terms' magnitudes."""
    size = np.abs(np.asarray(terms, dtype=np.float64))
    size[~np.isfinite(size)] = 0.0
    combine = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.max}[reduction]
    return combine(size, axis=axis, keepdims=keepdims)


def assert_close(got, want, scale, args):
    assert type(got) is type(want), (type(got), type(want))
    assert np.shape(got) == np.shape(want) and got.dtype == want.dtype
    got64 = np.asarray(got, dtype=np.float64)
    want64 = np.asarray(want, dtype=np.float64)
    # the least precise dtype on the way: a float32 operand's tanh under a float64 result
    eps = max(np.finfo(t).eps for t in [want.dtype] + [a.dtype for a in args])
    bound = TOLERANCE_ULPS * eps * np.maximum(scale, 1.0)
    same_nan = np.isnan(got64) == np.isnan(want64)
    assert same_nan.all()
    with np.errstate(invalid="ignore"):
        assert np.all((got64 == want64) | np.isnan(want64) | (np.abs(got64 - want64) <= bound))


def compiled(source: str):
    """(decorated, plain) of the one function in ``source``."""
    namespace: dict = {"np": np}
    exec(compile(source, "<reduce-axes>", "exec"), namespace)
    plain = namespace["f"]
    return Phylanx(source=source)(plain), plain


CASES = [("sum", (1, 2), False), ("sum", (0, 2), False), ("sum", (0, 1, 2), False),
         ("sum", (2, 0), True), ("mean", (0, 2), False), ("mean", (-1, -2), True),
         ("max", (2, 0), True), ("min", (0, 1), False), ("sum", (1,), False)]


#: every reduction kind, with and without keepdims: the float32 cases.  The axes' layout
#: (order, split, keepdims) is the same code whatever the dtypes, tested by every case in
#: float64; the dtypes change only the accumulator and the casts, which these reach for
#: each reduction (each case is a kernel compiled: 1-2 s of CPU on a cold cache)
FLOAT32_CASES = [CASES[0], CASES[5], CASES[6], CASES[7]]


@pytest.mark.parametrize("reduction,axis,keepdims,a_dtype,b_dtype",
                         [case + ("float64", "float64") for case in CASES]
                         + [case + dtypes for dtypes in (("float32", "float32"),
                                                         ("float32", "float64"))
                            for case in FLOAT32_CASES])
def test_broadcast_reduction_over_a_tuple_of_axes(eager, installed, reduction, axis,
                                                  keepdims, a_dtype, b_dtype):
    body = "np.tanh(a[:, None, :] - b[None]) * (a[:, None, :] - b[None])"
    source = (f"def f(a, b):\n    return np.{reduction}({body}, axis={axis!r}, "
              f"keepdims={keepdims})\n")
    terms_source = f"def f(a, b):\n    return {body}\n"
    fused, plain = compiled(source)
    terms = compiled(terms_source)[1]
    for _ in range(CALLS):
        a = RNG.normal(size=(300, 4)).astype(a_dtype)
        b = RNG.normal(size=(7, 4)).astype(b_dtype)
        assert_close(fused(a, b), plain(a, b),
                     magnitude(terms(a, b), reduction, axis, keepdims), (a, b))
    assert strided_calls(installed) >= 2


def test_a_bad_axis_tuple_is_numpys_located_error(eager, installed):
    """A guard (the error was NumPy's before too): an axis named twice or out of range
    is never fused, the tree raises NumPy's error at the reduction."""
    from phylanx.errors import PhylanxError
    fused, plain = compiled("def f(a, b):\n    return np.sum(a[:, None] * b, axis=(1, 1))\n")
    with pytest.raises(PhylanxError) as error:
        fused(np.ones((30, 3)), np.ones((4, 3)))
    assert error.value.loc is not None
    with pytest.raises(ValueError):
        plain(np.ones((30, 3)), np.ones((4, 3)))
    assert strided_calls(installed) == 0


# -- property: random element-wise chains reduced over random axes ---------------------

UNARY = ["np.tanh({})", "np.sin({})", "np.abs({})", "({} * 0.5)", "np.cos({})"]
BINARY = ["+", "-", "*"]
#: shapes of the three operands (all broadcast to (A, B, C))
LAYOUTS = [((5, 1, 3), (1, 4, 3), (5, 4, 3)), ((5, 4, 3), (4, 1), (3,)),
           ((5, 1, 1), (1, 4, 1), (1, 1, 3)), ((1, 4, 3), (5, 4, 1), (1,))]


@st.composite
def programs(draw):
    """(source, terms source, reduction, axis, keepdims, shapes, dtypes)."""
    steps = draw(st.lists(st.tuples(st.sampled_from(["u", "b"]), st.integers(0, 4),
                                    st.integers(0, 2)), min_size=1, max_size=4))
    expr, last = "a", None
    for kind, which, leaf in steps:
        if kind == "u":
            expr = UNARY[which].format(expr)
        else:
            # never the same operator twice in a row: the tree would fold a + b + c into
            # one operation of three operands
            ops = [o for o in BINARY if o != last]
            last = ops[which % len(ops)]
            expr = f"({expr} {last} {'abc'[leaf]})"
    if not re.search(r"\b[bc]\b", expr):
        expr = f"({expr} * b)"
    reduction = draw(st.sampled_from(["sum", "mean", "max", "min"]))
    axis = draw(st.one_of(
        st.sampled_from([0, 1, 2, -1]),
        st.lists(st.integers(0, 2), min_size=1, max_size=3, unique=True).map(tuple)))
    keepdims = draw(st.booleans())
    shapes = draw(st.sampled_from(LAYOUTS))
    dtypes = tuple(draw(st.sampled_from(["float32", "float64"])) for _ in range(3))
    source = (f"def f(a, b, c):\n    return np.{reduction}({expr}, axis={axis!r}, "
              f"keepdims={keepdims})\n")
    return source, f"def f(a, b, c):\n    return {expr}\n", reduction, axis, keepdims, \
        shapes, dtypes


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(program=programs())
def test_random_chains_reduced_over_random_axes_agree_with_numpy(eager, installed, program):
    source, terms_source, reduction, axis, keepdims, shapes, dtypes = program
    installed.clear()
    fused, plain = compiled(source)
    terms = compiled(terms_source)[1]
    for _ in range(CALLS):
        args = [RNG.normal(size=s).astype(t) for s, t in zip(shapes, dtypes)]
        assert_close(fused(*args), plain(*args),
                     magnitude(terms(*args), reduction, axis, keepdims), args)
    assert reduction_calls(installed) >= 1, source
