"""The Python objects the frontend recognises by type in a function's globals.

A free name of a decorated function may refer to another ``@Phylanx``
function, to ``prange`` or to ``parallel``; :mod:`.resolve` classifies it by
testing against the types here.  This module imports nothing from the
frontend, so every frontend module may import it without creating an import
cycle (``tests/test_layering.py`` checks that the frontend has none).

``prange`` and ``parallel`` are defined below the frontend (``phylanx.util``
and ``phylanx.execution_tree``, importable without it); they are re-exported
here so the frontend has one place to take its markers from.
"""
from __future__ import annotations

from ..execution_tree import _Parallel as Parallel
from ..execution_tree import parallel
from ..util import prange


class DecoratedFunction:
    """Base class of what ``@Phylanx`` and ``Phylanx.lazy`` return.

    ``decorator()`` is the underlying ``PhylanxDecorator`` (the object itself,
    or the function a lazy wrapper wraps).
    """

    def decorator(self) -> DecoratedFunction:
        return self


__all__ = ["DecoratedFunction", "Parallel", "parallel", "prange"]
