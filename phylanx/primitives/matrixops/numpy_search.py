"""matrixops, NumPy searching, counting and unbuffered updates the original lacks
(extensions): ``argwhere flatnonzero searchsorted digitize unravel_index bincount histogram
add_at``.

Each follows the NumPy function of the same name with NumPy's argument names as keyword
slots; where NumPy returns a tuple (``unravel_index``, ``histogram``) the result is a PhySL
list.  Index results are int64.  ``add_at`` is ``numpy.add.at``: it changes its first
argument in place, like ``store``, and returns it (NumPy returns None; decorated Python's
``np.add.at(a, i, v)`` is a statement).
"""
from __future__ import annotations

from functools import partial
from time import perf_counter_ns

import numpy as np

from ... import config
from ...errors import PhylanxIndexError, PhylanxTypeError, PhylanxValueError
from ...runtime.executors import get_executor
from ...runtime.forkjoin import fork_join
from ...values import scalarize, type_name
from ..array_args import as_array, as_shape, numpy_call
from ..dtypes import to_bool, to_count
from ..registry import primitive


def _values(value, what: str) -> np.ndarray:
    arr = as_array(value, what)
    if arr.dtype.kind not in "biuf":
        raise PhylanxTypeError(f"{what} must be numeric, got a {type_name(value)}")
    return arr


@primitive(
    "argwhere", "argwhere(_1_a)", extension=True, oracle=np.argwhere,
    example="argwhere([[0, 3], [5, 0]])", result="[[0, 1], [1, 0]]",
)
def argwhere(a):
    """Indices of the non-zero elements, one row per element, like numpy.argwhere.

    The result is an int64 matrix of shape (count, a.ndim), in row-major order (a 0-d
    value gives shape (1, 0) or (0, 0)).
    """
    return np.argwhere(_values(a, "a"))


@primitive(
    "flatnonzero", "flatnonzero(_1_a)", extension=True, oracle=np.flatnonzero,
    example="flatnonzero([[0, 3], [5, 0]])", result="[1, 2]",
)
def flatnonzero(a):
    """Indices of the non-zero elements of the flattened array, like numpy.flatnonzero."""
    return np.flatnonzero(_values(a, "a"))


@primitive(
    "searchsorted",
    "searchsorted(_1_a, _2_v, __arg(_3_side, \"left\"), __arg(_4_sorter, nil))",
    extension=True, oracle=np.searchsorted,
    example="searchsorted([1, 3, 5, 7], [0, 3, 6])", result="[0, 1, 3]",
)
def searchsorted(a, v, side="left", sorter=None):
    """Where to insert ``v`` into the sorted 1-d ``a`` to keep it sorted, like numpy.searchsorted.

    ``side`` "left" gives the first suitable index, "right" the last; ``sorter`` holds the
    indices that sort ``a`` (argsort) when ``a`` itself is not sorted.  ``a`` is not checked
    for being sorted (as in NumPy).
    """
    arr = _values(a, "a")
    if arr.ndim != 1:
        raise PhylanxValueError(f"a must be 1-d, got shape {arr.shape}")
    if side not in ("left", "right"):
        raise PhylanxValueError(f"side must be \"left\" or \"right\", got {side!r}")
    order = None if sorter is None else _values(sorter, "sorter")
    return scalarize(np.asarray(numpy_call(np.searchsorted, arr, _values(v, "v"), side,
                                           order)))


@primitive(
    "digitize", "digitize(_1_x, _2_bins, __arg(_3_right, false))", extension=True,
    oracle=np.digitize,
    example="digitize([0.5, 1.0, 2.5, 9.0], [1.0, 2.0, 3.0])", result="[0, 1, 2, 3]",
)
def digitize(x, bins, right=False):
    """Index of the bin of each value of ``x``, like numpy.digitize.

    ``bins`` is monotonic (increasing or decreasing); with increasing bins value ``v`` gets
    ``i`` such that ``bins[i-1] <= v < bins[i]`` (``<`` and ``<=`` swapped if ``right``).
    """
    edges = _values(bins, "bins")
    if edges.ndim != 1:
        raise PhylanxValueError(f"bins must be 1-d, got shape {edges.shape}")
    return scalarize(np.asarray(numpy_call(np.digitize, _values(x, "x"), edges,
                                           to_bool(right))))


def _unravel_index(indices, shape, order="C"):
    return list(np.unravel_index(indices, shape, order=order))


@primitive(
    "unravel_index", "unravel_index(_1_indices, _2_shape, __arg(_3_order, \"C\"))",
    extension=True, oracle=_unravel_index,
    example="unravel_index([5, 1], list(2, 3))", result="list([1, 0], [2, 1])",
)
def unravel_index(indices, shape, order="C"):
    """The coordinates of flat indices in an array of ``shape``, like numpy.unravel_index.

    Returns a list with one int64 array (or number) per dimension; ``order`` "C" (row-major)
    or "F" (column-major).  An index outside the array is an error.
    """
    idx = _values(indices, "indices")
    if order not in ("C", "F"):
        raise PhylanxValueError(f"order must be \"C\" or \"F\", got {order!r}")
    coords = numpy_call(np.unravel_index, idx, as_shape(shape), order=order)
    return [scalarize(np.asarray(c)) for c in coords]


@primitive(
    "bincount", "bincount(_1_x, __arg(_2_weights, nil), __arg(_3_minlength, 0))",
    extension=True, oracle=np.bincount,
    example="bincount([0, 1, 1, 3])", result="[1, 2, 0, 1]",
)
def bincount(x, weights=None, minlength=0):
    """Occurrences of each value 0..max(x) in the non-negative integer vector ``x``.

    Like numpy.bincount: with ``weights`` (same length as ``x``) the weights of equal
    values are summed instead (float64); the result has at least ``minlength`` entries.
    """
    values = _values(x, "x")
    if values.ndim != 1:
        raise PhylanxValueError(f"x must be 1-d, got shape {values.shape}")
    w = None if weights is None else _values(weights, "weights")
    return numpy_call(np.bincount, values, w, to_count(minlength, "minlength"))


def _histogram(a, bins=10, range=None, density=None, weights=None):
    hist, edges = np.histogram(a, bins, None if range is None else tuple(range), density,
                               weights)
    return [hist, edges]


def _bins(bins):
    if isinstance(bins, str):
        return bins
    edges = _values(bins, "bins")
    if edges.ndim == 0:
        return to_count(edges[()], "bins", 1)
    return edges


@primitive(
    "histogram",
    "histogram(_1_a, __arg(_2_bins, 10), __arg(_3_range, nil), __arg(_4_density, nil), "
    "__arg(_5_weights, nil))",
    extension=True, oracle=_histogram,
    example="histogram([1, 2, 2, 3, 4], 3)",
    result="list([1, 2, 2], [1.0, 2.0, 3.0, 4.0])",
)
def histogram(a, bins=10, range=None, density=None, weights=None):
    """Histogram of ``a`` as ``list(counts, bin_edges)``, like numpy.histogram.

    ``bins`` is a number of equal-width bins over ``range`` (a list (low, high); default
    the data's min and max), an increasing list of edges, or a NumPy bin-width rule
    ("auto", "fd", ...).  Each bin is half-open except the last.  ``density`` true
    normalises to a probability density; ``weights`` gives each value a weight.
    """
    data = _values(a, "a")
    limits = None
    if range is not None:
        limits = _values(range, "range")
        if limits.shape != (2,):
            raise PhylanxValueError(f"range must be a list (low, high), got shape "
                                    f"{limits.shape}")
        limits = limits.tolist()
    w = None if weights is None else _values(weights, "weights")
    density = None if density is None else to_bool(density)
    return numpy_call(_histogram, data, _bins(bins), limits, density, w)


def _position(index, what: str):
    """One element of a list of per-axis indices (``np.add.at(a, (i, j), v)``)."""
    if index is None:
        return slice(None)
    if isinstance(index, range):
        return slice(index.start, index.stop, index.step)
    arr = as_array(index, what)
    if arr.dtype.kind not in "biu":
        raise PhylanxTypeError(f"{what} must hold integers or booleans, got {arr.dtype} values")
    return arr[()] if arr.ndim == 0 else arr


def _at_indices(indices):
    """NumPy's index for ``ufunc.at``: an integer/bool array or number, a tuple with one
    index per axis (``np.add.at(a, (0, 0), v)`` adds to one element), or a list: one index
    array when it holds plain numbers (as NumPy reads a Python list), else a PhySL list of
    per-axis indices."""
    if isinstance(indices, tuple):
        return tuple(_position(i, f"index {k} of indices") for k, i in enumerate(indices))
    if isinstance(indices, list):
        if all(isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))
               for i in indices):
            return np.asarray(indices, dtype=np.int64)
        return tuple(_position(i, f"index {k} of indices") for k, i in enumerate(indices))
    return _position(indices, "indices")


#: ``_add_rows_fast`` handles at most this many target rows (one-hot columns per tile)
ROWS_FAST_MAX = 64
#: index rows per tile of the one-hot product (its one-hot block stays in cache)
ROWS_FAST_TILE = 4096


def _add_rows_fast(a: np.ndarray, index, values: np.ndarray) -> bool:
    """``np.add.at(a, index, values)`` for the k-means shape, done fast; False if not that shape.

    The shape: ``a`` a float (k, d) array with few rows, ``index`` one integer row per row of
    ``values`` (n, d), all within 0..k-1.  ``np.add.at`` then costs about 1 us per row;
    per-row sums as ``bincount`` per column (narrow ``d``) or as one-hot matrix products
    tile by tile are 5-10x faster.  The sums are added in another order than NumPy's, so
    the result equals it within float rounding.  A non-finite sum (inf/NaN in ``values``:
    0 * inf in the one-hot product would spread NaN) is redone by ``np.add.at`` itself."""
    if not (isinstance(index, np.ndarray) and index.ndim == 1 and index.dtype.kind in "iu"
            and a.ndim == 2 and a.dtype.kind == "f" and values.dtype == a.dtype
            and values.shape == (index.shape[0], a.shape[1])
            and 0 < a.shape[0] <= ROWS_FAST_MAX and index.shape[0] >= ROWS_FAST_TILE):
        return False
    if np.may_share_memory(a, values):
        return False        # NumPy's unbuffered order then decides what is read
    k, d = a.shape
    with np.errstate(all="ignore"):   # a non-finite sum is redone by NumPy, which warns
        sums = _compiled_sums(index, values, k)
        if sums is False:
            return False    # negative (wrapping) or out-of-range indices: NumPy's own path
        if sums is None:
            if index.min() < 0 or index.max() >= k:
                return False
            start = perf_counter_ns()
            if d <= 4:
                sums = np.stack([np.bincount(index, weights=values[:, j], minlength=k)
                                 for j in range(d)], axis=1).astype(a.dtype, copy=False)
            else:
                sums = _one_hot_sums(a, index, values)
            if values.size >= COMPILED_MIN:
                from ...kernels import fixed
                fixed.add_rows.spent(fixed.arrival_key(values, index),
                                     perf_counter_ns() - start)
    if not np.all(np.isfinite(sums)):
        return False
    a += sums
    return True


#: values (elements) from which the compiled row sums (kernels/fixed.py) are worth it
COMPILED_MIN = 1 << 16


def _compiled_sums(index: np.ndarray, values: np.ndarray, k: int) -> np.ndarray | None | bool:
    """The per-target row sums by the compiled one-pass kernel once it exists (numba,
    ``fusion_rows``), else None; False if an index is outside ``0..k-1`` (the kernel
    checks while it adds).  Chunks of rows are summed in parallel, then added."""
    if values.size < COMPILED_MIN:
        return None
    from ...kernels import fixed
    from ...kernels.compiling import numba_threads
    kernels = fixed.add_rows.get(fixed.arrival_key(values, index),
                                 lambda: (np.ascontiguousarray(index[:1]),
                                          np.ascontiguousarray(values[:1]), k, 1))
    if kernels is None:
        return None
    values = np.ascontiguousarray(values)
    index = np.ascontiguousarray(index)
    parts = fixed.FixedKernel.run(kernels, index, values, k, numba_threads())
    if parts[:, k, 0].any():
        return False
    return parts[:, :k].sum(axis=0)


def _one_hot_sums(a: np.ndarray, index: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per-target sums of the rows of ``values`` as one-hot products, tile by tile; the
    tiles in one contiguous group per worker thread (NumPy releases the GIL in them)."""
    targets = np.arange(a.shape[0], dtype=index.dtype)
    n = index.shape[0]

    def group(lo: int, hi: int) -> np.ndarray:
        sums = np.zeros_like(a)
        for start in range(lo, hi, ROWS_FAST_TILE):
            stop = min(start + ROWS_FAST_TILE, hi)
            one_hot = (index[start:stop, None] == targets).astype(a.dtype)
            sums += one_hot.T @ values[start:stop]
        return sums
    workers = 1 if config.get("sync_execution") else get_executor().num_threads
    workers = max(1, min(workers, n // (4 * ROWS_FAST_TILE)))
    if workers == 1:
        return group(0, n)
    bounds = [n * i // workers // ROWS_FAST_TILE * ROWS_FAST_TILE for i in range(workers)]
    bounds.append(n)
    parts = fork_join([partial(group, lo, hi) for lo, hi in zip(bounds, bounds[1:])],
                      share_blas=True)
    return sum(parts[1:], parts[0])


@primitive(
    "add_at", "add_at(_1_a, _2_indices, _3_b)", extension=True, differentiable=True,
    side_effects=True,   # changes ``a`` in place: never reordered, shared or hoisted
    oracle=lambda a, indices, b: (np.add.at(
        a, tuple(indices) if isinstance(indices, list) else indices, b), a)[1],
    example="add_at([0.0, 0.0, 0.0], [0, 2, 0], 1.5)", result="[3.0, 0.0, 1.5]",
)
def add_at(a, indices, b):
    """Add ``b`` to ``a`` at ``indices`` unbuffered, in place, and return ``a`` (numpy.add.at).

    Unlike ``a[indices] += b``, a repeated index adds once per occurrence.  ``indices`` is
    an integer (or bool) array or number, or a list with one index per axis (arrays,
    numbers, nil for a whole axis); ``b`` broadcasts to the indexed elements.  As with
    ``store``, other names of ``a`` see the change.  ``a`` keeps its dtype: ``b`` is cast
    to it as NumPy's ``add.at`` does (0.5 added into an integer array adds 0).
    """
    if not isinstance(a, np.ndarray) or a.ndim == 0:
        raise PhylanxTypeError(f"a must be an array of at least 1 dimension (it is changed "
                               f"in place), got a {type_name(a)}")
    values = _values(b, "b")
    index = _at_indices(indices)
    if _add_rows_fast(a, index, values):
        return a
    try:
        numpy_call(np.add.at, a, index, values)
    except IndexError as e:   # NumPy's class
        raise PhylanxIndexError(str(e)) from None
    return a


#: the binary ufuncs whose ``.at`` method ``ufunc_at`` applies
AT_UFUNCS = {name: getattr(np, name) for name in (
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
    "maximum", "minimum", "fmax", "fmin")}


def _ufunc_at_oracle(a, indices, b, ufunc):
    AT_UFUNCS[ufunc].at(a, tuple(indices) if isinstance(indices, list) else indices, b)
    return a


@primitive(
    "ufunc_at", "ufunc_at(_1_a, _2_indices, _3_b, _4_ufunc)", extension=True,
    side_effects=True,   # changes ``a`` in place, as add_at
    oracle=_ufunc_at_oracle,
    example='ufunc_at([1.0, 1.0, 1.0], [0, 2, 0], 2.0, "multiply")', result="[4.0, 1.0, 2.0]",
)
def ufunc_at(a, indices, b, ufunc):
    """Apply the binary ufunc named ``ufunc`` at ``indices`` in place (numpy.<ufunc>.at).

    ``ufunc`` is ``"subtract"``, ``"multiply"``, ``"maximum"`` ...; unbuffered, so a
    repeated index applies once per occurrence; ``a`` is returned.  Indices and ``b`` as
    for ``add_at``."""
    fn = AT_UFUNCS.get(ufunc) if isinstance(ufunc, str) else None
    if fn is None:
        raise PhylanxValueError(f"ufunc_at: unknown ufunc {ufunc!r} (one of "
                                f"{', '.join(AT_UFUNCS)})")
    if not isinstance(a, np.ndarray) or a.ndim == 0:
        raise PhylanxTypeError(f"a must be an array of at least 1 dimension (it is changed "
                               f"in place), got a {type_name(a)}")
    values, index = _values(b, "b"), _at_indices(indices)
    try:
        numpy_call(fn.at, a, index, values)
    except IndexError as e:   # NumPy's class
        raise PhylanxIndexError(str(e)) from None
    return a
