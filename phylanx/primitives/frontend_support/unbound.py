"""Python's unbound local variables: the marker ``__unbound()`` and the check ``__bound``.

The frontend's definite-assignment analysis (``phylanx/frontend/definite.py``)
finds the reads of a local that may run before the local is assigned.  Only
such a local starts as ``__unbound()`` instead of nil, and only those reads
become ``__bound(x, "x")``, which raises Python's ``UnboundLocalError`` (or,
for a read from a nested function, ``NameError``) at the read.  The marker can
reach nothing else: every read that could see it is checked.
"""
from __future__ import annotations

from ...errors import PhylanxUnboundLocalError, PhylanxUnboundNameError
from ..registry import primitive


class _Unbound:
    """The value of a local that has not been assigned yet (one instance)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unbound>"


UNBOUND = _Unbound()


@primitive("__unbound", "__unbound()", extension=True, internal=True,
           example="__bound(if(true, 1, __unbound()), \"y\")", result="1",
           no_oracle="a marker for a local variable not assigned yet, never a user value")
def unbound():
    """The marker a possibly-unassigned local starts with (read only through ``__bound``)."""
    return UNBOUND


@primitive("__bound", "__bound(_1, _2, __arg(_3_free, false))", takes_tiled=True, extension=True,
           internal=True,
           example="__bound(2, \"y\")", result="2",
           no_oracle="returns its argument or raises Python's UnboundLocalError")
def bound(value, name, free=False):
    """Read of a possibly-unassigned local: ``value``, or Python's error if it is unset.

    ``free`` is true for a read in a nested function or comprehension, where Python
    raises ``NameError`` about a free variable instead of ``UnboundLocalError``.
    """
    if value is not UNBOUND:
        return value
    if free:
        # primitive "": the error is the user's read, there is no primitive to name
        raise PhylanxUnboundNameError(f"cannot access free variable '{name}' where it is not "
                                      "associated with a value in enclosing scope",
                                      primitive="")
    raise PhylanxUnboundLocalError(f"cannot access local variable '{name}' where it is not "
                                   "associated with a value", primitive="")
