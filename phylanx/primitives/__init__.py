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


def load_categories(package: str, path) -> None:
    """Import every module of every category subpackage of ``package`` (whose
    ``__path__`` is ``path``), except names starting with ``_``; this runs their
    declarations.  Also used by ``phylanx.distributed.primitives``."""
    for found in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if not found.ispkg or found.name.startswith("_"):
            continue
        category = importlib.import_module(f"{package}.{found.name}")
        for info in sorted(pkgutil.iter_modules(category.__path__), key=lambda m: m.name):
            if not info.name.startswith("_"):
                importlib.import_module(f"{category.__name__}.{info.name}")


load_categories(__name__, __path__)
