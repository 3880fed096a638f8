"""Dead temporaries of a translated array loop reused as outputs (``scalar_translate.py``).

In ``0.25 * (a + b + c)`` written as Python, NumPy computes the second sum and the
product into the first sum's buffer: an operand only the expression holds is dead after
the operation (NumPy's temporary elision, by reference count).  The generated code of a
loop binds every value to a local, so NumPy never sees a dead operand; the translator
knows instead which locals are dead: the result of an arithmetic operator used once, as
an operand of the next one, and never bound to a variable (``Translator.fresh``).  For
those it writes ``_reuse_left(op, x, y)`` / ``_reuse_right(op, x, y)``, which compute
``op(x, y)`` into the dead operand's buffer when that is what ``op(x, y)`` computes: an
``ndarray`` of at least :data:`MIN_ELEMENTS` float or complex elements owning its data,
of the result's shape and dtype (the other operand an array of the same shape or a
scalar, NumPy's ``result_type`` the dead operand's).  Otherwise the operator itself runs.
The law: a ufunc written into a buffer nothing else references gives the values and
dtype it gives into a new one.

``x op= e`` (``__inplace(x, op(x, e))``, ``x`` a variable or a subscript read twice) is
written ``_update(op, x, e, inplace)``: computed into ``x`` itself, as NumPy's
``x.__iadd__`` does, where that is what computing ``op(x, e)`` and copying it into ``x``
gives (a writable float/complex array of at least one dimension, not a copy standing
for a view (``values.stands_for_view``), ``e`` of its shape or a scalar, NumPy's
``result_type`` ``x``'s: no cast), else that computation and the ``__inplace`` kernel
(its casts and located errors).  A number ``x`` (``type(x) in _NUMBERS``) is rebound
to ``x op e`` inline by the translator, without calling ``_update``.  The law: a
ufunc's output may overlap its inputs (NumPy buffers what the overlap needs), so
``op(x, e, out=x)`` writes the values the copy of ``op(x, e)`` writes, without the
second pass and the temporary.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..values import write_through_of

#: below this many elements the tests cost what an allocation does (as runtime/inplace.py)
MIN_ELEMENTS = 2048

#: the operators whose results are fresh arrays, and the ufuncs they are for arrays
UFUNCS = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
          operator.truediv: np.true_divide}

_ndarray = np.ndarray
_SCALARS = (int, float, complex, np.generic)


def _writable_into(dead: Any, other: Any) -> bool:
    """True if ``op(dead, other)`` (either order) has ``dead``'s shape and dtype and
    ``dead`` is a float/complex array owning its data, large enough to be worth it."""
    if type(dead) is not _ndarray or dead.size < MIN_ELEMENTS or dead.base is not None \
            or dead.dtype.kind not in "fc" or not dead.flags.writeable:
        return False
    if type(other) is _ndarray:
        if other.shape != dead.shape:
            return False
    elif not isinstance(other, _SCALARS):
        return False
    return np.result_type(dead, other) == dead.dtype


def reuse_left(op, x: Any, y: Any) -> Any:
    """``op(x, y)``, written into ``x`` (dead after this call) where that is the same."""
    if _writable_into(x, y):
        return UFUNCS[op](x, y, out=x)
    return op(x, y)


def reuse_right(op, x: Any, y: Any) -> Any:
    """``op(x, y)``, written into ``y`` (dead after this call) where that is the same."""
    if _writable_into(y, x):
        return UFUNCS[op](x, y, out=y)
    return op(x, y)


def update(op, target: Any, other: Any, inplace) -> Any:
    """``inplace(target, op(target, other))`` (``target op= other``), computed into
    ``target`` where that is the same (see the module's docstring)."""
    if type(target) is _ndarray and target.ndim and target.dtype.kind in "fc" \
            and target.flags.writeable and write_through_of(target) is None:
        if type(other) is _ndarray:
            fits = other.shape == target.shape
        else:
            fits = isinstance(other, _SCALARS)
        if fits and np.result_type(target, other) == target.dtype:
            UFUNCS[op](target, other, out=target)
            return target
    return inplace(target, op(target, other))
