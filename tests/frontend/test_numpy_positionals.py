"""NumPy arguments given by position mean what NumPy's signature says.

A primitive of the original keeps its own order of slots (``sum(x, axis, keepdims,
initial, dtype)``), so ``np.sum(x, 0, np.float32)`` put the dtype into ``keepdims`` and
summed in float64 with kept dimensions, and ``np.max(x, 0, None, True)`` put ``out`` into
``keepdims``: silent wrong answers.  Past the first slot whose meaning differs, the
arguments are passed by NumPy's names.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxError

X = np.array([[3.0, -1.0, 2.5], [0.5, 7.0, -2.0]])
CASES = [
    "np.sum(x, 0, np.float32)", "np.sum(x, 0, None, None, True)", "np.sum(x, 1, int)",
    "np.mean(x, 1, np.float32)", "np.mean(x, None, np.float32, None, True)",
    "np.prod(x, 0, np.int64)", "np.max(x, 0, None, True)", "np.min(x, 1, None, True, 100.0)",
    "np.all(x > 0, 0, None, True)", "np.any(x > 5, 1, None, True)",
    "np.nanmean(x, 0, np.float32, None, True)", "np.nansum(x, 1, np.float32, None, True)",
    "np.ptp(x, 0, None, True)", "np.std(x, 0, None, None, 1)", "np.var(x, 1, np.float32)",
    "np.take(x, np.array([0, 7]), None, None, 'clip')", "np.exp(x, None)",
    "np.unique(np.array([3, 1, 3]), True)", "np.full((2,), 3.0, np.int8)",
    "np.full((2, 2), fill_value=3)", "np.arange(1, 7, 2)", "np.arange(5, dtype=float)",
    "np.full_like(x, 2, np.int32)", "np.clip(x, 0, 1)",
    # trace's slots are (a, dtype, offset): NumPy's offset by position or name (user49)
    "np.trace(x, 1)", "np.trace(x, offset=-1)", "np.trace(x, 1, dtype=np.float32)",
]


def _decorated(body: str):
    src = f"def f(x):\n    return {body}\n"
    ns: dict = {"np": np}
    exec(src, ns)
    return Phylanx(source=src)(ns["f"])


@pytest.mark.parametrize("body", CASES)
def test_positional_arguments_mean_numpys_parameters(body):
    f = _decorated(body)
    got, want = f(X), f.python(X)
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got if isinstance(want, tuple) else [got],
                    want if isinstance(want, tuple) else [want]):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
        np.testing.assert_allclose(g, w, rtol=1e-6)


@pytest.mark.parametrize("body", ["np.trace(x, 0, 1)", "np.trace(x, axis2=0)",
                                  "np.median(x, 0, None, False, True)"])
def test_a_parameter_the_primitive_lacks_is_a_located_error(body):
    """np.trace's axis1/axis2 are not slots of trace (its slots are a, dtype, offset):
    refused, named."""
    f = _decorated(body)
    with pytest.raises(PhylanxError, match=r"<string>:2:.*unknown keyword argument"):
        f(X)
