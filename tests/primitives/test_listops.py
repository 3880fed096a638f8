"""List access and update primitives (listops/access.py) against plain Python lists."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxError, PhylanxTypeError, PhylanxValueError
from phylanx.primitives.registry import lookup

COMPOSITION_NAMES = ["c" + "".join(p) + "r" for n in (2, 3, 4)
                     for p in itertools.product("ad", repeat=n)]


def _deep_list(depth=4, width=5):
    """Nested Python list with distinct integer leaves."""
    leaves = itertools.count(100)

    def build(d):
        return [build(d - 1) if d > 1 else next(leaves) for _ in range(width)]
    return build(depth)


def _lisp_reference(name, value):
    """Apply ``name`` the Lisp way: read the a/d letters from the right."""
    for letter in name[-2:0:-1]:
        value = value[0] if letter == "a" else value[1:]
    return value


def _plain(value):
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return int(value)


def test_all_compositions_are_registered():
    assert len(COMPOSITION_NAMES) == 28
    for name in COMPOSITION_NAMES:
        spec = lookup(name)
        assert spec is not None and spec.category == "listops", name
        assert spec.doc.startswith(f"``{name}(x)``"), name


@pytest.mark.parametrize("name", ["car", "cdr"] + COMPOSITION_NAMES)
def test_car_cdr_family_matches_python(name):
    data = _deep_list()
    got = phylanx.evaluate(f"lambda(x, {name}(x))", data)
    assert _plain(got) == _reference_plain(name, data)


def _reference_plain(name, data):
    return _plain(_lisp_reference(name, data))


def test_car_cdr_order_of_letters():
    # cadr = car(cdr(x)) is the second element; cdar = cdr(car(x)) the tail of the first
    data = [[1, 2, 3], [4, 5], 6]
    assert phylanx.evaluate("lambda(x, cadr(x))", data) == [4, 5]
    assert phylanx.evaluate("lambda(x, cdar(x))", data) == [2, 3]
    assert phylanx.evaluate("lambda(x, caddr(x))", data) == 6


def test_car_of_lazy_range_is_a_python_int():
    value = phylanx.evaluate("car(range(3, 6))")
    assert type(value) is int and value == 3   # as Python's range(3, 6)[0]
    assert list(phylanx.evaluate("cdr(range(3, 6))")) == [4, 5]


def test_cdr_returns_a_new_list():
    got = phylanx.evaluate("block(define(xs, list(1, 2, 3)), define(ys, cdr(xs)),"
                           " __list_append(ys, 9), list(xs, ys))")
    assert _plain(got) == [[1, 2, 3], [2, 3, 9]]


@pytest.mark.parametrize("code, error, message", [
    ("car(list())", PhylanxValueError, "empty list"),
    ("cdr(list())", PhylanxValueError, "empty list"),
    ("car([1, 2])", PhylanxTypeError, "must be a list"),
    ("cdr(42)", PhylanxTypeError, "must be a list"),
    ("cadr(list(1))", PhylanxValueError, "empty list"),
    ("caar(list(1, 2))", PhylanxTypeError, "must be a list"),
])
def test_car_cdr_errors(code, error, message):
    with pytest.raises(error, match=message):
        phylanx.evaluate(code)


def test_prepend_and_append_build_new_lists():
    got = phylanx.evaluate("block(define(xs, list(1, 2)), define(a, append(xs, 3)),"
                           " define(p, prepend(0, xs)), list(xs, a, p))")
    assert _plain(got) == [[1, 2], [1, 2, 3], [0, 1, 2]]


def test_append_keeps_array_values_whole():
    got = phylanx.evaluate("lambda(v, append(list(1), v))", np.arange(3.0))
    assert len(got) == 2 and np.array_equal(got[1], np.arange(3.0))
    got = phylanx.evaluate("prepend(list(7), range(2))")
    assert _plain(got) == [[7], 0, 1]


@pytest.mark.parametrize("code", ["append(1, 2)", "prepend(1, \"ab\")", "append([1, 2], 3)"])
def test_prepend_append_need_a_list(code):
    with pytest.raises(PhylanxTypeError, match="(first|second) argument must be a list"):
        phylanx.evaluate(code)


def test_list_append_in_place_returns_nil():
    got = phylanx.evaluate("block(define(xs, list(1)), define(r, __list_append(xs, 2)),"
                           " list(r, xs))")
    assert got[0] is None and _plain(got[1]) == [1, 2]


def test_list_extend_with_list_and_array():
    python = [1]
    python.extend([2, 3])
    python.extend(np.array([4, 5]).tolist())
    got = phylanx.evaluate("lambda(v, block(define(xs, list(1)), __list_extend(xs, list(2, 3)),"
                           " __list_extend(xs, v), xs))", np.array([4, 5]))
    assert _plain(got) == python
    # as Python's list.extend: literals stay ints, an array's elements are NumPy scalars
    assert [type(v) for v in got] == [int, int, int, np.int64, np.int64]


@pytest.mark.parametrize("index", [None, 0, 1, -1, -3])
def test_list_pop_matches_python(index):
    python = [10, 20, 30]
    expected_value = python.pop() if index is None else python.pop(index)
    call = "__list_pop(xs)" if index is None else f"__list_pop(xs, {index})"
    got = phylanx.evaluate(f"block(define(xs, list(10, 20, 30)), list({call}, xs))")
    assert int(got[0]) == expected_value and _plain(got[1]) == python


def test_list_pop_keyword_index():
    got = phylanx.evaluate("block(define(xs, list(1, 2)),"
                           " list(__list_pop(xs, __arg(index, 0)), xs))")
    assert _plain(got) == [1, [2]]


@pytest.mark.parametrize("code, error, message", [
    ("__list_pop(list())", PhylanxValueError, "pop from an empty list"),
    ("__list_pop(list(1, 2), 2)", PhylanxValueError, "out of range"),
    ("__list_pop(list(1, 2), -3)", PhylanxValueError, "out of range"),
    ("__list_pop(list(1, 2), 0.5)", PhylanxTypeError, "must be an integer"),
    ("__list_append(range(3), 1)", PhylanxTypeError, "cannot be modified in place"),
    ("__list_append([1, 2], 1)", PhylanxTypeError, "must be a list"),
    ("__list_extend(list(), 3)", PhylanxTypeError, "must be a list"),
])
def test_in_place_errors(code, error, message):
    with pytest.raises(error, match=message):
        phylanx.evaluate(code)


def test_in_place_primitives_are_flagged():
    for name in ("__list_append", "__list_extend", "__list_pop"):
        spec = lookup(name)
        assert spec.extension and spec.side_effects, name


def test_errors_are_located():
    with pytest.raises(PhylanxError) as info:
        phylanx.evaluate("block(define(xs, list()), car(xs))")
    assert info.value.primitive == "car"
