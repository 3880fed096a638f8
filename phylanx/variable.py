"""Keras-style ``execution_tree.variable``: a value or a lazy expression over variables.

Arithmetic on variables builds new lazy variables; ``eval()`` computes them.
"""
from __future__ import annotations

import itertools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from .primitives import indexing
from .primitives.dtypes import to_dtype
from .values import from_python, to_python

_names = itertools.count()


class variable:  # noqa: N801 - the original's name
    """``variable(value, dtype=None, name=None, constraint=None)``."""

    def __init__(self, value: Any = None, dtype: Any = None, name: str | None = None,
                 constraint: Any = None, *, _thunk: Callable[[], Any] | None = None):
        self._name = name or f"Variable_{next(_names)}"
        self._thunk = _thunk
        self.constraint = constraint
        self._keras_shape = None
        if _thunk is None:
            if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
                value = np.zeros(value)
            value = from_python(value)
            if dtype is not None and isinstance(value, (np.ndarray, np.generic)):
                value = np.asarray(value).astype(to_dtype(dtype))
            self._value = value
        else:
            self._value = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def value(self) -> Any:
        return self.eval()

    @property
    def dtype(self) -> str:
        return str(np.asarray(self.eval()).dtype)

    @dtype.setter
    def dtype(self, dt: Any) -> None:
        self._value = np.asarray(self.eval()).astype(to_dtype(dt))
        self._thunk = None

    def eval(self, *args: Any) -> Any:
        if self._thunk is not None:
            return to_python(self._thunk())
        value = self._value
        if args and callable(value):
            from .execution_tree import invoke
            return invoke(value, args, {})
        return to_python(value)

    __call__ = eval

    def _raw(self) -> Any:
        return self._thunk() if self._thunk is not None else self._value

    # -- lazy arithmetic --------------------------------------------------
    def _lazy(self, op, other, reflected=False) -> variable:
        def get(v):
            return v._raw() if isinstance(v, variable) else from_python(v)
        if reflected:
            return variable(_thunk=lambda: op(get(other), get(self)))
        return variable(_thunk=lambda: op(get(self), get(other)))

    def __add__(self, o): return self._lazy(operator.add, o)
    def __radd__(self, o): return self._lazy(operator.add, o, True)
    def __sub__(self, o): return self._lazy(operator.sub, o)
    def __rsub__(self, o): return self._lazy(operator.sub, o, True)
    def __mul__(self, o): return self._lazy(operator.mul, o)
    def __rmul__(self, o): return self._lazy(operator.mul, o, True)
    def __truediv__(self, o): return self._lazy(operator.truediv, o)
    def __rtruediv__(self, o): return self._lazy(operator.truediv, o, True)

    def __neg__(self):
        return variable(_thunk=lambda: -self._raw())

    def _assign(self, value: Any) -> None:
        self._value, self._thunk = value, None

    def __iadd__(self, o):
        self._assign(self._raw() + (o._raw() if isinstance(o, variable) else from_python(o)))
        return self

    def __isub__(self, o):
        self._assign(self._raw() - (o._raw() if isinstance(o, variable) else from_python(o)))
        return self

    def update_add(self, o):
        self += o
        return self

    def update_sub(self, o):
        self -= o
        return self

    def update_moving_average(self, value, momentum):
        v = value._raw() if isinstance(value, variable) else from_python(value)
        self._assign(self._raw() * momentum + v * (1 - momentum))
        return self

    def __getitem__(self, key):
        idx = key if isinstance(key, tuple) else (key,)
        return to_python(indexing.get(self._raw(), [_py_index(k) for k in idx]))

    def __setitem__(self, key, value):
        idx = key if isinstance(key, tuple) else (key,)
        base = self._raw()
        indexing.put(base, [_py_index(k) for k in idx], from_python(value))
        self._assign(base)

    def __len__(self) -> int:
        return len(self._raw())

    def __repr__(self) -> str:
        return f"<variable {self._name}>"


def _py_index(k: Any) -> Any:
    if isinstance(k, slice):
        return [k.start, k.stop, k.step]
    return from_python(k)
