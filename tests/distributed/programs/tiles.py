"""Tiled arrays and the distributed primitives, for any number of ranks (reference §4.4).

Every result is compared with NumPy on the whole array (every rank knows it), both
the local tile (against the part of the whole its box names) and the gathered
array; annotations (spans, name/generation) are checked against the tiling
arithmetic.  Bad input must raise the same located error on every rank.  The
argument selects a group of checks (``basic``, ``stores``, ``products``, ``conv``,
``errors``);
prints 'OK <rank>' at the end.
"""
import os
import sys
import tempfile
import warnings

import numpy as np

import phylanx
from phylanx import distributed as dist
from phylanx.distributed import tiling
from phylanx.errors import PhylanxError

r, n = dist.find_here(), dist.num_localities()


def ev(code, *args):
    """Evaluate PhySL ``code``; positional ``args`` are the variables a, b, c."""
    if not args:
        return phylanx.evaluate(code)
    names = ", ".join("abc"[:len(args)])
    return phylanx.evaluate(f"lambda({names}, {code})", *args)

groups = sys.argv[1:] or ["basic", "stores", "products", "conv", "errors"]


def close(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    assert np.allclose(got, want, rtol=1e-9, atol=1e-9 * scale, equal_nan=True), \
        (what, got, want)


def check_tiled(d, whole, what, name=None):
    """``d`` is a DistributedArray of ``whole``: tile, layout and gather agree."""
    assert isinstance(d, dist.DistributedArray), (what, type(d))
    assert d.shape == whole.shape, (what, d.shape, whole.shape)
    box = d.layout.boxes[r]
    close(d.local, whole[tuple(slice(s, e) for s, e in box)], what + " (tile)")
    close(d.gather(), whole, what + " (gathered)")
    if name is not None:
        assert d.full_name == name, (what, d.full_name, name)


def expect_error(code, words, *args):
    try:
        ev(code, *args)
    except PhylanxError as e:
        text = str(e)
        assert e.loc is not None, (code, text)
        for w in words:
            assert w in text, (code, text)
        return text
    raise AssertionError(f"no error from {code}")


def basic():
    # -- creators: every tiling type and dimension, dtype, overlap ---------------------
    cases = [((5 * n,), "sym"), ((2 * n + 1, 3), "row"), ((3, n + 2), "column"),
             ((2 * n, 2 * n), "sym"), ((n, 2, 3), "page"), ((2, n + 1, 2), "row"),
             ((2, 2, n), "column"), ((n + 1, 2 * n, 3), "sym")]
    for shape, kind in cases:
        d = ev(f'constant_d(7, list({", ".join(map(str, shape))}), find_here(), '
               f'num_localities(), "c", "{kind}", nil, "int")')
        check_tiled(d, np.full(shape, 7), f"constant_d {shape} {kind}", "c")
        assert d.dtype == np.int64
        assert list(d.layout.boxes) == tiling.tile_boxes(shape, n, kind), (shape, kind)
        assert d.annotation()[-1] == ["name", "c", 0]
        assert d.annotation()[1] == ["locality", r, n]
    d = ev(f"constant_d(1.5, list({4 * n}, 3), find_here(), num_localities(), \"\", "
           "\"row\", 1)")
    assert d.name.startswith("full_array_")
    check_tiled(d, np.full((4 * n, 3), 1.5), "constant_d intersection")
    if n > 1:
        spans = [b[0] for b in d.layout.boxes]
        assert spans[0] == (0, 5) and spans[-1] == (4 * n - 5, 4 * n), spans
    d = ev(f"random_d(list({3 * n}, 4), find_here(), num_localities(), \"rnd\", \"row\")")
    assert d.shape == (3 * n, 4) and d.local.shape == (3, 4) and d.name == "rnd"
    for kind in ("sym", "row", "column"):
        check_tiled(ev(f'identity_d({2 * n + 1}, find_here(), num_localities(), "", '
                       f'"{kind}")'), np.eye(2 * n + 1), f"identity_d {kind}")

    # -- annotate_d with explicit (uneven, empty, overlapping) tiles ---------------------
    whole = np.arange(5.0 * (n + 2)).reshape(n + 2, 5)
    rows = [0, 0, *range(3, n + 2)] if n > 1 else [0]   # rank 0 gets an empty tile
    rows = sorted(set(rows)) + [n + 2]
    bounds = [(rows[k], rows[k + 1]) for k in range(len(rows) - 1)]
    while len(bounds) < n:
        bounds.insert(0, (0, 0))
    r0, r1 = bounds[r]
    tile = whole[r0:r1]
    m = ev(f'annotate_d(a, "m", list("args", list("locality", {r}, {n}), '
           f'list("tile", list("columns", 0, 5), list("rows", {r0}, {r1}))))', tile)
    assert dist.annotate(tile, "m", ["tile", ["columns", 0, 5], ["rows", r0, r1]]).layout \
        == m.layout
    check_tiled(m, whole, "annotate_d", "m")
    assert m.annotation()[2 + r][1] == ["tile", ["rows", r0, r1], ["columns", 0, 5]]
    mo = dist.tiled(whole, "row", 1 if n + 2 >= 2 * n else 0, name="mo")
    check_tiled(mo, whole, "tiled with overlap")
    # tiles the ranks made themselves, overlapping by a row, alike there: accepted
    # (their overlaps' checksums are compared: ``tiles._check_overlaps``)
    lap = np.arange(6.0 * n).reshape(2 * n, 3)
    lo = max(0, 2 * r - 1)
    check_tiled(ev(f'annotate_d(a, "lap", list("tile", list("rows", {lo}, {2 * r + 2}), '
                   'list("columns", 0, 3)))', lap[lo:2 * r + 2]), lap, "annotate_d overlap")
    # alike in value, not in bytes: the odd ranks' tiles big-endian, their NaNs of the
    # other sign (0/0 gives -nan on x86, np.nan is +nan): accepted as well
    odd = lap[lo:2 * r + 2].astype(">f8" if r % 2 else "<f8")
    odd[:, 1] = -np.nan if r % 2 else np.nan
    check_tiled(ev(f'annotate_d(a, "lap_bytes", list("tile", list("rows", {lo}, {2 * r + 2}), '
                   'list("columns", 0, 3)))', odd), np.where(np.arange(3) == 1, np.nan, lap),
                "annotate_d overlap alike in value")
    # reductions of those big-endian tiles: amax/amin reduced each block with the tile's
    # dtype, which a ufunc refuses when not native ("The `dtype` and `signature`
    # arguments to ufuncs only select the general DType ..." on the odd ranks)
    be = ev(f'annotate_d(a, "lap_be", list("tile", list("rows", {lo}, {2 * r + 2}), '
            'list("columns", 0, 3)))', lap[lo:2 * r + 2].astype(">f8" if r % 2 else "<f8"))
    for code, expected in (("amax(a)", lap.max()), ("amin(a)", lap.min()),
                           ("amax(a, 0)", lap.max(0)), ("amin(a, 1)", lap.min(1)),
                           ("sum(a, 0)", lap.sum(0)), ("argmax(a)", lap.argmax())):
        got = ev(code, be)
        close(got.gather() if isinstance(got, dist.DistributedArray) else got, expected,
              f"{code} of big-endian tiles")

    # -0.0 on the odd ranks where the even ones hold 0.0 (columns 0 and 2): equal to
    # NumPy (np.array_equal), so accepted too
    signed = np.zeros((2 * r + 2 - lo, 3)) * (-1.0 if r % 2 else 1.0)
    signed[:, 1] = lap[lo:2 * r + 2, 1]
    assert np.signbit(signed[0, 0]) == bool(r % 2)
    check_tiled(ev(f'annotate_d(a, "lap_zeros", list("tile", list("rows", {lo}, '
                   f'{2 * r + 2}), list("columns", 0, 3)))', signed),
                np.where(np.arange(3) == 1, lap, 0.0), "annotate_d overlap -0.0 and 0.0")

    # -- vectors, diag_d ------------------------------------------------------------------
    v = np.arange(1.0, 2 * n + 2)
    vd = dist.tiled(v, name="v")
    for k in (0, 1, -2):
        check_tiled(ev(f"diag_d(a, {k})", vd), np.diag(v, k), f"diag_d k={k}", "v_diag/1")
    check_tiled(ev('diag_d(a, 1, "row")', vd), np.diag(v, 1), "diag_d row")

    # -- file_read_csv_d with overlap ---------------------------------------------------
    path = dist.broadcast(tempfile.mktemp(suffix=".csv") if r == 0 else None).result()
    csv = np.arange(30.0 * 8).reshape(30, 8)
    if r == 0:
        np.savetxt(path, csv, delimiter=",")
    dist.barrier().result()
    d = ev(f'file_read_csv_d("{path}", false, 1, "sym", 2)')
    check_tiled(d, csv, "file_read_csv_d")
    if n == 2:
        assert [b[0] for b in d.layout.boxes] == [(0, 17), (13, 30)], d.layout.boxes
    check_tiled(ev(f'file_read_csv_d("{path}", true, 3, "page")'), csv.reshape(10, 3, 8),
                "file_read_csv_d 3-d")
    dist.barrier().result()
    if r == 0:
        os.unlink(path)

    # -- shape_d, slices ----------------------------------------------------------------
    g = np.arange(float((n + 3) * (n + 4))).reshape(n + 3, n + 4)
    for kind in ("sym", "row", "column"):
        a = dist.tiled(g, kind, name="g")
        assert list(ev("shape_d(a)", a)) == list(g.shape)
        assert ev("shape_d(a, 1)", a) == g.shape[1]
        assert list(ev("shape(a)", a)) == list(g.shape)          # the global shape
        assert list(ev("shape(local_tile(a))", a)) == list(a.local.shape)   # the tile's
        for idx, sel in (("list(1, nil)", np.s_[1:]), ("list(nil, nil, 2)", np.s_[::2]),
                         ("list(nil, nil, -1)", np.s_[::-1]), ("2", 2)):
            check_tiled(ev(f"slice_row_d(a, {idx})", a), g[sel], f"slice_row_d {idx}",
                        "g_sliced/1")
            check_tiled(ev(f"slice_column_d(a, {idx})", a), g[:, sel], f"slice_column_d {idx}")
        # plain slice_row has no rule: the gather fallback gives NumPy's answer
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
            got = ev("slice_row(a, list(0, 1))", a)
        got = got.gather() if isinstance(got, dist.DistributedArray) else got
        assert np.array_equal(got, ev("slice_row(a, list(0, 1))", a.gather())), got
        close(ev("slice_row(local_tile(a), list(0, 1))", a), a.local[0:1], "local slice_row")

        # -- element-wise, broadcasting, names -------------------------------------------
        check_tiled(ev("sqrt(a)", a), np.sqrt(g), "sqrt", "g/1")
        check_tiled(ev("square(sqrt(a))", a), g, "square", "g/2")
        check_tiled(ev("maximum(a, 20)", a), np.maximum(g, 20), "maximum scalar", "g/1")
        check_tiled(ev("a * 2 - 1", a), g * 2 - 1, "arithmetic", "g/2")
        row = np.arange(g.shape[1], dtype=float)
        col = np.arange(g.shape[0], dtype=float).reshape(-1, 1)
        check_tiled(ev("a + b", a, row), g + row, "broadcast row")
        check_tiled(ev("a * b", col, a), g * col, "broadcast column")
        check_tiled(ev("a > 10", a), g > 10, "comparison")
        other = dist.tiled(g * 3, "row" if kind != "row" else "column", name="h")
        check_tiled(ev("a + b", a, other), g * 4, "differently tiled operands", "g/1")
        check_tiled(a + 1, g + 1, "python operator")
        check_tiled(np.exp(a / 100), np.exp(g / 100), "numpy ufunc")
        check_tiled(ev("expand_dims(a, 0)", a), g[None], "expand_dims 0")
        check_tiled(ev("expand_dims(a, 2)", a), g[:, :, None], "expand_dims 2")

        # -- transpose, retile, gather ---------------------------------------------------
        check_tiled(ev("transpose_d(a)", a), g.T, "transpose_d", "g_transposed/1")
        for new in ("sym", "row", "column"):
            check_tiled(ev(f'retile_d(a, "{new}")', a), g, f"retile {kind}->{new}",
                        "g_retiled/1")
        check_tiled(ev('retile_d(a, "row", 1)', a), g, "retile with overlap")
        close(ev("all_gather_d(a)", a), g, "all_gather_d")
        assert np.array_equal(np.asarray(a), g)              # __array__ gathers

        # -- reductions --------------------------------------------------------------------
        for axis in (None, 0, 1, -1):
            ax = "nil" if axis is None else axis
            for prim, fn in (("sum_d", np.sum), ("mean_d", np.mean), ("max_d", np.max),
                             ("min_d", np.min), ("argmax_d", np.argmax),
                             ("argmin_d", np.argmin)):
                close(ev(f"{prim}(a, {ax})", a), fn(g, axis=axis), f"{prim} axis={axis}")
        close(ev("sum_d(a, 0, true)", a), g.sum(0, keepdims=True), "keepdims")
    # ties and NaN like NumPy; empty tiles allowed
    t = np.array([1.0, 5.0, 5.0, 0.0, 5.0] + [0.0] * n)
    ta = dist.tiled(t, name="ties")
    assert ev("argmax_d(a)", ta) == 1 and ev("argmin_d(a)", ta) == 3
    tn = t.copy()
    tn[-1] = np.nan
    assert ev("argmax_d(a)", dist.tiled(tn, name="nan")) == len(t) - 1
    close(ev("argmax_d(a)", m), np.argmax(whole), "argmax with empty tile")
    close(ev("argmin_d(a, 0)", m), np.argmin(whole, 0), "argmin axis with empty tile")
    close(ev("sum_d(a, 1)", m), whole.sum(1), "sum with empty tile")
    close(ev("sum_d(a)", mo), whole.sum(), "sum with overlapping tiles")
    ints = dist.tiled(np.arange(4 * n) % 3, name="ints")
    assert ev("argmax_d(a)", ints) == 2 and ev("max_d(a)", ints) == 2
    check_tiled(ev("transpose_d(a)", vd), v, "transpose vector")
    assert ev("transpose_d(a)", vd).layout.key1d == "rows"
    cube = np.arange(float(n * 2 * 3)).reshape(n, 2, 3)
    cd = dist.tiled(cube, "page", name="cube")
    check_tiled(ev("transpose_d(a, list(1, 0, 2))", cd), cube.transpose(1, 0, 2), "3-d transpose")
    check_tiled(ev('retile_d(a, "sym")', cd), cube, "3-d retile")
    user = ev('retile_d(a, "user", nil, num_localities(), list("tile", list("pages", 0, '
              f'{n}), list("rows", 0, 2), list("columns", {r * 3 // n}, {(r + 1) * 3 // n})))',
              cd)
    check_tiled(user, cube, "user retile")


def stores():
    """``store(slice_row_d(a, i), v)`` / ``store(slice_column_d(a, j), v)`` against
    NumPy's ``g[i] = v``: a whole value, a scalar, a tiled value laid out like the
    slice (used as is) or otherwise (gathered), and a 3-d array."""
    g = np.arange(float((n + 3) * (n + 4))).reshape(n + 3, n + 4)
    for kind in ("sym", "row", "column"):
        for form, axis in (("slice_row_d", 0), ("slice_column_d", 1)):
            for idx, sel in (("list(1, nil)", np.s_[1:]), ("list(nil, nil, 2)", np.s_[::2]),
                             ("list(nil, nil, -1)", np.s_[::-1]), ("2", 2),
                             ("list(1, 2)", np.s_[1:2])):
                where = (sel,) if axis == 0 else (slice(None), sel)
                want = g.copy()
                v = -1 - np.arange(float(want[where].size)).reshape(want[where].shape)
                want[where] = v
                what = f"store {form} {idx} {kind}"
                a = dist.tiled(g, kind, name="s")
                check_tiled(ev(f"block(store({form}(a, {idx}), b), a)", a, v), want, what)
                check_tiled(a, want, what + " (in place)")
                # a scalar broadcasts
                want = g.copy()
                want[where] = 7
                a = dist.tiled(g, kind, name="s")
                check_tiled(ev(f"block(store({form}(a, {idx}), 7), a)", a), want,
                            what + " scalar")
                # a tiled value laid out like the slice, then one laid out otherwise
                want = g.copy()
                want[where] = 10 * g[where]
                a, b = dist.tiled(g, kind, name="s"), dist.tiled(10 * g, kind, name="t")
                check_tiled(ev(f"block(store({form}(a, {idx}), {form}(b, {idx})), a)", a, b),
                            want, what + " tiled value")
                if np.ndim(v) >= 1:
                    other = "sym" if v.ndim == 1 else "row" if len(v) >= n else "column"
                    a, b = dist.tiled(g, kind, name="s"), dist.tiled(v, other, name="v")
                    want = g.copy()
                    want[where] = v
                    check_tiled(ev(f"block(store({form}(a, {idx}), b), a)", a, b), want,
                                what + " tiled value, other layout")
    # 3-d: rows are the second-to-last axis, columns the last
    h = np.arange(float((n + 1) * (n + 2) * (n + 3))).reshape(n + 1, n + 2, n + 3)
    for kind in ("page", "row", "column", "sym"):
        want = h.copy()
        want[:, 1:n + 1, :] = 0.5
        a = dist.tiled(h, kind, name="h")
        check_tiled(ev(f"block(store(slice_row_d(a, list(1, {n + 1})), 0.5), a)", a), want,
                    f"store slice_row_d 3-d {kind}")
        want[:, :, 2] = -h[:, :, 2]
        check_tiled(ev("block(store(slice_column_d(a, 2), b), a)", a, -h[:, :, 2]), want,
                    f"store slice_column_d 3-d {kind}")
    a = dist.tiled(g, "row", name="s")
    expect_error("store(slice_row_d(a, list(0, 2)), b)", ["does not broadcast", "(2,"], a,
                 np.ones((3, 3)))
    expect_error("store(slice_column_d(a, 1), b)", ["global shape"], a,
                 dist.tiled(np.ones(n + 2), name="w"))
    expect_error("store(slice_row_d(a, list(0, 1), 2), 1)", ["takes one index"], a)


def result_of(value):
    return value.gather() if isinstance(value, dist.DistributedArray) else value


def products():
    rng = np.random.default_rng(7)
    m, k, p = n + 2, 2 * n + 1, n + 3
    A, B = rng.normal(size=(m, k)), rng.normal(size=(k, p))
    u, w = rng.normal(size=k), rng.normal(size=m)
    tilings = ("sym", "row", "column")
    for ka in tilings:
        a = dist.tiled(A, ka, name="A")
        for kb in tilings:
            b = dist.tiled(B, kb, name="B")
            close(result_of(ev("dot_d(a, b)", a, b)), A @ B, f"dot_d 2d2d {ka} {kb}")
        close(result_of(ev("dot_d(a, b)", a, dist.tiled(u, name="u"))), A @ u,
              f"dot_d 2d1d {ka}")
        close(result_of(ev("dot_d(a, b)", dist.tiled(w, name="w"), a)), w @ A,
              f"dot_d 1d2d {ka}")
        close(result_of(ev("dot_d(a, b)", a, B)), A @ B, f"dot_d tiled·plain {ka}")
        close(result_of(ev("dot_d(a, b)", A, dist.tiled(B, ka, name="B"))), A @ B,
              f"dot_d plain·tiled {ka}")
    close(ev("dot_d(a, b)", dist.tiled(u, name="u"), dist.tiled(u[::-1].copy(), name="v")),
          u @ u[::-1], "dot_d 1d1d")
    # results: tiled by the lhs rows when it is row-split, else replicated
    d = ev("dot_d(a, b)", dist.tiled(A, "row", name="A"), dist.tiled(B, "sym", name="B"))
    assert isinstance(d, dist.DistributedArray) and d.full_name == "A/1"
    replicated = ev("dot_d(a, b)", dist.tiled(A, "column", name="A"), B)
    assert isinstance(replicated, np.ndarray) or n == 1
    mo = dist.tiled(A, "row", 1 if m >= 2 * n else 0, name="Ao")
    close(result_of(ev("dot_d(a, b)", mo, u)), A @ u, "dot_d overlapping lhs")
    close(result_of(ev("dot_d(a, b)", dist.tiled(A, "column", 1 if k >= 2 * n else 0,
                                                 name="Ac"), u)), A @ u,
          "dot_d overlapping contraction")

    # cannon on square grids; any other rank count is an error on every rank
    if n in (1, 4):
        S, T = rng.normal(size=(4, 6)), rng.normal(size=(6, 5))
        c = ev("cannon_product_d(a, b)", dist.tiled(S, name="S"), dist.tiled(T, name="T"))
        check_tiled(c, S @ T, "cannon_product_d", "S/1")
    else:
        expect_error("cannon_product_d(a, b)", ["square number of localities", str(n)],
                     dist.tiled(A, name="A"), dist.tiled(B, name="B"))

    # inverse_d: column tiles (and others, fetched into columns)
    size = n + 2
    M = rng.normal(size=(size, size)) + size * np.eye(size)
    M[[0, 1]] = M[[1, 0]]
    M[0, 0] = 0.0                     # the first pivot needs a row swap
    for kind in ("column", "sym", "row"):
        inv = ev("inverse_d(a)", dist.tiled(M, kind, name="M"))
        check_tiled(inv, np.linalg.inv(M), f"inverse_d {kind}", "M/1")
    singular = np.ones((size, size))
    expect_error("inverse_d(a)", ["singular"], dist.tiled(singular, "column", name="S"))


def conv():
    from phylanx.primitives.keras_support.conv import conv1d
    rng = np.random.default_rng(3)
    x = rng.normal(size=(n, 4 * n + 1, 2))
    kernel = rng.normal(size=(3, 2, 3))
    layouts = [("page", 0), ("row", 0), ("sym", 0), ("row", 1)]
    for kind, over in layouts:
        if kind == "sym" and n > 1 and x.shape[0] < 2:
            continue
        xd = dist.tiled(x, kind, over, name="x")
        for padding in ("valid", "same", "causal"):
            for strides, dilation in ((1, 1), (2, 1), (1, 2), (3, 1)):
                out = ev(f'conv1d_d(a, b, "{padding}", {strides}, {dilation})', xd, kernel)
                want = conv1d(x, kernel, padding, strides, dilation)
                check_tiled(out, want, f"conv1d_d {kind}/{over} {padding} {strides} {dilation}",
                            "x/1")
    # integer operands, one output only (rank 0's): the other ranks' empty tiles hold
    # the dtype the convolution gives (float64, as conv1d reads ints), not the ints'
    xi = rng.integers(-3, 4, size=(2, 2 * n, 2))
    ki = rng.integers(-3, 4, size=(2 * n, 2, 3))
    out = ev('conv1d_d(a, b, "valid")', dist.tiled(xi, "row", name="xi"), ki)
    want = np.asarray(conv1d(xi, ki, "valid"))
    check_tiled(out, want, "conv1d_d integer operands, empty output tiles")
    assert (out.dtype, out.local.dtype) == (want.dtype, want.dtype), \
        (f"conv1d_d of integers on rank {r}: the array's dtype {out.dtype}, its tile's "
         f"{out.local.dtype}, conv1d's {want.dtype}")
    out = ev('conv1d_d(a, b, "same", 1, 1, "y")', dist.tiled(x, "row", name="x"), kernel)
    assert out.full_name == "y"
    if n > 1:    # channels split across localities
        expect_error("conv1d_d(a, b)", ["channels"],
                     dist.tiled(rng.normal(size=(1, 2, 2 * n)), "column", name="xc"),
                     rng.normal(size=(1, 2 * n, 1)))


def errors():
    words = []
    if n > 1:
        expect_error(f"constant_d(1, list({n - 1}))", ["fewer elements than tiles", *words])
        # only the last rank annotates wrongly: every rank raises, naming it
        stop = 2 * r + (3 if r == n - 1 else 2)
        text = expect_error(f'annotate_d([1, 2], "bad", list("tile", list("columns", '
                            f'{2 * r}, {stop})))',
                            ["array 'bad'", f"locality {n - 1}", "do not match"])
        assert "annotate_d" in text
        # a gap: nobody covers [2, 3)
        start = 0 if r == 0 else 3 * r
        expect_error(f'annotate_d([1, 2], "gap", list("tile", list("columns", {start}, '
                     f'{start + 2})))', ["gap"])
        # a vector annotated as rows on one rank, columns on the others
        key = "rows" if r == 0 else "columns"
        expect_error(f'annotate_d([1, 2], "key", list("tile", list("{key}", {2 * r}, '
                     f'{2 * r + 2})))', ["same key"])
        # tiles overlapping by a row, the last rank's other there: every rank raises,
        # naming the localities and the cells (before: each computed with its own)
        lap = np.arange(6.0 * n).reshape(2 * n, 3)
        lo = max(0, 2 * r - 1)
        own = lap[lo:2 * r + 2] + (r == n - 1)
        expect_error(f'annotate_d(a, "lap2", list("tile", list("rows", {lo}, {2 * r + 2}), '
                     'list("columns", 0, 3)))',
                     ["overlapping tiles hold different values",
                      f"localities {n - 2} and {n - 1} at [({2 * n - 3}, {2 * n - 2}), (0, 3)]"],
                     own)
        # the last rank's overlap bytes (+1, -2, +1) off: a difference adler32 cannot see
        # (its two sums unchanged): found as well
        own = np.full((2 * r + 2 - lo, 3), 1 + 2.0 ** -43)   # (its second byte is 2)
        if r == n - 1:
            own.view(np.uint8)[0, :3] += np.array([1, 254, 1], np.uint8)
        expect_error(f'annotate_d(a, "lap3", list("tile", list("rows", {lo}, {2 * r + 2}), '
                     'list("columns", 0, 3)))',
                     ["overlapping tiles hold different values", f"localities {n - 2} and "
                      f"{n - 1}"], own)
    expect_error(f"constant_d(1, list(8), {n})", ["tile_index", "out of range"])
    expect_error(f'annotate_d([1], "l", list("args", list("locality", {n}, {n}), '
                 'list("tile", list("columns", 0, 1))))', ["does not match this locality"])
    expect_error("constant_d(1, list(2, 2, 2, 2))", ["1-d, 2-d or 3-d"])
    expect_error('constant_d(1, list(4, 4), find_here(), num_localities(), "", "diagonal")',
                 ["unknown tiling_type"])
    a = dist.tiled(np.arange(4.0 * n), name="e")
    expect_error("a + b", ["shapes"], a, dist.tiled(np.arange(4.0 * n + 1), name="f"))
    expect_error("sum_d([1, 2])", ["distributed array"])
    # a masked array, on every rank or on the last one only, is an error on every rank
    # (user43: its masked entries were tiled and summed as values)
    masked = np.ma.array(np.arange(2.0 * n), mask=np.arange(2 * n) == 1)
    plain = np.arange(2.0 * n)
    for call, name in ((lambda: dist.tiled(masked, "row", name="m1"), "m1"),
                       (lambda: dist.tiled(masked if r == n - 1 else plain, "row",
                                           name="m2"), "m2"),
                       (lambda: dist.annotate(masked[2 * r:2 * r + 2], "m3", ["tile", [
                           "columns", 2 * r, 2 * r + 2]]), "m3")):
        try:
            call()
        except PhylanxError as e:
            assert e.loc is not None and "MaskedArray" in str(e), (name, str(e))
        else:
            raise AssertionError(f"no error from a masked array ({name})")


for group in groups:
    globals()[group]()
    dist.barrier().result()
print(f"OK {r}")
