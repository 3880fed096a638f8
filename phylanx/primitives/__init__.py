"""The primitive library: one module per category (or part of a category).

Importing this package runs every ``@primitive`` declaration; the registry
(``registry.py``) is the only table of primitives.
"""
from __future__ import annotations

import importlib
import pkgutil

_SKIP = {"registry", "indexing", "dtypes"}

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name not in _SKIP and not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")
