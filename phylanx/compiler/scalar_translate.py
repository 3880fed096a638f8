"""The Python text of a loop subtree (``compiler/scalar_loops.py`` runs it).

:class:`Translator` writes one line per node of a ``for_each``/``while`` subtree: locals
of the function's frame as Python locals, each operator as the Python operator its
two-operand kernel is, other kernels of :data:`PURE` (and, for array loops, of
:func:`plain_kernel`) called directly, subscripts by
integers (Python ints, NumPy integer scalars) and ``None`` indexed directly under an
explicit kind test (the generic kernel otherwise),
``if``/``block``/``define``/``store`` and nested loops as Python statements.  It also
proves a few facts, so that fewer tests run per step: which expressions are Python ints
(literals, counters of a ``range`` loop in their body, int arithmetic on them, ``len``)
and which variables the subtree never assigns (their kind tests run once per run).
Array loops also index arrays by slices (``x[a:b]``, bounds integers) and store into
them (``x[a:b] = v``) directly, and
compute loop invariants once per run of their loop (``loop_invariants.py``).  The
loop is written twice, a fast version without the kind tests of variables it never
assigns run when those hold at entry, and an index that is a Python int whenever some
variables are at an inner loop's entry is tested there once (``loop_versions.py``).  A node
it fused declines is run as its translation (:meth:`Translator.emit_opaque`).  A
node it does not take raises :class:`Unsupported`: the tree runs that loop.
"""
from __future__ import annotations

import itertools
import operator
from typing import Any

import numpy as np

from ..primitives import indexing, registry
from ..primitives.controls.control_flow import iterate
from ..primitives.frontend_support import python_builtins
from ..runtime.cancel import PENDING, check
from ..runtime.futures import Future, waited
from ..runtime.nodes import Node
from ..values import NEWAXIS, truth
from . import loop_buffers, loop_invariants, loop_versions
from .dependencies import primitive_is_pure

#: eager primitives whose kernels give plain results for plain operands (no futures, no
#: distributed arrays, no side effect beyond the list or array they are given)
PURE = frozenset((
    "__add", "__sub", "__mul", "__div", "__mod", "__floordiv", "__minus", "__pos",
    "__eq", "__ne", "__lt", "__le", "__gt", "__ge", "__bitand", "__bitor", "__bitxor",
    "power", "__pyabs", "__pynot", "__pyconvert", "__pymin", "__pymax", "__len", "range",
    "__pyindex", "__subscript", "__inplace", "list", "shape",
))

_plain_kernels: dict[str, bool] = {}


def plain_kernel(name: str) -> bool:
    """True if ``name`` is an eager primitive whose kernel maps plain operands to plain
    results and does nothing else (the registry's flags say so): not a compiler form nor
    a builder of closures (``special``/``lazy``), no side effect or ordered collective
    (``dependencies.primitive_is_pure``), calls no function value (``higher_order``),
    holds no future (``takes_futures``), is not a distributed primitive (``dist_*``) and
    has no dtype-suffixed variant's wrapper.  For such a primitive the tree's closure,
    given plain operands, calls the kernel and nothing else (its kind dispatch only acts
    on futures and tiled arrays, ``takes_tiled`` included): a generated line calling it
    computes the same."""
    known = _plain_kernels.get(name)
    if known is None:
        spec = registry.lookup(name)
        known = (spec is not None and spec.impl is not None and not spec.lazy
                 and not spec.special and not spec.higher_order
                 and not spec.flags.get("takes_futures") and not registry.dtype_suffix(name)
                 and not spec.category.startswith("dist_") and primitive_is_pure(name))
        _plain_kernels[name] = known
    return known


#: the Python operators two-operand kernels are (``flags["binary"]``), as infix text
_INFIX = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
    operator.mod: "%", operator.floordiv: "//", operator.eq: "==", operator.ne: "!=",
    operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">=",
    operator.and_: "&", operator.or_: "|", operator.xor: "^",
}

_NUMBERS = loop_versions.NUMBERS

FILE_PREFIX = "<phylanx scalar loop "
_serial = itertools.count()


class Unsupported(Exception):  # noqa: N818 - a signal of the translator, never raised out
    """The subtree holds a node this translator does not take: the tree runs it."""


class Translator(loop_invariants.Emission, loop_versions.Versions):
    """One subtree as the text of a Python function ``loop(frame)``."""

    def __init__(self, arrays: bool = False, opaque: frozenset = frozenset(),
                 invariants: bool = True, versions: bool = True):
        # also every primitive of :func:`plain_kernel` (array loops), not only PURE's
        self.arrays = arrays
        # nodes run through their own closure (what fusion built for them), see emit_opaque
        self.opaque = opaque
        self.lines: list[tuple[int, str, Node | None]] = []
        self.names: dict[str, Any] = {}
        self.reads: set[int] = set()
        self.writes: set[int] = set()
        self.depth = 1
        self.temps = 0
        # facts the translation proves, so that it tests less per step: expressions known
        # to be Python ints (literals, counters of a range loop inside its body, int
        # arithmetic), and kind tests of variables assigned nowhere in the subtree
        # (computed once per run, in ``flags``)
        self.ints: set[str] = set()
        self.flags: dict[str, str] = {}
        # results of arithmetic operators read by nothing but their one consumer (never
        # bound to a variable): their buffers may take that consumer's result
        # (loop_buffers.py)
        self.fresh: set[str] = set()
        # the loops being written, innermost last (loop_invariants.LoopFacts), and the
        # lazily bound locals each resets at its entry
        self.invariants = invariants
        self.loops: list[loop_invariants.LoopFacts] = []
        self.lazies = 0
        # a second, fast version without the kind tests of unassigned variables
        # (loop_versions.py); not beside fused nodes (their alternatives save the state)
        self.start_versions(versions and not opaque)

    # -- output -----------------------------------------------------------
    def line(self, text: str, node: Node | None) -> None:
        self.lines.append((self.depth, text, node))

    def temp(self) -> str:
        self.temps += 1
        return f"t{self.temps}"

    def name(self, value: Any, hint: str) -> str:
        """A name bound to ``value`` in the generated function's globals."""
        key = f"{hint}{len(self.names)}"
        self.names[key] = value
        return key

    def translate(self, root: Node):
        self.writers = _writers(root)
        result = self.emit(root)   # (its parent is built after it: the value is kept)
        if self.versions:
            general, self.lines = self.lines, []
            self.ints, self.fresh = set(), set()
            self.start_fast()
            fast_result = self.emit(root)
            self.lines = self.versioned(general, self.lines, fast_result)
        self.line(f"return {result}", None)
        used = sorted(self.reads | self.writes)
        namespace = dict(self.names, type=type, min=min, max=max,
                         _nd=np.ndarray, _ints=_INDEX_INTS, _list=list, _str=str,
                         _tuple=tuple, _range=range,
                         _T=np.True_, _F=np.False_, _truth=truth, _iterate=iterate,
                         _PENDING=PENDING, _check=check, _NUMBERS=_NUMBERS,
                         _put=_put_python, _pyindex=_pyindex_kernel(),
                         _Future=Future, _waited=waited,
                         _reuse_left=loop_buffers.reuse_left,
                         _reuse_right=loop_buffers.reuse_right,
                         _MIN_BUFFER=loop_buffers.MIN_ELEMENTS,
                         _update=python_builtins.update,
                         _UNSET=loop_invariants.UNSET, _NEVER=loop_invariants.NEVER,
                         _keep=loop_invariants.keep,
                         _unaliased=loop_invariants.unaliased)
        # every name the code uses is a default argument: a local, the fastest read
        defaults = ", ".join(f"{n}={n}" for n in namespace)
        head = [f"def loop(frame, {defaults}):"]
        head += [f"    v{s} = frame[{s}]" for s in used]
        head += [f"    {name} = {test}" for name, test in self.flags.items()]
        head.append("    try:")
        body = ["    " * (d + 1) + text for d, text, _ in self.lines]
        tail = ["    finally:"]
        tail += [f"        frame[{s}] = v{s}" for s in sorted(self.writes)] or ["        pass"]
        source = "\n".join(head + body + tail) + "\n"
        owners: list[Node | None] = [None] * (len(head) + len(body) + len(tail))
        for k, (_, _, node) in enumerate(self.lines):
            owners[len(head) + k] = node
        filename = f"{FILE_PREFIX}{next(_serial)} at {root.display_name}>"
        exec(compile(source, filename, "exec"), namespace)   # noqa: S102 - our own text
        loop = namespace["loop"]
        loop.source = source
        return loop, tuple(sorted(self.reads)), owners

    # -- nodes --------------------------------------------------------------
    def emit(self, node: Node, want: bool = True) -> str:
        """Lines computing ``node``; returns the expression (a name) of its value.  With
        ``want`` false the value is not used: control forms skip keeping it (every
        operation is still computed, for its effects and errors)."""
        if node in self.opaque:
            return self.emit_opaque(node)
        if node.is_const:
            v = node.value
            if type(v) is int or v is None or v is True or v is False:
                return repr(v)
            return self.name(v, "c")
        p = node.primitive
        if p == "access-variable":
            slot = self.local_slot(node)
            self.reads.add(slot)
            return f"v{slot}"   # the caller copies it if a later operand assigns it
        if p == "define-variable":
            slot = self.local_slot(node)
            value = self.emit(node.children[0])
            self.fresh.discard(value)   # the variable holds it too
            self.writes.add(slot)
            self.line(f"v{slot} = {value}", node)
            self.prove(f"v{slot}", self.number(value))
            return value
        if p == "store":
            return self.emit_store(node)
        if want and p in _CONTROL and _valueless(node):
            self.emit(node, False)   # its value is None whatever runs: nothing to keep
            return "None"
        if p == "block":
            result = "None"
            for k, child in enumerate(node.children):
                result = self.emit(child, want and k == len(node.children) - 1)
            return result
        if p == "if":
            return self.emit_if(node, want)
        if p == "for_each":
            return self.emit_for(node, want)
        if p == "while":
            return self.emit_while(node, want)
        if p == "__subscript":
            return self.emit_subscript(node)
        if p in PURE or (self.arrays and plain_kernel(p)):
            return self.emit_kernel(node)
        raise Unsupported(p)

    def pure(self, node: Node) -> bool:
        """True if ``node`` is a kernel the generated code calls as it is (no fusion)."""
        p = node.primitive
        return node not in self.opaque and (p in PURE or (self.arrays and plain_kernel(p)))

    def assigned(self, node: Node) -> dict[int, int]:
        return _writers(node)

    def emit_opaque(self, node: Node) -> str:
        """``node`` evaluated by its own closure (``node.choice.call(frame)``): the
        variables its subtree reads or writes are written to the frame before and the
        ones it writes read back after (a fused region reads them there, a compiled loop
        writes them there); a future it gives (a task) is waited for, as a parent's
        closure does."""
        reads, writes = set(), set()
        for inner in node.walk():
            p = inner.primitive
            if inner.variable is None or p not in _VARIABLE_FORMS:
                continue
            slot = self.local_slot(inner)
            (reads if p == "access-variable" else writes).add(slot)
        self.reads |= reads   # loaded at entry (and tested plain) like the loop's own
        self.writes |= writes
        for slot in sorted(reads | writes):
            self.line(f"frame[{slot}] = v{slot}", node)
        entry = self.name(node.choice, "n")
        t = self.temp()
        declines = getattr(getattr(node.choice.variant, "__self__", None), "declines", None)
        translation = self.translated_alternative(node, t) if declines else None
        if translation is not None:
            # what fusion built declines this evaluation (e.g. a row pass of a small
            # matrix runs the expression as written): the translation computes the same
            self.line(f"if {self.name(declines, 'n')}(frame):", node)
            self.lines.extend(translation)
            self.line("else:", node)
        self.depth += translation is not None
        self.line(f"{t} = {entry}.call(frame)", node)
        self.line(f"if type({t}) is _Future: {t} = _waited({t})", node)
        for slot in sorted(writes):
            self.line(f"v{slot} = frame[{slot}]", node)
        self.forget(writes)
        self.depth -= translation is not None
        return t

    def translated_alternative(self, node: Node, target: str) -> list | None:
        """The lines (one level deeper) computing ``node`` as a translation into
        ``target``, or None if its subtree cannot be translated (the state of the
        translator is then as it was)."""
        saved = (len(self.lines), set(self.reads), set(self.writes), set(self.fresh),
                 set(self.ints), dict(self.flags), len(self.loops), self.temps)
        facts = self.versions_state()
        self.opaque = self.opaque - {node}
        self.depth += 1
        try:
            value = self.emit(node)
            self.fresh.discard(value)
            self.line(f"{target} = {value}", node)
            lines = self.lines[saved[0]:]
        except Unsupported:
            lines = None
        finally:
            self.depth -= 1
            self.opaque = self.opaque | {node}
        del self.lines[saved[0]:]
        if lines is None:
            (_, self.reads, self.writes, self.fresh, self.ints, self.flags, depth,
             self.temps) = saved
            self.restore_versions_state(facts)
            del self.loops[depth:]
        return lines

    def local_slot(self, node: Node) -> int:
        """The slot of the variable ``node`` reads or binds, if it is in the current frame."""
        variable = node.variable
        if variable is None or variable[0] is None or variable[0][0] != 0:
            raise Unsupported("a variable of an enclosing frame")
        return variable[2]

    def operands(self, children, reused: tuple = (), any_kind: bool = False) -> list[str]:
        """The values of ``children``, evaluated in order: a variable's value is copied
        when a later operand assigns it (``x + block(store(x, 2), x)`` reads the old x).
        An operand at a position of ``reused`` that is invariant in the innermost loop is
        computed once per run of it (:meth:`emit_reused`)."""
        values = []
        for k, child in enumerate(children):
            value = self.emit_reused(child, any_kind) if k in reused else self.emit(child)
            if value.startswith("v") and value[1:].isdigit() and any(
                    int(value[1:]) in _writers(later) for later in children[k + 1:]):
                t = self.temp()
                self.line(f"{t} = {value}", child)
                if value in self.ints:
                    self.ints.add(t)
                self.prove(t, self.number(value))
                value = t
            values.append(value)
        return values

    def emit_update(self, node: Node) -> str | None:
        """``x op= e`` (``__inplace(x, op(x, e))``, the frontend reading ``x`` twice in a
        row) as ``_update(op, x, e)`` (``python_builtins.update``): ``x`` read once,
        the result computed into it where that is the same, a number rebound inline;
        None if ``node`` is not of that form (an operator without a ufunc, a dtype
        variant, a target that is not a plain read)."""
        if len(node.children) != 2:
            return None
        target, value = node.children
        value_spec = registry.lookup(value.primitive)
        # the checks emit_kernel makes of the value node it no longer emits: a dtype
        # variant (``__add__int``: the sum cast) is not the operator
        if value_spec is None or len(value.children) != 2 or value in self.opaque \
                or value_spec.lazy or value_spec.special \
                or registry.dtype_suffix(value.primitive):
            return None
        op = value_spec.flags.get("binary")
        if op not in loop_buffers.UFUNCS or _INFIX.get(op) is None \
                or not _same_read(target, value.children[0]):
            return None
        # the second read of the target came right after the first: the same value (the
        # other operand is evaluated after both, in either form)
        args = self.operands([target, value.children[1]])
        t = self.temp()
        # a number (a counter, an element summed) is rebound: the operator inline, as
        # before, without the two calls per iteration of _update's fallback
        if self.use_numbers(args[:1]):
            self.line(f"{t} = {args[0]} {_INFIX[op]} {args[1]}", node)
        else:
            flag = self.int_flag(args[0])   # a Python int at every step: a loop's entry test
            test = f"type({args[0]}) in _NUMBERS"
            self.line(f"{t} = {args[0]} {_INFIX[op]} {args[1]} if "
                      f"{test if flag is None else f'({flag} or {test})'} else "
                      f"_update({self.name(op, 'k')}, {args[0]}, {args[1]})", node)
        if _INFIX[op] in loop_versions.NUMBER_CLOSED:
            self.prove(t, self.numbers_of(args))
        return t

    def emit_kernel(self, node: Node) -> str:
        spec = registry.lookup(node.primitive)
        if spec is None or spec.lazy or spec.special or registry.dtype_suffix(node.primitive):
            raise Unsupported(node.primitive)
        # readers that neither change nor keep an operand (loop_invariants.py): the
        # operators and products; an operand a kernel prepares from alone
        if node.primitive == "__inplace" and self.arrays:
            updated = self.emit_update(node)
            if updated is not None:
                return updated
        everything = range(len(node.children))
        prepared = spec.flags.get("invariant_operand") if self.arrays else None
        if prepared is not None and prepared[0] < len(node.children):
            return self.emit_prepared(node, prepared)
        reused = everything if ((len(node.children) == 2 and spec.flags.get("binary") in
                                 _INFIX) or spec.flags.get("blas")) else ()
        args = self.operands(node.children, reused)
        t = self.temp()
        if len(args) == 2 and "binary" in spec.flags:
            op = spec.flags["binary"]
            infix = _INFIX.get(op)
            if infix is not None:
                dead = [a in self.fresh for a in args] if self.arrays else [False, False]
                if op in loop_buffers.UFUNCS and any(dead):
                    # an operand only this operation reads: its buffer may take the result;
                    # below MIN_ELEMENTS (a number, a small array) _reuse_* computes the
                    # operator itself, so that case is the operator inline (no call)
                    side = "_reuse_left" if dead[0] else "_reuse_right"
                    buffer = args[0] if dead[0] else args[1]
                    self.line(f"{t} = {side}({self.name(op, 'k')}, {args[0]}, {args[1]}) "
                              f"if type({buffer}) is _nd and {buffer}.size >= _MIN_BUFFER "
                              f"else {args[0]} {infix} {args[1]}", node)
                else:
                    self.line(f"{t} = {args[0]} {infix} {args[1]}", node)
                if op in loop_buffers.UFUNCS:
                    self.fresh.add(t)
                if infix in _INT_CLOSED and self.is_int(args[0]) and self.is_int(args[1]):
                    self.ints.add(t)   # int <op> int is an int (or raises)
                elif infix in _INT_CLOSED:
                    self.note_int(t, args)
                if infix in loop_versions.NUMBER_CLOSED:
                    self.equality(t, infix, args)
                return t
            kernel = self.name(op, "k")
        else:
            kernel = self.name(spec.impl, "k")
        if len(args) == 1 and spec.flags.get("unary") is operator.neg:
            # the kernel is the prefix operator (``flags["unary"]``), as binary ones are
            self.line(f"{t} = -{args[0]}", node)
            return t
        if node.primitive == "list":
            # the list kernel of plain items (every value in the loop is plain: no future
            # to gather) is the Python list of them
            self.line(f"{t} = [{', '.join(args)}]", node)
            return t
        if node.primitive == "__inplace" and len(args) == 2:
            # ``x += e`` on a value that is neither an array nor a list is ``e`` (inplace)
            self.line(f"{t} = {kernel}({args[0]}, {args[1]}) if type({args[0]}) is _nd or "
                      f"type({args[0]}) is _list else {args[1]}", node)
            return t
        if node.primitive == "range" and _builtin_range(node, args):
            # Python ints (not bools): the kernel is Python's range after to_int, which
            # gives them back (a zero step is left to the kernel's located error)
            tests = " and ".join(f"type({a}) is int" for a in args if not self.is_int(a))
            direct = f"_range({', '.join(args)})"
            self.line(f"{t} = {direct}" if not tests else
                      f"{t} = {direct} if {tests} else {kernel}({', '.join(args)})", node)
            return t
        if node.primitive in ("__pymin", "__pymax") and len(args) >= 2:
            # Python's min/max are these kernels for numbers (first extreme, truth of <)
            builtin = "min" if node.primitive == "__pymin" else "max"
            if self.use_numbers(args):   # proven numbers (loop_versions.py)
                self.line(f"{t} = {builtin}({', '.join(args)})", node)
                self.prove(t, self.numbers_of(args))   # one of them
                return t
            kinds = " and ".join(f"type({a}) in _NUMBERS" for a in args)
            self.line(f"{t} = {builtin}({', '.join(args)}) if {kinds} else "
                      f"{kernel}({', '.join(args)})", node)
            return t
        self.line(f"{t} = {kernel}({', '.join(args)})", node)
        if node.primitive == "__len":
            self.ints.add(t)   # len_ gives a Python int (or raises)
        return t

    def is_int(self, expr: str) -> bool:
        """True if ``expr`` is known to hold a Python int (a literal, a proven temp)."""
        return expr in self.ints or expr.lstrip("-").isdigit()

    def base_test(self, base: str, test: str) -> str:
        """``test`` (about ``base``'s kind) computed once per run when ``base`` is a
        variable assigned nowhere in the subtree, else as it is ("True" in the fast
        version: it runs only when the flag holds, loop_versions.py)."""
        name = self.flag(base, test)
        if name is None:
            return test
        if self.assume:   # the fast version runs only where it holds
            self.assumed.add(name)
            return "True"
        return name

    def emit_indices(self, children, indices: range) -> tuple[list[str], list[str]]:
        """(raw values, the values the generic kernel takes) of ``children`` (a
        subscript's base, indices and a store's value): an index (position in
        ``indices``) the frontend wrapped in ``__pyindex`` is tested raw (an int is its
        own index) and given to the generic kernel through ``__pyindex``."""
        peeled = [k in indices and _is_pyindex(c) for k, c in enumerate(children)]
        inner = [c.children[0] if p else c for c, p in zip(children, peeled)]
        # an index is only looked at by the subscript: any kind of value may be reused
        raw = self.operands(inner, indices, any_kind=True)
        generic = [f"_pyindex({v})" if p else v for v, p in zip(raw, peeled)]
        return raw, generic

    def fast_test(self, base: str, raw: list[str]) -> str:
        """The condition under which ``base[raw...]`` is what the generic kernels do."""
        ints = " and ".join(self.index_test(i) for i in raw if not self.is_int(i)) or "True"
        if len(raw) == 1:
            kind = (f"(type({base}) is _nd or type({base}) is _list or type({base}) is _str "
                    f"or type({base}) is _tuple)")
        else:
            kind = f"type({base}) is _nd"
        return _all([self.base_test(base, kind), ints])

    def emit_subscript(self, node: Node) -> str:
        if not node.children:
            raise Unsupported("a subscript of nothing")
        kernel = self.name(registry.lookup("__subscript").impl, "k")
        if len(node.children) == 1:   # x[()]: the generic kernel (a 0-d array's element)
            base = self.operands(node.children)[0]
            t = self.temp()
            self.line(f"{t} = {kernel}({base})", node)
            return t
        if self.arrays and any(_slice_list(c) for c in node.children[1:]):
            return self.emit_sliced(node, kernel)
        values, generic = self.emit_indices(node.children, range(1, len(node.children)))
        base, raw, generic = values[0], values[1:], generic[1:]
        t = self.temp()
        test = self.fast_test(base, raw)
        if test == "True":   # the fast version (loop_versions.py)
            self.line(f"{t} = {base}[{', '.join(raw)}]", node)
            self.element(t, base, raw)
            return t
        self.line(f"{t} = {base}[{', '.join(raw)}] if {test} else "
                  f"{kernel}({base}, {', '.join(generic)})", node)
        return t

    def emit_sliced(self, node: Node, kernel: str) -> str:
        """``x[a:b, i]`` (slice lists ``list(a, b[, step])`` among Python int indices):
        NumPy's basic subscript with Python slices when ``x`` is an ``ndarray`` and every
        bound is a Python int or a literal nil (what ``slicing._basic_indices`` makes of
        them for the generic kernel), else the generic kernel given the lists."""
        base, direct, generic, test, _ = self.sliced_indices(node.children)
        t = self.temp()
        self.line(f"{t} = {base}[{direct}]" if test == "True" else
                  f"{t} = {base}[{direct}] if {test} else {kernel}({base}, {generic})", node)
        return t

    def emit_sliced_store(self, node: Node) -> str:
        """``x[a:b, i] = v``: NumPy's assignment with Python slices under the test of
        :meth:`emit_sliced` (an array of one axis or more: ``indexing.put`` assigns so),
        else the tree's store (``_put``: Python's index checks, then ``put``)."""
        base, direct, generic, test, value = self.sliced_indices(node.children, store=True)
        self.emit_put(test, f"{base}[{direct}] = {value}", f"_put({base}, [{generic}], {value})",
                      node)
        return "None"

    def emit_put(self, test: str, direct: str, generic: str, node: Node) -> None:
        """``direct`` if ``test`` holds, else ``generic`` (``direct`` alone in the fast
        version, where ``test`` is "True")."""
        if test == "True":
            self.line(direct, node)
            return
        self.line(f"if {test}: {direct}", node)
        self.line(f"else: {generic}", node)

    def sliced_indices(self, children, store: bool = False):
        """(base, direct indices, generic arguments, the direct path's test, the stored
        value or None) of a subscript's ``children`` holding slice lists."""
        flat, shape = [children[0]], []
        for child in children[1:len(children) - store]:
            if _slice_list(child):
                flat.extend(child.children)
                shape.append(len(child.children))
            elif _is_newaxis(child):    # NumPy's None; nothing to evaluate
                shape.append(_NEWAXIS_WIDTH)
            else:
                flat.append(child.children[0] if _is_pyindex(child) else child)
                shape.append(-1 if _is_pyindex(child) else 0)
        if store:
            flat.append(children[-1])
        values = self.operands(flat, range(1, len(flat) - store), any_kind=True)
        base, rest = values[0], values[1:]
        value = rest.pop() if store else None
        direct, generic, tested = [], [], []
        make_list = self.name(registry.lookup("list").impl, "k")
        for width in shape:
            if width == _NEWAXIS_WIDTH:
                direct.append("None")
                generic.append(self.name(NEWAXIS, "c"))
                continue
            if width <= 0:
                index, rest = rest[0], rest[1:]
                direct.append(index)
                generic.append(f"_pyindex({index})" if width < 0 else index)
                tested.append(index)
                continue
            bounds, rest = rest[:width], rest[width:]
            direct.append(":".join("" if b == "None" else b for b in bounds)
                          + (":" if width == 1 else ""))
            generic.append(f"{make_list}({', '.join(bounds)})")
            tested.extend(b for b in bounds if b != "None")
        # a 0-d array is refused by indexing.get and .put with their own errors
        kind = f"(type({base}) is _nd and {base}.ndim)"
        test = _all([self.base_test(base, kind)] + [
            self.index_test(v) for v in tested if not self.is_int(v)])
        return base, ", ".join(direct), ", ".join(generic), test, value

    def emit_store(self, node: Node) -> str:
        if node.instance != "__subscript" and len(node.children) == 1:
            slot = self.local_slot(node)
            value = self.emit(node.children[0])
            self.fresh.discard(value)
            self.writes.add(slot)
            self.line(f"v{slot} = {value}", node)
            self.prove(f"v{slot}", self.number(value))
            return "None"
        if node.instance != "__subscript" or len(node.children) < 3:
            raise Unsupported("a store into a PhySL slice")
        if self.arrays and any(_slice_list(c) for c in node.children[1:-1]):
            return self.emit_sliced_store(node)
        values, generic = self.emit_indices(node.children, range(1, len(node.children) - 1))
        base, raw, value, generic = values[0], values[1:-1], values[-1], generic[1:-1]
        # a 0-d array is refused by indexing.put (a ValueError), not indexed; a string
        # has no item assignment (the generic path says so)
        kind = f"(type({base}) is _nd and {base}.ndim)"
        if len(raw) == 1:
            kind = f"({kind} or type({base}) is _list)"
        kind = self.base_test(base, kind)
        ints = [self.index_test(i) for i in raw if not self.is_int(i)]
        self.emit_put(_all([kind, *ints]), f"{base}[{', '.join(raw)}] = {value}",
                      f"_put({base}, [{', '.join(generic)}], {value})", node)
        return "None"

    def emit_if(self, node: Node, want: bool) -> str:
        children = node.children
        if len(children) not in (2, 3):
            raise Unsupported("if")
        cond = self.emit(children[0])
        t = self.temp() if want else "None"
        self.line(f"if {self.truth_test(cond)}:", node)
        taken = self.branch(children[1], t, node)
        other = None
        if want or len(children) == 3:
            self.line("else:", node)
            other = self.branch(children[2] if len(children) == 3 else None, t, node)
        if want:
            self.prove(t, None if taken is None or other is None else taken | other)
        return t

    def truth_test(self, value: str) -> str:
        """PhySL's truth of ``value``: Python's for a proven number (``truth`` is
        ``bool`` there, loop_versions.py), else :func:`_truth_test`."""
        return value if self.use_numbers([value]) else _truth_test(value)

    def branch(self, child: Node | None, target: str, owner: Node) -> frozenset | None:
        """One indented block computing ``child`` (None: nothing) into ``target`` (a
        name, or "None": the value is not kept); returns the flags under which the
        value is a number (None: not proven)."""
        self.depth += 1
        start = len(self.lines)
        value = "None" if child is None else self.emit(child, target != "None")
        self.fresh.discard(value)
        number = self.number(value)
        if target != "None":
            self.line(f"{target} = {value}", owner)
        elif len(self.lines) == start:
            self.line("pass", owner)
        self.depth -= 1
        if child is not None:
            self.forget(_writers(child))   # assigned in this branch only, or in a loop
        return number

    def emit_for(self, node: Node, want: bool) -> str:
        if not node.instance or len(node.children) != 2:
            raise Unsupported("a for_each over a function value")
        slot = self.local_slot(node)
        iterable, body = node.children
        items = self.emit(iterable)
        t = self.temp() if want else "None"
        self.writes.add(slot)
        if want:
            self.line(f"{t} = None", node)
        header = self.enter_loop(node)
        self.forget(self.assigned(node))   # the values of the previous iteration
        if iterable.primitive == "range" and not iterable.is_const:
            # the range kernel gives a range (or raises): iterate() would return it
            self.line(f"for v{slot} in {items}:", node)
        else:
            self.line(f"for v{slot} in _iterate({items}):", node)
        self.depth += 1
        self.line("if _PENDING[0]: _check()", node)
        # in its body, a counter over a range assigned nowhere else is a Python int
        counter = iterable.primitive == "range" and self.writers.get(slot) == 1
        if counter:
            self.ints.add(f"v{slot}")
        self.depth -= 1
        self.branch(body, t, node)
        self.leave_loop(node, header)
        self.ints.discard(f"v{slot}")
        return t

    def emit_while(self, node: Node, want: bool) -> str:
        if len(node.children) != 2:
            raise Unsupported("while")
        cond_node, body = node.children
        t = self.temp() if want else "None"
        if want:
            self.line(f"{t} = None", node)
        header = self.enter_loop(node)
        self.forget(self.assigned(node))   # the values of the previous iteration
        self.line("while True:", node)
        self.depth += 1
        cond = self.emit(cond_node)
        self.line(f"if not ({self.truth_test(cond)}): break", node)
        self.line("if _PENDING[0]: _check()", node)
        self.depth -= 1
        self.branch(body, t, node)
        self.leave_loop(node, header)
        return t


#: infix operators whose result is an int when both operands are ints
_INT_CLOSED = frozenset(("+", "-", "*", "//", "%"))


_CONTROL = frozenset(("block", "if", "for_each", "while"))

#: the forms whose ``node.variable`` is a variable they read or assign
_VARIABLE_FORMS = frozenset(("access-variable", "define-variable", "store", "for_each"))


def _valueless(node: Node) -> bool:
    """True if ``node``'s value is None however it runs: a ``store``, or a control form
    whose every possible value is (a loop's value is its last body's, None if it never
    ran; an ``if`` without ``else`` gives None when the test fails)."""
    p = node.primitive
    if p == "store":
        return True
    if p == "block":
        return not node.children or _valueless(node.children[-1])
    if p == "if":
        return all(_valueless(c) for c in node.children[1:])
    if p == "for_each" or p == "while":
        return len(node.children) == 2 and _valueless(node.children[-1])
    return False


def _builtin_range(node: Node, args: list[str]) -> bool:
    """``range(a[, b[, step]])`` whose step, if any, is a non-zero int literal."""
    if len(args) == 3:
        step = node.children[2]
        return step.is_const and type(step.value) is int and step.value != 0
    return 1 <= len(args) <= 2


def _all(tests: list[str]) -> str:
    """The conjunction of ``tests`` without the ones known true ("True" if none is left)."""
    return " and ".join(t for t in tests if t != "True") or "True"


def _truth_test(value: str) -> str:
    """PhySL's truth of ``value`` as the ``if`` primitive tests it (a bool first)."""
    return (f"{value} is True or {value} is _T or ({value} is not False and "
            f"{value} is not _F and _truth({value}))")


def _slice_list(node: Node) -> bool:
    """``node`` is a slice list ``list(start, stop[, step])`` with a literal non-zero int
    step if any (a zero step is the generic kernel's error)."""
    if node.primitive != "list" or node.is_const or not 1 <= len(node.children) <= 3:
        return False
    if len(node.children) == 3:
        step = node.children[2]
        return step.is_const and type(step.value) is int and step.value != 0
    return True


#: the types of an integer index the direct subscript takes as the generic kernels do
#: (``indexing.to_index``: a Python int or a NumPy integer scalar, as ``int(i)``): an
#: element of an integer array used as an index (``emit[s, obs[t]]``) stays direct
_INDEX_INTS = frozenset([int, *(np.dtype(c).type for c in np.typecodes["AllInteger"])])

#: a position of ``emit_sliced``'s index shape holding NumPy's ``None``
_NEWAXIS_WIDTH = -2


def _is_newaxis(node: Node) -> bool:
    return node.primitive == "__newaxis" and not node.children


def _is_pyindex(node: Node) -> bool:
    return node.primitive == "__pyindex" and len(node.children) == 1 and not node.is_const


#: the forms of a read the frontend writes twice for ``x op= e`` (``x``, ``x[i, 1:n]``)
_READS = frozenset(("access-variable", "__subscript", "list", "__pyindex"))
_LITERAL_TYPES = (int, bool, type(None))


def _same_read(a: Node, b: Node) -> bool:
    """True if ``a`` and ``b`` read the same thing: the same local variable, subscripted
    by the same integer/None literals and variables (no operation with an effect)."""
    if a.is_const or b.is_const:
        return (a.is_const and b.is_const and type(a.value) is type(b.value)
                and isinstance(a.value, _LITERAL_TYPES) and a.value == b.value)
    if a.primitive != b.primitive or a.primitive not in _READS \
            or len(a.children) != len(b.children):
        return False
    if a.primitive == "access-variable":
        va, vb = a.variable, b.variable
        return va is not None and vb is not None and va[0] == vb[0] and va[2] == vb[2]
    return all(map(_same_read, a.children, b.children))


def _writers(root: Node) -> dict[int, int]:
    """slot -> how many nodes of ``root``'s subtree assign it (define, store, a loop)."""
    count: dict[int, int] = {}
    for node in root.walk():
        p = node.primitive
        if p == "define-variable" or p == "for_each" or (
                p == "store" and node.instance != "__subscript"):
            variable = node.variable
            if variable is not None:
                count[variable[2]] = count.get(variable[2], 0) + 1
    return count


def _pyindex_kernel():
    return registry.lookup("__pyindex").impl


def _put_python(container, indices, value) -> None:
    """``store(__subscript(container, indices...), value)`` as the tree's store does it for
    plain operands (compiler/special_forms.py): Python's index checks, then ``put``."""
    indexing.check_python_indices(container, indices)
    indexing.put(container, indices, value)
