"""Python globals as a decorated function sees them: read when an evaluation starts,
lazy ones too; those a call assigns written back as Python would leave them."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

from phylanx import Phylanx, PhylanxTypeError, execution_tree

_K = 2.0


@Phylanx
def _times_k(x):
    return x * _K


@Phylanx
def _calls_its_argument(f, x):
    return f(x)


def test_a_lazy_evaluation_reads_the_globals_as_python_does_when_it_runs():
    # lazy().eval(x) called the compiled function without loading the globals: nil
    # before any ordinary call, then the value the last ordinary call loaded
    global _K
    try:
        lazy = _times_k.lazy()
        _K = 3.0
        assert lazy.eval(2.0) == _times_k.python(2.0) == 6.0
        _K = 10.0
        assert lazy.eval(3.0) == 30.0
        assert execution_tree.variable(lazy).eval(1.0) == 10.0
        assert _times_k(1.0) == 10.0
        _K = 4.0
        assert lazy.lazy(np.array([1.0, 2.0])).eval().tolist() == [4.0, 8.0]
        _K = 6.0
        assert _calls_its_argument(lazy, 2.0) == 12.0    # a lazy function passed
        bound = _times_k.lazy(5.0)
        _K = 0.5
        assert bound.eval() == 2.5
    finally:
        _K = 2.0


def test_a_lazy_call_that_cannot_bind_is_located_at_the_eval():
    lazy = _times_k.lazy()
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(PhylanxTypeError, match=f"test_globals.py:{line}:.*takes 1 positional"):
        lazy.eval(1.0, 2.0)
