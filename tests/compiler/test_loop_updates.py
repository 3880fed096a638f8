"""``x op= e`` in a translated loop is ``x = x op e`` stored back, computed in place
(compiler/loop_buffers.py ``update``; issue 27 item 1: ``x[a:b] += e`` is the same
program as ``x[a:b] = x[a:b] + e``).

The law: a ufunc's output may overlap its inputs (NumPy buffers what an overlap needs),
so ``op(x, e, out=x)`` writes what computing ``op(x, e)`` and copying it into ``x``
writes.  Oracles: the undecorated function (NumPy), the tree (``scalar_loops`` off) and
the phrasing by a slice store, which must agree bit for bit, for the operators with a
ufunc, float32/float64/int64/complex targets, scalars and arrays of the target's shape
or another (broadcast), and an operand that overlaps the target.  The in-place form
allocates no result-sized temporary (tracemalloc); a cast NumPy refuses is the tree's
located error.
"""
from __future__ import annotations

import tracemalloc
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from phylanx import Phylanx, config
from phylanx.compiler.through_ir import optimize_through_ir
from phylanx.errors import PhylanxError
from phylanx.language import parser

from .test_array_loops import assert_identical, copies, decorated, loops

OFF = dict(fusion=False, fusion_rows=False, fusion_loops=False)


def add_slice(u, e, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] += e
    return u


def add_slice_stored(u, e, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + e
    return u


def sub_name(u, e, steps):
    u = u.copy()
    for _ in range(steps):
        u -= e
    return u


def mul_rows(u, e, steps):
    u = u.copy()
    for i in range(steps):
        u[i % u.shape[0]] *= e
    return u


def div_slice(u, e, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] /= e
    return u


def shifted(u, e, steps):
    """The operand overlaps the target (a shifted view of the same array)."""
    u = u.copy()
    for _ in range(steps):
        u[1:] += e * u[:-1]
    return u


def heat_augmented(u, r, steps):
    """benchmarks/fresh_programs.py's phrasing: ``+=`` on the interior slice."""
    u = u.copy()
    for _ in range(steps):
        lap = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u[1:-1] += r * lap
    return u


def heat_stored(u, r, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


def translated_agrees(fn, *args):
    """fn translated, the tree and NumPy: the same kinds, dtypes and bits (or all raise)."""
    on, off = decorated(fn, **OFF), decorated(fn, False, **OFF)
    assert loops(on)[0].run.scalar_loop is not None
    assert "_update(" in loops(on)[0].run.scalar_loop.source
    try:
        want = fn(*copies(args))
    except Exception:
        with pytest.raises(PhylanxError):
            on(*copies(args))
        with pytest.raises(PhylanxError):
            off(*copies(args))
        return None
    got = on(*copies(args))
    assert_identical(got, want)
    assert_identical(off(*copies(args)), want)
    return got


DTYPES = [np.float64, np.float32, np.int64, np.complex128]


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(fn=st.sampled_from([add_slice, sub_name, mul_rows, div_slice, shifted]),
       dtype=st.sampled_from(DTYPES), n=st.integers(3, 9),
       other=st.sampled_from(["int", "float", "same", "row", "float32", "int64"]),
       seed=st.integers(0, 2**16), steps=st.integers(1, 3))
def test_an_update_in_a_loop_is_numpys(fn, dtype, n, other, seed, steps):
    rng = np.random.default_rng(seed)
    u = (rng.normal(size=(n, 3)) * 4).astype(dtype)
    target_shape = {add_slice: (n - 2, 3), div_slice: (n - 2, 3), sub_name: (n, 3),
                    mul_rows: (3,), shifted: (n - 1, 3)}[fn]
    e = {"int": 2, "float": 0.5,
         "same": rng.uniform(1, 2, size=target_shape).astype(dtype),
         "row": rng.uniform(1, 2, size=3),
         "float32": rng.uniform(1, 2, size=target_shape).astype(np.float32),
         "int64": rng.integers(1, 3, size=target_shape)}[other]
    if fn is shifted and other in ("same", "float32", "int64"):
        e = e[0]              # a row: e * u[:-1] broadcasts
    translated_agrees(fn, u, e, steps)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_augmented_phrasing_is_the_slice_store(dtype):
    u = np.sin(np.linspace(0.0, 3.0, 40)).astype(dtype)
    got = translated_agrees(heat_augmented, u, 0.4, 5)
    stored = decorated(heat_stored, **OFF)(u.copy(), 0.4, 5)
    np.testing.assert_allclose(got, stored, rtol=1e-5 if dtype == np.float32 else 1e-12)
    e = np.linspace(0.0, 1.0, 38)
    assert_identical(translated_agrees(add_slice, u.astype(np.float64), e, 3),
                     decorated(add_slice_stored, **OFF)(u.astype(np.float64), e, 3))


def test_an_update_in_place_allocates_no_result_sized_temporary():
    n = 200_000
    u, e = np.ones(n), np.full(n - 2, 0.5)
    on = decorated(add_slice, **OFF)
    on(u, e, 1)                                        # compiled, warm
    tracemalloc.start()
    try:
        got = on(u, e, 3)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert_identical(got, add_slice(u, e, 3))
    # the copy of u is the program's (NumPy's too); u[1:-1] + e would be another
    assert peak < 1.5 * u.nbytes


def test_a_cast_numpy_refuses_is_the_located_error():
    """A guard (passes on the old code too): the cast stays the kernel's located error."""
    u = np.arange(6)
    with pytest.raises(PhylanxError, match="in place") as err:
        decorated(div_slice, **OFF)(u, 2, 1)
    assert err.value.loc is not None and err.value.loc.line > 0


@pytest.mark.parametrize("translate", [True, False])
def test_an_update_by_a_dtype_variant_keeps_its_cast(translate):
    """``__inplace(x, __add__int(x, e))`` (PhySL's dtype variant: the sum cast to int64,
    then stored into ``x``) is not ``x += e``: the translated loop keeps the cast, as
    the tree does (``_update`` would add 1.5 into the float array: 4.5, not 3.0)."""
    import phylanx
    from phylanx import config
    code = ("lambda(x, n, block(for_each(lambda(i, store(x, __inplace(x, "
            "__add__int(x, 1.5)))), range(n)), x))")
    for name in ("scalar_loops", "array_loops"):
        config.set(name, translate)
    try:
        x = np.zeros(4)
        got = phylanx.evaluate(code, x, 3)
    finally:
        for name in ("scalar_loops", "array_loops"):
            config.reset(name)
    assert_identical(got, np.full(4, 3.0))
    assert_identical(x, np.full(4, 3.0))


def zero_d_update(x, e, steps):
    y = x
    for _ in range(steps):
        x += e
    return y


@pytest.mark.parametrize("translate", [True, False])
def test_a_0d_array_changes_in_place_as_in_numpy(translate):
    """NumPy's ``x += e`` on a 0-d array changes it (the caller's array, every other name
    of it); phylanx rebound ``x`` to a scalar until ip46: ``y`` and the argument kept 1.0."""
    want_arg, got_arg = np.array(1.0), np.array(1.0)
    want = zero_d_update(want_arg, 0.5, 2)
    got = decorated(zero_d_update, translate, **OFF)(got_arg, 0.5, 2)
    assert_identical(got_arg, want_arg)
    assert_identical(got, want)


def counted(x, n, k):
    """``k`` (an argument: not a scalar accumulator) and ``s`` (first bound to an element)
    take ``+=`` through ``__inplace``, numbers all along."""
    s = x[0]
    for _ in range(n):
        k += 1
        s += x[k % 7]
    return s, k


def test_a_number_updated_in_a_loop_pays_no_call():
    """``k += 1`` on a number is ``k + 1`` inline in the translated loop, as before the
    in-place form (3781e36): no Python call of phylanx per iteration (``_update`` and
    the ``__inplace`` kernel it falls back to cost 1.3-1.7x such a loop's time)."""
    from ..python_calls import python_calls
    on = decorated(counted, **OFF)
    x = np.arange(10.0)
    assert_identical(on(x, 5, 0), counted(x, 5, 0))

    def calls(n):
        return python_calls(on, x, n, 0)[1]
    assert "_update(" in loops(on)[0].run.scalar_loop.source
    from collections import Counter
    few, more = calls(50), calls(150)
    assert len(more) == len(few), Counter(more) - Counter(few)


# -- op= on every kind of target: arrays (0-d too) change, numbers are rebound ----------

#: how the program's ``x`` is made from its argument ``b``, and the ``b`` it is given
TARGETS = {
    "0-d": ("x = b", lambda dt: np.array(1.25, dt)),
    "1-d": ("x = b", lambda dt: np.array([1.25, 0.75, 1.5], dt)),
    "slice": ("x = b[1:]", lambda dt: np.array([1.25, 0.75, 1.5], dt)),
    "0-d view": ("x = b[1, ...]", lambda dt: np.array([1.25, 0.75, 1.5], dt)),
    "element": ("x = b[1]", lambda dt: np.array([1.25, 0.75, 1.5], dt)),
    "scalar": ("x = b", lambda dt: dt(1.25)),
    "float": ("x = b", lambda dt: 1.25),
    "int": ("x = b", lambda dt: 3),
}
OPERATORS = ["+=", "-=", "*=", "/=", "//=", "**=", "%="]
OPERANDS = {"float": lambda dt: 1.5, "int": lambda dt: 2, "scalar": lambda dt: dt(0.75),
            "0-d": lambda dt: np.array(1.5, dt)}


def generated_update(target: str, updates: list, looped: bool) -> str:
    """A function ``(b, e0, e1, e2, n)`` making ``x`` from ``b``, naming it twice
    (``y = x``), updating ``x`` by ``updates`` (straight or in a loop)."""
    lines = ["def generated(b, e0, e1, e2, n):", f"    {TARGETS[target][0]}", "    y = x"]
    indent = "    "
    if looped:
        lines.append("    for _ in range(n):")
        indent = "        "
    lines += [f"{indent}x {op} e{k}" for k, op in enumerate(updates)]
    lines.append("    return b, x, y")
    return "\n".join(lines) + "\n"


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(target=st.sampled_from(sorted(TARGETS)),
       dtype=st.sampled_from([np.float64, np.float32]),
       updates=st.lists(st.sampled_from(OPERATORS), min_size=1, max_size=3),
       operands=st.lists(st.sampled_from(sorted(OPERANDS)), min_size=3, max_size=3),
       looped=st.booleans(), steps=st.integers(1, 3))
@example(target="0-d view", dtype=np.float32, updates=["+=", "*="],
         operands=["float", "0-d", "int"], looped=True, steps=2)
def test_an_update_changes_what_numpy_changes(target, dtype, updates, operands, looped,
                                              steps):
    """``x op= e`` decorated (loops translated and the tree) against the undecorated
    function: the same kinds, dtypes and bits of ``x``, of its other name ``y`` and of
    the caller's argument ``b`` -- a 0-d array (a view of ``b`` too) changes in place,
    an element, a NumPy scalar or a Python number is rebound -- or both raise."""
    source = generated_update(target, updates, looped)
    namespace = {"np": np}
    exec(compile(source, "<generated>", "exec"), namespace)
    python = namespace["generated"]
    b = TARGETS[target][1](dtype)
    args = [b, *(OPERANDS[o](dtype) for o in operands), steps]
    try:
        with np.errstate(all="ignore"):
            want = python(*copies(args))
    except ArithmeticError:     # an int target: //= 0 cannot happen, ** stays finite
        raise
    except TypeError:           # NumPy refuses a same-kind cast (float into int)
        want = None
    for translate in (True, False):
        given_args = copies(args)
        for name in ("scalar_loops", "array_loops"):
            config.set(name, translate)
        try:
            on = Phylanx(source=source)(python)
            if want is None:
                with pytest.raises(PhylanxError):
                    on(*given_args)
                continue
            with np.errstate(all="ignore"):
                got = on(*given_args)
        finally:
            for name in ("scalar_loops", "array_loops"):
                config.reset(name)
        if "**=" in updates:
            # NumPy's scalar ``**`` (np.float64, np.float32) is libm's pow, its ufunc
            # (phylanx's kernel) another, an ulp apart: kinds and dtypes exact, values close
            rtol = 1e-6 if dtype is np.float32 else 1e-14
            assert_same_kinds(got, want, rtol)
            assert_same_kinds(given_args[0], want[0], rtol)
        else:
            assert_identical(got, want)
            assert_identical(given_args[0], want[0])
        if isinstance(want[1], np.ndarray):
            assert got[1] is got[2]             # still one array with two names


def assert_same_kinds(got, want, rtol: float):
    """The kinds and dtypes of :func:`assert_identical`, the values within ``rtol``."""
    if isinstance(want, tuple):
        assert type(got) is tuple and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same_kinds(g, w, rtol)
        return
    assert type(got) is type(want) and np.result_type(got) == np.result_type(want)
    np.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True)


# -- x[idx] op= e outside loops: computed into the target (compiler/rewrite/updates.py) --

#: subscripts of ``b`` (1-d, 6 elements) an update may take: a view, an element, copies
INDICES = ["1:-1", "::2", "3", "-1", "b > 1.0", "[0, 0, 2]", "[4, 1]", "..."]


def generated_store(index: str, op: str) -> str:
    return (f"def generated(b, e):\n    y = b\n    b[{index}] {op} e\n    b[{index}] {op} e\n"
            f"    return b, y\n")


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(index=st.sampled_from(INDICES), op=st.sampled_from(["+=", "-=", "*=", "/="]),
       dtype=st.sampled_from([np.float64, np.float32, np.int64]),
       operand=st.sampled_from(["float", "int", "array", "scalar32"]),
       seed=st.integers(0, 2**16))
def test_a_subscript_update_is_numpys_with_and_without_the_rule(index, op, dtype, operand,
                                                                seed):
    """``b[idx] op= e`` (the rule ``update_in_place`` computes it into the target) gives
    NumPy's answer bit for bit, and the answer with the rule off: a repeated index adds
    once (NumPy's), an int target refuses a float result as NumPy does, and so does an
    operand that no longer fits a mask's selection."""
    source = generated_store(index, op)
    namespace = {"np": np}
    exec(compile(source, "<generated>", "exec"), namespace)
    python = namespace["generated"]
    rng = np.random.default_rng(seed)
    b = (rng.uniform(0.5, 2.0, size=6) * (4 if dtype is np.int64 else 1)).astype(dtype)
    selected = np.empty(6)[eval(f"np.s_[{index}]", {"np": np, "b": b})]  # noqa: S307
    e = {"float": 1.5, "int": 2, "scalar32": np.float32(0.75),
         "array": rng.uniform(0.5, 2.0, size=np.shape(selected)).astype(dtype)}[operand]
    try:
        want = python(b.copy(), e)
    except TypeError:           # NumPy's same-kind cast refused (a float into int64)
        want = None
    except ValueError:          # a mask selecting other elements after the first update:
        want = None             # the array operand fits no more, NumPy's error
    for disabled in ("", "update_in_place"):
        config.set("disable_rules", disabled)
        try:
            on = Phylanx(source=source)(python)
            if want is None:
                with pytest.raises(PhylanxError):
                    on(b.copy(), e)
                continue
            got = on(b.copy(), e)
        finally:
            config.reset("disable_rules")
        assert_identical(got, want)
        assert got[0] is got[1]


@pytest.mark.parametrize("index", INDICES + ["None, 1:", "..., 2", "[[1, 1], [0, 3]]"])
def test_the_rule_takes_every_spelling_of_a_subscript(index):
    """The rule is not spelling-shaped: ``...``, ``None`` and an index array literal are
    the same read twice as a slice is (they were left to the copy, so the property test
    above did not run the rule on ``...`` and ``[0, 0, 2]``)."""
    source = generated_store(index, "+=")
    namespace = {"np": np}
    exec(compile(source, "<generated>", "exec"), namespace)
    rules: Counter = Counter()
    physl = Phylanx(source=source)(namespace["generated"]).get_physl_source()
    optimize_through_ir(parser.parse(physl), rules)
    assert rules["update_in_place"] == 2


def add_interior(u, e):
    u[1:-1] += e
    return u


def test_a_slice_update_outside_loops_allocates_no_result_sized_temporary():
    """``u[1:-1] += e`` is ``np.add(view, e, out=view)`` (NumPy's ``__iadd__``): no
    temporary of the slice's size, as the update in a translated loop."""
    n = 200_000
    e = np.full(n - 2, 0.5)
    on = decorated(add_interior, **OFF)
    rules: Counter = Counter()
    optimize_through_ir(parser.parse(on.get_physl_source()), rules)
    assert rules["update_in_place"] == 1
    u = np.ones(n)
    on(u, e)                                          # compiled, warm
    tracemalloc.start()
    try:
        on(u, e)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    want = np.ones(n)
    want[1:-1] += 2 * e
    assert_identical(u, want)
    assert peak < 0.5 * e.nbytes
