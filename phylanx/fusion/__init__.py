"""Fusion: chains of element-wise primitives run as one compiled loop (issue 11).

After a program is compiled, :func:`install` marks every *region* of its tree — a
maximal subtree of element-wise primitives with a rule in the ``FUSION`` table
(``rules.py``), possibly ended by a ``sum``/``mean`` (``regions.py``) — and gives the
region's root a :class:`~.hot.FusedRegion` closure (``strided.py``'s subclass for a
reduction: along the last axis by ``rowreduce.py``'s loop, of broadcast operands or along
another axis by the strided one).  A region that proves hot
and big enough gets a kernel generated for its operand dtypes (``codegen.py``: numba,
``parallel=True``, on-disk cache), checked once against NumPy, timed, and kept only if
faster (``hot.py``).  Without numba nothing is installed: the tree runs NumPy as before.

``loops.py`` compiles a whole ``for_each`` over a ``range`` whose body binds variables to
such expressions, products and transposes into one numba function (setting
``fusion_loops``, on by default).

``rowpass.py`` does the same for ``x.T @ f(x @ w, ...)`` (logistic regression's
gradient, ``f`` element-wise) and ``rowargmin.py`` for ``argmin(f(x @ c, ...), 1)``
(k-means' labels): one loop over the rows of ``x``; ``rowreduce.py`` for a region ending
in ``sum``/``mean`` along the last axis (setting ``fusion_rows``, on by default, for all
three).

Recording compilers (autodiff's tape) never fuse: the compiler installs regions only
when ``build_eager`` is its own.  Settings (``phylanx.config``): ``fusion``,
``fusion_min_size``, ``fusion_count_threshold``, ``fusion_min_time_us``,
``fusion_compile_cost_ms``, ``fusion_background``, ``fusion_cache_dir``,
``fusion_rows``, ``fusion_loops``.
"""
from __future__ import annotations

from ..kernels import compiling
from ..kernels.compiling import FusionWarning, Settings, wait_for_compiles
from ..runtime.nodes import Node
from .hot import FusedRegion
from .regions import Region, find_regions, unique_nodes

__all__ = ["FusedRegion", "FusionWarning", "Region", "install", "regions_of",
           "settling", "wait_for_compiles"]

_available: list[bool] = []


def settling() -> bool:
    """True while a compiled loop (``loops.py``) or a fused region (``hot.py``: element-wise
    chains, row passes) run lately is compiling or on trial."""
    from . import hot, loops
    return loops.settling() or hot.settling()


def backend_available() -> bool:
    """True if a kernel can be generated here (numba importable)."""
    if not _available:
        _available.append(compiling.available())
    return _available[0]


def wanted() -> bool:
    """True if compiled trees should be searched at all (a setting on, numba there)."""
    return (Settings.enabled or Settings.rows or Settings.loops) and backend_available()


def install(body: list[Node]) -> list[FusedRegion]:
    """Give the root of every region under ``body`` (``fusion``) and every gram node
    (``fusion_rows``, ``rowpass.py``) its fusing closure."""
    if not wanted():
        return []
    from . import loops, rowargmin, rowpass, stridedmap
    found: list = []
    if Settings.enabled or Settings.rows:   # element-wise chains; reductions of rows
        found += [made for region in find_regions(body)
                  for made in stridedmap.fused_regions(region)]
    if Settings.rows:                 # one walk for both kinds of row pass
        found += [made for node in unique_nodes(body)
                  if (made := rowpass.analyse(node) or rowargmin.analyse(node)) is not None]
    if Settings.loops:
        found += [made for node in unique_nodes(body)
                  if (made := loops.analyse(node)) is not None]
    for fused in found:
        if isinstance(fused, FusedRegion):
            fused.switched_on = fused.enabled()   # the settings it was compiled with
        node = fused.node
        node.set_run(fused.run)       # (still compiling: the side table keeps timing it)
    return found


def regions_of(root: Node) -> list[FusedRegion]:
    """The fused regions installed in the tree under ``root`` and not given back (the
    variant its node's side-table entry runs)."""
    found = []
    for node in root.walk():
        owner = getattr(node.choice.variant, "__self__", None)
        if isinstance(owner, FusedRegion) and owner.node is node:
            found.append(owner)
    return found
