"""Fused row passes: ``x.T @ f(x @ w, ...)`` as one compiled loop over the rows of ``x``.

Logistic regression's gradient ``x.T @ f(x @ w, y, ...)`` (``f`` element-wise) makes
NumPy read a tall ``x`` twice and write every intermediate of ``f`` at full height.
This module finds that pattern in a compiled tree (a ``matmul``/``dot`` of
``transpose(x)`` with an element-wise region whose leaves include products ``x @ w``
of the same variable ``x``; the gram rule, ``compiler/rewrite/gram_rows.py``, makes a
read-once ``pred = ...`` part of it) and computes it in one numba loop that reads each
row once::

    for each row i (in parallel over row chunks):
        v = f(x[i] . w, y[i], ...)          # the region's operations on scalars
        acc[chunk] += v * x[i]
    result = sum of acc over the chunks, in chunk order

It applies when ``x`` is a 2-d float64/float32 array (at least ``MIN_ELEMENTS``), each
``w`` a float64/float32 vector (any mix with ``x``: the row's dot is computed in NumPy's
promoted dtype, a float32 operand converted exactly, as NumPy converts it) and the
region's other operands vectors row-aligned with ``x`` or numbers; anything else runs
the expression as written.  ``f @ x`` (a vector ``f`` on the left) is the same gram.
The rows are split into chunks by their number alone (``codegen.chunks``): the serial
and the parallel loop add the same partial sums, so the loop chosen by timing never
changes the rounding.  :class:`RowPass` is
:class:`~.hot.FusedRegion` with these operands: the same policy (cold, hot, ski-rental
compile in the background, one check against NumPy, timed turns, kept only if faster),
the same settings, one ``FusionWarning`` and NumPy from then on if a kernel fails to
compile or disagrees with NumPy's result.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..compiler.rewrite.normalize import PRODUCTS
from ..kernels.compiling import KERNEL_LOCK, Settings, array_key
from ..primitives import registry
from ..runtime.nodes import Node, call
from . import codegen
from .hot import _TILED, COLD, RAISING, FusedRegion, _Kernel, _tiled_kind, _tolerance, scalar_key
from .regions import Region, interpret, region_at

#: the canonical products (the compiler lowered every spelling to one of them)
_PRODUCTS = PRODUCTS
#: the float dtypes a row kernel reads (any mix of them: NumPy's promotion)
ROW_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
#: smallest ``x`` (elements) worth a row pass: a matrix that stays in cache is read
#: twice cheaply, and there NumPy's vectorised exp beats the loop's scalar one
#: (benchmarks/row_passes.py: 569 x 30 0.020-0.023 ms fused, 0.015-0.017 NumPy)
MIN_ELEMENTS = 1 << 16


def row_matrix(x: Any) -> bool:
    """``x`` is a matrix a row kernel reads: 2-d, C-contiguous float64/float32, rows."""
    return (type(x) is np.ndarray and x.ndim == 2 and x.dtype in ROW_DTYPES
            and x.flags.c_contiguous and x.shape[0] > 0)


def _same_variable(a: Node, b: Node) -> bool:
    return (a.primitive == b.primitive == "access-variable" and a.instance == b.instance
            and a.slot == b.slot)


def analyse(node: Node) -> RowPass | None:
    """A :class:`RowPass` for ``node`` if it is the pattern this module compiles."""
    if node.primitive not in _PRODUCTS or len(node.children) != 2 or node.is_const:
        return None
    left, right = node.children
    if left.primitive == "transpose" and len(left.children) == 1:
        x, f, x_right = left.children[0], right, False          # x.T @ f
    elif right.primitive == "access-variable":
        # f @ x with a vector f is x.T @ f (sum over i of f[i] x[i]); a 2-d f is refused
        # per evaluation (the row kernel takes one value per row)
        x, f, x_right = right, left, True
    else:
        return None
    region = region_at(f) if x.primitive == "access-variable" else None
    if region is None:
        return None
    products = [leaf.primitive in _PRODUCTS and len(leaf.children) == 2
                and _same_variable(leaf.children[0], x) for leaf in region.leaves]
    if not any(products):
        return None
    return RowPass(region, node, x, products, x_right)


class RowKernel(_Kernel):
    """A compiled row pass: ``kernel(X, chunks, L0, ...)`` gives per-chunk sums."""

    def __call__(self, shape: Any, n: int, args: list) -> np.ndarray:
        self.calls += 1
        # chunks by x's height alone: both loops add the same partial sums (the serial
        # one runs the chunks in order), so the loop chosen by timing rounds alike
        chunks = codegen.chunks(args[0].shape[0], codegen.CHUNK_ROWS)
        with KERNEL_LOCK:
            parts = self.kernel(args[0], chunks, *args[1:])
        return parts.sum(axis=0).astype(self.out_dtype, copy=False)


class RowPolicy(FusedRegion):
    """What the row passes change in the fusion policy: their own setting, and the size
    that counts is x's, read before anything runs."""

    x_index = 0                  # which leaf is x (a variable)

    def enabled(self) -> bool:
        return Settings.rows

    def min_elements(self) -> int:
        return MIN_ELEMENTS

    def big_value(self, value: Any) -> bool:
        return True                  # the result may be small; x's size was checked

    def on_tiles(self, frame: list) -> Any:
        """The evaluation when ``x`` is a tiled array (``RowPass``: each rank's tile)."""
        return self.original(frame)

    def cold(self, frame: list) -> Any:
        # x is a variable: reading it costs a frame access, so small matrices run the
        # expression untimed, and a function first called on a sample and then on big
        # data still fuses (a region of small evaluations would have retired)
        x = self.leaves[self.x_index].run(frame)
        if type(x) is _tiled_kind():
            return self.on_tiles(frame)
        if type(x) is not np.ndarray or x.size < self.min_elements():
            return self.original(frame)       # small, or a distributed/other array
        return super().cold(frame)

    def declines(self, frame: list) -> bool:
        # cold with a small x runs the expression untimed, uncounted (see cold)
        if self.state == COLD:
            x = self.leaves[self.x_index].run(frame)
            if type(x) is _tiled_kind():
                return not self.tile_pass()
            return type(x) is not np.ndarray or x.size < self.min_elements()
        return super().declines(frame)

    def tile_pass(self) -> bool:
        """A tiled ``x`` may take :meth:`on_tiles` (the setting, and a layer that runs
        it on tiles)."""
        return False

    def hot(self, frame: list) -> Any:
        # a small x again (the sizes changed): back to cold, which runs it untimed; what
        # hot itself then counts as small are operands no kernel takes, and those retire
        x = self.leaves[self.x_index].run(frame)
        if type(x) is _tiled_kind():
            return self.on_tiles(frame)
        if type(x) is not np.ndarray or x.size < self.min_elements():
            self.state, self.big, self.small = COLD, 0, 0
            return self.original(frame)
        return super().hot(frame)


class RowPass(RowPolicy):
    """The fusing closure of a gram node: values are ``[x, leaf or its w, ...]``."""

    kernel_class = RowKernel

    def __init__(self, region: Region, node: Node, x: Node, products: list[bool],
                 x_right: bool = False):
        super().__init__(region, node)
        self.products = products
        self.x_right = x_right           # written f @ x rather than x.T @ f
        # a product leaf x @ w contributes w; the kernel computes the product per row
        self.leaves = [x] + [leaf.children[1] if p else leaf
                             for leaf, p in zip(region.leaves, products)]
        self.gram_impl = registry.lookup(node.primitive).impl
        self.transpose_impl = registry.lookup("transpose").impl

    def __repr__(self) -> str:
        state = ("cold", "hot", "off")[self.state]
        operands = (f"{self.region.describe()}, x" if self.x_right
                    else f"transpose(x), {self.region.describe()}")
        return f"<RowPass {self.node.primitive}({operands}) {state}>"


    def tile_pass(self) -> bool:
        return self.switched_on and _TILED and hasattr(_TILED[0], "gram")

    def on_tiles(self, frame: list) -> Any:
        """``x`` tiled: each rank's row pass on its tile and the partial grams summed
        (``distributed/gram_tiles.py``, decided from the layouts), or node by node."""
        if not self.tile_pass() or not RAISING.isdisjoint(np.geterr().values()):
            return self.original(frame)
        values = [leaf.choice.call(frame) for leaf in self.leaves]
        result = _TILED[0].gram(self, values)
        return self.unfused(values) if result is NotImplemented else result

    def unfused(self, values: list, record: list | None = None) -> Any:
        x = values[0]
        leaf_values = []
        for leaf, is_product, value in zip(self.region.leaves, self.products, values[1:]):
            if is_product:
                # located at the product, as unfused (tiled operands dispatched by kind)
                value = call(leaf, registry.lookup(leaf.primitive).impl, (x, value))
            leaf_values.append(value)
        f = interpret(self.region, leaf_values, record)
        if self.x_right:
            return call(self.node, self.gram_impl, (f, x))
        xt = call(self.node.children[0], self.transpose_impl, (x,))
        return call(self.node, self.gram_impl, (xt, f))

    def prepare(self, values: list) -> tuple | None:
        x = values[0]
        if not row_matrix(x):
            return None
        n, d = x.shape
        sig, args = [array_key(x)], [x]
        for is_product, value in zip(self.products, values[1:]):
            t = type(value)
            if is_product:
                if not (t is np.ndarray and value.shape == (d,) and value.dtype in ROW_DTYPES):
                    return None
                # NumPy's x @ w in the promoted dtype: each row's dot converts x's
                # float32 elements to a float64 w's dtype (exactly), as NumPy converts x
                value = np.ascontiguousarray(value, dtype=np.result_type(x.dtype, value.dtype))
                sig.append(("d", array_key(value)))
            elif t is np.ndarray and value.shape == (n,) \
                    and value.dtype in codegen.ALLOWED_DTYPES:
                value = np.ascontiguousarray(value)
                sig.append(("a", array_key(value)))
            else:
                key = scalar_key(value)
                if key is None:
                    return None
                sig.append(key)
            args.append(value)
        return tuple(sig), args, None, x.size

    def make_plan(self, sig: tuple, args: list, values: list, record: list,
                  result: Any) -> tuple | None:
        x = args[0]
        f = record[self.region.root.index]
        if not (isinstance(f, np.ndarray) and f.shape == (x.shape[0],)
                and f.dtype.kind == "f" and isinstance(result, np.ndarray)):
            return None                    # not one float per row
        roles = [s[0] for s in sig[1:]]
        samples = [x[:1] @ a if r == "d" else a for r, a in zip(roles, args[1:])]
        made = codegen.body_lines(self.region, roles, samples, record)
        if isinstance(made, str) or made[1] is not None:
            return None
        params = ", ".join(f"L{i}" for i in range(len(roles)))
        body = "\n".join("            " + line for line in made[0])
        # the sums in the dtype of NumPy's x.T @ f (float32 only when both are)
        acc = np.result_type(x.dtype, f.dtype).name
        plan = codegen.two_loops(lambda name, parallel: (
            f"{codegen.kernel_head(parallel)}def {name}(X, chunks, {params}):\n"
            "    n, d = X.shape\n"
            f"    parts = np.zeros((chunks, d), dtype=np.{acc})\n"
            "    size = (n + chunks - 1) // chunks\n"
            "    for c in prange(chunks):\n"
            "        acc = parts[c]\n"
            "        for i in range(c * size, min(n, (c + 1) * size)):\n"
            f"{body}\n"
            f"            v = t{self.region.root.index}\n"
            "            for j in range(d):\n"
            "                acc[j] += v * X[i, j]\n"
            "    return parts\n"))
        compile_for = (x[:1], 1) + tuple(a[:1] if r == "a" else a
                                         for r, a in zip(roles, args[1:]))
        return plan, compile_for

    def disagreement(self, fused: Any, expected: Any, record: list, entry: Any,
                     values: list) -> str | None:
        """None if the kernel's gram agrees with NumPy's ``x.T @ f`` within a tolerance
        relative to ``|x|.T @ |f|`` (every term of the sum), else what differs."""
        if not isinstance(expected, np.ndarray) or fused.shape != expected.shape \
                or fused.dtype != expected.dtype:
            return (f"{fused.dtype}{fused.shape} instead of "
                    f"{getattr(expected, 'dtype', type(expected).__name__)}"
                    f"{getattr(expected, 'shape', '')}")
        f = np.abs(np.asarray(record[self.region.root.index], dtype=np.float64))
        # the tolerance of the least precise float computed on the way (float32
        # products or intermediates under a float64 result)
        floats = [np.dtype(r.dtype) for r in record if isinstance(r, (np.ndarray, np.generic))
                  and r.dtype.kind == "f"] + [values[0].dtype, expected.dtype]
        least = min(floats, key=lambda t: np.finfo(t).precision)
        bound = _tolerance(least) * (np.abs(values[0]).T @ f)
        finite = np.isfinite(expected)
        if not np.array_equal(finite, np.isfinite(fused)):
            return "non-finite values at other places"
        bad = np.flatnonzero(~(np.abs(fused - expected) <= bound) & finite)
        if bad.size:
            i = int(bad[0])
            return f"element {i}: {fused[i]!r} instead of {expected[i]!r}"
        return None
