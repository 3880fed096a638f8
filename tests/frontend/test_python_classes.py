"""``isinstance``, ``issubclass``, ``type(x)`` and classes in comparisons: decided at run time
from the value, as in the undecorated function (``f.python`` is the oracle)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxError

VALUES = [1, 2.5, True, None, "text", [1, 2], (1, 2), {"a": 1}, np.float64(1.5),
          np.float32(2.0), np.int64(3), np.bool_(True), np.arange(3.0),
          np.ones((2, 2), dtype=np.float32), np.arange(3)]


def agree(f, *args):
    want, got = f.python(*args), f(*args)
    assert repr(got) == repr(want), (args, got, want)
    assert type(got) is type(want)
    return got


@Phylanx
def instance_tests(x):
    return (isinstance(x, np.ndarray), isinstance(x, (int, float)), isinstance(x, list),
            isinstance(x, tuple), isinstance(x, dict), isinstance(x, str), isinstance(x, bool),
            isinstance(x, np.floating), isinstance(x, np.integer), isinstance(x, np.generic),
            isinstance(x, (np.ndarray, (list, tuple))), isinstance(x, float),
            isinstance(x, int), isinstance(x, type(None)), isinstance(x, complex),
            isinstance(x, np.number), isinstance(x, object))


@Phylanx
def type_tests(x):
    return (type(x) is int, type(x) == np.ndarray, type(x).__name__, type(x) in (int, float),  # noqa: E721
            type(x) is not float, type(x) == np.float64, str(type(x)),  # noqa: E721
            type(x) is np.float32, type(x) != list, f"{type(x)}")  # noqa: E721


@Phylanx
def type_of(x):
    return type(x)


@Phylanx
def type_in_a_variable(x):
    t = type(x)
    return t is int, t == float, t in (int, float, np.ndarray), t.__name__  # noqa: E721


@Phylanx
def dispatch(x):
    if isinstance(x, np.ndarray):
        return x.sum()
    elif isinstance(x, (list, tuple)):
        return len(x)
    elif isinstance(x, str):
        return x.upper()
    return x


@Phylanx
def subclass_tests(x):
    return (issubclass(type(x), np.floating), issubclass(bool, int),
            issubclass(type(x), (int, np.integer)), np.ndarray.__name__, int.__name__)


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_isinstance_and_type_decide_from_the_value_as_python_does(value):
    agree(instance_tests, value)
    agree(type_tests, value)
    agree(type_of, value)
    agree(type_in_a_variable, value)
    agree(dispatch, value)
    agree(subclass_tests, value)


@Phylanx
def dtype_tests(x):
    return (x.dtype == np.float32, x.dtype == float, x.dtype, x.dtype in (np.float32, np.int64),
            f"{x.dtype}", x.dtype == "float64", x.dtype != np.float64, str(x.dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
def test_dtype_is_numpys_dtype_and_compares_with_classes_and_names(dtype):
    agree(dtype_tests, np.ones(3, dtype=dtype))


@Phylanx
def compare_with_stored_class(x):
    t = int
    kinds = (np.ndarray, list)
    d = np.float32
    return type(x) is t, isinstance(x, kinds), t, d, np.zeros(2, dtype=d), np.ones(2, d)


def is_of(x, t):
    return type(x) is t


@Phylanx
def class_passed_to_a_helper(x):
    return is_of(x, int)


@Phylanx
def caught_class(x, k):
    try:
        return x[k]
    except (KeyError, IndexError) as e:
        return isinstance(e, KeyError), type(e).__name__


@pytest.mark.parametrize("value", [1, np.arange(2.0), [1]])
def test_a_class_assigned_to_a_variable_is_the_class_and_still_a_dtype(value):
    agree(compare_with_stored_class, value)


def test_a_class_passed_as_an_argument_is_a_dtype_name_and_comparing_it_is_an_error():
    # as an argument a class name is the dtype it names (np.zeros(3, np.float32)); compared
    # with a class it would be false without a word, so it is refused, saying why
    with pytest.raises(PhylanxError, match="class passed as an argument") as info:
        class_passed_to_a_helper(1)
    assert info.value.loc is not None and isinstance(info.value, TypeError)


def test_caught_exceptions_have_their_python_class():
    agree(caught_class, {}, "k")
    agree(caught_class, [], 0)


def test_unsupported_forms_name_the_construct():
    source = "def f(x):\n    return type('C', (), {})\n"
    namespace: dict = {}
    exec(compile(source, "<classes>", "exec"), namespace)
    with pytest.raises(PhylanxError, match=r"type\(x\) of one value"):
        Phylanx(source=source)(namespace["f"])(1)


class Box:
    pass


def test_classes_other_than_builtin_and_numpy_ones_are_refused_naming_the_call():
    import numbers
    for text, namespace in (("isinstance(x, Box)", {"Box": Box}),
                            ("isinstance(x, (int, numbers.Number))", {"numbers": numbers})):
        source = f"def f(x):\n    return {text}\n"
        exec(compile(source, "<classes>", "exec"), namespace)
        with pytest.raises(PhylanxError, match=re.escape(text) + ": only built-in and NumPy"):
            Phylanx(source=source)(namespace["f"])(1)


@Phylanx
def class_attribute(x):
    return x.__class__, x.__class__.__name__


@pytest.mark.parametrize("value", [1, 2.5, np.arange(2), np.float32(1), [1], "s"])
def test_dunder_class_is_type(value):
    agree(class_attribute, value)
