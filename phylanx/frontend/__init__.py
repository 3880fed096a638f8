"""The Python frontend: ``@Phylanx`` and the Python -> PhySL translator.

``decorator`` (the decorator object), ``checks`` (unsupported syntax, located
errors), ``translator``/``expressions``/``numpy_calls`` (the ``ast`` visitor),
``scopes`` (Python scoping facts), ``tables`` (operators, NumPy and built-in
names), ``resolve`` (what free names refer to), ``cache`` (optional on-disk
cache) and ``instrument`` (perf data, topology).
"""
from __future__ import annotations

from .decorator import LazyDecorator, Phylanx, PhylanxDecorator

__all__ = ["LazyDecorator", "Phylanx", "PhylanxDecorator"]
