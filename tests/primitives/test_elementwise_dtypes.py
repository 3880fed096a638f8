"""Every element-wise primitive gives NumPy's result dtype for every input dtype.

For each primitive flagged ``elementwise`` with a NumPy (or SciPy) oracle (the Keras
activations and losses follow Keras instead, tested apart), and each of bool,
int8..int64, uint8..uint64, float16/32/64 and complex64/128: one operand of that dtype (two
for a binary primitive, and the dtype against a Python int and a Python float, which are
weak in NumPy's promotion).  The primitive, called through PhySL, must give the oracle's
value and exact dtype, or raise where the oracle raises, with the same Python class
(``TypeError`` where NumPy has no loop, ``ValueError`` ...).
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx.errors import PhylanxError
from phylanx.primitives.registry import all_specs

from .harness import assert_same, call_primitive, quiet_numpy

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]

def _operands(spec, dtype: str) -> list[tuple]:
    x = np.array([1, 0, 3], dtype=dtype)
    y = np.array([2, 1, 1], dtype=dtype)
    if not _binary(spec):
        return [(x,)]
    return [(x, y), (x, 2), (x, 0.5)]


def _binary(spec) -> bool:
    """Two operands or more (``__add(_1, __2)``), not one with optional extras."""
    return spec.signature.min_args >= 2 or any(p.variadic for p in spec.signature.params)


def _cases():
    cases = []
    for spec in all_specs():
        if not spec.elementwise or spec.oracle is None or spec.category == "keras_support":
            continue   # Keras' activations and losses follow Keras (test_keras_support.py)
        if spec.signature.min_args not in (1, 2):
            continue
        for dtype in DTYPES:
            cases.append(pytest.param(spec, dtype, id=f"{spec.name}-{dtype}"))
    return cases


def _python_class(error: BaseException) -> type:
    """The built-in exception class NumPy's error stands for (UFuncTypeError -> TypeError)."""
    return next(c for c in type(error).__mro__ if c.__module__ == "builtins")


@pytest.mark.parametrize("spec, dtype", _cases())
def test_result_dtype_is_numpys(spec, dtype):
    for args in _operands(spec, dtype):
        kinds = (str(getattr(a, "dtype", type(a).__name__)) for a in args)
        where = f"{spec.name}({', '.join(kinds)})"
        with quiet_numpy():
            try:
                expected = spec.oracle(*args)
            except Exception as error:  # noqa: BLE001 - then phylanx must raise the same class
                with pytest.raises(PhylanxError) as info:
                    call_primitive(spec.name, *args)
                assert isinstance(info.value, _python_class(error)), (
                    f"{where}: NumPy raised {type(error).__name__}, phylanx "
                    f"{type(info.value).__name__}: {info.value}")
                continue
            actual = call_primitive(spec.name, *args)
        assert_same(actual, expected, where=where)


def test_the_cases_cover_the_math_and_the_operators():
    names = {p.values[0].name for p in _cases()}
    assert {"exp", "sqrt", "sin", "__add", "__mul", "__div", "power", "absolute", "fabs",
            "square", "arctan2", "fmod", "__pos", "__minus"} <= names
