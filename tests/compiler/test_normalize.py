"""The lowering of spellings (compiler/rewrite/normalize.py), the first rewrite pass.

For each rule: the PhySL after the pass holds the canonical form, and the decorated
function equals the undecorated one (float32 and float64).  A property test draws small
programs from the spellings and runs them with normalization on and off against NumPy.
Last, the workloads' patterns (logistic regression, k-means) are rewritten whatever
product or transpose spelling they are written with.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import Phylanx, config, fusion
from phylanx.compiler.rewrite import label_stats, normalize, patterns
from phylanx.compiler.through_ir import optimize_through_ir
from phylanx.errors import PhylanxTypeError
from phylanx.language import ast, parser

RNG = np.random.default_rng(27)
DTYPES = [np.float64, np.float32]

#: every spelling of a product of a and b, and of the transpose of x
PRODUCTS = ["{a} @ {b}", "np.dot({a}, {b})", "np.matmul({a}, {b})", "{a}.dot({b})"]
TRANSPOSES = ["{x}.T", "np.transpose({x})", "{x}.transpose()"]


def decorated(source: str):
    namespace: dict = {"np": np}
    exec(compile(source, "<spelled>", "exec"), namespace)
    python = namespace["spelled"]
    return Phylanx(source=source)(python), python


def calls_after(fn, run=normalize.run) -> list[ast.Call]:
    program = run(parser.parse(fn.get_physl_source()))
    return [e for top in program.body for e in patterns.walk_in_order(top)
            if type(e) is ast.Call]


def names_after(fn, run=normalize.run) -> set[str]:
    return {c.func for c in calls_after(fn, run)}


def assert_close(got, want, dtype):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * float(np.abs(want).max()))


# -- each rule ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("spelling", ["np.average(x, axis=0)", "np.average(x, 1)",
                                      "np.average(x)", "np.average(x, axis=None)"])
def test_average_without_weights_is_mean(spelling, dtype):
    f, python = decorated(f"def spelled(x):\n    return {spelling}\n")
    names = names_after(f)
    assert "mean" in names and "average" not in names
    x = RNG.normal(size=(6, 4)).astype(dtype)
    got, want = f(x), python(x)
    assert_close(got, want, dtype)
    assert type(got) is type(want)


@pytest.mark.parametrize("spelling", ["np.average(x, 0, w)", "np.average(x, weights=x * x)",
                                      "np.average(x, 0, returned=True)",
                                      "np.average(x, 0, keepdims=True)"])
def test_average_with_weights_or_flags_stays(spelling):
    """Guard: only the weightless form is a mean."""
    f, python = decorated(f"def spelled(x, w):\n    return {spelling}\n")
    assert "average" in names_after(f)
    x, w = RNG.normal(size=(6, 4)), RNG.uniform(1, 2, size=6)
    got, want = f(x, w), python(x, w)
    assert type(got) is type(want)
    for g, v in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(g, v, rtol=1e-12)


def test_average_of_integers_and_booleans_is_numpys():
    f, python = decorated("def spelled(x):\n    return np.average(x, axis=0)\n")
    assert "average" not in names_after(f)
    for x in (np.arange(12).reshape(4, 3), np.arange(12).reshape(4, 3) % 3 == 0):
        got, want = f(x), python(x)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7,), (5, 3), ()])
def test_norm_is_root_of_sum_of_squares(shape, dtype):
    f, python = decorated("def spelled(v):\n    return np.linalg.norm(v)\n")
    names = names_after(f)
    assert "__npnorm" not in names and {"sqrt", "sum", "absolute"} <= names
    v = np.asarray(RNG.normal(size=shape)).astype(dtype)
    got, want = f(v), python(v)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float32 else 1e-14)


@pytest.mark.parametrize("v", [np.arange(-4, 5), np.array([1 + 2j, 3 - 1j, 0.5j]),
                               np.array([True, False, True]), [3, 4], 3.0,
                               np.arange(6, dtype=np.int32) * 30000])
def test_norm_of_integers_complex_and_lists_is_numpys(v):
    f, python = decorated("def spelled(v):\n    return np.linalg.norm(v)\n")
    assert "__npnorm" not in names_after(f)
    got, want = f(v), python(v)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-14)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_norm_along_an_axis_is_root_of_sum_of_squares(axis, dtype):
    f, python = decorated(f"def spelled(v):\n    return np.linalg.norm(v, axis={axis})\n")
    assert "__npnorm" not in names_after(f)
    v = RNG.normal(size=(5, 3)).astype(dtype)
    got, want = f(v), python(v)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float32 else 1e-14)


def test_norm_along_a_missing_axis_is_an_error_as_in_numpy():
    f, python = decorated("def spelled(v):\n    return np.linalg.norm(v, axis=2)\n")
    v = RNG.normal(size=(5, 3))
    with pytest.raises(np.exceptions.AxisError):
        python(v)
    with pytest.raises(IndexError) as raised:
        f(v)
    assert isinstance(raised.value, ValueError)       # NumPy's AxisError is both


@pytest.mark.parametrize("spelling", ["np.linalg.norm(v, 1)", "np.linalg.norm(v, axis=a)",
                                      "np.linalg.norm(v, keepdims=True)"])
def test_norm_with_order_or_axis_stays(spelling):
    """Guard: an order, an axis or keepdims keep NumPy's norm."""
    f, python = decorated(f"def spelled(v, a):\n    return {spelling}\n")
    assert "__npnorm" in names_after(f)
    v = RNG.normal(size=(4, 3))
    np.testing.assert_allclose(f(v, 0), python(v, 0), rtol=1e-14)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("spelling", TRANSPOSES)
def test_a_name_bound_to_a_transpose_is_the_transpose_in_products(spelling, dtype):
    t = spelling.format(x="x")
    source = (f"def spelled(x, r):\n    xt = {t}\n    s = xt @ r\n"
              f"    return s + np.sum(xt)\n")
    f, python = decorated(source)
    products = [c for c in calls_after(f) if normalize.product(c) is not None]
    assert [normalize.transposed(c.args[0]) for c in products] == [ast.Identifier("x")]
    x, r = RNG.normal(size=(9, 4)).astype(dtype), RNG.normal(size=9).astype(dtype)
    assert_close(f(x, r), python(x, r), dtype)


@pytest.mark.parametrize("source", [
    # the transposed variable is rebound
    "def spelled(x, r):\n    xt = x.T\n    x = x + 1.0\n    return xt @ r\n",
    # the binding itself is rebound
    "def spelled(x, r):\n    xt = x.T\n    y = xt @ r\n    xt = x\n    return y\n",
    # something changes an array in place
    "def spelled(x, r):\n    xt = x.T\n    x[0, 0] = 5.0\n    return xt @ r\n"])
def test_a_transpose_binding_that_may_change_is_kept(source):
    """Guard: nothing is substituted where the binding's value might differ."""
    f, python = decorated(source)
    products = [c for c in calls_after(f) if normalize.product(c) is not None]
    assert all(normalize.transposed(c.args[0]) is None for c in products)
    x, r = RNG.normal(size=(3, 3)), RNG.normal(size=3)
    np.testing.assert_allclose(f(x.copy(), r), python(x.copy(), r), rtol=1e-13)


@pytest.mark.parametrize("source, args", [
    # a binding nothing reads: Python evaluates y.T all the same
    ("def spelled(x, y, r):\n    a = x.T\n    b = y.T\n    return a @ r\n",
     (np.ones((3, 2)), None, np.ones(3))),
    # its one read substituted, in a loop that runs no iteration
    ("def spelled(x, r, n):\n    xt = x.T\n    i = 0\n    while i < n:\n"
     "        r = xt @ r\n        i += 1\n    return r\n", (None, np.ones(3), 0)),
], ids=["unread", "read in a loop run no time"])
def test_a_transpose_binding_keeps_its_error(source, args):
    """A transpose fails on what is neither an array nor a number (Python's
    AttributeError on ``None.T``): its binding stays, a located error at its line,
    never a result where the original raises."""
    f, python = decorated(source)
    with pytest.raises(AttributeError):
        python(*args)
    with pytest.raises(PhylanxTypeError, match="transpose"):
        f(*args)


def test_locations_are_kept():
    program = parser.parse("define(f, v,\n  __npnorm(v))")
    (norm,) = [e for e in patterns.walk_in_order(program.body[0])
               if type(e) is ast.Call and e.func == "__npnorm"]
    built = [e for e in patterns.walk_in_order(normalize.run(program).body[0])
             if type(e) is ast.Call and e.func in ("sqrt", "sum", "absolute", "power")]
    assert len(built) == 4 and all(c.loc == norm.loc for c in built)
    assert norm.loc.line == 2


def test_switched_off_changes_nothing():
    f, _ = decorated("def spelled(v):\n    return np.linalg.norm(v) + np.average(v)\n")
    program = parser.parse(f.get_physl_source())
    config.set("normalize", False)
    try:
        assert normalize.run(program) is program
    finally:
        config.reset("normalize")
    assert normalize.run(program) is not program


# -- random programs, normalization on and off ---------------------------------------------

@st.composite
def spelled_programs(draw):
    prod = draw(st.lists(st.sampled_from(PRODUCTS), min_size=3, max_size=3))
    tr = draw(st.lists(st.sampled_from(TRANSPOSES), min_size=2, max_size=2))
    bind = draw(st.booleans())
    reduce = draw(st.sampled_from(["np.mean(m, axis=0)", "np.average(m, axis=0)",
                                   "np.average(m)", "np.linalg.norm(m)",
                                   "np.sqrt(np.sum(m * m))", "m.mean(axis=1)"]))
    xt = "xt" if bind else tr[0].format(x="x")
    lines = ["def spelled(x, w, c):"]
    if bind:
        lines.append(f"    xt = {tr[0].format(x='x')}")
    lines += [f"    z = {prod[0].format(a='x', b='w')}",
              f"    g = {prod[1].format(a=xt, b='(np.tanh(z) - 0.5)')}",
              f"    m = {prod[2].format(a='x', b=tr[1].format(x='c'))}",
              f"    r = {reduce}",
              "    return g, r"]
    return "\n".join(lines) + "\n"


@settings(max_examples=25, deadline=None)
@given(spelled_programs(), st.sampled_from(DTYPES), st.integers(1, 9))
def test_spellings_agree_with_numpy_normalized_or_not(source, dtype, n):
    namespace: dict = {"np": np}
    exec(compile(source, "<spelled>", "exec"), namespace)
    python = namespace["spelled"]
    x = RNG.normal(size=(n, 3)).astype(dtype)
    w = RNG.normal(size=3).astype(dtype)
    c = RNG.normal(size=(2, 3)).astype(dtype)
    want = python(x, w, c)
    for on in (True, False):
        config.set("normalize", on)
        try:
            got = Phylanx(source=source)(python)(x, w, c)
        finally:
            config.reset("normalize")
        for g, v in zip(got, want):
            assert_close(g, v, dtype)


# -- the workloads' patterns in every spelling ----------------------------------------------

def lra_source(product: str, transpose: str, bind: bool) -> str:
    t = transpose.format(x="x")
    xt = "xt" if bind else t
    return "\n".join([
        "def spelled(x, y, alpha, iterations):",
        "    w = np.zeros(x.shape[1], dtype=x.dtype)",
        f"    xt = {t}" if bind else "    pass",
        "    for _ in range(iterations):",
        f"        pred = 1.0 / (1.0 + np.exp(-({product.format(a='x', b='w')})))",
        f"        w = w - alpha * ({product.format(a=xt, b='(pred - y)')})",
        "    return w"]) + "\n"


def kmeans_source(product: str, transpose: str) -> str:
    pc = product.format(a="points", b=transpose.format(x="centres"))
    return "\n".join([
        "def spelled(points, centres, iterations):",
        "    k = centres.shape[0]",
        "    sq = np.sum(points * points, axis=1)",
        "    for _ in range(iterations):",
        f"        dist = sq[:, None] - 2.0 * ({pc}) + np.sum(centres * centres, axis=1)",
        "        labels = np.argmin(dist, axis=1)",
        "        counts = np.bincount(labels, minlength=k)",
        "        sums = np.zeros((k, points.shape[1]), dtype=points.dtype)",
        "        np.add.at(sums, labels, points)",
        "        centres = sums / np.maximum(counts, 1)[:, None]",
        "    return centres"]) + "\n"


@pytest.fixture
def gram_tiles():
    config.set("blocking_gram", True)
    yield
    config.reset("blocking_gram")


@pytest.mark.parametrize("bind", [False, True], ids=["inline", "bound"])
@pytest.mark.parametrize("transpose", TRANSPOSES)
@pytest.mark.parametrize("product", PRODUCTS)
def test_logistic_regression_is_tiled_in_every_spelling(gram_tiles, product, transpose,
                                                         bind):
    f, python = decorated(lra_source(product, transpose, bind))
    assert "__rows_gram" in names_after(f, optimize_through_ir)
    for dtype in DTYPES:
        x = RNG.normal(size=(40, 3)).astype(dtype)
        y = (RNG.uniform(size=40) > 0.5).astype(dtype)
        assert_close(f(x, y, 0.1, 3), python(x, y, 0.1, 3), dtype)


@pytest.mark.parametrize("transpose", TRANSPOSES)
@pytest.mark.parametrize("product", PRODUCTS)
def test_kmeans_gets_its_label_statistics_in_every_spelling(product, transpose):
    f, python = decorated(kmeans_source(product, transpose))
    names = names_after(f, optimize_through_ir)
    assert {label_stats.STATS, label_stats.COUNTS, label_stats.SUMS_AT} <= names
    for dtype in DTYPES:
        truth = RNG.uniform(-20, 20, size=(3, 2))
        points = (truth[RNG.integers(0, 3, 60)] + RNG.normal(size=(60, 2))).astype(dtype)
        centres = (truth + 0.1).astype(dtype)
        assert_close(f(points, centres, 3), python(points, centres, 3), dtype)


@pytest.mark.parametrize("product", PRODUCTS)
def test_the_row_pass_is_installed_in_every_spelling(product, monkeypatch):
    pytest.importorskip("numba")
    from phylanx.fusion import rowpass
    installed: list = []
    original = fusion.install
    monkeypatch.setattr(fusion, "install",
                        lambda body: installed.extend(original(body)) or installed)
    f, _ = decorated(lra_source(product, "{x}.T", True))
    f(RNG.normal(size=(8, 3)), np.ones(8), 0.1, 1)
    assert [p for p in installed if isinstance(p, rowpass.RowPass)]


WHILE_LRA = """
def spelled(x, y, alpha, iterations):
    w = np.zeros(x.shape[1], dtype=x.dtype)
    i = 0
    while i < iterations:
        pred = 1.0 / (1.0 + np.exp(-np.dot(x, w)))
        w -= alpha * (x.T @ (pred - y))
        i += 1
    return w
"""


def test_an_in_place_update_is_tiled_as_an_assignment(gram_tiles, monkeypatch):
    """``w -= e`` computes e before w changes: the single-use ``pred`` is inlined into it
    as into ``w = w - e``, and the gram is tiled (or fused into a row pass)."""
    f, python = decorated(WHILE_LRA)
    assert "__rows_gram" in names_after(f, optimize_through_ir)
    for dtype in DTYPES:
        x = RNG.normal(size=(40, 3)).astype(dtype)
        y = (RNG.uniform(size=40) > 0.5).astype(dtype)
        assert_close(f(x, y, 0.1, 3), python(x, y, 0.1, 3), dtype)


@pytest.mark.parametrize("arg", ["abc", [[1.0, 2.0], [3.0]], None])
def test_a_norm_of_what_is_no_array_fails_as_before(arg):
    """Guard: the lowered norm raises the error class of the unlowered one, at the same
    place (the message names the primitive that found it)."""
    raised = []
    for on in (True, False):
        config.set("normalize", on)
        try:
            f, _ = decorated("def spelled(v):\n    return np.linalg.norm(v)\n")
            with pytest.raises(Exception) as caught:
                f(arg)
        finally:
            config.reset("normalize")
        raised.append((type(caught.value), str(caught.value).split(":")[:3]))
    assert raised[0] == raised[1]


def test_an_empty_lambda_is_left_to_the_compilers_error():
    """Found by tests/compiler/test_fuzz_compile.py: the pass read the body of a
    ``lambda()`` without arguments (IndexError) instead of leaving it to the compiler."""
    from phylanx.language import parser
    program = parser.parse("define(g, 0)\nstore(g, lambda(x, 0))\nlambda()")
    assert normalize.run(program) == program
