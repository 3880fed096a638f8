"""Facts of an equation's value from the facts of its operands, by primitive family.

One rule per family, each NumPy's own definition: element-wise operations broadcast
(NumPy's broadcasting, with unknown dims) and take the dtype NumPy gives on an empty
array of the operands' dtypes (Python numbers are weak scalars, NEP 50); reductions
drop or keep (``keepdims``) the literal ``axis``; products follow ``matmul``'s or
``dot``'s rank rules; ``transpose`` reverses the axes; ``__subscript`` with integer
literals drops leading axes; creation functions with literal shapes give that shape.
Anything else is unknown (None): facts are claimed only where the operands' kinds make
the rule certain (an operand that is an array), never guessed.
"""
from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .core import Eqn, Facts

#: a value that is not a compile-time constant
UNKNOWN = object()

BINARY = {"__add": np.add, "__sub": np.subtract, "__mul": np.multiply,
          "__div": np.true_divide, "__floordiv": np.floor_divide, "__mod": np.remainder,
          "power": np.power, "maximum": np.maximum, "minimum": np.minimum,
          "__eq": np.equal, "__ne": np.not_equal, "__lt": np.less, "__le": np.less_equal,
          "__gt": np.greater, "__ge": np.greater_equal, "arctan2": np.arctan2}
UNARY = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
         "tanh": np.tanh, "absolute": np.absolute, "__minus": np.negative,
         "square": np.square, "floor": np.floor, "ceil": np.ceil, "log1p": np.log1p,
         "expm1": np.expm1, "tan": np.tan, "arcsin": np.arcsin, "arccos": np.arccos,
         "arctan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "negative": np.negative}
REDUCTIONS = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "amax": np.max,
              "amin": np.min, "std": np.std, "var": np.var, "argmin": np.argmin,
              "argmax": np.argmax, "any": np.any, "all": np.all}
#: reductions whose second operand is the axis and that take no keepdims
_NO_KEEPDIMS = frozenset(("argmin", "argmax"))
_PY = {"float64": 0.0, "int64": 0, "bool": False, "complex128": 0j}


def _array(f: Facts) -> bool:
    return f.kind == "array" and f.dtype is not None and f.shape is not None


def _sample(f: Facts, ndim: int | None = None):
    """A tiny value NumPy types as ``f``'s: an array of ones, or a weak Python number."""
    if f.kind == "scalar" and f.dtype in _PY:
        return _PY[f.dtype]
    shape = (1,) * (len(f.shape) if ndim is None else ndim)
    return np.ones(shape, dtype=f.dtype)


def broadcast(a: tuple, b: tuple) -> tuple | None:
    """NumPy's broadcast of two shapes with unknown (None) dims; None if they cannot."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        elif x == y:
            out.append(x)
        else:
            return None
    return tuple(reversed(out))


def _dtype(fn: Callable, *samples) -> str | None:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return str(np.asarray(fn(*samples)).dtype)
        except (TypeError, ValueError):
            return None


#: Python's operators of the primitives two Python numbers keep Python's meaning for
PYTHON_BINARY = {"__add": operator.add, "__sub": operator.sub, "__mul": operator.mul,
                 "__div": operator.truediv, "__floordiv": operator.floordiv,
                 "__mod": operator.mod, "__eq": operator.eq, "__ne": operator.ne,
                 "__lt": operator.lt, "__le": operator.le, "__gt": operator.gt,
                 "__ge": operator.ge}
_PY_SAMPLES = {"bool": True, "int64": 1, "float64": 1.5}
_PY_NAMES = {bool: "bool", int: "int64", float: "float64"}


def python_binary(prim: str, a: Facts, b: Facts) -> Facts | None:
    """Two Python numbers: Python's result type (``1 + 1.5`` is a float, ``2 / 1`` too)."""
    if prim not in PYTHON_BINARY or a.kind != "scalar" or b.kind != "scalar" \
            or a.dtype not in _PY_SAMPLES or b.dtype not in _PY_SAMPLES:
        return None
    result = PYTHON_BINARY[prim](_PY_SAMPLES[a.dtype], _PY_SAMPLES[b.dtype])
    return Facts((), _PY_NAMES[type(result)], "scalar")


def binary(fn, a: Facts, b: Facts) -> Facts | None:
    if not (_array(a) or _array(b)):
        return None                       # two Python values: python_binary
    for f in (a, b):
        if not (_array(f) or (f.kind == "scalar" and f.dtype in _PY)):
            return None
    shape = broadcast(a.shape if _array(a) else (), b.shape if _array(b) else ())
    if fn is np.power and _array(a) and a.dtype == "bool" and b.kind == "scalar" \
            and b.dtype == "int64":
        # the value decides: ``b ** 2`` squares (np.square: int8, primitives/matrixops/
        # sort.py), other Python ints go through np.power (int64); no fact rather than a
        # wrong one
        return None
    dtype = _dtype(fn, _sample(a), _sample(b))
    if shape is None or dtype is None:
        return None
    return Facts(shape, dtype, "array")


def unary(fn, a: Facts) -> Facts | None:
    if not _array(a):
        return None
    dtype = _dtype(fn, _sample(a))
    return None if dtype is None else Facts(a.shape, dtype, "array")


def _axes(axis, ndim: int) -> tuple[int, ...] | None:
    if axis is None:
        return tuple(range(ndim))
    items = axis if type(axis) is tuple else (axis,)
    if not all(type(i) is int and -ndim <= i < ndim for i in items):
        return None
    return tuple(sorted(i % ndim for i in items))


def reduction(name: str, a: Facts, axis, keepdims) -> Facts | None:
    if not _array(a) or axis is UNKNOWN or keepdims is UNKNOWN or a.dtype == "bool" \
            and name in ("mean", "std", "var") or 0 in a.shape:
        return None
    ndim = len(a.shape)
    axes = _axes(axis, ndim)
    if axes is None or (name in _NO_KEEPDIMS and type(axis) is tuple) or ndim == 0:
        return None
    keep = bool(keepdims)
    if keep:
        shape = tuple(1 if i in axes else d for i, d in enumerate(a.shape))
    else:
        shape = tuple(d for i, d in enumerate(a.shape) if i not in axes)
    dtype = _dtype(lambda x: REDUCTIONS[name](x, axis=axis), _sample(a))
    return None if dtype is None else Facts(shape, dtype, "array")


def product(rule: str, a: Facts, b: Facts) -> Facts | None:
    if not (_array(a) and _array(b)) or not a.shape or not b.shape:
        return None
    sa, sb = a.shape, b.shape
    inner_a, inner_b = sa[-1], sb[-2] if len(sb) >= 2 else sb[0]
    if inner_a is not None and inner_b is not None and inner_a != inner_b:
        return None
    if rule == "dot" or (len(sa) <= 2 and len(sb) <= 2):
        shape = sa[:-1] + sb[:-2] + sb[-1:] if len(sb) >= 2 else sa[:-1]
    else:
        batch = broadcast(sa[:-2], sb[:-2])
        if batch is None:
            return None
        shape = batch + (sa[-2:-1] if len(sa) >= 2 else ()) + (sb[-1:] if len(sb) >= 2 else ())
    dtype = _dtype(np.matmul, _sample(a, 1), _sample(b, 1))
    return None if dtype is None else Facts(tuple(shape), dtype, "array")


def contraction(a: Facts, b: Facts) -> tuple | None:
    """``dot_general``'s contracted axes ((of a), (of b)) when both ranks are known."""
    if a.shape is None or b.shape is None or not a.shape or not b.shape:
        return None
    return ((len(a.shape) - 1,), (max(len(b.shape) - 2, 0),))


def _shape_of(value) -> tuple | None:
    if type(value) is int and value >= 0:
        return (value,)
    if type(value) is tuple and all(type(d) is int and d >= 0 for d in value):
        return value
    return None


def facts_of(eqn: Eqn, facts: list[Facts], values: list[Any]) -> Facts | None:
    """The facts of ``eqn``'s value, or None; ``values`` are the operands' constants
    (UNKNOWN where not constant)."""
    p = eqn.prim
    kw = eqn.param("kw")
    if kw is not None:
        named = {k: v for k, v in zip(kw, values) if k}
        positional = [v for k, v in zip(kw, values) if not k]
        pos_facts = [f for k, f in zip(kw, facts) if not k]
    else:
        named, positional, pos_facts = {}, list(values), list(facts)
    if eqn.param("attribute") is not None:
        return None
    if p in BINARY and len(facts) == 2 and kw is None:
        return binary(BINARY[p], *facts) or python_binary(p, *facts)
    if p in UNARY and len(facts) == 1 and kw is None:
        return unary(UNARY[p], facts[0])
    if p in REDUCTIONS and 1 <= len(positional) <= (2 if p in _NO_KEEPDIMS else 3) \
            and set(named) <= {"axis", "keepdims"}:
        names = ("axis", "keepdims")
        given = dict(zip(names, positional[1:])) | named
        return reduction(p, pos_facts[0], given.get("axis"), given.get("keepdims", False))
    if p == "dot_general":
        return product(eqn.param("rule"), *facts)
    if p == "transpose" and len(facts) == 1 and kw is None and _array(facts[0]):
        return Facts(tuple(reversed(facts[0].shape)), facts[0].dtype, "array")
    if p == "__subscript" and len(facts) >= 2 and kw is None and _array(facts[0]):
        return subscript(facts[0], values[1:])
    if p == "__asndarray" and len(facts) == 1 and facts[0].kind == "array":
        return facts[0]
    if p in ("__npconstant", "full") and len(positional) == 2:
        shape = _shape_of(positional[0 if p == "full" else 1])
        fill = positional[1 if p == "full" else 0]
        dtype = named.get("dtype") if set(named) <= {"dtype"} else UNKNOWN
        if shape is None or dtype is UNKNOWN or type(fill) not in (int, float, bool):
            return None
        if dtype is None:
            if p == "__npconstant":
                return Facts(shape, None, "array")
            dtype = str(np.full((), fill).dtype)
        return Facts(shape, str(np.dtype(dtype)), "array")
    if p == "__len" and len(facts) == 1 and kw is None and _array(facts[0]) \
            and facts[0].shape:
        return Facts((), "int64", "scalar")
    if p == "shape" and len(facts) == 1 and kw is None and _array(facts[0]):
        return Facts(None, None, "tuple")
    return None


class Slice(tuple):
    """``list(start, stop[, step])`` of integer literals or nil read as an index of
    ``__subscript`` (the frontend's ``x[start:stop:step]``); only ``subscript`` reads it."""


def subscript(a: Facts, indices: list) -> Facts | None:
    """``x[i, j:k, ...]`` with integer literals (an axis less) and constant slices."""
    if len(indices) > len(a.shape):
        return None
    shape = []
    for d, i in zip(a.shape, indices):
        if type(i) is int:
            if d is not None and not -d <= i < d:
                return None
        elif type(i) is Slice:
            if i[-1] == 0 if len(i) == 3 else False:
                return None
            shape.append(None if d is None else len(range(*slice(*i).indices(d))))
        else:
            return None
    return Facts(tuple(shape) + a.shape[len(indices):], a.dtype, "array")


def constant_value(eqn: Eqn, values: list[Any], facts: list[Facts]) -> Any:
    """The value of ``eqn`` when it is known before running (tuples of literals, a
    known shape or one of its dims), else UNKNOWN."""
    if eqn.prim == "tuple" and eqn.param("kw") is None and all(
            type(v) in (int, float, bool) for v in values):
        return tuple(values)
    if eqn.prim == "list" and not eqn.params and len(values) in (2, 3) and all(
            v is None or type(v) is int for v in values):
        return Slice(values)
    if eqn.prim == "__minus" and len(values) == 1 and type(values[0]) is int:
        return -values[0]
    if eqn.prim == "shape" and len(facts) == 1 and _array(facts[0]) \
            and None not in facts[0].shape:
        return facts[0].shape
    if eqn.prim == "__subscript" and len(values) == 2 and type(values[0]) is tuple \
            and type(values[1]) is int and -len(values[0]) <= values[1] < len(values[0]):
        return values[0][values[1]]
    return UNKNOWN
