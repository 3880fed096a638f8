"""Decorated code returns the Python type the undecorated code returns: Python bools from
``is not``, ``not in``, ``any``, ``all``, ``math.isclose``, ``np.array_equal``; an int from
``+True``; Python's digits for an f-string of a float32 scalar; ``a.item(i)``."""
from __future__ import annotations

import math  # noqa: F401 - the generated functions use it

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxError

from .test_python_values_property import same_kind_and_value

EXPRESSIONS = [
    "a is not None", "a is None", "x is not None", "2 not in xs", "2 in xs", "7 not in xs",
    "any(xs)", "all(xs)", "any(a > 1)", "all(a > 1)", "any([])", "all([])",
    "math.isclose(x, 1.0)", "math.isclose(x, 1.5, rel_tol=0.5)", "math.isclose(x, 1.000001)",
    "math.isclose(x, 1.0 + 1e-10)", "math.isclose(0.0, 1e-12, abs_tol=1e-9)",
    "np.array_equal(a, a)", "np.array_equal(a, a + 1)", "np.allclose(a, a)",
    "+True", "+x", "+a", "-True",
    "f'{np.float32(0.1)}'", "f'{np.float16(0.1)}'", "f'{x}'", "f'{xs}'", "f'{a[0]}'",
    "f'{np.float32(0.1)!s}'", "f'{np.float32(0.1):.3f}'", "str(np.float32(0.1))",
    "a.item(1)", "a.item(-1)", "m.item(1, 0)", "m.item((0, 1))", "m.item(3)",
    "np.ones(1).item()",
    # Python's math module itself: types, IEEE remainder, integer functions
    "math.gcd(12, 18)", "math.lcm(4, 6)", "math.prod(xs)", "math.fsum([0.1] * 10)",
    "math.remainder(5.0, 3.0)", "math.fmod(-5.0, 3.0)", "math.comb(5, 2)", "math.perm(5, 2)",
    "math.isqrt(17)", "math.factorial(6)", "math.erf(x)", "math.log(8, 2)", "math.floor(2.5)",
    "math.trunc(-2.5)", "math.modf(2.5)", "math.frexp(8.0)", "math.copysign(x, -0.0)",
    "math.atan2(x, 2.0)", "math.hypot(3.0, 4.0)", "math.dist([0, 0], [3, 4])", "math.ulp(1.0)",
    "math.gamma(4.5)", "math.isfinite(x)", "math.sqrt(a[0])", "math.exp(np.float32(0.5))",
    "pow(3, 4, 5)", "pow(2, 10)", "repr(x)", "repr('a')", "hash(3)", "ascii('é')",
]


def _pair(expression: str):
    source = ("import math\nimport numpy as np\n\n"
              f"def f(a, m, x, xs):\n    return {expression}\n")
    namespace: dict = {}
    exec(compile(source, "<types>", "exec"), namespace)
    return namespace["f"], Phylanx(source=source)(namespace["f"])


ARGS = (np.array([1.0, 2.0, 3.0]), np.arange(4.0).reshape(2, 2), 1.0, [1, 2, 3])


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_the_result_has_the_undecorated_type(expression):
    python, decorated = _pair(expression)
    got, want = decorated(*ARGS), python(*ARGS)
    problem = same_kind_and_value(got, want)
    assert problem is None, f"{expression}: {problem}"


@pytest.mark.parametrize("expression, error", [
    ("a.item(3)", IndexError), ("m.item(2, 0)", IndexError), ("a.item()", ValueError),
    ("a.item(1.0)", TypeError), ("math.sqrt(-1.0)", ValueError),
    ("math.exp(1000.0)", OverflowError), ("math.gcd(1.5, 2)", TypeError),
    ("math.log(0.0)", ValueError), ("pow(2, 3, 0)", ValueError)])
def test_errors_have_pythons_class(expression, error):
    python, decorated = _pair(expression)
    with pytest.raises(error):
        python(*ARGS)
    with pytest.raises(PhylanxError) as info:
        decorated(*ARGS)
    assert isinstance(info.value, error), repr(info.value)
