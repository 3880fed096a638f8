"""Scalar loops as generated Python (compiler/scalar_loops.py): taken, and the tree's answers.

The oracle is the undecorated function on copies of the same inputs (CPython, NumPy):
results, the arrays and lists written, NumPy scalar types, and the exception class of an
out-of-range index, located at the user's line.  A property test runs random sequences
of reads and writes, negative and out-of-range indices included, against NumPy and
against the tree (setting ``scalar_loops`` off).
"""
from __future__ import annotations

import inspect
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phylanx import Phylanx, config
from phylanx.compiler import scalar_loops
from phylanx.errors import PhylanxError

# the benchmark's programs (benchmarks/scalar_loops.py) are the ones these tests check
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from scalar_loops import (  # noqa: E402
    edit_distance,
    fewest_coins,
    knapsack,
    lcs,
    matrix_loop,
    prefix_sum,
)


def backwards(x, out):
    """Negative indices, a while loop and writes that cast (into ``out``'s dtype)."""
    n = len(x)
    k = 1
    while k <= n:
        out[-k] = x[-k] * 2.5
        k += 1
    return out[-1]


def read_all(x):
    """Every element read into a Python list: the scalar types are the tree's."""
    items = []
    for i in range(len(x)):
        items = items + [x[i]]
    return items


def rows_alias(a):
    """``a[i]`` of a 2-d array is a view: writing into it writes ``a``."""
    for i in range(a.shape[0]):
        row = a[i]
        row[0] = i + 100
    return a


def zero_d(z, n):
    """A 0-d array's element, ``z[()]``, read in a loop."""
    total = 0.0
    for i in range(n):
        total = total + z[()] * i
    return total


def out_of_range(x, n):
    last = None
    for i in range(n):
        last = x[i]
    return last


def apply_ops(a, kinds, rows, cols, values):
    """Reads (kind 0) and writes (kind 1) of ``a[rows[k], cols[k]]`` in sequence."""
    acc = 0.0
    for k in range(len(kinds)):
        if kinds[k] == 0:
            acc = acc + a[rows[k], cols[k]]
        else:
            a[rows[k], cols[k]] = values[k]
    return acc


def apply_ops_1d(a, kinds, rows, values):
    acc = 0.0
    for k in range(len(kinds)):
        if kinds[k] == 0:
            acc = acc + a[rows[k]]
        else:
            a[rows[k]] = values[k]
    return acc


def decorated(fn, translate: bool = True):
    """``@Phylanx(fn)`` compiled with the setting ``scalar_loops`` as given."""
    config.set("scalar_loops", translate)
    try:
        dec = Phylanx(fn)
        dec._ensure_compiled()
    finally:
        config.reset("scalar_loops")
    return dec


def loops(dec) -> list:
    return [n for n in dec._function.body.walk() if n.primitive in ("for_each", "while")]


def copies(args):
    return [a.copy() if isinstance(a, (np.ndarray, list)) else a for a in args]


def assert_same(got, expected):
    assert type(got) is type(expected)
    if isinstance(expected, np.ndarray):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    elif isinstance(expected, list):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e)
    else:
        assert got == expected or (got != got and expected != expected)


rng = np.random.default_rng(7)
PROGRAMS = [
    (edit_distance, (rng.integers(0, 3, 9), rng.integers(0, 3, 7))),
    (edit_distance, ("kitten", "sitting")),
    (lcs, ("ACGGTAC", "GTTACGA")),
    (lcs, (list(rng.integers(0, 3, 6)), list(rng.integers(0, 3, 8)))),
    (knapsack, ([3, 4, 5, 9], [4, 5, 7, 11], 13)),
    (fewest_coins, ([2, 5, 7], 23)),
    (fewest_coins, ([4, 6], 9)),                 # no way: inf
    (prefix_sum, (rng.random(17),)),
    (prefix_sum, (rng.random(9).astype(np.float32),)),
    (prefix_sum, (np.arange(6, dtype=np.int32),)),
    (matrix_loop, (rng.random((4, 5)), rng.random(5))),
    (matrix_loop, (rng.random((3, 2)).astype(np.float32), np.arange(2))),
    (backwards, (rng.random(6), np.zeros(6, dtype=np.int16))),
    (backwards, ([1.0, -2.0, 3.5], np.zeros(3, dtype=np.float32))),
    (backwards, (np.arange(4), np.zeros(4, dtype=np.complex128))),
    (read_all, (np.arange(5, dtype=np.uint8),)),
    (read_all, (rng.random(3).astype(np.float32),)),
    (read_all, (np.array([True, False]),)),
    (read_all, ([1, 2.5, "x", None],)),
    (read_all, ("abc",)),
    (read_all, (rng.random((3, 2)),)),
    (rows_alias, (np.zeros((3, 2)),)),
    (zero_d, (np.array(2.5), 4)),
    (zero_d, (np.array(3, dtype=np.int16), 3)),
]


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=lambda v: getattr(v, "__name__", ""))
def test_translated_and_equal_to_python(fn, args):
    dec = decorated(fn)
    assert loops(dec) and all(scalar_loops.translated(n) for n in loops(dec))
    mine, theirs = copies(args), copies(args)
    assert_same(dec(*mine), fn(*theirs))
    for m, t in zip(mine, theirs):   # what the loop wrote into its arguments
        assert_same(m, t)


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=lambda v: getattr(v, "__name__", ""))
def test_translation_agrees_with_the_tree(fn, args):
    tree = decorated(fn, translate=False)
    assert not any(scalar_loops.translated(n) for n in loops(tree))
    fast = decorated(fn)
    mine, theirs = copies(args), copies(args)
    assert_same(fast(*mine), tree(*theirs))
    for m, t in zip(mine, theirs):
        assert_same(m, t)


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("x", [np.arange(3.0), [1, 2, 3], "abc", np.array(1.0)],
                         ids=["array", "list", "str", "0-d"])
def test_out_of_range_is_a_located_index_error(x):
    dec = decorated(out_of_range)
    assert all(scalar_loops.translated(n) for n in loops(dec))
    with pytest.raises(IndexError):
        out_of_range(x, 5)
    with pytest.raises(IndexError) as caught:
        dec(x, 5)
    error = caught.value
    assert isinstance(error, PhylanxError)
    assert error.loc is not None and error.loc.line == _line_of(out_of_range, "x[i]")


def test_write_out_of_range_is_a_located_index_error():
    dec = decorated(apply_ops)
    a, b = np.zeros((2, 3)), np.zeros((2, 3))
    args = ([1, 1, 0], [0, 1, -3], [2, 3, 0], [1.0, 2.0, 0.0])
    with pytest.raises(IndexError):
        apply_ops(b, *args)
    with pytest.raises(IndexError) as caught:
        dec(a, *args)
    assert caught.value.loc.line == _line_of(apply_ops, "a[rows[k], cols[k]] = values[k]")
    np.testing.assert_array_equal(a, b)   # the writes before the failure happened


def test_other_operand_kinds_take_the_generic_paths():
    """A float index goes to the generic kernel (the kind test sends it there), which
    refuses it as NumPy does; a list holding a dictionary is not plain: the tree runs."""
    dec = decorated(apply_ops_1d)
    with pytest.raises(IndexError):
        apply_ops_1d(np.zeros(3), [0], [1.0], [0.0])
    with pytest.raises(IndexError):
        dec(np.zeros(3), [0], [1.0], [0.0])
    a, b = np.arange(3.0), np.arange(3.0)
    args = ([0, 0], [2, -1], [{"not": "plain"}, None])
    assert not scalar_loops.plain(args[2])
    assert dec(a, *args) == apply_ops_1d(b, *args)


DTYPES = [np.int8, np.int32, np.int64, np.uint16, np.float32, np.float64, np.bool_,
          np.complex64]


@st.composite
def op_sequences(draw, ndim: int):
    shape = tuple(draw(st.integers(1, 4)) for _ in range(ndim))
    dtype = draw(st.sampled_from(DTYPES))
    n = draw(st.integers(0, 12))
    kinds = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    idx = [draw(st.lists(st.integers(-s - 1, s), min_size=n, max_size=n)) for s in shape]
    if dtype is np.bool_:
        values = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    elif np.issubdtype(dtype, np.unsignedinteger):
        values = draw(st.lists(st.integers(0, 200), min_size=n, max_size=n))
    else:
        values = draw(st.lists(st.integers(-100, 100), min_size=n, max_size=n))
    data = (np.arange(int(np.prod(shape))).reshape(shape) % 7).astype(dtype)
    return data, kinds, idx, values


FAST_2D = {}


def _outcome(fn, a, *args):
    try:
        return "ok", fn(a, *args)
    except IndexError as e:
        return "IndexError", type(e).__mro__[-3:]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(op_sequences(2))
def test_random_reads_and_writes_2d(case):
    data, kinds, (rows, cols), values = case
    if not FAST_2D:
        FAST_2D["fast"], FAST_2D["tree"] = decorated(apply_ops), decorated(apply_ops, False)
    expected_array = data.copy()
    expected = _outcome(apply_ops, expected_array, kinds, rows, cols, values)
    for variant in ("fast", "tree"):
        a = data.copy()
        got = _outcome(FAST_2D[variant], a, kinds, rows, cols, values)
        assert got[0] == expected[0]
        if got[0] == "ok":
            assert_same(got[1], expected[1])
        np.testing.assert_array_equal(a, expected_array)


FAST_1D = {}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(op_sequences(1), st.booleans())
def test_random_reads_and_writes_1d(case, as_list):
    data, kinds, (rows,), values = case
    if not FAST_1D:
        FAST_1D["fast"], FAST_1D["tree"] = decorated(apply_ops_1d), \
            decorated(apply_ops_1d, False)
    if as_list:   # (a Python complex cannot be passed to PhySL: its real part is)
        data = (data.real if data.dtype.kind == "c" else data).tolist()
    expected_data = data.copy()
    expected = _outcome(apply_ops_1d, expected_data, kinds, rows, values)
    for variant in ("fast", "tree"):
        a = data.copy()
        got = _outcome(FAST_1D[variant], a, kinds, rows, values)
        assert got[0] == expected[0]
        if got[0] == "ok":
            assert_same(got[1], expected[1])
        assert_same(a, expected_data)


def test_a_future_read_by_the_loop_runs_the_tree():
    """``x`` holds a future (``async``): not plain, so the tree runs the loop (and resolves
    it where consumed, as always)."""
    from phylanx import execution_tree as et
    state = et.compiler_state("scalar_loops_future")
    et.compile(state, "<test>", "f", """
        define(f, n, block(define(x, async(list(1, 2, 3))), define(s, 0),
            for_each(lambda(i, store(s, s + __subscript(x, i))), range(n)), s))""")
    fn = et.code_for(state, "<test>", "f")
    loop = next(n for n in fn.body.walk() if n.primitive == "for_each")
    assert scalar_loops.translated(loop)
    assert et.invoke(fn, (3,), {}) == 6


def test_measured_loops_count_every_node():
    """With measurements on, the tree runs the loop: the counters see each node."""
    import csv
    import io

    from phylanx import execution_tree as et
    state = et.compiler_state("scalar_loops_counted", "<count>")
    et.compile(state, "<count>", "f", """
        define(f, x, n, block(define(s, 0),
            for_each(lambda(i, store(s, s + __subscript(x, i))), range(n)), s))""")
    loop = next(n for n in et.code_for(state, "<count>", "f").body.walk()
                if n.primitive == "for_each")
    assert scalar_loops.translated(loop)
    et.enable_measurements(state, True)
    try:
        assert et.eval(state, "f", [1, 2, 3, 4], 4) == 10
        rows = list(csv.reader(io.StringIO(et.retrieve_counter_data(state))))
    finally:
        et.enable_measurements(state, False)
    counts = {row[1]: int(row[2]) for row in rows[1:] if row[1].startswith("subscript")}
    assert list(counts.values()) == [4]
