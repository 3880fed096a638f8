"""Loops as Python code: a ``for_each``/``while`` of scalar steps or of array kernels.

A dynamic program (edit distance, a knapsack, a prefix sum) spends its time in nodes
that each do one scalar operation: the tree pays a closure call, an operand test and
the generic ``__subscript`` argument handling (about 2 us) for what CPython does in
50 ns.  When the compiler builds a ``for_each`` or ``while`` whose subtree consists only
of the forms of :data:`PURE` (operators, comparisons, ``__subscript`` reads and stores,
``if``, ``block``, ``define``/``store`` of locals and nested loops), it also translates
that subtree into one Python function (:func:`build`; ``scalar_translate.py`` writes the
text): one line per node, the function's locals as Python locals, each operator as the
Python operator the primitive's two-operand kernel *is* (``flags["binary"]``), every
other kernel called directly, and element access by integer indices as NumPy's /
Python's own subscript.

**Array loops** (setting ``array_loops``, with ``scalar_loops``): the same holds for
loops whose body calls array kernels (products, slices and row writes, ``solve``,
``norm``, reductions, creation functions ...): every eager primitive whose kernel maps
plain values to plain values and does nothing else (``scalar_translate.plain_kernel``,
read from the registry's flags) is called directly, so a loop of small array steps
(a solve per row, a mini-batch) no longer pays the tree's per-node cost.  The law is
the same: a body of those kernels over plain values computes what the tree calling
them computes (``tests/compiler/test_array_loops.py``: bit for bit).

**Fusion wins.**  A loop that ``fusion/loops.py`` compiles with numba is left to it
(it replaces the node's closure when the program is installed), and a loop *enclosing*
a node fusion took (a compiled loop, a fused region, a row pass) calls that node's own
closure from its generated code (:func:`yield_to_fusion`, called by the compiler right
after ``fusion.install``, translates it again so): the generated code never bypasses
what fusion built.

Dispatch is explicit, never by a kernel's failure:

* at entry, every variable the loop reads must hold a *plain* value (:func:`plain`:
  ``None``, a Python or NumPy number, a string, a range, an ``ndarray`` of a non-object
  dtype, a list or tuple of plain values).  The kernels of :data:`PURE` map plain
  operands to plain results, so inside the loop no operand can be a future or a distributed array,
  the only kinds for which the tree's closures do something else than call the kernel.
  Otherwise (or while the nodes are measured, an instrument or a timeline records
  them) the tree runs;
* each ``a[i, j]`` tests ``type(a) is ndarray`` (or ``list``/``tuple``/``str`` for one index) and
  ``type(i) is int`` before indexing directly; any other kind goes to the generic
  ``__subscript`` kernel (``store``: ``indexing.put``) exactly as the tree calls it.

Results are the tree's: the direct subscripts are what the generic kernels do for these
kinds (NumPy scalars from arrays, list items as they are, NumPy's casting on writes,
views that alias).  An error is located at the node whose line of the generated code
raised it (the traceback's line number, no bookkeeping per step), with the Phylanx class
standing for the Python one (an index out of range is a located ``IndexError``).  The
setting ``scalar_loops`` switches it off; a recording compiler (autodiff) never uses it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import config
from ..errors import PhylanxError
from ..runtime import hooks
from ..runtime.nodes import Node, wrap_exception
from ..values import ControlSignal
from .scalar_translate import FILE_PREFIX, PURE, Translator, Unsupported

__all__ = ["PURE", "build", "enabled", "plain", "translated", "yield_to_fusion"]

#: types whose values are plain as they are
_PLAIN_TYPES = frozenset((type(None), bool, int, float, complex, str, range))


def plain(value: Any) -> bool:
    """True if ``value`` is a kind the generated code handles as the tree does (see the
    module's docstring); a list or tuple is plain if its items are (at every depth)."""
    t = type(value)
    if t in _PLAIN_TYPES:
        return True
    if t is np.ndarray:
        return value.dtype.kind != "O"
    if isinstance(value, np.generic):
        return not isinstance(value, np.object_)
    if t is list or t is tuple:
        # items of the common types tested at C speed; the rest one by one (nested lists)
        if all(map(_PLAIN_TYPES.__contains__, map(type, value))):
            return True
        for item in value:
            if not plain(item):
                return False
        return True
    return False


def enabled(compiler) -> bool:
    """True if loops built by ``compiler`` may be translated: the setting is on, no
    tracing, and ``compiler`` builds the plain closures (autodiff's recording compiler
    overrides ``build_eager`` to record every application: it must see every node)."""
    from .compiler import Compiler
    return (bool(config.get("scalar_loops")) and not config.get("tracing")
            and type(compiler).build_eager is Compiler.build_eager)


def build(node: Node, tree_run, opaque: frozenset = frozenset()):
    """The closure of the ``for_each`` or ``while`` ``node``: its Python translation when
    every variable it reads is plain, else ``tree_run``; None if the subtree cannot be
    translated.  The nodes of ``opaque`` run through their own closures."""
    try:
        translator = Translator(arrays=bool(config.get("array_loops")), opaque=opaque,
                                invariants=bool(config.get("loop_invariants")),
                                versions=bool(config.get("loop_versions")))
        compiled, reads, lines = translator.translate(node)
    except Unsupported:
        return None
    active = hooks.active()   # the list itself: instruments installed later are seen

    def run(frame):
        if node.choice.counted or active or hooks.recorder is not None:
            # measured (counters: measure.enable wraps every node of the tree), an
            # instrument or a timeline: each node must run as itself
            return tree_run(frame)
        for slot in reads:
            if not plain(frame[slot]):
                return tree_run(frame)
        try:
            return compiled(frame)
        except ControlSignal:
            raise
        except Exception as e:
            raise _located(e, lines, node) from (None if isinstance(e, PhylanxError) else e)
    run.scalar_loop = compiled    # the generated function (``.source``): tests read it
    run.tree_run = tree_run       # what :func:`yield_to_fusion` gives the loop back
    return run


def yield_to_fusion(fused: list[Node]) -> None:
    """Fusion wins: every translated loop enclosing a node of ``fused`` (the nodes
    ``fusion.install`` gave a compiled loop, a fused region or a row pass) is translated
    again with those nodes run through their own closures (``Translator.emit_opaque``),
    so that the generated code never bypasses what fusion built (the tree if that
    translation fails).  Called by the compiler right after ``fusion.install``, before
    the program first runs (the plan is still being built)."""
    inside: dict[Node, set] = {}
    for node in fused:
        outer = node.parent
        while outer is not None:
            if translated(outer):
                inside.setdefault(outer, set()).add(node)
            outer = outer.parent
    for loop, taken in inside.items():
        tree_run = loop.run.tree_run
        loop.set_run(build(loop, tree_run, frozenset(taken)) or tree_run)


def translated(node: Node) -> bool:
    """True if ``node``'s closure is a Python translation of its loop (tests read it)."""
    return getattr(node.run, "scalar_loop", None) is not None


def _located(error: Exception, lines: list, loop: Node) -> PhylanxError:
    """``error`` located at the node of the generated line it was raised on (the deepest
    frame of the generated code in its traceback), else at the loop."""
    at = loop
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(FILE_PREFIX):
            line = tb.tb_lineno
            if 0 < line <= len(lines) and lines[line - 1] is not None:
                at = lines[line - 1]
        tb = tb.tb_next
    if isinstance(error, PhylanxError):
        return at.locate(error)
    return wrap_exception(error, at.loc, at.primitive)


