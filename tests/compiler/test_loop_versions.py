"""Translated loops in two versions (compiler/loop_versions.py) and loop-entry int tests.

The oracle is the undecorated function on copies of the same inputs: results, tables
written (values and dtypes, or list items and their types), and the class of an error
(an out-of-range index is a located ``IndexError`` in both versions).  The property
test draws dynamic programs as text (``for``/``while`` phrasings, int32/int64/float32/
float64 tables or nested lists, arrays, lists or strings as inputs, random cells with
``min``/``max``, conditions and reads that may leave the table) and compares each with
CPython.
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
from phylanx.compiler.loop_versions import inductive_ints
from phylanx.compiler.scalar_translate import FILE_PREFIX
from phylanx.errors import PhylanxError, PhylanxTypeError

from ..source_functions import compiled as compiled_from

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from general_programs import edit_distance  # noqa: E402
from scalar_loops import knapsack, lcs  # noqa: E402


def decorated(fn, versions: bool = True):
    config.set("loop_versions", versions)
    try:
        dec = Phylanx(fn)
        dec._ensure_compiled()
    finally:
        config.reset("loop_versions")
    return dec


def translations(dec) -> list[str]:
    return [n.run.scalar_loop.source for n in dec._function.body.walk()
            if n.primitive in ("for_each", "while") and scalar_loops.translated(n)]


def fast_part(source: str) -> str:
    """The fast version's lines: from the entry test ``if f..:`` to its ``return``."""
    lines = source.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("        if f"))
    end = next(k for k in range(start, len(lines)) if lines[k].startswith("            return"))
    # (a range's kind test runs once per run of the loop it makes, not per step)
    return "\n".join(line for line in lines[start + 1:end] if "_range(" not in line)


def dp_while(s, t, d):
    """Edit distance phrased with while loops and ``+=`` (a table of any dtype)."""
    m = len(s)
    n = len(t)
    i = 1
    while i <= m:
        j = 1
        while j <= n:
            cost = 0 if s[i - 1] == t[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
            j += 1
        i += 1
    return d[m, n]


def drifting(x, n):
    """``j`` stops being an int half way: not an inductive int, the index is refused."""
    total = 0.0
    j = 0
    while j < n:
        total = total + x[j]
        j = j + 1 if j < 2 else j + 0.5
    return total


def test_the_fast_version_has_no_kind_tests_per_step():
    """Edit distance (general.py's, float table) and LCS of int arrays: the fast version
    indexes directly and calls Python's min/max and truth (fails before loop_versions)."""
    for fn in (edit_distance, lcs):
        outer = max(translations(decorated(fn)), key=lambda text: text.count("for v"))
        fast = fast_part(outer)
        for per_step in ("_NUMBERS", "_truth(", " if f", "_put(", " else k"):
            assert per_step not in fast, (fn.__name__, per_step)
        assert "min(" in fast or "max(" in fast


def test_two_versions_give_the_undecorated_answers_for_every_kind():
    """One decorated function called with arrays of four dtypes, int32 inputs and
    Python lists: each call equals CPython's (the fast version where its entry tests
    hold, the general one otherwise), table dtype included."""
    dec = decorated(dp_while)
    rng = np.random.default_rng(3)
    s, t = rng.integers(0, 3, 7), rng.integers(0, 3, 9)
    for dtype in (np.int32, np.int64, np.float32, np.float64):
        for inputs in ((s, t), (s.astype(np.int32), t.astype(np.int32)),
                       (s.tolist(), t.tolist())):
            d0 = np.zeros((8, 10), dtype=dtype)
            d0[:, 0], d0[0, :] = np.arange(8), np.arange(10)
            d1, d2 = d0.copy(), d0.copy()
            got, expected = dec(*inputs, d1), dp_while(*inputs, d2)
            assert type(got) is type(expected) and got == expected
            assert d1.dtype == d2.dtype
            np.testing.assert_array_equal(d1, d2)


def test_an_index_out_of_range_in_the_fast_version_is_located():
    dec = decorated(dp_while)
    s, t = np.arange(4), np.arange(5)
    small = np.zeros((5, 3))          # the table has fewer columns than t needs
    with pytest.raises(IndexError):
        dp_while(s, t, small.copy())
    with pytest.raises(IndexError) as caught:
        dec(s, t, small.copy())
    assert isinstance(caught.value, PhylanxError)
    lines, first = inspect.getsourcelines(dp_while)
    line = first + next(k for k, text in enumerate(lines) if "d[i, j] = min" in text)
    assert caught.value.loc is not None and caught.value.loc.line == line


def test_a_variable_that_stops_being_an_int_is_not_taken_for_one():
    dec = decorated(drifting)
    x = np.arange(10.0)
    with pytest.raises(IndexError):
        drifting(x, 5)
    with pytest.raises(IndexError):
        dec(x, 5)
    loop = next(n for n in dec._function.body.walk() if n.primitive == "while")
    j = next(n for n in loop.walk() if n.primitive == "store" and n.instance == "j")
    assert j.variable[2] not in inductive_ints(loop)
    assert dec(x, 2) == drifting(x, 2)


def aliasing(arr, n):
    """``j`` and ``k`` are inductive together: an int ``j`` at entry is not enough, ``k``
    (an array) makes ``j`` one, and ``j += 1`` then adds in place into ``arr``."""
    j = 0
    k = arr
    i = 0
    while i < n:
        j += 1
        j = k
        k = i
        i += 1
    return arr


def test_an_inductive_int_rests_on_every_variable_it_is_assigned_from():
    dec = decorated(aliasing)
    got, expected = dec(np.zeros(3), 3), aliasing(np.zeros(3), 3)
    np.testing.assert_array_equal(got, expected)   # [1, 1, 1]: j += 1 in place


def test_knapsack_weights_of_any_int_kind():
    """``best[c - w]`` with ``w`` a Python int (the loop's entry test holds), a NumPy
    int (it does not: the per-step test) or a float (the generic kernel refuses it)."""
    dec = decorated(knapsack)
    weights, values = [3, 4, 2, 5], [4, 5, 3, 8]
    assert dec(weights, values, 9) == knapsack(weights, values, 9)
    np_weights = [np.int64(w) for w in weights]
    assert dec(np_weights, values, 9) == knapsack(np_weights, values, 9)
    with pytest.raises(TypeError):
        knapsack([3.0, 4.0], values, 9)
    with pytest.raises(PhylanxError):
        dec([3.0, 4.0], values, 9)


# -- random dynamic programs ---------------------------------------------------------

TABLE_KINDS = ["int32", "int64", "float32", "float64", "list"]


TABLE_READS = ["d[i - 1, j]", "d[i, j - 1]", "d[i - 1, j - 1]", "1", "2", "cost",
               "d[i - 2, j]", "d[i, j + 1]"]


@st.composite
def cells(draw, leaves: list, depth: int = 0):
    if depth >= 2 or draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(leaves))
    x, y = draw(cells(leaves, depth + 1)), draw(cells(leaves, depth + 1))
    form = draw(st.integers(0, 4))
    if form == 0:
        return f"({x} + {y})"
    if form == 1:
        return f"({x} - {y})"
    if form == 2:
        return f"min({x}, {y}, {draw(cells(leaves, depth + 1))})"
    if form == 3:
        return f"max({x}, {y})"
    return f"({x} if {draw(cells(leaves, depth + 1))} < {y} else {y})"


@st.composite
def programs(draw):
    phrase_while = draw(st.booleans())
    # the inputs: int arrays, lists of ints or strings (only compared then)
    inputs = draw(st.sampled_from(["arrays", "lists", "strings"]))
    leaves = TABLE_READS + ([] if inputs == "strings" else ["a[i - 1]", "b[j - 1]"])
    cell = draw(cells(leaves))
    cost = draw(st.sampled_from([
        "cost = 0 if a[i - 1] == b[j - 1] else 1",
        "cost = 0.5\n{pad}if a[i - 1] != b[j - 1]:\n{pad}    cost = 1.5",
    ]))
    table = draw(st.sampled_from(TABLE_KINDS))
    if table == "list":
        cell = cell.replace(", j]", "][j]").replace(", j - 1]", "][j - 1]") \
            .replace(", j + 1]", "][j + 1]")
    store = "d[i][j]" if table == "list" else "d[i, j]"
    if phrase_while:
        pad = " " * 12
        body = (f"    i = 1\n    while i < n:\n        j = 1\n        while j < m:\n"
                f"{pad}{cost.format(pad=pad)}\n{pad}{store} = {cell}\n{pad}j += 1\n"
                f"        i += 1\n")
    else:
        pad = " " * 12
        body = (f"    for i in range(1, n):\n        for j in range(1, m):\n"
                f"{pad}{cost.format(pad=pad)}\n{pad}{store} = {cell}\n")
    text = f"def dp(a, b, d):\n    n = len(a) + 1\n    m = len(b) + 1\n{body}    return d\n"
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    return text, table, rows, cols, inputs, draw(st.integers(0, 2 ** 16))


COMPILED: dict = {}


def compiled(text: str, versions: bool):
    key = (text, versions)
    if key not in COMPILED:
        dec = compiled_from(text, "dp", where=f"<dp-{len(COMPILED)}>",
                            decorate=lambda fn: decorated(fn, versions))
        COMPILED[key] = (dec.python, dec)
    return COMPILED[key]


def outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except IndexError:
        return "IndexError", None
    except TypeError:
        return "TypeError", None


def same(got, expected):
    if isinstance(expected, np.ndarray):
        assert type(got) is np.ndarray and got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    else:
        assert got == expected
        for g, e in zip(got, expected):
            assert [type(v) for v in g] == [type(v) for v in e]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_dynamic_programs_agree_with_cpython(case):
    text, table, rows, cols, inputs, seed = case
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 3, rows), rng.integers(0, 3, cols)
    if inputs == "lists":
        a, b = a.tolist(), b.tolist()
    elif inputs == "strings":
        a, b = "".join("ACG"[k] for k in a), "".join("ACG"[k] for k in b)
    d0 = (rng.integers(0, 5, (rows + 1, cols + 1))).astype(
        np.int64 if table == "list" else table)
    make = (lambda: d0.tolist()) if table == "list" else d0.copy
    # (the setting off is the general version alone, which test_scalar_loops checks)
    fn, dec = compiled(text, True)
    expected_table, got_table = make(), make()
    with np.errstate(over="ignore"):
        expected = outcome(fn, a, b, expected_table)
        got = outcome(dec, a, b, got_table)
    assert got[0] == expected[0], text
    same(got_table, expected_table)


def count_up(n, step_from):
    total = 0
    for i in range(n):
        for j in range(step_from, n, -1):
            total = total + i * j
    return total


@pytest.mark.parametrize("n", [3, np.int64(3), 2.0, True, -1], ids=repr)
def test_a_range_of_python_ints_is_pythons_and_other_kinds_are_the_kernels(n):
    """``range(a, b)`` is Python's for Python ints (tested once per run of the loop),
    the kernel's otherwise, with Python's rules too (a bool taken; a float, even an
    integral one, a located TypeError, as Python raises)."""
    config.set("scalar_loops", False)
    try:
        tree = Phylanx(count_up)
        tree._ensure_compiled()
    finally:
        config.reset("scalar_loops")
    dec = decorated(count_up)
    assert "_range(" in translations(dec)[0]

    def outcome_of(fn):
        try:
            return fn(n, 5)
        except PhylanxError as e:
            return type(e)
    assert outcome_of(dec) == outcome_of(tree)
    try:
        expected = count_up(n, 5)
    except TypeError:
        expected = PhylanxTypeError
    assert outcome_of(dec) == expected


def lcs_into(a, b, t):
    """LCS into a given table (one too small raises in the loop, naming its line)."""
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                t[i, j] = t[i - 1, j - 1] + 1
            else:
                t[i, j] = max(t[i - 1, j], t[i, j - 1])
    return t


def failing_version(dec, *args) -> str:
    """"fast" or "general": which version of the outer loop raised (the line of the
    generated code in the error's traceback)."""
    with pytest.raises(IndexError) as caught:
        dec(*args)
    tb = (caught.value.__cause__ or caught.value).__traceback__
    line, source = None, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(FILE_PREFIX):
            line, source = tb.tb_lineno, tb.tb_frame.f_code
        tb = tb.tb_next
    text = max(translations(dec), key=lambda t: t.count("for v"))   # the outer loop's
    lines = text.splitlines()
    start = next(k for k, x in enumerate(lines) if x.startswith("        if f")) + 1
    end = next(k for k in range(start, len(lines)) if lines[k].startswith("            return"))
    assert source is not None
    return "fast" if start < line <= end + 1 else "general"


def test_strings_int_arrays_and_float_tables_run_the_fast_version():
    """The entry tests hold for strings, int arrays and float tables; a list of lists
    as the table (no ndarray) runs the general version."""
    dec = decorated(lcs_into)
    short = np.zeros((4, 3))
    assert failing_version(dec, "ACGT", "ACGTA", short.copy()) == "fast"
    assert failing_version(dec, np.arange(3), np.arange(4), short.copy()) == "fast"
    assert failing_version(dec, np.arange(3), np.arange(4),
                           short.astype(np.int32)) == "fast"
    assert failing_version(dec, [0, 1, 2], [0, 1, 2, 3], short.copy()) == "general"
