"""A tiled array means the whole array (issue 26 item 2, issue 28 item 1), in one process.

A primitive with a distribution rule gives the global answer; one without gathers the
whole array and computes NumPy's answer, with a once-per-line performance warning
naming it; one with side effects (a file written, a collective) refuses with a located
error naming the primitive and how to go on; only ``local_tile`` gives the tile.  With
one locality the tile *is* the whole array, and the behaviour must not depend on that:
the same happens here as on 4 ranks (``programs/global_view.py`` checks the values
under ``mpiexec -n 1..4``).
"""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import phylanx
from phylanx import distributed as dist
from phylanx.distributed import PhylanxDistributionError
from phylanx.errors import PhylanxError
from phylanx.ops import dot_d, mean_d, sum_d
from phylanx.primitives.registry import all_specs

X = np.arange(12.0).reshape(4, 3)


def ev(code, *args):
    names = ", ".join("abc"[:len(args)])
    return phylanx.evaluate(f"lambda({names}, {code})", *args)


def tiled(a=X, name="x"):
    return dist.tiled(a, "row", name=name)


# primitive, code: primitives with side effects, which every rank would repeat
REFUSED = [
    ("all_reduce", "all_reduce(a)"),
    ("file_write", 'file_write("/nonexistent-dir/never", a)'),
]


@pytest.mark.parametrize("primitive, code", REFUSED, ids=[c for _, c in REFUSED])
def test_a_primitive_with_side_effects_refuses_a_tiled_operand(primitive, code):
    with pytest.raises(PhylanxDistributionError) as info:
        ev(code, tiled())
    e = info.value
    assert e.primitive == primitive and e.loc is not None and e.loc.line == 1
    text = str(e)
    assert "'x'" in text and "(4, 3)" in text and "all_gather_d" in text, text
    assert "local_tile" in text, text
    assert isinstance(e, TypeError)   # a wrong kind of operand


# primitives with a rule: NumPy's answer for the whole array, no warning
RULES = ["sum(a)", "sum(a, 0)", "mean(a)", "amax(a)", "amin(a, 1)", "dot(a, b)",
         "matmul(a, b)", "var(a, 1)", "std(a)", "prod(a, 0)", "any(a, 1)", "all(a)"]
# primitives without one: NumPy's answer from the gathered array, with a warning
# (cumsum and sort have rules: global_structure.py)
GATHERED = ["reshape(a, list(12))", "cumprod(a)", "flip(a, 0)", "__copy(a)", "median(a, 0)",
            "flip(a, 1)", "trace(a)"]


def _plain(value):
    return value.gather() if isinstance(value, dist.DistributedArray) else value


@pytest.mark.parametrize("code", RULES + GATHERED)
def test_every_primitive_gives_numpys_answer_for_the_whole_array(code):
    args = (tiled(), np.ones((3, 2))) if "b" in code else (tiled(),)
    want = ev(code, X, *args[1:])
    if code in GATHERED:
        name = code.split("(")[0]
        with pytest.warns(dist.PhylanxPerformanceWarning, match=f"{name} has no distribution"):
            got = ev(code + " " * len(GATHERED), *args)   # (its own source text: warned)
    else:
        got = ev(code, *args)
    assert np.shape(got) == np.shape(want) and np.asarray(_plain(got)).dtype == \
        np.asarray(want).dtype, (code, got, want)
    np.testing.assert_allclose(_plain(got), want, rtol=1e-12)
    if code in GATHERED and np.shape(want)[:1] == X.shape[:1]:   # re-tiled by its rows
        assert isinstance(got, dist.DistributedArray), (code, got)
        assert [b[0] for b in got.layout.boxes] == [b[0] for b in args[0].layout.boxes]


def test_the_performance_warning_comes_once_per_source_line(tmp_path):
    module = tmp_path / "warned_once.py"
    module.write_text("import numpy as np\nfrom phylanx import Phylanx\n\n\n"
                      "@Phylanx\ndef f(x):\n    return np.cumprod(x, axis=1)\n")
    spec = importlib.util.spec_from_file_location("warned_once", module)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.warns(dist.PhylanxPerformanceWarning) as record:
        for _ in range(3):
            got = mod.f(tiled())
    assert len(record) == 1 and record[0].filename == str(module) and record[0].lineno == 7
    assert "cumprod" in str(record[0].message)
    np.testing.assert_array_equal(got.gather(), np.cumprod(X, axis=1))


def test_a_tiled_array_inside_a_list_and_behind_a_future_is_refused_too():
    # (the stacks and concatenate have rules: tests/distributed/test_global_indexing.py)
    for code in ("__array(list(a, a))", "reshape(list(a, a), list(24))"):
        with pytest.raises(PhylanxError) as info:   # the kernel's own error, or a refusal
            ev(code, tiled())
        assert info.value.loc is not None and "istributed" in str(info.value), str(info.value)
    assert ev("sum(async(a))", tiled()) == X.sum()
    # a kernel with side effects resolves its futures itself: dispatched there too
    with pytest.raises(PhylanxDistributionError, match="file_write"):
        ev('file_write("/nonexistent-dir/never", async(a))', tiled())
    assert ev("list(async(a))", tiled())[0].name == "x"


def test_rules_give_the_global_answer_and_the_local_view_is_explicit():
    x = tiled()
    assert ev("shape(a)", x) == X.shape and ev("shape(a, 0)", x) == X.shape[0]
    assert ev("size(a)", x) == X.size and ev("ndim(a)", x) == 2 and ev("__len(a)", x) == 4
    assert ev("__dtype(a)", x) == "float64"
    t = ev("transpose(a)", x)
    assert isinstance(t, dist.DistributedArray) and np.array_equal(t.gather(), X.T)
    assert np.array_equal(ev("all_gather_d(a)", x), X)
    assert np.array_equal(ev("local_tile(a)", x), x.local)
    assert ev("sum(local_tile(a))", x) == x.local.sum()
    assert ev("sum_d(a)", x) == X.sum()
    # primitives that only hold or pass values take it as it is
    got = ev("list(a, a)", x)
    assert got[0] is x and got[1] is x
    assert ev("if(true, a, a)", x) is x


def test_decorated_code_gets_the_global_answer(tmp_path):
    module = tmp_path / "global_view_user.py"
    module.write_text(
        "import numpy as np\nfrom phylanx import Phylanx\n\n\n"
        "@Phylanx\ndef rows(x):\n    return x.shape[0] + len(x) + x.size + x.ndim\n\n\n"
        "@Phylanx\ndef total(x):\n    y = x * 2 + 1\n    return np.sum(y)\n\n\n"
        "@Phylanx\ndef product(x, w):\n    return np.dot(x, w)\n")
    spec = importlib.util.spec_from_file_location("global_view_user", module)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = tiled()
    assert mod.rows(x) == mod.rows.python(X)
    assert mod.total(x) == mod.total.python(X)
    got = mod.product(x, np.ones(3))
    assert isinstance(got, dist.DistributedArray)      # row-tiled x @ w stays row-tiled
    np.testing.assert_array_equal(got.gather(), mod.product.python(X, np.ones(3)))


def test_python_side_access_is_global():
    x, y = tiled(), tiled(X.T.copy(), "y")
    assert x.shape == X.shape and len(x) == len(X) and x.size == X.size
    assert np.array_equal(np.asarray(x), X)
    assert np.sum(x) == X.sum()
    # np.matmul is a generalized ufunc, not an element-wise one: the global product
    got = x @ y
    assert type(got) is np.ndarray and np.allclose(got, X @ X.T)
    square = tiled(np.arange(9.0).reshape(3, 3), "s")
    got = np.matmul(square, square)
    assert type(got) is np.ndarray and np.allclose(got, square.gather() @ square.gather())


def test_the_declared_flags():
    # every primitive that takes tiled operands as they are is declared so, and the
    # distributed primitives that read them are among them
    takes = {s.name for s in all_specs() if s.takes_tiled}
    for name in ("annotate_d", "sum_d", "dot_d", "transpose_d", "all_gather_d", "local_tile",
                 "shape_d", "slice_row_d", "list", "cout"):
        assert name in takes, name
    for name in ("sum", "dot", "shape", "__add", "all_reduce"):
        assert name not in takes, name


def test_element_wise_chains_and_loops_dispatch_tiled_operands_by_kind():
    # the in-place closures (runtime/inplace.py) and loops call kernels too: a tiled
    # operand is dispatched there as in nodes.build_eager (sqrt of a tiled result failed)
    x = tiled()
    got = ev("sqrt(absolute(a * 2 - 1))", x)
    assert isinstance(got, dist.DistributedArray)
    assert np.allclose(got.gather(), np.sqrt(np.abs(X * 2 - 1)))
    got = ev("block(define(s, a), for_each(lambda(i, store(s, exp(-absolute(s)) + s)), "
             "range(5)), s)", x)
    want = X.copy()
    for _ in range(5):
        want = np.exp(-np.abs(want)) + want
    assert isinstance(got, dist.DistributedArray) and np.allclose(got.gather(), want)
    assert ev("block(define(s, 0.0), for_each(lambda(i, store(s, s + sum(a))), range(3)), "
              "s)", x) == 3 * X.sum()


# -- gradients never lose a dependence through a tiled array (review of issue 26) ---------
@phylanx.Phylanx
def _tiled_product_loss(w, x):
    p = dot_d(x, w)
    return sum_d(p * p)


@phylanx.Phylanx
def _tiled_elementwise_loss(w, x):
    return sum_d(x * w)


@phylanx.Phylanx
def _tiled_constant_loss(w, x):
    return mean_d(np.exp(x)) * np.sum(w * w)


@pytest.mark.parametrize("fn, line", [(_tiled_product_loss, "p = dot_d(x, w)"),
                                      (_tiled_elementwise_loss, "return sum_d(x * w)")])
def test_gradient_through_a_tiled_array_is_a_located_error_not_zeros(fn, line):
    # d/dw of sum((x @ w)**2) and sum(x * w) came back as zeros: the distributed
    # primitive's result (or the rule's tile-by-tile parts) was not followed by the tape
    w = np.array([0.5, -1.0, 2.0])
    with pytest.raises(phylanx.PhylanxError, match="cannot differentiate through") as e:
        phylanx.grad(fn)(w, tiled())
    assert e.value.loc is not None and e.value.loc.file == __file__
    with open(__file__) as source:
        assert line in source.read().splitlines()[e.value.loc.line - 1]


def test_gradient_beside_a_tiled_array_still_flows():
    # a tiled array that does not depend on w is a constant: the gradient is NumPy's
    w = np.array([0.5, -1.0, 2.0])
    got = phylanx.grad(_tiled_constant_loss)(w, tiled())
    np.testing.assert_allclose(got, np.mean(np.exp(X)) * 2 * w, rtol=1e-12)


def test_a_tiled_array_is_not_pickled_as_if_its_tile_were_the_whole():
    # a pickle held this rank's tile only: loaded in another process, or received from
    # a broadcast / all_gather (they pickle what is not a NumPy array), it passed for
    # the whole array (other tiles zeros, or another rank's rows) without complaint
    import copy
    import pickle
    x = tiled()
    with pytest.raises(PhylanxError, match="cannot be pickled") as e:
        pickle.dumps(x)
    assert e.value.loc is not None and e.value.loc.file == __file__
    for twin in (copy.copy(x), copy.deepcopy(x)):    # copies in this process still work
        assert type(twin) is dist.DistributedArray and twin.shape == x.shape
        np.testing.assert_array_equal(np.asarray(twin), X)
