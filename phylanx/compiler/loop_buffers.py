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
written ``_update(op, x, e)`` (``python_builtins.update``, the kernel of ``__update``
too): computed into ``x`` itself, as NumPy's ``x.__iadd__`` does, where that is what
computing ``op(x, e)`` and copying it into ``x`` gives (a writable float/complex array,
0-d included, not a copy standing for a view (``values.stands_for_view``), ``e`` of its
shape or a scalar, NumPy's ``result_type`` ``x``'s: no cast), else that computation and
the ``__inplace`` kernel (its casts and located errors).  A number ``x`` (``type(x) in
_NUMBERS``) is rebound to ``x op e`` inline by the translator, without calling
``_update``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..primitives.frontend_support.python_builtins import UPDATE_UFUNCS as UFUNCS

#: below this many elements the tests cost what an allocation does (as runtime/inplace.py)
MIN_ELEMENTS = 2048

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
