"""A tiled array means the whole array (issue 26 item 2), in one process.

A primitive without a distribution rule refuses a DistributedArray with a located
error naming the primitive and how to go on; a rule gives the global answer; only
``local_tile`` gives the tile.  With one locality the tile *is* the whole array, and
the behaviour must not depend on that: the same refusals happen here as on 4 ranks
(``programs/global_view.py`` checks the values under ``mpiexec -n 1..4``).
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


# primitive, code, the distributed form the message must name (None: there is none)
REFUSED = [
    ("sum", "sum(a)", "sum_d"), ("sum", "sum(a, 0)", "sum_d"), ("mean", "mean(a)", "mean_d"),
    ("amax", "amax(a)", "max_d"), ("amin", "amin(a, 1)", "min_d"),
    ("dot", "dot(a, b)", "dot_d"),
    ("matmul", "matmul(a, b)", "dot_d"), ("slice_row", "slice_row(a, 0)", "slice_row_d"),
    ("reshape", "reshape(a, list(12))", None), ("__copy", "__copy(a)", None),
    ("all_reduce", "all_reduce(a)", None),
    ("file_write", 'file_write("/nonexistent-dir/never", a)', None),
]


@pytest.mark.parametrize("primitive, code, form", REFUSED, ids=[c for _, c, _ in REFUSED])
def test_a_primitive_without_a_rule_refuses_a_tiled_operand(primitive, code, form):
    args = (tiled(), np.ones((3, 2))) if "b" in code else (tiled(),)
    with pytest.raises(PhylanxDistributionError) as info:
        ev(code, *args)
    e = info.value
    assert e.primitive == primitive and e.loc is not None and e.loc.line == 1
    text = str(e)
    assert "'x'" in text and "(4, 3)" in text and "all_gather_d" in text, text
    assert "local_tile" in text, text
    if form is not None:
        assert f"use {form}" in text, text
    else:
        assert "use " not in text.split(";")[1].split("gather")[0], text
    assert isinstance(e, TypeError)   # a wrong kind of operand


def test_a_tiled_array_inside_a_list_and_behind_a_future_is_refused_too():
    # (the stacks and concatenate have rules: tests/distributed/test_global_indexing.py)
    for code in ("__array(list(a, a))", "reshape(list(a, a), list(24))"):
        with pytest.raises(PhylanxError) as info:   # the kernel's own error, or a refusal
            ev(code, tiled())
        assert info.value.loc is not None and "istributed" in str(info.value), str(info.value)
    with pytest.raises(PhylanxDistributionError, match="sum_d"):
        ev("sum(async(a))", tiled())
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


def test_decorated_code_gets_the_global_answer_or_a_located_error(tmp_path):
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
    with pytest.raises(PhylanxDistributionError) as info:
        mod.total(x)
    assert info.value.loc is not None and info.value.loc.line == 13, str(info.value)
    assert "sum_d" in str(info.value)
    with pytest.raises(PhylanxDistributionError, match="dot_d"):
        mod.product(x, np.ones(3))


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
    with pytest.raises(PhylanxDistributionError, match="sum_d"):
        ev("block(define(s, 0.0), for_each(lambda(i, store(s, s + sum(a))), range(3)), s)", x)


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
