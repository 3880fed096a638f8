"""The compiled kernels of phylanx/fusion (row passes, fixed kernels) against NumPy.

    python benchmarks/row_passes.py [--repeat 7] [--only kmeans]

Prints, median milliseconds per call, each kernel against the NumPy code it replaces:

* the logistic-regression gradient ``x.T @ (1 / (1 + exp(-(x @ w))) - y)``: NumPy, and the
  row pass's serial and parallel loops (forced on at every size, so that the sizes where
  it loses show too: ``rowpass.MIN_ELEMENTS`` is where the default starts using it); the
  parallel loop also timed right after a NumPy product (BLAS threads still spinning);
* k-means' centre sums ``np.add.at(sums, labels, points)``: NumPy's fast path (bincount
  or one-hot products) and the compiled one-pass kernel;
* k-means' labels-and-centres pass (``fusion/rowargmin.py``, 1,000,000 points, k = 8,
  d = 2..32) against NumPy's update;
* the singularity check of a stacked ``solve`` (LU pivots of 2000 40 x 40 matrices): the
  getrf loop and the compiled kernel, next to ``np.linalg.solve`` of the same stack;
* reductions along the last axis (``fusion/rowreduce.py``): ``np.sum(x * x, axis=1)``
  (k-means' squared norms) and ``np.mean(np.exp(x - 1.0), axis=-1)``, NumPy against the
  decorated function once its kernel is compiled (both loops timed; the policy keeps
  the faster, or NumPy when that is faster still).
"""
from __future__ import annotations

import argparse
import os
import time
from functools import partial

import numpy as np
from workloads.common import median_ms


def gram_kernels(x, w, y):
    """The row pass's (parallel, serial) loops for this gram, compiled now."""
    import phylanx
    from phylanx import config, fusion
    from phylanx.fusion import rowpass
    for name, value in (("fusion_rows", True), ("fusion_count_threshold", 1),
                        ("fusion_min_time_us", 0.0), ("fusion_compile_cost_ms", 0.0),
                        ("fusion_background", False)):
        config.set(name, value)
    rowpass.MIN_ELEMENTS, keep = 1, rowpass.MIN_ELEMENTS
    from phylanx.execution_tree import eval as physl_eval
    code = "lambda(x, w, y, matmul(transpose(x), 1.0 / (1.0 + exp(-matmul(x, w))) - y))"
    state = phylanx.execution_tree.compiler_state(f"row-passes-{x.shape}", "<bench>")
    node = state.compile_text(code)
    (found,) = [r for r in fusion.regions_of(node) if isinstance(r, rowpass.RowPass)]
    for _ in range(2):
        physl_eval(state, code, x, w, y)
    rowpass.MIN_ELEMENTS = keep
    for name in ("fusion_rows", "fusion_count_threshold", "fusion_min_time_us",
                 "fusion_compile_cost_ms", "fusion_background"):
        config.reset(name)
    (entry,) = [e for e in found.kernels.values() if isinstance(e, rowpass.RowKernel)]
    args = found.prepare([x, 1.0, 1.0, w, y])[1]

    def loop(variant):
        entry.kernel = entry.variants[variant]
        return lambda: entry(None, x.size, args)
    return loop(0), loop(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", choices=["kmeans"], help="only k-means' pass")
    args = parser.parse_args()
    r = args.repeat
    rng = np.random.default_rng(0)
    print(f"{os.cpu_count()} cores; median ms per call")
    if args.only == "kmeans":
        label_passes(rng, r)
        return
    for n, d in ((569, 30), (20_000, 100), (200_000, 100)):
        x, w = rng.normal(size=(n, d)), rng.normal(size=d) * 0.1
        y = (rng.random(n) < 0.5).astype(float)
        par, ser = gram_kernels(x, w, y)
        numpy = median_ms(lambda x=x, w=w, y=y: x.T @ (1.0 / (1.0 + np.exp(-(x @ w))) - y), r)
        after = []
        for _ in range(r):
            x @ w                                        # BLAS threads busy, then spinning
            t0 = time.perf_counter()
            par()
            after.append(time.perf_counter() - t0)
        print(f"gram {n}x{d}: NumPy {numpy:.3f}, row pass serial {median_ms(ser, r):.3f}, "
              f"parallel {median_ms(par, r):.3f}, parallel right after a NumPy product "
              f"{np.median(after) * 1e3:.3f}")

    from phylanx import config
    from phylanx.kernels import fixed
    from phylanx.primitives.matrixops.numpy_search import _add_rows_fast
    from phylanx.primitives.solvers.direct import first_singular_in_stack
    config.set("fusion_compile_cost_ms", 0.0)
    config.set("fusion_background", False)
    for d in (2, 16):
        points, labels = rng.normal(size=(1_000_000, d)), rng.integers(0, 8, 1_000_000)

        def sums(d=d, labels=labels, points=points):
            _add_rows_fast(np.zeros((8, d)), labels, points)
        config.set("fusion_rows", False)
        numpy = median_ms(sums, r)
        config.set("fusion_rows", True)
        sums()                                           # compiles (cost set to 0)
        print(f"add_at rows 1,000,000 x {d} into 8: NumPy fast path {numpy:.2f}, "
              f"compiled {median_ms(sums, r):.2f}")
    stack = rng.normal(size=(2000, 40, 40)) + 8 * np.eye(40)
    rhs = rng.normal(size=(2000, 40, 1))
    config.set("fusion_rows", False)
    loop = median_ms(lambda: first_singular_in_stack(stack), r)
    config.set("fusion_rows", True)
    first_singular_in_stack(stack)
    assert any(type(e) is tuple for e in fixed.lu_pivots.entries.values())
    print(f"solve's check, 2000 x 40 x 40: getrf loop {loop:.2f}, compiled "
          f"{median_ms(lambda: first_singular_in_stack(stack), r):.2f}; np.linalg.solve "
          f"{median_ms(lambda: np.linalg.solve(stack, rhs), r):.2f}")
    for name in ("fusion_compile_cost_ms", "fusion_background", "fusion_rows"):
        config.reset(name)
    row_reductions(rng, r)
    label_passes(rng, r)


def kmeans_update(points, sq, centres):
    """One k-means update, the row norms given (W2's loop body)."""
    k = centres.shape[0]
    dist = sq[:, None] - 2.0 * (points @ centres.T) + np.sum(centres * centres, axis=1)
    labels = np.argmin(dist, axis=1)
    counts = np.bincount(labels, minlength=k)
    sums = np.zeros((k, points.shape[1]))
    np.add.at(sums, labels, points)
    return sums / np.maximum(counts, 1)[:, None]


def label_passes(rng, r: int) -> None:
    """k-means' labels-and-centres pass against NumPy, d = 2..32."""
    from workloads.common import settled
    from workloads.w2_kmeans import data

    from phylanx import Phylanx
    for d in (2, 4, 8, 16, 32):
        points, centres = data(1_000_000, d)
        operands = (points, np.sum(points * points, axis=1), centres)
        update = Phylanx(kmeans_update)
        step = settled(partial(update, *operands), 2.0)
        print(f"k-means update 1,000,000 x {d}, k = 8: NumPy "
              f"{median_ms(partial(kmeans_update, *operands), r):.2f}, "
              f"phylanx {median_ms(step, r):.2f}")


def squared_norms(x):
    return np.sum(x * x, axis=1)


def mean_exp(x):
    return np.mean(np.exp(x - 1.0), axis=-1)


def _row_reduction_times(fn, x, r: int) -> tuple[float, float]:
    """(serial, parallel) loop of ``fn`` decorated, median ms, once its kernel is in."""
    from phylanx import Phylanx, fusion
    from phylanx.fusion import rowreduce
    found: list = []
    install = fusion.install
    fusion.install = lambda body: found.extend(install(body)) or found
    try:
        decorated = Phylanx(fn)
        for _ in range(8):                         # hot, compiled, checked, timed turns
            decorated(x)
    finally:
        fusion.install = install
    (region,) = [f for f in found if isinstance(f, rowreduce.RowReduction)]
    (entry,) = [e for e in region.kernels.values() if isinstance(e, rowreduce.RowsKernel)]
    loops = []
    for variant in (1, 0):                         # serial, parallel
        entry.current, entry.recent = variant, [0, 0]
        loops.append(median_ms(lambda: decorated(x), r))
    return loops[0], loops[1]


def row_reductions(rng, r: int) -> None:
    """NumPy against the compiled row reduction (serial and parallel loop)."""
    from phylanx import config
    from phylanx.fusion import hot
    for name, value in (("fusion_count_threshold", 1), ("fusion_min_time_us", 0.0),
                        ("fusion_compile_cost_ms", 0.0), ("fusion_background", False)):
        config.set(name, value)
    keep, hot.KEEP_SLOWER = hot.KEEP_SLOWER, True
    for fn in (squared_norms, mean_exp):
        for shape in ((1_000_000, 2), (1_000_000, 16), (100_000, 100), (1000, 1000)):
            x = rng.normal(size=shape)
            serial, parallel = _row_reduction_times(fn, x, r)
            numpy = median_ms(lambda fn=fn, x=x: fn(x), r)
            print(f"{fn.__name__} {shape[0]}x{shape[1]}: NumPy {numpy:.3f}, phylanx serial "
                  f"loop {serial:.3f}, parallel loop {parallel:.3f}")
    hot.KEEP_SLOWER = keep
    for name in ("fusion_count_threshold", "fusion_min_time_us", "fusion_compile_cost_ms",
                 "fusion_background"):
        config.reset(name)


if __name__ == "__main__":
    main()
