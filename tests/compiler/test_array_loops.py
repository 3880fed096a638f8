"""Array loops as generated Python (compiler/scalar_loops.py, setting ``array_loops``).

The law: a loop whose body calls only kernels that map plain values to plain values
(``scalar_translate.plain_kernel``) computes, as generated Python calling those kernels,
exactly what the tree calling the same kernels computes.  Each program below is written
for this test (row-wise solves, mini-batch SGD over slices, Horner, Gram-Schmidt, power
iteration, a prefix over rows, an ``if`` on an array value, nested loops, a ``while``
with a compound condition, a loop writing into a list, creation functions and ``inv``
in a loop); the oracles are the undecorated function (NumPy) and the tree (settings
``scalar_loops``/``array_loops`` off), which must agree bit for bit with the
translation.  Hypothesis varies shapes and dtypes (float32 too).  Also: errors located
at the user's line, the tree running while nodes are counted or a timeline records, and
the explicit rule that a node fusion took (a compiled loop, a fused region, a row pass)
runs as fusion built it, called from the generated code of the loops around it.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phylanx import Phylanx, config
from phylanx.compiler import scalar_loops
from phylanx.errors import PhylanxError

# -- programs written for this test --------------------------------------------------


def row_solves(a, b, reg):
    """One small solve per row, written into the rows of the result."""
    k = a.shape[1]
    gram = a.T @ a + reg * np.eye(k)
    x = np.zeros((b.shape[0], k), dtype=a.dtype)
    for u in range(b.shape[0]):
        x[u] = np.linalg.solve(gram, a.T @ b[u])
    return x


def minibatch_sgd(x, t, epochs, batch, rate):
    """Least squares by mini-batches: slices, a product, its transpose's product."""
    w = np.zeros(x.shape[1], dtype=x.dtype)
    for _ in range(epochs):
        for start in range(0, x.shape[0], batch):
            xb = x[start:start + batch]
            tb = t[start:start + batch]
            grad = np.dot(xb.T, np.dot(xb, w) - tb)
            w = w - rate * grad / xb.shape[0]
    return w


def horner_rows(coefficients, x):
    """Horner's rule over an array of points, coefficients as a 1-d array."""
    y = np.zeros_like(x)
    for c in coefficients:
        y = y * x + c
    return y


def gram_schmidt(a):
    """Orthonormal columns by classical Gram-Schmidt (nested loops over columns)."""
    q = np.zeros(a.shape, dtype=a.dtype)
    for j in range(a.shape[1]):
        v = a[:, j]
        for k in range(j):
            v = v - (q[:, k] @ a[:, j]) * q[:, k]
        q[:, j] = v / np.linalg.norm(v)
    return q


def power_iteration(m, iterations):
    """The dominant eigenpair by power iteration."""
    v = np.ones(m.shape[0], dtype=m.dtype)
    lam = 0.0
    for _ in range(iterations):
        w = m @ v
        lam = np.dot(v, w)
        v = w / np.linalg.norm(w)
    return v, lam


def prefix_rows(x):
    """A running sum over rows, one row at a time, plus a running maximum."""
    out = np.empty_like(x)
    out[0] = x[0]
    top = np.zeros(x.shape[1], dtype=x.dtype)
    for i in range(1, x.shape[0]):
        out[i] = out[i - 1] + x[i]
        top = np.maximum(top, out[i])
    return out, top


def clipped_steps(x, steps):
    """An ``if`` on an array value (a reduction) choosing between two updates."""
    y = x.copy()
    for _ in range(steps):
        if np.sum(y) > 0.0:
            y = y - 0.5 * np.abs(y)
        else:
            y = y + np.mean(np.abs(y)) + 0.25
    return y


def nested_products(a, b):
    """Nested loops: every entry of a product as a dot product of a row and a column."""
    c = np.zeros((a.shape[0], b.shape[1]), dtype=a.dtype)
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            c[i, j] = np.dot(a[i], b[:, j])
    return c


def residual_descent(a, b, tol, maxit):
    """Steepest descent: a ``while`` with a compound condition and a counter."""
    x = np.zeros(b.shape[0], dtype=b.dtype)
    r = b - a @ x
    k = 0
    while k < maxit and np.linalg.norm(r) > tol:
        ar = a @ r
        step = (r @ r) / (r @ ar)
        x = x + step * r
        r = b - a @ x
        k = k + 1
    return x, k


def row_summaries(x):
    """A loop writing into a list: one summary per row."""
    out = [0.0] * x.shape[0]
    for i in range(x.shape[0]):
        out[i] = float(np.max(x[i]) - np.min(x[i]))
    return out


def inverse_updates(m, shifts):
    """Creation functions and ``inv`` in a loop: (m + s I)^-1 summed over shifts."""
    total = np.zeros(m.shape, dtype=m.dtype)
    for s in shifts:
        total = total + np.linalg.inv(m + s * np.eye(m.shape[0], dtype=m.dtype))
    return total


def cumulative_columns(x):
    """``np.cumsum`` of each row's slice and a concatenation per step."""
    acc = np.zeros((0,), dtype=x.dtype)
    for i in range(x.shape[0]):
        acc = np.concatenate((acc, np.cumsum(x[i, 1:])))
    return acc


def _spd(n, rng, dtype=np.float64):
    m = rng.normal(size=(n, n))
    return (m @ m.T / n + np.eye(n)).astype(dtype)


rng = np.random.default_rng(27)
CASES = [
    (row_solves, (rng.normal(size=(12, 4)), rng.normal(size=(9, 12)), 0.1)),
    (minibatch_sgd, (rng.normal(size=(60, 5)), rng.normal(size=60), 3, 16, 0.05)),
    (horner_rows, (rng.normal(size=6), rng.uniform(-1, 1, 40))),
    (gram_schmidt, (rng.normal(size=(8, 5)),)),
    (power_iteration, (_spd(6, rng), 25)),
    (prefix_rows, (rng.normal(size=(7, 3)),)),
    (clipped_steps, (rng.normal(size=9), 12)),
    (nested_products, (rng.normal(size=(4, 3)), rng.normal(size=(3, 5)))),
    (residual_descent, (_spd(6, rng), rng.normal(size=6), 1e-10, 500)),
    (row_summaries, (rng.normal(size=(5, 4)),)),
    (inverse_updates, (_spd(4, rng), rng.uniform(0.1, 1.0, 5))),
    (cumulative_columns, (rng.normal(size=(4, 5)),)),
    (row_solves, (rng.normal(size=(12, 4)).astype(np.float32),
                  rng.normal(size=(9, 12)).astype(np.float32), 0.1)),
    (horner_rows, (rng.normal(size=6).astype(np.float32),
                   rng.uniform(-1, 1, 40).astype(np.float32))),
    (power_iteration, (_spd(5, rng, np.float32), 10)),
]


# -- helpers ----------------------------------------------------------------------------


def decorated(fn, translate: bool = True, **settings_):
    """``@Phylanx(fn)`` compiled with the settings ``scalar_loops`` and ``array_loops``
    (the translation; off: the tree) and others as given."""
    given_settings = {"scalar_loops": translate, "array_loops": translate, **settings_}
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
    return [a.copy() if isinstance(a, (np.ndarray, list)) else a for a in args]


def assert_identical(got, expected):
    """Same kinds, dtypes and bits (NaN equal to NaN)."""
    if isinstance(expected, (tuple, list)):
        assert type(got) is type(expected) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_identical(g, e)
    elif isinstance(expected, np.ndarray):
        assert type(got) is np.ndarray and got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    else:
        assert type(got) is type(expected)
        assert got == expected or (got != got and expected != expected)


def assert_close(got, expected, dtype):
    """Within rounding of ``dtype`` of the undecorated function's value (the kernels are
    NumPy's; some add in another order than NumPy's own functions)."""
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_close(g, e, dtype)
        return
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=tol, atol=tol)
    if isinstance(expected, np.ndarray):
        assert np.asarray(got).dtype == expected.dtype


def _dtype_of(args):
    return next((a.dtype for a in args if isinstance(a, np.ndarray)), np.float64)


def _id(value):
    return getattr(value, "__name__", "")


# -- the law: translated = tree = undecorated ------------------------------------------


@pytest.mark.parametrize("fn, args", CASES, ids=_id)
def test_translated_and_equal_to_numpy(fn, args):
    dec = decorated(fn, fusion=False, fusion_rows=False, fusion_loops=False)
    assert loops(dec) and all(scalar_loops.translated(n) for n in loops(dec))
    mine, theirs = copies(args), copies(args)
    assert_close(dec(*mine), fn(*theirs), _dtype_of(args))
    for m, t in zip(mine, theirs):
        assert_close(m, t, _dtype_of(args))


@pytest.mark.parametrize("fn, args", CASES, ids=_id)
def test_translation_agrees_with_the_tree_bit_for_bit(fn, args):
    off = dict(fusion=False, fusion_rows=False, fusion_loops=False)
    tree = decorated(fn, translate=False, **off)
    assert not any(scalar_loops.translated(n) for n in loops(tree))
    fast = decorated(fn, **off)
    mine, theirs = copies(args), copies(args)
    assert_identical(fast(*mine), tree(*theirs))
    for m, t in zip(mine, theirs):
        assert_identical(m, t)


_dtypes = st.sampled_from([np.float64, np.float32])


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=st.integers(1, 12), k=st.integers(1, 5), n=st.integers(1, 8), dtype=_dtypes,
       seed=st.integers(0, 2**16))
def test_random_row_solves(rows, k, n, dtype, seed):
    r = np.random.default_rng(seed)
    args = (r.normal(size=(rows, k)).astype(dtype), r.normal(size=(n, rows)).astype(dtype),
            dtype(0.5))
    _check_against_both(row_solves, args, dtype)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(1, 30), d=st.integers(1, 4), batch=st.integers(1, 12),
       dtype=_dtypes, seed=st.integers(0, 2**16))
def test_random_minibatches(n, d, batch, dtype, seed):
    r = np.random.default_rng(seed)
    x = r.normal(size=(n, d)).astype(dtype)
    args = (x, r.normal(size=n).astype(dtype), 2, batch, 0.01)
    _check_against_both(minibatch_sgd, args, dtype)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=st.integers(1, 9), cols=st.integers(1, 5), dtype=_dtypes,
       seed=st.integers(0, 2**16))
def test_random_prefixes_and_lists(rows, cols, dtype, seed):
    x = np.random.default_rng(seed).normal(size=(rows, cols)).astype(dtype)
    _check_against_both(prefix_rows, (x,), dtype)
    _check_against_both(row_summaries, (x,), dtype)
    _check_against_both(cumulative_columns, (x,), dtype)


def _check_against_both(fn, args, dtype):
    off = dict(fusion=False, fusion_rows=False, fusion_loops=False)
    fast, tree = decorated(fn, **off), decorated(fn, translate=False, **off)
    assert all(scalar_loops.translated(n) for n in loops(fast))
    got = fast(*copies(args))
    assert_identical(got, tree(*copies(args)))
    assert_close(got, fn(*copies(args)), dtype)


# -- errors, other kinds, instruments -------------------------------------------------


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


def test_a_singular_solve_is_located_at_its_line():
    a = np.zeros((3, 2))   # gram = a.T @ a + 0 I is singular
    dec = decorated(row_solves)
    assert all(scalar_loops.translated(n) for n in loops(dec))
    with pytest.raises(PhylanxError) as caught:
        dec(a, np.ones((2, 3)), 0.0)
    tree = decorated(row_solves, translate=False)
    with pytest.raises(PhylanxError) as expected:
        tree(a, np.ones((2, 3)), 0.0)
    assert type(caught.value) is type(expected.value)
    assert caught.value.loc is not None
    assert caught.value.loc.line == expected.value.loc.line == _line_of(row_solves, "solve(")


def test_a_shape_mismatch_is_located_at_its_line():
    dec = decorated(nested_products)
    assert all(scalar_loops.translated(n) for n in loops(dec))
    a, b = np.ones((2, 3)), np.ones((4, 2))
    with pytest.raises(ValueError):
        nested_products(a, b)
    with pytest.raises(PhylanxError) as caught:
        dec(a, b)
    assert isinstance(caught.value, ValueError)
    assert caught.value.loc.line == _line_of(nested_products, "np.dot(a[i]")


def test_a_value_that_is_not_plain_runs_the_tree():
    """An array of Python objects is not plain (the generated code handles typed arrays):
    the tree runs the loop, and the answer is the tree's.  (A masked array, which this test
    used, is now refused at the call: tests/frontend/test_array_subclass_arguments.py.)"""
    x = rng.normal(size=(4, 3)).astype(object)
    dec = decorated(prefix_rows)
    assert all(scalar_loops.translated(n) for n in loops(dec))
    assert not scalar_loops.plain(x)
    tree = decorated(prefix_rows, translate=False)
    assert_identical(dec(x.copy()), tree(x.copy()))


def test_measured_loops_count_every_node():
    """With measurements on, the tree runs the loop: the counters see each product."""
    import csv
    import io

    from phylanx import execution_tree as et
    state = et.compiler_state("array_loops_counted", "<count>")
    et.compile(state, "<count>", "f", """
        define(f, m, v, n, block(
            for_each(lambda(i, store(v, solve(m, v))), range(n)), v))""")
    loop = next(n for n in et.code_for(state, "<count>", "f").body.walk()
                if n.primitive == "for_each")
    assert scalar_loops.translated(loop)
    et.enable_measurements(state, True)
    try:
        got = et.eval(state, "f", np.eye(2) * 0.5, np.ones(2), 3)
        rows = list(csv.reader(io.StringIO(et.retrieve_counter_data(state))))
    finally:
        et.enable_measurements(state, False)
    np.testing.assert_array_equal(got, np.full(2, 8.0))
    counts = {row[1]: int(row[2]) for row in rows[1:] if row[1].startswith("solve")}
    assert list(counts.values()) == [3]


def test_a_timeline_records_every_node():
    """While a timeline records, the tree runs the loop: each product is sampled."""
    from phylanx.instrumentation import timeline
    dec = decorated(power_iteration)
    assert all(scalar_loops.translated(n) for n in loops(dec))
    recorder = timeline.Recorder(threshold_us=0).start()
    try:
        dec(_spd(4, rng), 3)
    finally:
        recorder.stop()
    spans = [e for e in recorder.events if e[0] == timeline.NODE]
    assert sum(1 for e in spans if e[1].primitive == "matmul") == 3


# -- which wins: fusion's nodes run as fusion built them ------------------------------


def logistic_steps(x, y, w, steps, rate):
    """A loop holding a row pass (``x.T @ f(x @ w)``), an element-wise chain and a
    ``solve`` (which fusion/loops.py does not compile: the loop stays ours)."""
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        w = w - rate * np.linalg.solve(np.eye(w.shape[0]) * 2.0, x.T @ (p - y))
    return w


def test_a_node_fusion_took_runs_as_fusion_built_it_inside_the_loop():
    from phylanx import fusion
    if not fusion.backend_available():
        pytest.skip("numba is not installed: fusion takes nothing")
    x, y = rng.normal(size=(40, 3)), (rng.uniform(size=40) > 0.5).astype(float)
    dec = decorated(logistic_steps)
    taken = fusion.regions_of(dec._function.body)
    assert taken, "fusion took no node of the loop"
    (loop,) = loops(dec)
    assert scalar_loops.translated(loop)
    source = loop.run.scalar_loop.source
    # each node fusion took is called through its own entry, never translated
    assert source.count(".call(frame)") == len(taken)
    for region in taken:
        assert region.node.run.__self__ is region
    # the same loop with those nodes as the tree's (no fusion): translated as a whole
    off = decorated(logistic_steps, fusion=False, fusion_rows=False, fusion_loops=False)
    assert ".call(frame)" not in loops(off)[0].run.scalar_loop.source
    tree = decorated(logistic_steps, translate=False)
    w = np.zeros(3)
    expected = logistic_steps(x, y, w, 5, 0.1)
    np.testing.assert_allclose(dec(x, y, w, 5, 0.1), expected, rtol=1e-10)
    np.testing.assert_array_equal(dec(x, y, w, 5, 0.1), tree(x, y, w, 5, 0.1))
    np.testing.assert_allclose(off(x, y, w, 5, 0.1), expected, rtol=1e-12)


def nested_with_a_compiled_loop(m, v, outer, inner):
    """An outer loop of array kernels around a loop fusion/loops.py compiles."""
    total = np.zeros(m.shape[0])
    for k in range(outer):
        w = v * (k + 1.0)
        for _ in range(inner):
            w = m @ w
            w = w / np.sqrt(np.sum(w * w))
        total = total + np.linalg.solve(m, w)
    return total


def test_an_inner_loop_numba_compiles_is_called_by_the_outer_translation():
    from phylanx import fusion
    from phylanx.fusion import loops as fused_loops
    if not fusion.backend_available():
        pytest.skip("numba is not installed: fusion takes nothing")
    dec = decorated(nested_with_a_compiled_loop)
    outer, inner = loops(dec)
    assert isinstance(getattr(inner.run, "__self__", None), fused_loops.CompiledLoop)
    assert scalar_loops.translated(outer)
    assert ".call(frame)" in outer.run.scalar_loop.source
    m, v = _spd(4, rng), rng.normal(size=4)
    tree = decorated(nested_with_a_compiled_loop, translate=False)
    np.testing.assert_array_equal(dec(m, v, 3, 4), tree(m, v, 3, 4))
    np.testing.assert_allclose(dec(m, v, 3, 4), nested_with_a_compiled_loop(m, v, 3, 4),
                               rtol=1e-10)


def normalised_products(m, v, n):
    """A loop of products and element-wise steps: fusion/loops.py compiles it."""
    for _ in range(n):
        v = m @ v
        v = v / np.sqrt(np.sum(v * v))
    return v


def test_a_loop_numba_compiles_is_left_to_it():
    from phylanx import fusion
    from phylanx.fusion import loops as fused_loops
    if not fusion.backend_available():
        pytest.skip("numba is not installed: fusion takes nothing")
    dec = decorated(normalised_products)
    loop = loops(dec)[0]
    assert isinstance(getattr(loop.run, "__self__", None), fused_loops.CompiledLoop)
    assert not scalar_loops.translated(loop)


# -- dead temporaries reused (compiler/loop_buffers.py) ----------------------------------


def stencil(u, iterations):
    """A Jacobi sweep: a chain of sums of slices, scaled, written back."""
    for _ in range(iterations):
        inner = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        u = u.copy()
        u[1:-1, 1:-1] = inner
    return u


def kept_products(a, b, c, n):
    """``z`` is a variable: its buffer must never take ``z + c``; ``a * b`` broadcasts."""
    out = []
    for k in range(n):
        z = a * b
        w = z + c * (k + 1.0)
        out = out + [z, w, (a * b[0]) - c]
    return out


BIG = 64   # 64 x 64 = 4096 elements: above loop_buffers.MIN_ELEMENTS
BUFFER_CASES = [
    (stencil, (rng.normal(size=(BIG, BIG)), 4)),
    (stencil, (rng.normal(size=(BIG, BIG)).astype(np.float32), 3)),
    (stencil, (rng.normal(size=(8, 8)), 3)),
    (horner_rows, (rng.normal(size=7), rng.uniform(-1, 1, 5000))),
    (horner_rows, (rng.normal(size=7).astype(np.float32),
                   rng.uniform(-1, 1, 5000).astype(np.float32))),
    (kept_products, (rng.normal(size=(BIG, BIG)), rng.normal(size=(BIG, BIG)),
                     rng.normal(size=(BIG, BIG)), 3)),
    (kept_products, (rng.normal(size=(BIG, BIG)), rng.normal(size=BIG), rng.normal(size=BIG),
                     2)),
]


@pytest.mark.parametrize("fn, args", BUFFER_CASES, ids=_id)
def test_reused_buffers_give_the_trees_and_numpys_values(fn, args):
    off = dict(fusion=False, fusion_rows=False, fusion_loops=False)
    fast, tree = decorated(fn, **off), decorated(fn, translate=False, **off)
    assert all(scalar_loops.translated(n) for n in loops(fast))
    got = fast(*copies(args))
    assert_identical(got, tree(*copies(args)))
    assert_identical(got, fn(*copies(args)))


def test_the_chain_reuses_its_dead_sums_and_never_a_variable():
    import re
    off = dict(fusion=False, fusion_rows=False, fusion_loops=False)
    source = loops(decorated(stencil, **off))[0].run.scalar_loop.source
    # the second and third sums go into the first sum's buffer, the product into theirs
    assert source.count("_reuse_left(") == 2 and source.count("_reuse_right(") == 1
    for fn in (stencil, kept_products, horner_rows):
        text = loops(decorated(fn, **off))[0].run.scalar_loop.source
        # the buffer given is always a temporary (t<n>), never a variable (v<slot>)
        for left in re.findall(r"_reuse_left\(\w+, (\w+), \w+\)", text):
            assert re.fullmatch(r"t\d+", left)
        for right in re.findall(r"_reuse_right\(\w+, \w+, (\w+)\)", text):
            assert re.fullmatch(r"t\d+", right)
        # and the temporary is read by nothing else
        for dead in re.findall(r"_reuse_(?:left|right)\(\w+, (\w+), (\w+)\)", text):
            for name in dead:
                if name.startswith("t"):
                    # bound, read on one line (the reuse and its small-operand case)
                    assert len([line for line in text.splitlines()
                                if re.search(rf"\b{name}\b", line)]) == 2
