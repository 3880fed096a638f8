"""Every compile and run-time error is a located PhylanxError (file:line:col, line, caret)."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import execution_tree as et
from phylanx.errors import (
    PhylanxCompileError,
    PhylanxError,
    PhylanxRuntimeError,
    PhylanxSyntaxError,
    PhylanxTypeError,
    PhylanxValueError,
)


def error_of(code: str, *args) -> PhylanxError:
    with pytest.raises(PhylanxError) as info:
        et.eval(et.compiler_state("errors", "prog.physl"), code, *args)
    return info.value


@pytest.mark.parametrize("code, cls, line, col, text", [
    ("block(\n  f(1))", PhylanxCompileError, 2, 3, "couldn't find function 'f'"),
    ("x + 1", PhylanxCompileError, 1, 1, "couldn't find variable 'x'"),
    ("range(1, 2, 3, 4)", PhylanxCompileError, 1, 1, "too many arguments (expected 1, 2 or 3"),
    ("block(define(f, x, x), store(y, 1))", PhylanxCompileError, 1, 30,
     "couldn't find variable 'y'"),
    ("fold_left(lambda(a, b, a), 0, list(), __arg(nope, 1))", PhylanxCompileError, 1, 39,
     "unknown keyword argument 'nope'"),
    ("fold_left(__arg(func, 1), 0, list())", PhylanxCompileError, 1, 27,
     "keyword arguments should not be followed by non-keyword arguments"),
    ("fold_left(lambda(a, b, a))", PhylanxCompileError, 1, 1, "missing argument initial"),
    ("define(1, 2)", PhylanxCompileError, 1, 1, "define needs a name and a body"),
    ("__arg(a, 1)", PhylanxCompileError, 1, 1, "outside of a call"),
    ("f(1, 2", PhylanxSyntaxError, 1, 7, None),
    ("list(1, 2) +\n  nil", PhylanxTypeError, 1, 12, "can only concatenate list"),
    ("block(\n  define(v, [1, 2, 3]),\n  v + [1, 2])", PhylanxValueError, 3, 5, "broadcast"),
    ("assert(1 > 2, \"order\")", PhylanxRuntimeError, 1, 1, "assertion failed: order"),
    ("range(1.5)", PhylanxTypeError, 1, 1, "range stop must be an integer"),
    ("if([1, 2], 1, 2)", PhylanxValueError, 1, 1, "ambiguous"),
    ("block(define(f, x, x), f(1, 2))", PhylanxTypeError, 1, 24, "takes 1 argument(s), got 2"),
    ("apply(1, list())", PhylanxTypeError, 1, 1, "not a function"),
    # one argument takes the call's fast path: it knew no function yet, and took nil
    # for the one it knew (an internal AttributeError)
    ("block(define(f, nil), f(1))", PhylanxTypeError, 1, 23, "'f' is a nil, not a function"),
    ("block(define(f, nil), f(1, 2))", PhylanxTypeError, 1, 23,
     "'f' is a nil, not a function"),
    ("func{L#3}(1)", PhylanxCompileError, 1, 1, "locality 3 does not exist"),
])
def test_error_location_and_message(code, cls, line, col, text):
    err = error_of(code)
    assert isinstance(err, cls), repr(err)
    assert err.loc is not None and (err.loc.line, err.loc.col) == (line, col), str(err)
    rendered = str(err)
    assert rendered.startswith(f"prog.physl:{line}:{col}: "), rendered
    assert "^" in rendered  # source line and caret
    if text is not None:
        assert text in rendered


def test_runtime_error_names_primitive_and_carries_frames():
    code = """block(
  define(inner, v, v + [1, 2]),
  define(outer, v, inner(v)),
  outer([1, 2, 3]))"""
    err = error_of(code)
    assert err.primitive == "__add"
    assert (err.loc.line, err.loc.col) == (2, 22)
    names = [fn for fn, _ in err.frames]
    assert names == ["inner", "outer"]
    assert "stack (outermost first)" in str(err)


def test_internal_exceptions_never_leak():
    for code in ("slice(list(1), 5)", "dict(list(1, 2, 3))", "__len(1)", "string(1) - 1"):
        with pytest.raises(PhylanxError):
            phylanx.evaluate(code)


def test_division_by_zero_python_numbers_raise_arrays_follow_numpy():
    # Python numbers (PhySL's literals are Python's) follow Python, arrays NumPy
    for code in ("1 / 0", "7 % 0", "0.0 / 0.0", "__floordiv(7, 0)", "1.5 % 0.0"):
        with pytest.raises(ZeroDivisionError):
            phylanx.evaluate(code)
    with np.errstate(divide="ignore", invalid="ignore"):
        assert phylanx.evaluate("[1.0] / 0")[0] == np.inf
        assert phylanx.evaluate("[7] % 0")[0] == 0
        assert np.isnan(phylanx.evaluate("[0.0] / 0.0")[0])
    with pytest.warns(RuntimeWarning):
        phylanx.evaluate("[1.0] / 0")


def test_deep_recursion_is_an_error_not_a_crash():
    with pytest.raises(PhylanxRuntimeError, match="recursion too deep"):
        phylanx.evaluate("block(define(f, n, f(n + 1)), f(0))")


def test_index_and_key_errors_are_also_python_index_and_key_errors():
    from phylanx.errors import PhylanxIndexError, PhylanxKeyError
    for code in ("slice(list(1), 5)", "slice([1, 2], 5)", "slice([[1, 2]], 0, 7)"):
        with pytest.raises(IndexError) as info:
            phylanx.evaluate(code)
        assert isinstance(info.value, PhylanxIndexError) and info.value.loc.line == 1
    with pytest.raises(KeyError) as info:   # a Python subscript d["b"]
        phylanx.evaluate('__subscript(dict(list(list("a", 1))), "b")')
    assert isinstance(info.value, PhylanxKeyError)
    # PhySL's slice gives nil for a missing key, as the original (addendum A.1.7)
    assert phylanx.evaluate('slice(dict(list(list("a", 1))), "b")') is None
    assert "key 'b' not found" in str(info.value) and "^" in str(info.value)


def test_integer_floor_division_by_zero_of_arrays_follows_numpy():
    with np.errstate(divide="ignore"):
        assert phylanx.evaluate("__floordiv([5], 0)")[0] == 0


@pytest.mark.parametrize("code", ["for_each(lambda(i, i), 5)", "for_each(0, 0)"])
def test_for_each_over_a_non_iterable_is_located(code):
    err = error_of(code)
    assert (err.loc.line, err.loc.col) == (1, 1) and err.primitive == "for_each"
    assert "cannot iterate over" in str(err)
