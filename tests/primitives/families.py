"""Input families for the oracle tests (see docs/writing-primitives.md).

A primitive declares ``samples="<family>"`` (or has an explicit list in
``samples.py``); ``test_oracles.py`` calls the primitive through PhySL and its
NumPy oracle with every argument tuple that the family returns.  Each family
is a function returning a fresh list of tuples of NumPy values (arrays,
``np.int64``/``np.float64``/``np.bool_`` scalars, None).  The lists are
deterministic (a fixed seed) and kept small: the whole registry runs a few
thousand cases.

Coverage per family: ranks 0..4, dtypes bool/int64/float32/float64, empty
arrays, NaN/±inf/-0.0, broadcasting pairs (and one incompatible pair, where
the oracle raises and phylanx must raise a PhylanxError), negative and
out-of-bounds axes, keepdims.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

DTYPES = (np.bool_, np.int64, np.float32, np.float64)
FLOAT_DTYPES = (np.float32, np.float64)

#: shapes of ranks 0..4, plus empty ones
SHAPES = ((), (5,), (2, 3), (2, 1, 3), (1, 2, 2, 2))
EMPTY_SHAPES = ((0,), (2, 0))

# Special floating values that every float family includes once per dtype.
_SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -2.5, 0.5])


def _values(shape: tuple[int, ...], dtype, seed: int) -> np.ndarray:
    """Deterministic values of ``dtype``: small ints, mixed signs, fractions for floats."""
    rng = np.random.default_rng(seed)
    if dtype is np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-4, 6, size=shape).astype(dtype)
    return (rng.integers(-8, 9, size=shape) / 4.0 + 0.125).astype(dtype)


def _scalar(value, dtype):
    """A NumPy scalar (what a 0-d PhySL value is)."""
    return np.asarray(value, dtype=dtype)[()]


def _arrays(dtypes, with_specials: bool) -> list[np.ndarray]:
    out = []
    for d, dtype in enumerate(dtypes):
        for s, shape in enumerate(SHAPES):
            arr = _values(shape, dtype, seed=10 * d + s)
            out.append(arr[()] if arr.ndim == 0 else arr)
        for shape in EMPTY_SHAPES:
            out.append(np.zeros(shape, dtype=dtype))
        if with_specials and np.issubdtype(dtype, np.floating):
            out.append(_SPECIALS.astype(dtype))
            out.append(_SPECIALS.astype(dtype).reshape(2, 4))
            out.append(_scalar(np.nan, dtype))
    return out


def unary() -> list[tuple]:
    """One array of rank 0..4, every dtype, empty arrays, NaN/inf."""
    return [(a,) for a in _arrays(DTYPES, with_specials=True)]


def unary_float() -> list[tuple]:
    """Like ``unary``, float32/float64 inputs only."""
    return [(a,) for a in _arrays(FLOAT_DTYPES, with_specials=True)]


# Broadcast-compatible shape pairs (and one incompatible pair at the end).
_BROADCAST_PAIRS = (
    ((), ()), ((3,), ()), ((), (2, 3)), ((2, 3), (3,)), ((3, 1), (1, 4)),
    ((2, 1, 3), (4, 1)), ((1, 2, 1, 3), (2, 2, 1)), ((0,), ()), ((0, 3), (3,)),
    ((2, 3), (2, 3)),
)
_INCOMPATIBLE = ((2, 3), (4,))


def _pair(shape_a, shape_b, dtype_a, dtype_b, seed):
    a = _values(shape_a, dtype_a, seed)
    b = _values(shape_b, dtype_b, seed + 1)
    return (a[()] if a.ndim == 0 else a, b[()] if b.ndim == 0 else b)


def binary() -> list[tuple]:
    """Two broadcast-compatible operands of mixed dtypes (scalars, arrays, empty)."""
    out = []
    # every dtype combination on a broadcasting pair and on scalars
    for i, da in enumerate(DTYPES):
        for j, db in enumerate(DTYPES):
            out.append(_pair((2, 3), (3,), da, db, seed=100 + 4 * i + j))
            out.append(_pair((), (), da, db, seed=200 + 4 * i + j))
    # every shape pair in float64 and int64
    for k, (sa, sb) in enumerate(_BROADCAST_PAIRS):
        out.append(_pair(sa, sb, np.float64, np.float64, seed=300 + k))
        out.append(_pair(sa, sb, np.int64, np.int64, seed=400 + k))
    # zeros (division/modulo by zero) and special values
    out.append((np.array([1, -1, 0, 3], dtype=np.int64), np.array([0, 0, 0, 2], dtype=np.int64)))
    specials = _SPECIALS.astype(np.float64)
    out.append((specials, specials[::-1].copy()))
    out.append((specials.astype(np.float32), np.float32(0.0)))
    out.append(_pair(*_INCOMPATIBLE, np.float64, np.float64, seed=500))
    return out


def binary_bool() -> list[tuple]:
    """Two broadcast-compatible bool/int64 operands (logical operators)."""
    out = []
    kinds = (np.bool_, np.int64)
    for i, da in enumerate(kinds):
        for j, db in enumerate(kinds):
            for k, (sa, sb) in enumerate(_BROADCAST_PAIRS[:7]):
                out.append(_pair(sa, sb, da, db, seed=600 + 20 * (2 * i + j) + k))
    out.append(_pair(*_INCOMPATIBLE, np.bool_, np.bool_, seed=700))
    return out


def _axis_arrays() -> list[np.ndarray]:
    out = []
    for d, dtype in enumerate(DTYPES):
        # every rank for int64/float64; ranks 1 and 2 suffice for bool and float32
        shapes = SHAPES if dtype in (np.int64, np.float64) else SHAPES[1:3]
        for s, shape in enumerate(shapes):
            arr = _values(shape, dtype, seed=800 + 10 * d + s)
            out.append(arr[()] if arr.ndim == 0 else arr)
    out.append(np.zeros((0,), dtype=np.float64))
    out.append(np.zeros((2, 0), dtype=np.int64))
    out.append(_SPECIALS.astype(np.float64).reshape(2, 4))
    out.append(_SPECIALS.astype(np.float32))
    return out


def _axes_for(ndim: int) -> list:
    """None, the first and last axis (both signs), and one out-of-bounds axis."""
    if ndim == 0:
        return [None, np.int64(0)]
    axes = [None, np.int64(0), np.int64(-1)]
    if ndim >= 3:
        axes.append(np.int64(1))
        axes.append(np.int64(-ndim))
    return axes


def axis() -> list[tuple]:
    """``(x, axis)`` with axis None, non-negative, negative, and one out of bounds."""
    out = []
    for x in _axis_arrays():
        ndim = np.ndim(x)
        out.extend((x, ax) for ax in _axes_for(ndim))
    out.append((_values((2, 3), np.float64, seed=900), np.int64(2)))
    out.append((_values((2, 3), np.int64, seed=901), np.int64(-3)))
    return out


def reduction() -> list[tuple]:
    """``(x, axis, keepdims)`` for ranks 0..4, axis None/int/negative, keepdims false/true."""
    out = []
    for i, (x, ax) in enumerate(axis()):
        out.append((x, ax, np.bool_(i % 2 == 1)))
    # both keepdims values for a full reduction and for an axis of a 3-d array
    cube = _values((2, 1, 3), np.float64, seed=950)
    for keep in (np.bool_(False), np.bool_(True)):
        out.append((cube, None, keep))
        out.append((cube, np.int64(-1), keep))
    return out


def range_() -> list[tuple]:
    """Integer ``stop`` / ``start, stop`` / ``start, stop, step`` tuples, incl. empty and step 0."""
    i = np.int64
    return [
        (i(5),), (i(0),), (i(-3),),
        (i(2), i(7)), (i(7), i(2)), (i(-4), i(-1)),
        (i(1), i(10), i(3)), (i(10), i(1), i(-3)), (i(0), i(5), i(-1)), (i(-6), i(6), i(4)),
        (i(1), i(5), i(0)),
    ]


FAMILIES: dict[str, Callable[[], list[tuple]]] = {
    "unary": unary,
    "unary_float": unary_float,
    "binary": binary,
    "binary_bool": binary_bool,
    "reduction": reduction,
    "axis": axis,
    "range": range_,
}


def samples_of(samples) -> list[tuple]:
    """The argument tuples of a family name or of an explicit list (None: none)."""
    if samples is None:
        return []
    if isinstance(samples, str):
        if samples not in FAMILIES:
            raise KeyError(f"unknown input family {samples!r} (known: {sorted(FAMILIES)})")
        return FAMILIES[samples]()
    return [s if isinstance(s, tuple) else (s,) for s in samples]


def samples_for(spec) -> list[tuple]:
    """The oracle inputs of a primitive: its list in ``samples.py``, else its family's."""
    from .samples import explicit_samples

    explicit = explicit_samples().get(spec.name)
    return samples_of(explicit if explicit is not None else spec.samples)
