"""``__pyindex``: a Python subscript's index whose kind is known only at run time.

In PhySL a ``list`` inside ``slice`` is a range (``list(0, 3)`` is ``0:3``), the
original's meaning.  In Python, ``x[i]`` with ``i`` a list is NumPy's advanced
indexing and with ``i`` a tuple one index per axis.  The frontend writes ``a:b`` as
the PhySL range form and wraps every index it cannot see the kind of (a variable, a
call ...) in ``__pyindex``, which gives the value its Python meaning: a list becomes an
index array, anything else (a tuple, an int, an array, a dictionary key) is passed on
unchanged for ``slice``/``store`` to read.
"""
from __future__ import annotations

from .. import indexing
from ..registry import primitive


@primitive("__pyindex", "__pyindex(_1)", extension=True, internal=True, distributable=True,
           example="slice([10, 20, 30], __pyindex(list(2, 0)))", result="[30, 10]",
           no_oracle="an index marker (a Python subscript whose index is a value)")
def pyindex(value):
    """A value used as a Python subscript: a list is an index array (NumPy's ``x[[2, 0]]``).

    A tuple stays a tuple (one index per axis, or a dictionary key); other values are
    returned unchanged.
    """
    return indexing.advanced(value) if type(value) is list else value
