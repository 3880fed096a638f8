"""The primitive library: one subpackage per category (``core/``, ``matrixops/`` ...).

Importing this package runs every ``@primitive`` declaration: every module of every
category subpackage is imported, except modules whose name starts with ``_``
(helpers of their category, declaring nothing).  The registry (``registry.py``) is
the only table of primitives; ``dtypes.py``, ``indexing.py``, ``array_args.py`` and
``original_names.py`` are helpers and data shared by the categories.
"""
from __future__ import annotations

import importlib
import pkgutil

for _package in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if not _package.ispkg or _package.name.startswith("_"):
        continue
    _category = importlib.import_module(f"{__name__}.{_package.name}")
    for _info in sorted(pkgutil.iter_modules(_category.__path__), key=lambda m: m.name):
        if not _info.name.startswith("_"):
            importlib.import_module(f"{_category.__name__}.{_info.name}")
