"""Fused row passes for ``argmin(f(x @ m, ...), 1)``: k-means' labels in one loop.

The cache-blocking rewrite turns ``np.argmin(f(x @ c, ...), axis=1)`` (``argmax`` too;
``f`` element-wise, e.g. k-means' ``|p|^2 - 2 p.c + |c|^2``) into
``__rows_concat(g, x, ...)``, which NumPy evaluates by row tiles.  Once hot, this module
computes it in one numba loop instead, with no (n, k) intermediate at all::

    for each chunk of rows (in parallel):
        for each block of rows in it (up to 2048 rows, cache-sized):
            P = x[block] @ c                  (one BLAS call)
            for each row i of the block:
                for j in 0..k-1:
                    v = f(P[i, j], s[i], r[j], ...)
                    keep the first smallest v (the first NaN, as NumPy's argmin)
                labels[i] = its j
            (k-means' update: each row's count and sum into its label's, while the
            block is in cache)

It applies when ``x`` is a 2-d float64/float32 array of at least ``rowpass.MIN_ELEMENTS``, the
product operands are float64/float32 (d, k) matrices (any mix with ``x``: the product is
in NumPy's promoted dtype, a float32 ``x`` converted block by block, exactly, as NumPy
converts all of it; k-means on float32 points has float64 centres after its first
update), and ``f``'s other operands are
numbers, (n, 1) columns, (k,) or (1, k) rows or (n, k) matrices.  The policy is the
fusion policy (``hot.py``), through :class:`~.hot.FusedRegion` with the call's operands
as leaves; the one check against NumPy accepts another label only where the two
candidates' values are equal within rounding (a near tie decided by the product's
rounding, which the tiles of ``__rows_concat`` allow too).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..kernels.compiling import KERNEL_LOCK, array_key
from ..runtime.nodes import Node
from . import codegen, rowpass
from .hot import _Kernel, _Planned, _tolerance, scalar_key
from .regions import Region, interpret, region_at
from .rowpass import row_matrix

_CONCAT = "__rows_concat"
#: the same pass gathering each label's count and row sum too (k-means' update:
#: ``compiler/rewrite/label_stats.py``)
_STATS = "__rows_label_stats"
_ARG = {"argmin": "<", "argmax": ">"}
_SAMPLE_ROWS = 4
#: rows per block of the pass (cache-sized), and a block's product size (rows x d x k)
#: at most: OpenBLAS runs products up to 65536 x 4 on the calling thread (its
#: GEMM_MULTITHREAD_THRESHOLD), the thread of our own parallel loop; one row per block
#: when d x k alone exceeds it
_MAX_BLOCK, _BLOCK_PRODUCT = 2048, 1 << 18


def _block_rows_source() -> str:
    """The kernel's expression of its rows per block."""
    return f"max(1, min({_MAX_BLOCK}, {_BLOCK_PRODUCT} // max(1, X.shape[1] * k)))"


def _roles(sig: tuple) -> list[str]:
    """The operands' roles in a signature (after x's key)."""
    return [part[0] for part in sig[1:]]


def _param(node: Node) -> int | None:
    """The parameter a ``access-variable`` of the lambda's own frame reads (0 = the tile)."""
    if node.primitive == "access-variable" and node.slot is not None:
        return node.slot - 1
    return None


def analyse(node: Node) -> RowArgmin | None:
    """A :class:`RowArgmin` for ``node`` if it is the pattern this module compiles."""
    if node.primitive not in (_CONCAT, _STATS) or len(node.children) < 4 \
            or not node.children[1].primitive.startswith("access-"):
        return None
    function = node.children[0]
    if function.primitive != "lambda" or len(function.children) != 1:
        return None
    body = function.children[0]
    if body.primitive not in _ARG or len(body.children) != 2:
        return None
    axis = body.children[1]
    if not (axis.is_const and type(axis.value) is int and axis.value in (1, -1)):
        return None
    region = region_at(body.children[0])
    if region is None:
        return None
    kinds: list[tuple[str, Any]] = []
    for leaf in region.leaves:
        if leaf.is_const:
            kinds.append(("c", leaf.value))
        elif _param(leaf) is not None and _param(leaf) > 0:
            kinds.append(("p", _param(leaf) + 2))          # the call's child holding it
        elif (leaf.primitive in rowpass._PRODUCTS and len(leaf.children) == 2
              and _param(leaf.children[0]) == 0 and (_param(leaf.children[1]) or 0) > 0):
            kinds.append(("m", _param(leaf.children[1]) + 2))
        else:
            return None
    if not any(kind == "m" for kind, _ in kinds):
        return None
    return RowArgmin(region, node, body.primitive, kinds)


class ArgKernel(_Kernel):
    """A compiled argmin pass: ``kernel(X, chunks, k, out, L0, ...)`` fills ``out``."""

    def __call__(self, shape: Any, n: int, args: list) -> np.ndarray:
        self.calls += 1
        x, k = args[0], args[1]
        out = np.empty(x.shape[0], dtype=np.intp)
        # chunks (and so the row blocks of each product) by x's height alone: both loops
        # compute the same blocks (the serial one in order)
        chunks = codegen.chunks(x.shape[0], codegen.CHUNK_ROWS)
        with KERNEL_LOCK:
            self.kernel(x, chunks, k, out, *args[2:])
        return out


class StatsKernel(_Kernel):
    """A compiled argmin pass that also sums each label's rows and counts them:
    ``kernel(X, chunks, k, out, sums, counts, L0, ...)`` fills ``out`` and the
    per-chunk ``sums`` (chunks, k, d) and ``counts`` (chunks, k)."""

    def __init__(self, planned: _Planned, kernels: tuple[Any, Any]):
        # the planned result is a LabelStats: the kernel's own output is its labels
        super().__init__(_Planned(planned.plan, planned.samples, planned.result.labels),
                         kernels)

    def __call__(self, shape: Any, n: int, args: list) -> Any:
        from ..primitives.matrixops.label_stats import LabelStats
        self.calls += 1
        x, k = args[0], args[1]
        out = np.empty(x.shape[0], dtype=np.intp)
        chunks = codegen.chunks(x.shape[0], codegen.CHUNK_ROWS)   # (see ArgKernel)
        sums = np.zeros((chunks, k, x.shape[1]), dtype=x.dtype)
        counts = np.zeros((chunks, k), dtype=np.intp)
        with KERNEL_LOCK:
            self.kernel(x, chunks, k, out, sums, counts, *args[2:])
        total = sums.sum(axis=0)
        if not np.all(np.isfinite(total)):      # add_at then gives NumPy's own result
            return LabelStats(out, x, counts.sum(axis=0))
        return LabelStats(out, x, counts.sum(axis=0), total)


class RowArgmin(rowpass.RowPolicy):
    """The fusing closure of a ``__rows_concat`` (or ``__rows_label_stats``) call:
    values are the call's operands."""

    x_index = 1                  # g, x, ...

    def __init__(self, region: Region, node: Node, arg: str, kinds: list):
        super().__init__(region, node)
        self.leaves = list(node.children)      # g, x, the product count, the operands
        self.arg, self.kinds = arg, kinds
        self.stats = node.primitive == _STATS
        self.kernel_class = StatsKernel if self.stats else ArgKernel
        from ..primitives import registry
        self.impl = registry.lookup(node.primitive).impl

    def __repr__(self) -> str:
        state = ("cold", "hot", "off")[self.state]
        return f"<RowArgmin {self.arg}({self.region.describe()}) {state}>"

    def unfused(self, values: list, record: list | None = None) -> Any:
        return self.impl(*values)

    def _leaf_values(self, values: list) -> list:
        return [what if kind == "c" else values[what] for kind, what in self.kinds]

    def prepare(self, values: list) -> tuple | None:
        x = values[1]
        if not row_matrix(x):
            return None
        n, d = x.shape
        ks = {values[what].shape[1] for kind, what in self.kinds if kind == "m"
              and type(values[what]) is np.ndarray and values[what].ndim == 2}
        if len(ks) != 1:
            return None
        k = ks.pop()
        sig, args = [array_key(x)], [x, k]
        for (kind, _), value in zip(self.kinds, self._leaf_values(values)):
            t = type(value)
            if t is np.ndarray and value.ndim == 0:
                value, t = value[()], type(value[()])      # a 0-d array is a scalar
            if kind == "m":
                if not (t is np.ndarray and value.shape == (d, k)
                        and value.dtype in rowpass.ROW_DTYPES):
                    return None
                # NumPy's x @ m in the promoted dtype: a float32 operand under a float64
                # product is converted exactly first (m here, x block by block in the
                # kernel), so the product is NumPy's up to BLAS's order of the terms
                role = "m"
                arg = np.ascontiguousarray(value, dtype=np.result_type(x.dtype, value.dtype))
            elif t is not np.ndarray:
                key = scalar_key(value)
                if key is None:
                    return None
                sig.append(key)
                args.append(value)
                continue
            elif value.dtype not in codegen.ALLOWED_DTYPES:
                return None
            elif value.shape == (n, 1):
                role, arg = "a", np.ascontiguousarray(value.reshape(n))
            elif value.shape in ((k,), (1, k)):
                role, arg = "row", np.ascontiguousarray(value.reshape(k))
            elif value.shape == (n, k):
                role, arg = "full", np.ascontiguousarray(value)
            else:
                return None                   # another broadcast: the tiles do it
            sig.append((role, array_key(arg)))
            args.append(arg)
        if k == 0:
            return None                       # NumPy's error for an empty argmin
        return tuple(sig), args, None, x.size

    def _samples(self, roles: list[str], args: list, rows: int) -> list:
        x = args[0][:rows]
        out = []
        for role, a in zip(roles, args[2:]):
            if role == "m":
                out.append(x @ a)
            elif role in ("a", "full"):
                out.append(a[:rows] if role == "full" else a[:rows, None])
            else:
                out.append(a)
        return out

    def make_plan(self, sig: tuple, args: list, values: list, record: list,
                  result: Any) -> tuple | None:
        roles = _roles(sig)
        samples = self._samples(roles, args, _SAMPLE_ROWS)
        record = [None] * self.record_size()
        f = interpret(self.region, samples, record)
        if not (isinstance(f, np.ndarray) and f.ndim == 2 and f.dtype.kind in "fiub"
                and f.shape == (min(_SAMPLE_ROWS, args[0].shape[0]), args[1])):
            return None
        leaf_kinds = [s.reshape(-1)[0] if r == "s" and isinstance(s, np.ndarray) else s
                      for s, r in zip(samples, roles)]
        d = args[0].shape[1]
        made = codegen.body_lines(self.region, roles, leaf_kinds, record)
        if isinstance(made, str) or made[1] is not None:
            return None
        params = ", ".join(f"L{i}" for i in range(len(roles)))
        body = "\n".join("                    " + line for line in made[0])
        better = _ARG[self.arg]
        stats = "sums, counts, " if self.stats else ""
        products = [i for i, role in enumerate(roles) if role == "m"]
        # the pass goes by blocks of rows: each "m" product of a block is one BLAS call
        # (numba's np.dot: row-by-row dots, even written out term by term, do not
        # vectorise across the k columns; benchmarks/row_passes.py's k-means part), its
        # labels first, then their counts and row sums (gathered in the same loop, the
        # next row's label waited for the last row's stores to the same sums)
        x_dtype = args[0].dtype
        # a product in a wider dtype than x's (float32 points, float64 centres) reads x's
        # block converted to it (exact), as NumPy converts all of x before its product
        wide = [i for i in products if args[2 + i].dtype != x_dtype]
        start = "".join(f"        P{i} = np.empty((B, k), np.{args[2 + i].dtype.name})\n"
                        for i in products)
        if wide:
            start += f"        XW = np.empty((B, X.shape[1]), np.{args[2 + wide[0]].dtype.name})\n"
        if self.stats:
            # into the chunk's own arrays (chunks' parts side by side in one array share
            # cache lines: measured slower on two threads than on one), copied out last
            start += ("        part_sums = np.zeros((k, X.shape[1]), X.dtype)\n"
                      "        part_counts = np.zeros(k, np.intp)\n")
        # copies written as loops, never as slice assignments (``XW[:m] = X[b0:b1]``):
        # numba compiles an array slice assignment with its shape-mismatch message
        # (string formatting) and, in the parallel loop, a nested parfor; the shapes
        # agree by construction.  A k-means kernel's compile: 14.2 s -> 3.4 s of CPU
        # (parallel loop), 4.6 -> 1.4 s (serial), loaded (docs/performance.md)
        dots = ("            for r in range(b1 - b0):\n"
                "                for q in range(X.shape[1]):\n"
                "                    XW[r, q] = X[b0 + r, q]\n") if wide else ""
        dots += "".join(f"            np.dot({'XW[:b1 - b0]' if i in wide else 'X[b0:b1]'}, "
                        f"L{i}, P{i}[:b1 - b0])\n" for i in products)
        gather = ("            for i in range(b0, b1):\n"
                  "                best = out[i]\n"
                  "                part_counts[best] += 1\n"
                  "                for q in range(X.shape[1]):\n"
                  "                    part_sums[best, q] += X[i, q]\n") if self.stats else ""
        finish = ("        for r in range(k):\n"
                  "            counts[c, r] = part_counts[r]\n"
                  "            for q in range(X.shape[1]):\n"
                  "                sums[c, r, q] = part_sums[r, q]\n") if self.stats else ""
        plan = codegen.two_loops(lambda name, parallel: (
            f"{codegen.kernel_head(parallel)}"
            f"def {name}(X, chunks, k, out, {stats}{params}):\n"
            "    n = X.shape[0]\n"
            "    size = (n + chunks - 1) // chunks\n"
            f"    B = {_block_rows_source()}\n"
            "    for c in prange(chunks):\n"
            f"{start}"
            "        hi = min(n, (c + 1) * size)\n"
            "        for b0 in range(c * size, hi, B):\n"
            "            b1 = min(hi, b0 + B)\n"
            f"{dots}"
            "            for i in range(b0, b1):\n"
            "                best = 0\n"
            "                bestv = 0.0\n"
            "                for j in range(k):\n"
            f"{body}\n"
            f"                    v = t{self.region.root.index}\n"
            "                    if v != v:\n"           # NumPy: the first NaN wins
            "                        best = j\n"
            "                        break\n"
            f"                    if j == 0 or v {better} bestv:\n"
            "                        best = j\n"
            "                        bestv = v\n"
            "                out[i] = best\n" + gather + finish))
        compile_for = (args[0][:1], 1, args[1], np.empty(1, np.intp))
        if self.stats:
            compile_for += (np.zeros((1, args[1], d), args[0].dtype),
                            np.zeros((1, args[1]), np.intp))
        compile_for += tuple(a[:1] if r in ("a", "full") else a
                             for r, a in zip(roles, args[2:]))
        return plan, compile_for

    def disagreement(self, fused: Any, expected: Any, record: list, entry: Any,
                     values: list) -> str | None:
        if self.stats:
            problem = self.labels_disagree(fused.labels, expected.labels, values)
            return problem if problem is not None else _stats_disagree(fused, expected)
        return self.labels_disagree(fused, expected, values)

    def labels_disagree(self, fused: Any, expected: Any, values: list) -> str | None:
        if not isinstance(expected, np.ndarray) or fused.shape != expected.shape \
                or fused.dtype != expected.dtype:
            return f"{fused.dtype}{fused.shape} labels instead of " \
                   f"{getattr(expected, 'dtype', '?')}{getattr(expected, 'shape', '')}"
        differ = np.flatnonzero(fused != expected)
        if not differ.size:
            return None
        made = self.prepare(values)
        roles = _roles(made[0])
        f = np.asarray(interpret(self.region, self._samples(roles, made[1], None)))
        rows = f[differ]
        got, want = rows[np.arange(differ.size), fused[differ]], \
            rows[np.arange(differ.size), expected[differ]]
        if f.dtype.kind == "f":
            # an inf elsewhere in the row must not make every label a tie
            scale = np.where(np.isfinite(rows), np.abs(rows), 0).max(axis=1)
            tie = np.abs(got - want) <= _tolerance(f.dtype) * np.maximum(scale, 1.0)
        else:
            tie = got == want
        if tie.all():
            return None
        i = int(differ[np.flatnonzero(~tie)[0]])
        return f"row {i}: label {fused[i]} instead of {expected[i]}"


def _stats_disagree(fused: Any, expected: Any) -> str | None:
    """The gathered counts and sums against bincount/add_at of the kernel's own labels
    (the labels were checked: a tie may give another label than NumPy's)."""
    from ..primitives.matrixops.numpy_search import add_at
    labels, x = fused.labels, fused.x
    k = fused.counts.shape[0]
    if not np.array_equal(fused.counts, np.bincount(labels, minlength=k)):
        return "label counts differ from bincount's"
    want = np.zeros((k, x.shape[1]), x.dtype)
    size = np.zeros((k, x.shape[1]), x.dtype)
    with np.errstate(all="ignore"):
        add_at(want, labels, x)
        add_at(size, labels, np.abs(x))
    if (fused.sums is None) != (not np.all(np.isfinite(want))):
        return "non-finite row sums in one of them only"
    if fused.sums is None:
        return None
    # each sum against the sum of its rows' magnitudes (rounding grows with it)
    if np.any(np.abs(fused.sums - want) > _tolerance(x.dtype) * np.maximum(size, 1e-300)):
        return "label row sums differ from add_at's"
    return None
