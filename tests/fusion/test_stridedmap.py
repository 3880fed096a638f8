"""Element-wise regions of broadcast or strided operands read in place
(phylanx/fusion/stridedmap.py).

With the fixtures ``eager`` and ``installed`` (conftest.py) every region is hot at once,
so the kernel is what runs.  The oracle is the undecorated NumPy function (values
within 1e-12 relative for float64, 1e-5 for float32, of the largest magnitude); no
operand copied: tracemalloc's peak during a steady call stays near the output's size
(the previous flat loop copied every strided or broadcast operand to the full shape).
"""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phylanx import Phylanx
from phylanx.fusion import stridedmap

from .test_strided import assert_like_numpy, kernel_calls

pytest.importorskip("numba")

RNG = np.random.default_rng(53)
CALLS = 14          # plan, check, warm, the nine timed turns, and two steady calls


def map_calls(found) -> int:
    return sum(e.calls for r in found for e in r.kernels.values()
               if isinstance(e, stridedmap.MapKernel))


def stencil(u):
    return 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])


def centre(x, mu):
    return np.exp(x - mu[None, :]) * 2.0


def outer_sum(a, b):
    return np.sqrt(np.abs(a[:, None] + b[None, :]))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("fn", [stencil, centre, outer_sum])
def test_strided_and_broadcast_operands_are_not_copied(eager, installed, fn, dtype):
    u = RNG.normal(size=(260, 190)).astype(dtype)
    args = {stencil: (u,), centre: (u, u[7].copy()),
            outer_sum: (u[:, 0].copy(), u[0].copy())}[fn]
    f = Phylanx(fn)
    for _ in range(CALLS):
        assert_like_numpy(f(*args), fn(*args))
    assert map_calls(installed) >= 3
    # a kept kernel's re-check runs NumPy, with its temporaries, once a period or after
    # a cost change (hot.FusedRegion.keep; a busy machine triggers the latter): the
    # measured call is the kernel's, as in test_strided.py
    for entry in (e for r in installed for e in r.kernels.values()):
        if hasattr(entry, "recheck_due"):
            entry.recheck_due = False
    tracemalloc.start()
    try:
        got = f(*args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert_like_numpy(got, fn(*args))
    assert peak < 1.5 * got.nbytes, f"peak {peak} bytes for a {got.nbytes}-byte result"


SHAPES = st.tuples(st.integers(1, 6), st.integers(1, 5), st.integers(1, 7))


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=SHAPES, masks=st.tuples(st.integers(0, 7), st.integers(0, 7)),
       step=st.sampled_from([1, 2]), dtype=st.sampled_from(["float64", "float32"]))
def test_fused_and_unfused_agree_on_random_layouts(eager, installed, shape, masks, step,
                                                   dtype):
    """Law: an element-wise expression of broadcast or strided operands equals the
    expression of their materialised copies (NumPy): each operand is the full shape
    with some axes of length one (bit i of its mask), the first one a view taking
    every ``step``-th element of its last axis."""
    a_shape = tuple(1 if masks[0] >> i & 1 else n for i, n in enumerate(shape))
    b_shape = tuple(1 if masks[1] >> i & 1 else n for i, n in enumerate(shape))
    rng = np.random.default_rng(sum(shape) + masks[0] * 8 + masks[1])
    wide = a_shape[:-1] + (a_shape[-1] * step,)
    a = rng.normal(size=wide).astype(dtype)[..., ::step]
    b = rng.normal(size=b_shape).astype(dtype)

    def program(a, b):
        return np.tanh(a * b) - np.abs(b) * 0.5
    source = ("def program(a, b):\n"
              "    return np.tanh(a * b) - np.abs(b) * 0.5\n")
    namespace = {"np": np}
    exec(compile(source, "<random-layout>", "exec"), namespace)
    f = Phylanx(source=source)(namespace["program"])
    before = kernel_calls(installed)
    for _ in range(5):          # plan, check, warm, two timed turns of the kernel
        assert_like_numpy(f(a, b), program(a, b))
    assert kernel_calls(installed) > before        # a kernel (of either layout) ran
