"""The distributed primitives, one subpackage per category (``dist_matrixops/`` ...).

Declared with ``@primitive`` like every other primitive; the registry takes the
category from the package (``phylanx.distributed.primitives.<category>``).  They live
here, above the compiler, because they call the MPI layer; ``phylanx/__init__``
imports this package, so the registry is complete once ``phylanx`` is imported.
Importing it does not import mpi4py.

Primitives flagged ``flags={"ordered": True}`` communicate, so every rank must run
them in the same order: they are added to ``runtime.nodes.ORDERED``, which keeps the
runtime from spawning them concurrently with their siblings.
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

from ...primitives.registry import all_specs as _all_specs  # noqa: E402
from ...runtime.nodes import ORDERED as _ORDERED  # noqa: E402

_ORDERED.update(spec.name for spec in _all_specs() if spec.flags.get("ordered"))
