"""Fusion: chains of element-wise primitives run as one compiled loop (issue 11).

After a program is compiled, :func:`install` marks every *region* of its tree — a
maximal subtree of element-wise primitives with a rule in the ``FUSION`` table
(``rules.py``), possibly ended by a whole-array ``sum``/``mean`` (``regions.py``) — and
gives the region's root a :class:`~.hot.FusedRegion` closure.  A region that proves hot
and big enough gets a kernel generated for its operand dtypes (``codegen.py``: numba,
``parallel=True``, on-disk cache), checked once against NumPy, timed, and kept only if
faster (``hot.py``).  Without numba nothing is installed: the tree runs NumPy as before.

Recording compilers (autodiff's tape) never fuse: the compiler installs regions only
when ``build_eager`` is its own.  Settings (``phylanx.config``): ``fusion``,
``fusion_min_size``, ``fusion_count_threshold``, ``fusion_min_time_us``,
``fusion_compile_cost_ms``, ``fusion_background``, ``fusion_cache_dir``.
"""
from __future__ import annotations

from ..runtime.nodes import Node
from . import codegen
from .hot import FusedRegion, FusionWarning, Settings, wait_for_compiles
from .regions import Region, find_regions

__all__ = ["FusedRegion", "FusionWarning", "Region", "install", "regions_of",
           "wait_for_compiles"]

_available: list[bool] = []


def backend_available() -> bool:
    """True if a kernel can be generated here (numba importable)."""
    if not _available:
        _available.append(codegen.available())
    return _available[0]


def install(body: list[Node]) -> list[FusedRegion]:
    """Give the root of every region under ``body`` its fusing closure."""
    if not Settings.enabled or not backend_available():
        return []
    from ..runtime import policy
    installed = []
    for region in find_regions(body):
        node = region.root.node
        fused = FusedRegion(region, node)
        node.set_run(fused.run)
        if node.watched and node.eval_direct == -1:
            policy.watch(node)        # the policy times the fusing closure from now on
        installed.append(fused)
    return installed


def regions_of(root: Node) -> list[FusedRegion]:
    """The fused regions installed in the tree under ``root``."""
    found = []
    for node in root.walk():
        owner = getattr(node.inline, "__self__", None)
        if isinstance(owner, FusedRegion) and owner.node is node:
            found.append(owner)
    return found
