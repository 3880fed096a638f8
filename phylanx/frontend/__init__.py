"""The Python frontend: ``@Phylanx`` and the Python -> PhySL translator.

``decorator`` (the decorator object), ``options`` (its options, checked),
``arguments`` (binding calls from Python as Python does), ``source`` (recovering
a function's source), ``linking`` (unique names within a compiler state), ``markers`` (the
types recognised in globals; a leaf module), ``checks`` (unsupported syntax,
located errors), ``translator``/``expressions``/``numpy_calls`` (the ``ast``
visitor), ``scopes`` (Python scoping facts), ``tables`` (operators, NumPy and
built-in names), ``resolve`` (what free names refer to) and ``instrument``
(perf data, topology).  A function is translated once, at its first call or compilation,
and the result is kept on the decorated object.
"""
from __future__ import annotations

from .checks import PhylanxNameError
from .decorator import LazyDecorator, Phylanx, PhylanxDecorator

__all__ = ["LazyDecorator", "Phylanx", "PhylanxDecorator", "PhylanxNameError"]
