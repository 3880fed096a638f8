"""Decorated NumPy ufuncs and operators give the undecorated function's value and dtype for
every input dtype, or raise the same Python class (NumPy's ``UFuncTypeError`` is a
``TypeError``)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxError

from .test_python_values_property import same_kind_and_value

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
#: ufuncs with one output that decorated code translates (the others are located errors)
UFUNCS = sorted(name for name in dir(np) if isinstance(getattr(np, name), np.ufunc)
                and getattr(np, name).nout == 1 and name not in {
                    "bitwise_count", "isnat", "matvec", "vecdot", "vecmat"})
OPERATORS = ["a + b", "a - b", "a * b", "a / b", "a // b", "a % b", "a ** b", "-a", "+a",
             "~a", "abs(a)", "a ** 0.5", "a * 2", "a + 1.5", "2 ** a", "a & b", "a << b",
             "a < b", "a == 1", "a + True"]


def _decorated(expression: str):
    source = f"import numpy as np\n\ndef f(a, b):\n    return {expression}\n"
    namespace: dict = {}
    exec(compile(source, "<dtypes>", "exec"), namespace)
    return namespace["f"], Phylanx(source=source)(namespace["f"])


def _python_class(error: BaseException) -> type:
    return next(c for c in type(error).__mro__ if c.__module__ == "builtins")


def _check(expression: str):
    python, decorated = _decorated(expression)
    for dtype in DTYPES:
        a, b = np.array([1, 0, 2], dtype=dtype), np.array([2, 1, 1], dtype=dtype)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                want = python(a, b)
            except Exception as error:  # noqa: BLE001 - then the same class must be raised
                with pytest.raises(PhylanxError) as info:
                    decorated(a, b)
                assert isinstance(info.value, _python_class(error)), (
                    f"{expression} on {dtype}: NumPy raised {error!r}, phylanx {info.value!r}")
                continue
            got = decorated(a, b)
        problem = same_kind_and_value(got, want) if not (
            isinstance(want, np.ndarray) and want.dtype.kind in "fc") else None
        if problem is None and isinstance(want, np.ndarray):
            assert got.dtype == want.dtype, f"{expression} on {dtype}: {got.dtype} != {want.dtype}"
            np.testing.assert_allclose(got, want, rtol=1e-3 if want.dtype == np.float16 else 1e-6)
        assert problem is None, f"{expression} on {dtype}: {problem}"


@pytest.mark.parametrize("name", UFUNCS)
def test_a_numpy_ufunc_has_numpys_dtype_for_every_input_dtype(name):
    ufunc = getattr(np, name)
    _check(f"np.{name}({', '.join('ab'[:ufunc.nin])})")


@pytest.mark.parametrize("expression", OPERATORS)
def test_an_operator_has_numpys_dtype_for_every_input_dtype(expression):
    _check(expression)


def test_unary_plus_of_a_python_bool_is_an_int():
    python, decorated = _decorated("(+True, +a)")
    got, want = decorated(np.float32(2.0), None), python(np.float32(2.0), None)
    assert same_kind_and_value(got, want) is None
