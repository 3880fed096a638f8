"""Keras-style ``execution_tree.variable`` and its expression nodes (``primitive``).

The original's rules (compat addendum B.4): a variable wraps an *expression*;
arithmetic builds new lazy variables over the operands' expressions as they are
now; ``+=``, ``update_add``/``update_sub``/``update_moving_average`` replace the
variable's own expression by ``old op w``; nothing is computed before ``eval()``,
which recomputes the whole expression every time.  ``dtype`` (settable) decides
how ``eval`` converts the result.  A variable passed to a decorated function, a
primitive or ``execution_tree.eval`` is its current value (``__phylanx_value__``).

Where we differ, on purpose: ``v / w`` works (the original bound only Python 2's
``__div__``, so it raised ``TypeError``); ``len(v)`` is an int; ``v[i]`` also
takes negative ints, slices and tuples; ``v[i] = x`` really stores (the
original compiled the store and never ran it); a computed bool expression
reports ``dtype('bool')`` (the original said ``int8``).
"""
from __future__ import annotations

import itertools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from .errors import PhylanxTypeError
from .primitives import indexing
from .values import Builtin, Function, array_protocol, from_python, to_python

_names = itertools.count()


def _next_name(kind: str) -> str:
    return f"{kind}_{next(_names)}"


class primitive:  # noqa: N801 - the original's name
    """A node of a lazy expression: a stored value, an operation, or a bound call.

    ``eval(*args)`` computes it (arguments call a function-valued result, or are
    appended to a bound call's arguments); ``assign(value)`` replaces a stored
    value (the original's way to fill a shape placeholder).
    """

    __slots__ = ("name", "_compute", "_value", "_partial")

    def __init__(self, name: str, compute: Callable[..., Any] | None = None,
                 value: Any = None, partial: bool = False):
        self.name = name
        self._compute = compute
        self._value = value
        self._partial = partial   # a bound call: eval's arguments extend the bound ones

    def raw(self, *args: Any) -> Any:
        """The PhySL value (not converted for Python)."""
        if self._partial:
            return self._compute(*args)
        value = self._value if self._compute is None else self._compute()
        if args:
            if not isinstance(value, (Function, Builtin)) and not callable(value):
                raise PhylanxTypeError(f"{self.name} is not a function; it cannot take "
                                       "arguments")
            from .execution_tree import invoke
            return from_python(invoke(value, args, {}))
        return value

    def eval(self, *args: Any) -> Any:
        return to_python(self.raw(*args))

    __call__ = eval

    def assign(self, value: Any) -> None:
        if self._compute is not None:
            raise PhylanxTypeError(f"{self.name} is computed from other values; only a "
                                   "stored value can be assigned")
        self._value = from_python(value)

    @property
    def dtype(self) -> np.dtype:
        return _dtype_of(self.raw())

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"primitive({self.name}: {self.eval()!r})"

    def __phylanx_value__(self) -> Any:
        return self.raw()


def _dtype_of(value: Any) -> np.dtype:
    """The dtype the original reports for an evaluated expression."""
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(bool)
    if isinstance(value, (int, np.integer)):
        return np.dtype(np.int64)
    if isinstance(value, (float, np.floating)):
        return np.dtype(np.float64)
    if isinstance(value, np.ndarray):
        return value.dtype
    if isinstance(value, str):
        return np.dtype("S")
    return np.dtype(object)


def _convert(value: Any, dtype: np.dtype | None) -> Any:
    """``eval``'s result, converted by the variable's dtype (addendum B.4)."""
    value = to_python(value)
    if dtype is None or dtype.kind == "O":
        return value
    kind = dtype.kind
    if kind == "b":
        if isinstance(value, (np.ndarray, np.bool_)) and np.asarray(value).dtype == bool:
            return value
        return bool(value)   # a multi-element array fails, as in the original
    if kind in "iuf":
        arr = np.asarray(value)
        if arr.dtype == dtype:
            return value
        return arr.astype(dtype)
    if kind == "S":
        return value.decode() if isinstance(value, bytes) else str(value)
    raise PhylanxTypeError(f"unsupported dtype: {kind}")


def _expr(value: Any) -> primitive:
    """The expression of an operand: a variable's own, or a stored constant."""
    if isinstance(value, variable):
        return value._expr
    if isinstance(value, primitive):
        return value
    return primitive(_next_name("Const"), value=from_python(value))


def _op(kind: str, fn: Callable[..., Any], *operands: primitive) -> primitive:
    return primitive(_next_name(kind), lambda: fn(*(o.raw() for o in operands)))


class _End(IndexError, StopIteration):
    """``v[i]`` past the end: the original raised ``StopIteration`` (which ends
    ``for e in v``); it is an ``IndexError`` too, as Python code expects."""


class variable:  # noqa: N801 - the original's name
    """``variable(value, dtype=None, name=None, constraint=None)`` (addendum B.4).

    ``value`` is an expression (``primitive``), a NumPy array, a shape tuple
    (a placeholder evaluating to None, with that declared ``_keras_shape``;
    ``None`` entries are unknown sizes), a string, or any value PhySL takes.
    ``variable(v)`` of a variable copies it (sharing the expression).
    """

    def __init__(self, value: Any = None, dtype: Any = None, name: str | None = None,
                 constraint: Any = None, **kw: Any):
        if kw:
            raise TypeError(f"variable() got an unexpected keyword argument {next(iter(kw))!r}")
        self.constraint = constraint
        self._shape: tuple | None = None
        self._dtype: np.dtype | None = None
        if (isinstance(value, variable) and dtype is None and name is None
                and constraint is None):
            self._expr, self._dtype = value._expr, value._dtype
            self._name, self._shape = value._name, value._shape
            return
        self._name = name or _next_name("Variable")
        if isinstance(value, primitive):
            self._expr = value
        elif isinstance(value, np.ndarray) or isinstance(value, np.generic):
            self._dtype = np.asarray(value).dtype   # reported as given (float32 too)
            self._expr = primitive(self._name, value=from_python(value))
        elif isinstance(value, tuple):
            self._shape = value
            self._expr = primitive(self._name, value=None)
        elif isinstance(value, str):
            self._dtype = np.dtype("S")
            self._expr = primitive(self._name, value=value)
        else:
            self._expr = _expr(value) if isinstance(value, variable) else primitive(
                self._name, value=from_python(value))
        if dtype is not None:
            self.dtype = dtype

    @classmethod
    def _of(cls, expr: primitive, dtype: np.dtype | None, name: str | None = None) -> variable:
        v = cls.__new__(cls)
        v.constraint, v._shape, v._dtype = None, None, dtype
        v._expr, v._name = expr, name or expr.name
        return v

    # -- properties ---------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def value(self) -> primitive:
        """The expression (read-only); ``v.value.assign(x)`` fills a placeholder."""
        return self._expr

    @property
    def dtype(self) -> np.dtype:
        if self._dtype is not None:
            return self._dtype
        return _dtype_of(self._expr.raw())

    @dtype.setter
    def dtype(self, dt: Any) -> None:
        # only how eval() converts the result: stored data is never changed
        self._dtype = np.dtype(dt)

    @property
    def _keras_shape(self) -> tuple:
        if self._shape is not None:
            return self._shape
        return tuple(int(n) for n in np.shape(self._expr.raw()))

    @_keras_shape.setter
    def _keras_shape(self, shape: Any) -> None:
        self._shape = None if shape is None else tuple(shape)

    def cast(self, dtype: Any) -> variable:
        """A new variable over the same expression whose value is converted to ``dtype``
        (Keras's ``cast``; not in the original's ``variable``, compat addendum B.4)."""
        dt = np.dtype(dtype)
        if dt.kind not in "biuf":
            raise PhylanxTypeError(f"cast: unsupported dtype {dt} (bool, int or float)")

        def cast(value):   # element-wise, also to bool (eval's bool is the original's)
            return np.asarray(to_python(value)).astype(dt)[()]
        return variable._of(_op("Cast", cast, self._expr), dt)

    # -- evaluation ---------------------------------------------------------
    def eval(self, *args: Any) -> Any:
        return _convert(self._expr.raw(*args), self._dtype)

    __call__ = eval

    def __phylanx_value__(self) -> Any:
        return self._expr.raw()

    def lazy(self, *args: Any) -> variable:
        """An unevaluated variable over this one's expression, as a decorated function's
        ``lazy`` gives (addendum B.5): without arguments a new wrapper of the same
        expression; with arguments a bound call of a function-valued variable, whose
        ``eval(*more)`` appends ``more`` to the bound arguments.  Operands are the
        arguments' expressions, evaluated when the call runs (a variable's latest)."""
        if not args:
            return variable._of(self._expr, self._dtype, self._name)
        base, bound = self._expr, [_expr(a) for a in args]

        def call(*more: Any) -> Any:
            return base.raw(*(b.raw() for b in bound), *more)
        return variable._of(primitive(_next_name("Bound"), call, partial=True), self._dtype)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """``np.asarray(v)``: the evaluated value (not an object array of its items).

        A copy for ``np.array(v)``: the value is the variable's own (``array_protocol``)."""
        return array_protocol(self.eval(), dtype, copy)

    # -- lazy arithmetic ----------------------------------------------------
    def _binary(self, kind: str, fn: Callable, other: Any, reflected: bool = False) -> variable:
        a, b = self._expr, _expr(other)
        expr = _op(kind, fn, b, a) if reflected else _op(kind, fn, a, b)
        # the result converts like the left (or only) variable (the original's rule)
        return variable._of(expr, self._dtype)

    def __add__(self, o): return self._binary("Add", operator.add, o)
    def __radd__(self, o): return self._binary("Add", operator.add, o, True)
    def __sub__(self, o): return self._binary("Sub", operator.sub, o)
    def __rsub__(self, o): return self._binary("Sub", operator.sub, o, True)
    def __mul__(self, o): return self._binary("Mul", operator.mul, o)
    def __rmul__(self, o): return self._binary("Mul", operator.mul, o, True)
    def __truediv__(self, o): return self._binary("Div", operator.truediv, o)
    def __rtruediv__(self, o): return self._binary("Div", operator.truediv, o, True)

    def __neg__(self) -> variable:
        return variable._of(_op("Neg", operator.neg, self._expr), self._dtype)

    def _rebind(self, expr: primitive) -> variable:
        """Make ``expr`` this variable's expression; a new wrapper shares it."""
        self._expr, self._shape = expr, None
        return variable._of(expr, self._dtype, expr.name)

    def update_add(self, o: Any) -> variable:
        return self._rebind(_op("AssignAdd", operator.add, self._expr, _expr(o)))

    def update_sub(self, o: Any) -> variable:
        return self._rebind(_op("AssignSub", operator.sub, self._expr, _expr(o)))

    __iadd__ = update_add
    __isub__ = update_sub

    def update_moving_average(self, value: Any, momentum: Any) -> variable:
        """``v - (1 - momentum) * (v - value)``, lazily."""
        old, val, mom = self._expr, _expr(value), _expr(momentum)

        def compute():
            v = old.raw()
            return v - (1 - mom.raw()) * (v - val.raw())
        return self._rebind(primitive(_next_name("AssignMovingAvg"), compute))

    # -- sequence protocol ----------------------------------------------------
    def _index(self, key: Any) -> list:
        if isinstance(key, int) and not isinstance(key, bool) and key >= 0:
            shape = self._keras_shape
            if not shape or shape[0] is None:
                raise IndexError(f"{self._name} has no known leading dimension to index")
            if key >= shape[0]:
                raise _End(f"index {key} is out of bounds for axis 0 with size {shape[0]}")
        idx = key if isinstance(key, tuple) else (key,)
        return [_py_index(k) for k in idx]

    def __getitem__(self, key: Any) -> variable:
        idx, base = self._index(key), self._expr
        expr = primitive(_next_name(f"GetItem_{key}" if isinstance(key, int) else "GetItem"),
                         lambda: indexing.get(base.raw(), idx))
        return variable._of(expr, self._dtype)

    def __setitem__(self, key: Any, value: Any) -> None:
        idx = self._index(key)
        current = np.array(self._expr.raw())   # a copy: earlier expressions keep theirs
        indexing.put(current, idx, from_python(value.__phylanx_value__()
                                                if isinstance(value, variable) else value))
        self._rebind(primitive(_next_name("SetItem"), value=current))

    def __len__(self) -> int:
        shape = self._keras_shape
        if not shape or shape[0] is None:
            raise TypeError(f"{self._name} has no known length")
        return int(shape[0])

    def __str__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return repr(self.eval())


def _py_index(k: Any) -> Any:
    if isinstance(k, slice):
        return [k.start, k.stop, k.step]
    if isinstance(k, variable):
        return k.__phylanx_value__()
    return from_python(k)


variable_impl = variable

__all__ = ["primitive", "variable", "variable_impl"]
