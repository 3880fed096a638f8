"""Every ``distributable`` primitive on a tiled operand (one locality) equals the same
primitive on the plain array (element-wise ones keep the layout and bump the
generation); primitives without a rule refuse a tiled operand with a located error.
Multi-locality behaviour is in ``programs/tiles.py`` and ``programs/global_view.py``."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import phylanx
from phylanx import distributed as dist
from phylanx.primitives.registry import lookup
from phylanx.primitives.rules import DISTRIBUTION

from .test_broadcasting_property import layout_of

X = np.array([[0.25, 0.5, 0.75], [0.125, 0.375, 0.625]])
Y = np.array([[0.5, 0.25, 0.75], [1.0, 0.375, 0.125]])
_DOMAIN = {"arccosh": 1.0}     # shift into the function's domain
# the rules that give a global answer other than element-wise (global_view.py)
_GLOBAL = {"shape": "shape(a, 1)", "size": "size(a)", "ndim": "ndim(a)", "__len": "__len(a)",
           "__dtype": "__dtype(a)", "transpose": "transpose(a)",
           # reductions and products (global_reductions.py, global_products.py)
           "sum": "sum(a, 1)", "prod": "prod(a, 0)", "amax": "amax(a)", "amin": "amin(a, 0)",
           "mean": "mean(a, 1)", "var": "var(a)", "std": "std(a, 0)", "all": "all(a)",
           "any": "any(a, 1)", "__npnorm": "__npnorm(a)", "dot": "dot(a, [1.0, 2.0, 3.0])",
           "matmul": "matmul(a, [[1.0], [2.0], [3.0]])"}
# global indices and structure ops (global_subscripts.py, global_structure.py)
_GLOBAL.update({
    "__subscript": "__subscript(a, 1, list(nil, nil, -1))",
    "__pyindex": "__subscript(a, __pyindex(a > 0.3))", "concatenate": "concatenate(list(a, a), 1)",
    "__nphstack": "__nphstack(list(a, a))", "__npvstack": "__npvstack(list(a, a))",
    "__npstack": "__npstack(list(a, a), 1)", "hstack": "hstack(list(a, a))",
    "vstack": "vstack(list(a, a))", "stack": "stack(list(a, a))", "argmax": "argmax(a)",
    "argmin": "argmin(a, 1)", "where": "where(a > 0.3, a, 0.0)", "__npwhere": "__npwhere(a > 0.3)",
    "nonzero": "nonzero(a > 0.3)", "cumsum": "cumsum(a, 1)", "sort": "sort(a, 0)",
    "argsort": "argsort(a)",
    # x[k] += v and x += v: the target takes the value in place
    "__inplace": "__inplace(a, a * 2.0)",
    # x op= e computed into x (compiler/rewrite/updates.py): __inplace(a, a * 2.0) read once
    "__update": "__update(a, 2.0, \"*\")",
    # a fresh table with a's rows (creation.py): allocated with a's row tiling
    "__fresh_rows_of": "__fresh_rows_of(a, list(2, 4), 1.5)"})


def run(code, *args):
    names = ", ".join("abc"[:len(args)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return phylanx.evaluate(f"lambda({names}, {code})", *args)


@pytest.mark.parametrize("name", DISTRIBUTION.expected())
def test_rule_matches_the_plain_primitive(name):
    assert DISTRIBUTION.get(name) is not None, f"{name}: no distribution rule"
    if name in _GLOBAL:
        got, want = run(_GLOBAL[name], dist.tiled(X, name="x")), run(_GLOBAL[name], X)
        if isinstance(got, dist.DistributedArray):
            got = got.gather()
        assert type(got) is type(want), (name, got, want)
        if isinstance(want, (list, tuple)):
            assert len(got) == len(want) and all(
                np.array_equal(g, w) for g, w in zip(got, want)), (name, got, want)
        else:
            assert np.array_equal(got, want), (name, got, want)
        return
    if name == "expand_dims":
        got = run("expand_dims(a, 1)", dist.tiled(X, name="x"))
        assert got.shape == (2, 1, 3) and got.full_name == "x/1"
        assert np.array_equal(got.local, X[:, None])
        return
    x, y = X + _DOMAIN.get(name, 0.0), Y + _DOMAIN.get(name, 0.0)
    params = lookup(name).signature.params
    binary = len(params) >= 2 and (params[1].required or params[1].variadic)
    code = f"{name}(a, b)" if binary else f"{name}(a)"
    plain = run(code, x, y) if binary else run(code, x)
    tiled = run(code, dist.tiled(x, name="x"), y) if binary else \
        run(code, dist.tiled(x, name="x"))
    assert isinstance(tiled, dist.DistributedArray), (name, tiled)
    assert tiled.full_name == "x/1" and tiled.shape == np.shape(plain)
    assert tiled.local.dtype.kind == np.asarray(plain).dtype.kind
    np.testing.assert_allclose(tiled.local, plain, equal_nan=True)


def test_python_values_and_decorated_functions(tmp_path):
    x = dist.tiled(X, name="p")
    assert np.array_equal(np.asarray(x), X)            # outside an evaluation: gathers
    assert (x + 1).full_name == "p/1" and np.array_equal((2 * x).local, 2 * X)
    assert phylanx.evaluate("lambda(a, a)", x) is x     # passes through unchanged
    module = tmp_path / "decorated_tiles.py"
    module.write_text("import numpy as np\nfrom phylanx import Phylanx\n\n\n@Phylanx\n"
                      "def f(a):\n    return np.sqrt(a) * 2\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("decorated_tiles", module)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = mod.f(x)
    assert isinstance(got, dist.DistributedArray) and got.full_name == "p/2"
    np.testing.assert_allclose(got.local, np.sqrt(X) * 2)


def test_primitives_without_a_rule_gather_with_a_warning_or_refuse_side_effects():
    whole = np.arange(6.0).reshape(2, 3)[::-1].copy()
    x = dist.tiled(whole, name="l")
    assert list(phylanx.evaluate("lambda(a, shape(a))", x)) == [2, 3]
    assert list(phylanx.evaluate("lambda(a, shape_d(a))", x)) == [2, 3]
    assert phylanx.evaluate("lambda(a, sum(a))", x) == 15.0
    # no rule: NumPy's answer from the gathered array, re-tiled, with a warning
    with pytest.warns(dist.PhylanxPerformanceWarning, match="cumprod has no distribution rule"):
        got = phylanx.evaluate("lambda(a, cumprod(a, 0))", x)
    assert isinstance(got, dist.DistributedArray) and got.layout == x.layout
    assert np.array_equal(got.gather(), np.cumprod(whole, 0))
    with pytest.warns(dist.PhylanxPerformanceWarning, match="median"):
        assert phylanx.evaluate("lambda(a,\n median(a))", x) == np.median(whole)
    # a primitive with side effects would repeat them on every rank: refused
    with pytest.raises(dist.PhylanxDistributionError, match="local_tile"):
        phylanx.evaluate("lambda(a, file_write(\"/dev/null\", a))", x)
    assert phylanx.evaluate("lambda(a, sum(local_tile(a)))", x) == 15.0


def test_element_wise_primitives_without_a_rule_of_their_own_go_tile_by_tile():
    x = dist.tiled(X, name="w")
    for code, want in (("power(a, 2.0)", X ** 2.0), ("log1p(a)", np.log1p(X)),
                       ("fmax(a, [0.3, 0.3, 0.3])", np.fmax(X, 0.3))):
        got = phylanx.evaluate(f"lambda(a, {code})", x)
        assert isinstance(got, dist.DistributedArray) and got.full_name == "w/1", code
        np.testing.assert_array_equal(got.gather(), want)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 40), st.lists(st.integers(0, 40), max_size=4), st.integers(0, 3),
       st.floats(-1e6, 1e6))
def test_variance_parts_join_as_the_whole(rows, cuts, columns, offset):
    """The law ``var``/``std`` of tiled arrays rest on (``global_reductions.moments``):
    parts' counts, means and sums of squared deviations joined in order by Chan's
    pairwise update give the whole's sum of squared deviations, empty parts included."""
    from phylanx.distributed.primitives.dist_matrixops.global_reductions import _merge
    data = np.random.default_rng(rows + columns).normal(size=(rows, columns + 1)) + offset
    bounds = [0, *sorted(min(c, rows) for c in cuts), rows]
    dtype = np.dtype(np.float64)
    count, mean, m2 = (np.zeros((1, columns + 1), t) for t in (np.int64, dtype, dtype))
    for start, stop in zip(bounds, bounds[1:]):
        part = data[start:stop]
        centre = part.mean(axis=0, keepdims=True) if len(part) else np.zeros_like(mean)
        squares = ((part - centre) ** 2).sum(axis=0, keepdims=True)
        _merge(count, mean, m2, np.full(count.shape, len(part), np.int64), centre, squares,
               dtype)
    assert (count == rows).all()
    want = np.var(data, axis=0, keepdims=True) * rows
    np.testing.assert_allclose(m2, want, rtol=1e-9, atol=1e-9 * max(1.0, abs(offset)))


def _played_global(name, whole, layout, axes, keep, ddof):
    """``global_reductions._global`` (``var``/``std`` of a tiled array) on every rank of
    ``layout`` in turn, its all_gather played by giving each rank's join every rank's
    partial: each rank's answer."""
    from phylanx.distributed import tiles
    from phylanx.distributed.darray import DistributedArray
    from phylanx.distributed.primitives.dist_matrixops import global_reductions
    joins, real = [], (dist.find_here, tiles.all_gathered_then)
    try:
        tiles.all_gathered_then = lambda value, finish: joins.append((value, finish))
        for rank, box in enumerate(layout.boxes):
            dist.find_here = lambda rank=rank: rank
            a = DistributedArray(whole[tuple(slice(s, e) for s, e in box)], layout, "x")
            out = global_reductions._global(name, a, axes, keep, [None, None, ddof])
            if len(layout.boxes) == 1:
                return [out]
    finally:
        dist.find_here, tiles.all_gathered_then = real
    return [finish([value for value, _ in joins]) for _, finish in joins]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.lists(st.integers(1, 7), min_size=1, max_size=2),
       st.sampled_from(["row", "column", "sym"]), st.sampled_from(["var", "std"]),
       st.sampled_from(["float16", "float32", "float64", "int64", "bool"]),
       st.booleans(), st.integers(0, 1), st.booleans(), st.integers(0, 3))
def test_variance_of_tiles_is_numpys_on_every_rank(ranks, shape, kind, name, dtype, large,
                                                   axis, keep, seed):
    """``var``/``std`` of a tiled array (every rank played, uneven and empty tiles): every
    rank the same bits, NumPy's dtype, the exact value to the dtype's precision; a
    ``large`` mean (past the square root of float32's or float64's largest number: its
    square overflows; float16's far from 0: summed in float32, as NumPy does) included."""
    shape = tuple(shape)
    axes = (0,) if len(shape) == 1 else ((axis,), (0, 1))[seed % 2]
    rng = np.random.default_rng(seed)
    offset, scale = {"float16": (100.0, 10.0), "float32": (3e19, 3e17),
                     "float64": (2e154, 2e152)}.get(dtype, (0.0, 3.0)) if large else (0.0, 3.0)
    whole = {"bool": rng.random(shape) < 0.5, "int64": rng.integers(-9, 9, shape)}.get(
        dtype, (rng.normal(size=shape) * scale + offset).astype(dtype))
    ddof = seed % 2
    got = _played_global(name, whole, layout_of(shape, ranks, kind), axes, keep, ddof)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # ddof = N
        want = getattr(np, name)(whole, axis=axes, keepdims=keep, ddof=ddof)
        exact = getattr(np, name)(whole.astype(np.float64), axis=axes, keepdims=keep,
                                  ddof=ddof)
    for g in got:
        assert np.asarray(g).dtype == np.asarray(want).dtype and np.shape(g) == np.shape(want)
        np.testing.assert_array_equal(g, got[0])
    rtol = {"float16": 1e-3, "float32": 2e-5}.get(dtype, 1e-10)
    np.testing.assert_allclose(np.asarray(got[0], np.float64), exact, rtol=rtol,
                               atol=rtol * scale * (scale if name == "var" else 1))


@pytest.mark.parametrize("ddof", [True, "a", None])
def test_variance_of_tiles_refuses_a_ddof_the_plain_primitive_refuses(ddof):
    """``var``/``std`` over a split axis (two ranks, rank 0 played) check ``ddof`` as the
    plain primitive does: a located type error, not a bool taken for 1 or nil for 0."""
    from phylanx.distributed import tiles
    from phylanx.distributed.darray import DistributedArray
    from phylanx.errors import PhylanxTypeError
    layout = layout_of((4, 2), 2, "row")
    a = DistributedArray(X[:1].repeat(2, 0), layout, "x")
    real = (dist.find_here, tiles.all_gathered_then)
    try:
        dist.find_here = lambda: 0
        tiles.all_gathered_then = lambda value, finish: None     # (rank 1 is not played)
        for name in ("var", "std"):
            with pytest.raises(PhylanxTypeError, match="ddof must be a number"):
                DISTRIBUTION.get(name)(lookup(name).impl, [a, 0, None, None, None, ddof])
    finally:
        dist.find_here, tiles.all_gathered_then = real
