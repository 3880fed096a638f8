"""Where Python raises, a decorated function raises the same class (issue 31 item 7).

Each function runs undecorated first (``f.python`` is the oracle): whatever class it
raises, the decorated call must raise an instance of it (so ``except <that class>``
around the call works), and the error is a located ``PhylanxError``.  Where Python gives
a value, the decorated function gives the same value of the same kind.
"""
from __future__ import annotations

import builtins
import math
import warnings

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx, errors
from phylanx.errors import PYTHON_CLASSES, PhylanxError, phylanx_class
from phylanx.frontend import translator

from .helpers import same


def raises_like(f, *args):
    """``f(*args)`` raises what ``f.python(*args)`` raises (an instance of its class)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as expected:
            f.python(*args)
        with pytest.raises(type(expected.value)) as got:
            f(*args)
    assert isinstance(got.value, PhylanxError) and got.value.loc is not None, got.value
    return got.value


def gives_like(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, got = f.python(*args), f(*args)
    assert type(got) is type(want) and same(got, want), (got, want)
    assert getattr(got, "dtype", None) == getattr(want, "dtype", None)
    return got


# -- the classes ------------------------------------------------------------------------

def _all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


def test_every_phylanx_error_standing_for_a_python_exception_is_one():
    import phylanx.autodiff.tape  # noqa: F401  (modules defining more subclasses)
    import phylanx.distributed.errors  # noqa: F401
    import phylanx.frontend.checks  # noqa: F401
    python = {c.__name__: c for c in vars(builtins).values()
              if isinstance(c, type) and issubclass(c, BaseException)}
    python["AxisError"], python["LinAlgError"] = np.exceptions.AxisError, np.linalg.LinAlgError
    # malformed PhySL or untranslatable (valid) Python: Python itself raises no SyntaxError
    del python["SyntaxError"]
    checked = 0
    for cls in set(_all_subclasses(PhylanxError)):
        name = cls.__name__.removeprefix("Phylanx")
        if name in python:   # PhylanxKeyError stands for KeyError, ...
            assert issubclass(cls, python[name]), cls
            checked += 1
        # IndexError and KeyError are not ValueErrors in Python (AxisError is both)
        if issubclass(cls, (IndexError, KeyError)) and issubclass(cls, ValueError):
            assert issubclass(cls, np.exceptions.AxisError), cls
    assert checked >= 15
    for py, px in PYTHON_CLASSES.items():
        assert issubclass(px, py) and issubclass(px, PhylanxError) and phylanx_class(py) is px
    assert issubclass(errors.PhylanxZeroDivisionError, ZeroDivisionError)
    assert not issubclass(errors.PhylanxIndexError, ValueError)
    assert phylanx_class(UnicodeError) is errors.PhylanxValueError   # nearest one


@pytest.mark.parametrize("python_class", [
    ZeroDivisionError, IndexError, KeyError, TypeError, ValueError, AttributeError,
    OverflowError, AssertionError, NotImplementedError, RecursionError, FloatingPointError,
    np.exceptions.AxisError, np.linalg.LinAlgError, NameError, UnboundLocalError])
def test_a_kernel_raising_a_python_exception_is_reported_as_its_phylanx_class(python_class):
    from phylanx.runtime.nodes import Node
    exc = python_class("boom") if python_class is not np.exceptions.AxisError else \
        python_class(3, 1)
    wrapped = Node("some_primitive", None).wrap(exc)
    assert isinstance(wrapped, PhylanxError) and isinstance(wrapped, python_class)


def test_raise_of_every_builtin_the_frontend_takes_is_caught_by_its_class():
    for name in sorted(translator._EXCEPTIONS):
        cls = getattr(builtins, name)
        source = f"def f(x):\n    raise {name}('m')\n"
        f = Phylanx(source=source)(_compiled(source))
        with pytest.raises(cls):
            f(1)


def _compiled(source):
    namespace: dict = {}
    exec(compile(source, "<test>", "exec"), namespace)
    return namespace["f"]


# -- the differences of the issue --------------------------------------------------------

@Phylanx
def float_index(a):
    return a[1.0]


@Phylanx
def float_slice(a):
    return a[1.0:3]


@Phylanx
def index_by(a, i):
    return a[i]


@Phylanx
def store_float_index(a):
    a[1.0] = 5
    return a


@pytest.mark.parametrize("target", [np.arange(6.0), [1, 2, 3], (1, 2, 3), "abc"])
def test_a_float_index_raises_what_python_raises(target):
    raises_like(float_index, target)
    raises_like(float_slice, target)
    raises_like(index_by, target, 2.0)
    raises_like(index_by, target, np.float64(2.0))
    if not isinstance(target, (tuple, str)):
        raises_like(store_float_index, target)


def test_float_index_arrays_raise_and_valid_indices_still_work():
    a = np.arange(6.0)
    raises_like(index_by, a, np.array([1.0]))
    raises_like(index_by, a, [1.0, 2.0])
    raises_like(index_by, a, (1.0,))
    gives_like(index_by, a, 2)
    gives_like(index_by, a, np.int32(2))
    gives_like(index_by, a, True)
    gives_like(index_by, {1.0: "x"}, 1.0)   # a dictionary key may be any hashable value


@Phylanx
def chained(a):
    return 0 < a < 5


@Phylanx
def both(a):
    return a > 1 and a < 4


@Phylanx
def branch(a):
    if a:
        return 1
    return 0


@Phylanx
def asserted(a):
    assert a, "a must hold"
    return 1


@Phylanx
def asserted_lazily(a, log):
    assert a > 0, log.append("message evaluated")
    return log


def test_the_truth_of_an_array_is_numpys_value_error():
    a = np.arange(6.0)
    for f in (chained, both, branch, asserted):
        err = raises_like(f, a)
        assert isinstance(err, ValueError) and not isinstance(err, TypeError)
    for x in (3, 7, -1.5, np.float64(2.0), np.array([3.0])):   # values: Python's
        gives_like(chained, x)
        gives_like(both, x)
    with pytest.raises(ValueError):
        phylanx.evaluate("if([1, 2], 1, 2)")


def test_assert_evaluates_its_message_only_when_it_fails():
    assert asserted_lazily(1, []) == asserted_lazily.python(1, []) == []
    with pytest.raises(AssertionError):
        asserted_lazily(0, [])


@Phylanx
def divide(a, b):
    return a / b


@Phylanx
def floor_divide(a, b):
    return a // b


@Phylanx
def modulo(a, b):
    return a % b


@Phylanx
def divide_in_place(a, b):
    a /= b
    return a


@Phylanx
def python_divmod(a, b):
    return divmod(a, b)


@Phylanx
def power(a, b):
    return a ** b


@Phylanx
def numpy_division(a, b):
    return np.divide(a, b), np.floor_divide(a, b), np.mod(a, b), np.divmod(a, b)


@pytest.mark.parametrize("a, b", [(1, 0), (1.0, 0), (1, 0.0), (-7, 0), (True, False),
                                  (0.0, 0.0)])
def test_python_numbers_divided_by_zero_raise_zero_division_error(a, b):
    for f in (divide, floor_divide, modulo, divide_in_place, python_divmod):
        err = raises_like(f, a, b)
        assert isinstance(err, errors.PhylanxZeroDivisionError)
    raises_like(power, 0.0 if isinstance(a, float) else 0, -1)
    gives_like(numpy_division, a, b)   # NumPy's functions: NumPy's inf/nan, no exception


@pytest.mark.parametrize("a, b", [(np.arange(3.0), 0), (np.float64(1.0), 0),
                                  (1, np.int64(0)), (np.array([1, 2]), 0),
                                  (np.float32(2.0), 0.0)])
def test_numpy_operands_divided_by_zero_keep_numpys_inf_and_warning(a, b):
    for f in (divide, floor_divide, modulo):
        gives_like(f, a, b)
    with pytest.warns(RuntimeWarning):
        divide(a, b)


@Phylanx
def sum_axis(a, axis):
    return np.sum(a, axis=axis)


@Phylanx
def mean_axis(a):
    return a.mean(axis=3)


@Phylanx
def argmax_axis(a):
    return np.argmax(a, axis=2)


def test_an_axis_out_of_bounds_is_numpys_axis_error():
    a = np.arange(6.0)
    for f, args in ((sum_axis, (a, 5)), (sum_axis, (a, -2)), (mean_axis, (a,)),
                    (argmax_axis, (a,))):
        err = raises_like(f, *args)
        assert isinstance(err, (np.exceptions.AxisError, ValueError, IndexError))
        assert isinstance(err, np.exceptions.AxisError)


@Phylanx
def pop_from(container):
    return container.pop()


@Phylanx
def too_many_indices(a):
    return a[0, 0, 0]


@Phylanx
def index_a_number(x):
    return x[0]


def test_lookups_raise_index_and_key_errors_not_value_errors():
    for f, args in ((pop_from, ([],)), (too_many_indices, (np.ones((2, 2)),)),
                    (index_a_number, (np.float64(1.0),)), (index_a_number, (5,)),
                    (index_by, ([1, 2], 5)), (index_by, ({}, "k"))):
        err = raises_like(f, *args)
        if isinstance(err, (IndexError, KeyError)):
            assert not isinstance(err, ValueError)


def test_dict_pop_of_a_missing_key_is_a_key_error():
    source = "def f(d):\n    return d.pop('k')\n"
    f = Phylanx(source=source)(_compiled(source))
    with pytest.raises(KeyError):
        f({})


def test_math_domain_and_overflow_keep_their_classes():
    source = "def f(x):\n    return math.exp(x)\n"
    namespace = {"math": math}
    exec(compile(source, "<test>", "exec"), namespace)
    f = Phylanx(source=source)(namespace["f"])
    with pytest.raises(OverflowError):
        f(1000.0)


@Phylanx
def powers(a, b):
    return a ** b, np.power(a, b), pow(a, b)


@pytest.mark.parametrize("a, b", [(np.array([True, False]), 2), (np.array([True]), 3),
                                  (np.array([1, 2], np.int8), 2), (np.float32(1.5), 2),
                                  (2, 3), (2.0, -1), (np.array([True]), np.int64(2))])
def test_power_is_pythons_operator_and_numpys_function(a, b):
    want, got = powers.python(a, b), powers(a, b)   # b ** 2 of bools: int8 (np.square)
    for g, w in zip(got, want):
        assert type(g) is type(w) and repr(g) == repr(w), (g, w)


A6 = np.arange(6.0)

#: (body of f(x), x): each raises in Python; decorated, the same class must be raised
RAISING = [
    ("return x.reshape(7)", A6), ("return np.linalg.inv(x)", np.zeros((2, 2))),
    ("return np.linalg.inv(x)", np.ones((2, 3))), ("return int(x)", "x"),
    ("return x.index(5)", [1, 2]), ("return x.pop()", []), ("return x + 1", "a"),
    ("return len(x)", 5), ("return math.sqrt(x)", -1.0), ("return math.exp(x)", 1000.0),
    ("return int(x)", float("nan")), ("return int(x)", float("inf")), ("return x[5]", (1, 2)),
    ("return x[5]", "abc"), ("return max(x)", []), ("return np.zeros(x)", -1),
    ("return np.argmax(x, axis=2)", A6), ("return np.concatenate([x, x], axis=1)", A6),
    ("return np.swapaxes(x, 0, 3)", A6), ("return np.expand_dims(x, 5)", A6),
    ("return np.cumsum(x, axis=3)", A6), ("return np.stack([x, x], axis=3)", A6),
    ("return x[0, 0, 0]", np.ones((2, 2))), ("return x[np.array([True, False])]", A6),
    ("return 10.0 ** 400", 1), ("return {x: 1}", [1]), ("return float(x)", A6),
    ("return x.index('z')", "abc"), ("return sorted(x)", [1, "a"]),
    ("return np.arange(0, x, 0)", 1), ("return x.reshape(-1, -1)", A6),
    ("return x[np.array([3])]", np.ones(2)), ("return np.take(x, 10)", A6),
    ("a, b = x\n    return a", [1, 2, 3]), ("return x * 2.5", [1]), ("return abs(x)", "x"),
    ("return {}[x]", [1]), ("return math.log(x)", 0.0), ("return list(range(0, 5, x))", 0),
    ("return divmod(x, 0.0)", 1.0), ("return np.split(x, 4)", A6), ("return x.item(10)", A6),
    ("x[0] = 5\n    return x", (1, 2)), ("return x + np.ones((3, 3))", np.ones((2, 2))),
    ("return x.astype('nonsense')", A6), ("return min(x)", []),
    ("return x @ np.ones(3)", np.ones((2, 2))), ("return x[:0].max()", A6),
]


@pytest.mark.parametrize("body, x", RAISING, ids=[b for b, _ in RAISING])
def test_errors_are_instances_of_the_class_python_raises(body, x):
    source = f"def f(x):\n    {body}\n"
    namespace = {"np": np, "math": math}
    exec(compile(source, "<raising>", "exec"), namespace)
    raises_like(Phylanx(source=source)(namespace["f"]), x)
