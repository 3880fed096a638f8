"""Loop invariants of a translated loop computed once per run (compiler/loop_invariants.py).

The law: a pure expression reading no variable the loop assigns and no array it stores
into (nor one sharing memory with such an array) has the same value in every iteration
of one run of the loop; ``solve``'s LU factors depend on its matrix alone.  So the
translation with the setting ``loop_invariants`` on computes exactly (bit for bit) what
it computes with it off, and what the undecorated function computes within rounding.
The programs are written for this test, several of them so that reuse would be wrong:
the loop stores into the very array an invariant reads, into a view of it, or into an
alias of the matrix a solve factorises; an invariant under a condition, in a loop that
runs zero times, or raising.  Rephrasings of a loop of solves (``np.dot``, ``.dot``, a
helper ``def``, a ``while`` loop, the matrix written inside the loop; float32 too) each
factorise the invariant matrix once per run of the loop, counted.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phylanx import Phylanx, config
from phylanx.compiler import scalar_loops
from phylanx.errors import PhylanxError
from phylanx.primitives.matrixops import numpy_products

OFF = dict(fusion=False, fusion_rows=False, fusion_loops=False)


def decorated(fn, invariants: bool = True):
    given_settings = {"loop_invariants": invariants, **OFF}
    for name, value in given_settings.items():
        config.set(name, value)
    try:
        dec = Phylanx(fn)
        dec._ensure_compiled()
    finally:
        for name in given_settings:
            config.reset(name)
    return dec


def loops(dec) -> list:
    return [n for n in dec._function.body.walk() if n.primitive in ("for_each", "while")]


def copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def assert_identical(got, expected):
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_identical(g, e)
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def assert_close(got, expected):
    if isinstance(expected, (tuple, list)):
        for g, e in zip(got, expected):
            assert_close(g, e)
        return
    tol = 1e-4 if np.asarray(expected).dtype == np.float32 else 1e-9
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=tol, atol=tol)


def check(fn, args):
    """The translation with reuse = without, bit for bit (results and arguments it
    changes), and = the undecorated function within rounding."""
    on, off = decorated(fn), decorated(fn, invariants=False)
    assert loops(on) and all(scalar_loops.translated(n) for n in loops(on))
    mine, theirs, plain = copies(args), copies(args), copies(args)
    got = on(*mine)
    assert_identical(got, off(*theirs))
    for m, t in zip(mine, theirs):
        assert_identical(m, t)
    assert_close(got, fn(*plain))
    for m, p in zip(mine, plain):
        assert_close(m, p)
    return on


# -- programs written for this test ---------------------------------------------------


def row_solves(a, b, reg):
    """ALS' half-step: the transpose and the system matrix are invariant in the loop."""
    gram = a.T @ a + reg * np.eye(a.shape[1], dtype=a.dtype)
    x = np.zeros((b.shape[0], a.shape[1]), dtype=a.dtype)
    for u in range(b.shape[0]):
        x[u] = np.linalg.solve(gram, a.T @ b[u])
    return x


def row_solves_by_dot(a, b, reg):
    gram = np.dot(a.T, a) + reg * np.eye(a.shape[1], dtype=a.dtype)
    x = np.zeros((b.shape[0], a.shape[1]), dtype=a.dtype)
    for u in range(b.shape[0]):
        x[u] = np.linalg.solve(gram, np.dot(a.T, b[u]))
    return x


def row_solves_by_method(a, b, reg):
    gram = a.T.dot(a) + reg * np.eye(a.shape[1], dtype=a.dtype)
    x = np.zeros((b.shape[0], a.shape[1]), dtype=a.dtype)
    for u in range(b.shape[0]):
        x[u] = np.linalg.solve(gram, a.T.dot(b[u]))
    return x


def row_solves_by_helper(a, b, reg):
    def one_row(gram, rhs):
        return np.linalg.solve(gram, a.T @ rhs)
    gram = a.T @ a + reg * np.eye(a.shape[1], dtype=a.dtype)
    x = np.zeros((b.shape[0], a.shape[1]), dtype=a.dtype)
    for u in range(b.shape[0]):
        x[u] = one_row(gram, b[u])
    return x


def row_solves_gram_inside(a, b, reg):
    """The system matrix written inside the loop: an invariant expression."""
    x = np.zeros((b.shape[0], a.shape[1]), dtype=a.dtype)
    for u in range(b.shape[0]):
        x[u] = np.linalg.solve(a.T @ a + reg * np.eye(a.shape[1], dtype=a.dtype),
                               a.T @ b[u])
    return x


def row_solves_by_while(a, b, reg):
    gram = a.T @ a + reg * np.eye(a.shape[1], dtype=a.dtype)
    x = np.zeros((b.shape[0], a.shape[1]), dtype=a.dtype)
    u = 0
    while u < b.shape[0]:
        x[u] = np.linalg.solve(gram, a.T @ b[u])
        u += 1
    return x


def solves_into_the_transposed(a, reg):
    """The loop stores into ``a`` itself while reading ``a.T``: not reused (the static
    rule: a variable stored into is never invariant)."""
    gram = a.T @ a + reg * np.eye(a.shape[1], dtype=a.dtype)
    for u in range(a.shape[0]):
        a[u] = np.linalg.solve(gram, a.T @ a[:, 0])
    return a


def solves_into_a_view(a, reg):
    """The loop stores into a view of ``a`` (another variable): ``a.T @ ...`` changes
    with it; the memory test at the first evaluation refuses the reuse."""
    gram = a.T @ a + reg * np.eye(a.shape[1], dtype=a.dtype)
    top = a[:2]
    for u in range(2):
        top[u] = np.linalg.solve(gram, a.T @ a[:, 0]) * 0.5
    return a


def solves_with_a_changing_alias(m, b):
    """The loop changes the matrix it solves with through another name."""
    alias = m
    x = np.zeros((b.shape[0], m.shape[0]))
    for i in range(b.shape[0]):
        x[i] = np.linalg.solve(m, b[i])
        alias[0, 0] = alias[0, 0] + 1.0
    return x


def invariant_under_a_condition(m, v, n):
    acc = np.zeros(m.shape[1])
    for i in range(n):
        if i % 3 == 1:
            acc = acc + m.T @ v
        acc = acc * 0.5
    return acc


def nested_invariants(m, v, n):
    """``m.T`` is invariant in both loops; ``w`` only in the inner one."""
    out = np.zeros(m.shape[1])
    for i in range(n):
        w = v * (i + 1.0)
        for j in range(n):
            out = out + m.T @ w + np.sum(m.T) * j
    return out


def fresh_arrays_written(n, k):
    """``np.zeros(k)`` is pure and reads nothing, but the loop writes into it: each
    iteration must have its own."""
    rows = []
    for i in range(n):
        z = np.zeros(k)
        z[i % k] = i
        rows = rows + [z]
    return rows


def slice_lists(r, n):
    total = np.zeros(r.shape[0])
    for i in range(n):
        total = total + r[:, i] * 2.0
    return total


rng = np.random.default_rng(7)


def _spd(n, dtype=np.float64):
    m = rng.normal(size=(n, n))
    return (m @ m.T / n + np.eye(n)).astype(dtype)


CASES = [
    (row_solves, (rng.normal(size=(12, 4)), rng.normal(size=(9, 12)), 0.1)),
    (row_solves, (rng.normal(size=(12, 4)).astype(np.float32),
                  rng.normal(size=(9, 12)).astype(np.float32), 0.1)),
    (solves_into_the_transposed, (rng.normal(size=(6, 3)), 0.5)),
    (solves_into_a_view, (rng.normal(size=(6, 3)), 0.5)),
    (solves_with_a_changing_alias, (_spd(3), rng.normal(size=(5, 3)))),
    (invariant_under_a_condition, (rng.normal(size=(4, 3)), rng.normal(size=4), 7)),
    (invariant_under_a_condition, (rng.normal(size=(4, 3)), rng.normal(size=4), 0)),
    (nested_invariants, (rng.normal(size=(4, 3)), rng.normal(size=4), 4)),
    (fresh_arrays_written, (5, 3)),
    (slice_lists, (rng.normal(size=(5, 6)), 6)),
]


@pytest.mark.parametrize("fn, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_reuse_agrees_with_no_reuse_and_numpy(fn, args):
    check(fn, args)


def test_the_invariants_are_computed_lazily_in_the_generated_code():
    dec = check(row_solves, CASES[0][1])
    source = "".join(n.run.scalar_loop.source for n in loops(dec))
    assert "_UNSET" in source and "_keep(" in source


def test_an_aliased_store_is_seen_at_run_time():
    """``solves_into_a_view`` reads ``a`` and stores into ``top``: the static facts allow
    the reuse; only the memory test refuses it (with it gone, the answer would differ)."""
    dec = decorated(solves_into_a_view)
    source = "".join(n.run.scalar_loop.source for n in loops(dec))
    assert "_keep(" in source
    a = rng.normal(size=(6, 3))
    assert_close(dec(a.copy(), 0.5), solves_into_a_view(a.copy(), 0.5))


@pytest.fixture
def factorisations(monkeypatch):
    """How many times an LU factorisation of a solve's matrix runs."""
    calls = []
    real = numpy_products._lu_factors

    def counted(a, *rest):
        calls.append(a.shape)
        return real(a, *rest)
    monkeypatch.setattr(numpy_products, "_lu_factors", counted)
    return calls


@pytest.mark.parametrize("fn", [row_solves, row_solves_by_dot, row_solves_by_method,
                                row_solves_by_helper, row_solves_by_while,
                                row_solves_gram_inside],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_phrasing_factorises_the_invariant_matrix_once(fn, dtype, factorisations):
    a = rng.normal(size=(12, 4)).astype(dtype)
    b = rng.normal(size=(9, 12)).astype(dtype)
    dec = check(fn, (a, b, 0.1))
    factorisations.clear()
    dec(a, b, 0.1)
    assert factorisations == [(4, 4)]
    off = decorated(fn, invariants=False)
    factorisations.clear()
    off(a, b, 0.1)
    assert len(factorisations) == b.shape[0]


def test_the_changing_matrix_is_factorised_every_time(factorisations):
    m, b = _spd(3), rng.normal(size=(5, 3))
    dec = check(solves_with_a_changing_alias, (m, b))
    factorisations.clear()
    dec(m.copy(), b)
    assert len(factorisations) == 5


def test_a_singular_invariant_matrix_is_solves_own_error_at_its_line():
    a = np.zeros((3, 2))
    errors = []
    for invariants in (True, False):
        with pytest.raises(PhylanxError) as caught:
            decorated(row_solves, invariants)(a, np.ones((2, 3)), 0.0)
        errors.append(caught.value)
    assert type(errors[0]) is type(errors[1])
    assert str(errors[0]) == str(errors[1])
    assert errors[0].loc is not None and errors[0].loc.line == errors[1].loc.line


def raising_invariant(m, n):
    acc = 0.0
    for i in range(n):
        acc = acc + np.sum(np.linalg.inv(m)) * i
    return acc


def test_an_invariant_raises_where_it_did_and_not_when_never_evaluated():
    singular = np.zeros((2, 2))
    dec = decorated(raising_invariant)
    assert dec(singular, 0) == raising_invariant(singular, 0) == 0.0
    errors = []
    for invariants in (True, False):
        with pytest.raises(PhylanxError) as caught:
            decorated(raising_invariant, invariants)(singular, 3)
        errors.append(caught.value)
    assert str(errors[0]) == str(errors[1]) and errors[0].loc.line == errors[1].loc.line


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=st.integers(1, 10), k=st.integers(1, 5), n=st.integers(0, 8),
       dtype=st.sampled_from([np.float64, np.float32]), alias=st.booleans(),
       seed=st.integers(0, 2**16))
def test_random_loops_of_solves_agree_with_and_without_reuse(rows, k, n, dtype, alias, seed):
    r = np.random.default_rng(seed)
    a = r.normal(size=(rows + k, k)).astype(dtype)
    b = r.normal(size=(n, rows + k)).astype(dtype)
    if alias:
        check(solves_into_a_view, (a, 0.5)) if a.shape[0] >= 2 else None
    check(row_solves, (a, b, 0.25))
    check(nested_invariants, (a, r.normal(size=rows + k).astype(dtype), min(n, 4)))


def test_what_may_be_kept_by_kind_and_memory():
    """The run-time half of the rule, alone: kinds and shared memory."""
    from phylanx.compiler.loop_invariants import NEVER, keep, unaliased
    y = np.ones((4, 3))
    assert unaliased((y, 2, 1.5, None, np.float32(1)), (np.zeros(3),))
    assert not unaliased((y,), (y[1:],))                 # a view of what is stored into
    assert not unaliased(([y],), ())                     # a list may hold a changed array
    assert not unaliased((np.empty(2, dtype=object),), ())
    assert keep(y.T, False, (y,), (np.zeros(2),)) is not NEVER
    assert keep([1, 2], False, (), ()) is NEVER          # a list read by an operator
    assert keep([1, 2], True, (), ()) == [1, 2]          # ... or only looked at (an index)
    assert keep(np.empty(2, dtype=object), False, (), ()) is NEVER
    assert keep(y.T, False, (y,), (y,)) is NEVER
