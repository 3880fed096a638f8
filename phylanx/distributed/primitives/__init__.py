"""The distributed primitives, one subpackage per category (``dist_matrixops/`` ...).

Declared with ``@primitive`` like every other primitive; the registry takes the
category from the package (``phylanx.distributed.primitives.<category>``).  They live
here, above the compiler, because they call the MPI layer; ``phylanx/__init__``
imports this package, so the registry is complete once ``phylanx`` is imported.
Importing it does not import mpi4py.

Primitives flagged ``flags={"ordered": True}`` communicate, so every rank must run
them in the same order: the registry adds them to ``runtime.nodes.ORDERED``, which keeps the
runtime from spawning them concurrently with their siblings.
"""
from __future__ import annotations

from ...primitives import load_categories

load_categories(__name__, __path__)
