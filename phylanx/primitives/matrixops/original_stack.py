"""matrixops, the original's joins: ``hstack vstack dstack stack`` (compat addendum A.3.1).

The PhySL names follow the original Phylanx where it and NumPy disagree: the first
argument must be a list; ``hstack`` flattens nested lists one level (their scalars do not
take part in the dtype decision), the others refuse them; an empty list gives an empty
float64 result of rank 1/2/3; ``dstack`` of scalars is (n, 1, 1); ``stack`` of ONE operand
treats it as the sequence of its sub-arrays along axis 0 (it adds no axis); a ``dtype``
string maps as the original's ``map_dtype`` (``"bool"``, ``"int..."`` -> int64,
``"float..."`` -> float64, anything else: the computed type).  Forms the original refused
as unsupported (3-d operands of ``stack``, 4-d ones) do what NumPy does.

The Python frontend compiles ``np.hstack`` ... ``np.stack`` to the NumPy-faithful twins
``__nphstack`` ... ``__npstack`` (``stack.py``); ``docs/physl.md`` lists the differences.
:func:`join_layout` is shared with the autodiff rules: it says how every operand is
reshaped and along which axis the pieces are concatenated.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import type_name
from ..array_args import as_array, numpy_call
from ..dtypes import original_dtype
from ..registry import primitive

_EMPTY_RANK = {"hstack": 1, "vstack": 2, "dstack": 3}


def _operands(arrays: Any, name: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``(parts, typed)``: the operands as arrays, and the values that decide the dtype.

    ``hstack`` flattens a nested list one level into scalars (excluded from ``typed``).
    A number counts as an int64/float64/bool array, so NumPy's promotion gives the
    original's bool < int64 < float64 (float32, which the original lacked, stays float32
    only among float32 and bool operands)."""
    if not isinstance(arrays, (list, tuple)):
        raise PhylanxTypeError(f"the first argument to the {name} primitive has to be a list "
                               f"of arrays to stack, got a {type_name(arrays)} (the original's "
                               f"rule; np.{name}, which takes an array too, is __np{name})")
    parts: list[np.ndarray] = []
    typed: list[np.ndarray] = []
    for i, item in enumerate(arrays):
        if isinstance(item, (list, tuple)):
            if name != "hstack":
                raise PhylanxTypeError(f"element {i} is a list; lists cannot be "
                                       "stacked (only hstack flattens nested lists; "
                                       f"np.{name} reads them as arrays: __np{name})")
            for j, inner in enumerate(item):
                scalar = as_array(inner, f"element {j} of the nested list {i}")
                if scalar.ndim:
                    raise PhylanxValueError(f"the nested list {i} may hold only "
                                            f"scalars, element {j} is {scalar.ndim}-d")
                parts.append(scalar)
            continue
        part = as_array(item, f"element {i} of the list")
        parts.append(part)
        typed.append(part)
    return parts, typed


def _result_dtype(typed: list[np.ndarray], dtype: Any) -> np.dtype:
    chosen = original_dtype(dtype)
    if chosen is not None:
        return chosen
    if not typed:
        return np.dtype(np.float64)
    return np.result_type(*typed)


def join_layout(name: str, shapes: list[tuple[int, ...]]) -> tuple[list[tuple[int, ...]], int]:
    """How the original's hstack/vstack/dstack joins operands of ``shapes``.

    Returns ``(piece shapes, axis)``: every operand is reshaped to its piece shape and
    the pieces are concatenated along the axis.  Raises a PhylanxValueError for the forms
    the original refuses."""
    ranks = [len(s) for s in shapes]
    top = max(ranks)
    if name == "hstack":
        if top <= 1:
            return [s if s else (1,) for s in shapes], 0
        if any(r != top for r in ranks):
            raise PhylanxValueError(f"hstack of {top}-d arrays requires all the inputs be "
                                    f"{top}-d, got ranks {ranks}")
        return list(shapes), 1
    if name in ("vstack", "dstack") and 0 < top <= 1 and min(ranks) == 0:
        raise PhylanxValueError("scalars mixed with vectors can only be stacked by "
                                "hstack")
    if name == "vstack":
        if top == 0:
            return [(1, 1)] * len(shapes), 0
        if top <= 2:
            if min(ranks) == 0:
                raise PhylanxValueError("scalars mixed with matrices cannot be stacked")
            return [s if len(s) == 2 else (1,) + s for s in shapes], 0
        if any(r != top for r in ranks):
            raise PhylanxValueError(f"vstack of {top}-d arrays requires all the inputs be "
                                    f"{top}-d, got ranks {ranks}")
        return list(shapes), 0
    if name == "dstack":
        if top == 0:            # the original's quirk: (n, 1, 1), NumPy gives (1, 1, n)
            return [(1, 1, 1)] * len(shapes), 0
        if top == 1:
            return [(1,) + s + (1,) for s in shapes], 2
        if min(ranks) < 2 or (top > 3 and any(r != top for r in ranks)):
            raise PhylanxValueError(f"dstack of {top}-d arrays can mix only matrices and "
                                    f"3-d arrays, got ranks {ranks}")
        return [s + (1,) if len(s) == 2 else s for s in shapes], 2
    raise ValueError(name)  # pragma: no cover - only the names above call this


def _join(arrays: Any, dtype: Any, name: str) -> np.ndarray:
    parts, typed = _operands(arrays, name)
    dt = _result_dtype(typed, dtype)
    if not parts:
        return np.zeros((0,) * _EMPTY_RANK[name], dtype=dt)
    pieces, axis = join_layout(name, [p.shape for p in parts])
    return numpy_call(np.concatenate, [p.astype(dt, copy=False).reshape(s)
                                       for p, s in zip(parts, pieces)], axis)


def _oracle(name: str):
    """The addendum's rule in NumPy terms, written independently of :func:`join_layout`."""
    def oracle(arrays, dtype=None):
        flat, typed = [], []
        for item in arrays:
            if isinstance(item, (list, tuple)):
                if name != "hstack":
                    raise TypeError("lists cannot be stacked")
                flat.extend(np.asarray(v) for v in item)
            else:
                flat.append(np.asarray(item))
                typed.append(np.asarray(item))
        dt = original_dtype(dtype) or (np.result_type(*typed) if typed else np.float64)
        if not flat:
            return np.zeros((0,) * _EMPTY_RANK[name], dt)
        ranks = {a.ndim for a in flat}
        if name == "dstack" and ranks == {0}:
            return np.array([a for a in flat], dt).reshape(-1, 1, 1)
        if name != "hstack" and 0 in ranks and len(ranks) > 1:
            raise ValueError("scalars mixed with arrays")
        if name == "dstack" and max(ranks) >= 2 and min(ranks) < 2:
            raise ValueError("dstack mixes only matrices and 3-d arrays")
        return getattr(np, name)(flat).astype(dt)
    return oracle


@primitive(
    "hstack", "hstack(_1, __arg(_2_dtype, nil))", oracle=_oracle("hstack"),
    distributable=True,
    example="hstack(list(1, list(2, 3), [4.5]))", result="[1., 2., 3., 4.5]",
    differentiable=True,
)
def hstack(arrays, dtype=None):
    """Join a list of scalars/arrays horizontally (the original's hstack).

    Scalars and vectors make one vector; matrices (all 2-d) join along columns, 3-d
    arrays along axis 1.  A nested list is flattened one level (scalars only) and its
    elements do not decide the dtype (``hstack(list(1, list(2.5)))`` is int64 ``[1, 2]``).
    dtype: ``"bool"``, ``"int..."`` (int64), ``"float..."`` (float64), else the common
    type of the (non-nested) operands; an empty list gives an empty float64 vector.
    ``np.hstack`` compiles to ``__nphstack``."""
    return _join(arrays, dtype, "hstack")


@primitive(
    "vstack", "vstack(_1, __arg(_2_dtype, nil))", oracle=_oracle("vstack"),
    distributable=True,
    example="vstack(list(1, 2))", result="[[1], [2]]",
    differentiable=True,
)
def vstack(arrays, dtype=None):
    """Join a list of arrays vertically (the original's vstack).

    Scalars only: a column (n, 1); vectors and matrices: rows (equal widths); 3-d arrays
    along axis 0.  Nested lists are an error; an empty list gives a (0, 0) float64 array;
    dtype as ``hstack``.  ``np.vstack`` compiles to ``__npvstack``."""
    return _join(arrays, dtype, "vstack")


@primitive(
    "dstack", "dstack(_1, __arg(_2_dtype, nil))", oracle=_oracle("dstack"),
    example="dstack(list(1, 2))", result="[[[1]], [[2]]]",
    differentiable=True,
)
def dstack(arrays, dtype=None):
    """Join a list of arrays depth-wise (the original's dstack).

    Scalars only: shape (n, 1, 1) (NumPy: (1, 1, n)); vectors of length L: (1, L, n);
    matrices and 3-d arrays (mixed) along axis 2.  Nested lists are an error; an empty
    list gives a (0, 0, 0) float64 array; dtype as ``hstack``.  ``np.dstack`` compiles to
    ``__npdstack``."""
    return _join(arrays, dtype, "dstack")


def stack_operands(arrays: Any) -> tuple[list[np.ndarray], bool]:
    """``(parts, single)``: the operands of ``stack`` and whether there is only one."""
    parts, _ = _operands(arrays, "stack")
    if not parts:
        raise PhylanxValueError("stack needs a list of at least one array")
    return parts, len(parts) == 1 and parts[0].ndim > 0


def _stack_oracle(arrays, axis=0, dtype=None):
    if any(isinstance(a, (list, tuple)) for a in arrays):
        raise TypeError("lists cannot be stacked")
    parts = [np.asarray(a) for a in arrays]
    dt = original_dtype(dtype) or np.result_type(*parts)
    seq = list(parts[0]) if len(parts) == 1 and parts[0].ndim else parts
    return np.stack(seq, 0 if axis is None else axis).astype(dt)


@primitive(
    "stack", "stack(_1, __arg(_2_axis, 0), __arg(_3_dtype, nil))", oracle=_stack_oracle,
    distributable=True,
    example="stack(list([1, 2], [3, 4]), 1)", result="[[1, 3], [2, 4]]",
    differentiable=True,
)
def stack(arrays, axis=0, dtype=None):
    """Join a list of same-shaped arrays along a new axis (the original's stack).

    With ONE operand of rank >= 1 no axis is added: the operand is the sequence of its
    sub-arrays along axis 0 (``stack(list(m), 1)`` is the transpose of a matrix), as
    NumPy's ``np.stack(m, 1)``.  Nested lists are an error; dtype as ``hstack``.
    ``np.stack`` compiles to ``__npstack`` (``np.stack([m])`` adds an axis)."""
    parts, single = stack_operands(arrays)
    dt = _result_dtype(parts, dtype)
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        if axis is not None:
            raise PhylanxTypeError(f"axis must be an integer, got a {type_name(axis)}")
        axis = 0
    seq = list(parts[0]) if single else parts
    shapes = {p.shape for p in seq}
    if len(shapes) > 1:
        raise PhylanxValueError(
            f"stack needs arrays of one shape, got shapes {sorted(shapes, key=len)}")
    ndim = len(next(iter(shapes))) + 1
    if not -ndim <= int(axis) < ndim:
        raise PhylanxValueError(f"unsupported axis requested: {int(axis)} for a "
                                f"{ndim}-d result")
    return np.stack([p.astype(dt, copy=False) for p in seq], int(axis))

