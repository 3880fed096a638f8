"""Differences a new user's review of issue 31 found (decorated vs undecorated code):
each case is a small function run decorated and as ``f.python`` on the same inputs; the
results must agree in value, type and dtype, or both raise the same Python exception class."""
from __future__ import annotations

import copy
import textwrap

import numpy as np
import pytest

from phylanx import Phylanx

from .test_python_values_property import same_kind_and_value

CASES = {
    # ~ of a Python bool is ~ of the int (-2), not logical not; NumPy bools stay logical
    "invert_python_bool": ("""
        def f(x, a):
            return ~x, ~(x > 0), ~bool(x), ~np.bool_(x), ~a[0], ~np.all(a), ~(a.sum() > 0)
        """, [(True, np.array([True, False])), (0, np.array([False, True])),
              (2.5, np.array([True, True]))]),
    # int()/float()/complex() of an array: NumPy's rule (only 0-d converts in NumPy 2)
    "convert_one_element_array": ("""
        def f(a):
            return int(a)
        """, [(np.array([3]),), (np.array([[2.5]]),), (np.float32(2.5),)]),
    "convert_float_complex_array": ("""
        def f(a):
            return float(a), complex(a)
        """, [(np.array([3]),), (np.int8(-3),)]),
    # Python's list equality is identity first: a NaN is in (and counts in) a list holding it
    "nan_in_list": ("""
        def f(xs):
            y = xs[1]
            return np.nan in [np.nan], y in xs, xs.count(y), xs.index(y), y in (0.0, y)
        """, [([1.0, float("nan")],), ([1.0, 2.0],)]),
    "nan_remove": ("""
        def f(xs):
            xs.remove(xs[1])
            return xs
        """, [([1.0, float("nan"), 2.0],)]),
    # Python's exception classes for pop
    "pop_errors": ("""
        def f(xs, d, i):
            if i == 0:
                return xs.pop()
            if i == 1:
                return xs.pop(7)
            return d.pop("missing")
        """, [([], {}, 0), ([1], {}, 1), ([1], {"a": 1}, 2), ([1], {}, 0)]),
    # NumPy's scalar types are NumPy's: out of range is OverflowError, arrays stay arrays
    "numpy_scalar_types": ("""
        def f(x):
            return np.uint8(x), np.int8(x)
        """, [(-1,), (300,), (-1.5,), (2.7,), (np.array([-1, 300]),), (np.array([3]),),
              ([1, 2],), ("12",)]),
    "numpy_scalar_bool": ("""
        def f(x):
            return np.bool_(x), np.float32(x)
        """, [(np.array([1, 0]),), (np.array([0.5]),), (2,)]),
    # f-string conversions !r and !a, and the self-documenting {x=} (Python's repr)
    "fstring_repr": ("""
        def f(x, y):
            return f"{x=}", f"{x!r}", f"{y!r:>12}", f"{x = :.2f}", f"{y!a}", f"{x + 1=}"
        """, [(2.5, "é"), (np.float32(0.1), "a'b"), (np.int8(3), ""), (7, "x")]),
    # characters and digits: Python's ord, chr, bin, hex, oct (they were refused)
    "ord_chr_digits": ("""
        def f(s, n):
            return [ord(c) for c in s], chr(n + 65), bin(n), hex(-n), oct(n), chr(ord("a") + n)
        """, [("Az", 3), ("", 0), ("é", 25)]),
    "ord_errors": ("""
        def f(s, n):
            return ord(s), chr(n)
        """, [("ab", 1), ("a", -1), ("a", 1.5)]),
    # set.update/remove/pop are the set's own (they went to the dict/list kernels and were
    # refused), list/dict .clear() and dict.popitem() are Python's own
    "set_methods": ("""
        def f(s, x):
            s.update([7, 8])
            s.update({9}, [10])
            s.remove(x)
            s.pop()
            return sorted(s), len(s)
        """, [({1, 2}, 1), ({1, 2}, 99), ({5}, 5)]),
    "set_pop_empty": ("""
        def f(s):
            return s.pop()
        """, [(set(),), ({3},)]),
    "clear_popitem": ("""
        def f(xs, d):
            k = d.popitem()
            xs.clear()
            d.clear()
            return xs, d, k
        """, [([1, 2], {"a": 1, "b": 2}), ([], {})]),
    # a method of lists (dicts) on another receiver is Python's AttributeError
    "method_receiver_class": ("""
        def f(x, i):
            if i == 0:
                x.sort()
            elif i == 1:
                x.remove(1)
            elif i == 2:
                return x.get(1)
            elif i == 3:
                return x.keys()
            elif i == 4:
                x.update({1: 2})
            return x
        """, [({1, 2}, 0), ((1, 2), 1), ([1], 2), ("ab", 3), ([1], 4), ([2, 1], 0)]),
    # filter(None, xs) keeps the true items (it was refused: nil is not a function)
    "filter_none": ("""
        def f(xs):
            return list(filter(None, xs)), [x for x in filter(None, xs)]
        """, [([0, 1, "", "a", None, 2.5, [], [0]],), ([],), ((0, 0),)]),
}


def _run(fn, args):
    try:
        return fn(*copy.deepcopy(args))   # each call gets fresh arguments (it may change them)
    except Exception as e:   # noqa: BLE001 - the oracle's exception is the expectation
        return e


@pytest.mark.parametrize("name", sorted(CASES))
def test_decorated_equals_undecorated(name):
    source, argsets = CASES[name]
    source = textwrap.dedent(source)
    namespace = {"np": np}
    exec(compile(source, f"<{name}>", "exec"), namespace)
    decorated = Phylanx(source=source)(namespace["f"])
    for args in argsets:
        want = _run(decorated.python, args)
        got = _run(decorated, args)
        if isinstance(want, Exception):
            assert isinstance(got, type(want)), f"{args}: Python raised {want!r}, got {got!r}"
            continue
        assert not isinstance(got, Exception), f"{args}: Python returned {want!r}, got {got!r}"
        problem = same_kind_and_value(got, want)
        assert problem is None, f"{args}: {problem}"
