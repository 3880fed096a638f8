"""A compiled loop's source and types: what ``loops.py`` compiles, and for which inputs.

:func:`translate` turns a ``for_each`` over a ``range`` whose body only binds variables
(``define``/``store``, never the loop variable) to expressions of

* the element-wise primitives that fuse (``rules.py``) whose scalar code is also NumPy
  array code (``np.exp(x)``, ``x + y``, comparisons ...; ``maximum``/``minimum``/
  ``fmax``/``fmin``/``absolute``/``sign`` through their ``np.`` ufuncs; not ``power``,
  whose NumPy special cases (``x ** 0.5`` is ``sqrt``, a negative base gives a complex
  scalar) numba's ``pow`` does not share, nor ``real``/``imag``/``conj``),
* ``dot``/``matmul`` (``np.dot``), ``transpose`` of one operand, whole-array
  ``sum``/``mean``,
* variables and int/float/bool literals, and loop invariants hoisted by
  ``compiler/rewrite/hoist.py`` (bound by the tree before the kernel runs),
* ``x += e`` (``store(x, __inplace(x, ...))``): an array changed in place, a number
  rebound, as the tree does,

into the source of one numba function running every iteration, the first one peeled so
that every variable is bound whatever its type::

    def kernel_par(r_start, r_stop, r_step, v0_w, v1_alpha, v2_x, v3_y):
        i_ = r_start
        v0_w = (v0_w - (v1_alpha * np.dot(np.transpose(v2_x), ...)))
        for i_ in range(r_start + r_step, r_stop, r_step):
            v0_w = (v0_w - (v1_alpha * np.dot(np.transpose(v2_x), ...)))
        return (v0_w, i_,)

:func:`translate_while` does the same for a ``while`` loop, whose body may also hold an
``if(flag, ...)`` statement on a flag the loop never binds (compiled for calls where it
is False), whose condition may join two tests with ``and``/``or`` and whose integer
arithmetic may be a counter ``k + c``; its kernel runs at most ``r_max`` iterations and
returns whether the condition still holds.

The source is a template with *cast points* (``_W<n>(``, ``_U<n>a(``, ``_IP<n>(``):
``loop_types.infer`` says which ones a signature needs (float32 beside Python scalars,
float32 reductions, float32 products with float64, arrays changed in place) and
:meth:`LoopPlan.render` writes the source for it.
"""
from __future__ import annotations

import functools
import itertools
import re
from typing import Any

import numpy as np

from ..compiler.rewrite.hoist import PREFIX as HOISTED
from ..runtime.nodes import Node
from . import codegen
from .loop_types import SCALAR_TYPES, infer, kind_of, numba_kind
from .regions import _classify

__all__ = ["SCALAR_TYPES", "LoopPlan", "infer", "kind_of", "numba_kind", "translate",
           "translate_while"]

#: element-wise rules whose scalar code would call a scalar-only helper: their ufunc
_ARRAY_FORMS = {"maximum": "np.maximum({0}, {1})", "minimum": "np.minimum({0}, {1})",
                "fmax": "np.fmax({0}, {1})", "fmin": "np.fmin({0}, {1})",
                "absolute": "np.abs({0})", "sign": "np.sign({0})"}
#: rules whose array form differs from NumPy's (see the module docstring)
_NOT_IN_LOOPS = frozenset(("power", "exp10", "real", "imag", "conj"))
_CALL = re.compile(r"([A-Za-z_][\w.]*)\s*\(")
_BINDERS = ("define-variable", "store")
_MARK = re.compile(r"_W(\d+)\(")
_UPCAST = re.compile(r"_U(\d+[ab])\(")
_INPLACE = re.compile(r"^( *)(\w+) = _IP(\d+)\((.*)\)$", re.M)
_UPCAST_HELPER = '''

@njit(inline="always")
def _f64(a):
    # numba's np.dot takes one dtype: float32 beside float64 is converted, as NumPy does
    return a.astype(np.float64)
'''


def _array_code(name: str, rule) -> str | None:
    """The rule's code if it is NumPy array code as well as scalar code."""
    if name in _ARRAY_FORMS:
        return _ARRAY_FORMS[name]
    code = rule.code
    if (code is None or name in _NOT_IN_LOOPS or "{0}" not in code or "**" in code
            or " and " in code or " or " in code):
        return None
    if any(not f.startswith("np.") for f in _CALL.findall(code)):
        return None
    return code


class _Source:
    """The translation of one loop body: names of variables, reads before writes."""

    def __init__(self, index_key: Any):
        self.index_key = index_key
        self.names: dict[Any, str] = {}
        self.readers: dict[Any, tuple] = {}     # key -> node.variable of a read
        self.writers: dict[Any, tuple] = {}     # key -> node.variable of a binding
        self.inputs: list[Any] = []             # read before bound in an iteration
        self.bound: set[Any] = set()
        self.typing: list[tuple] = []          # (key, typing term) per statement
        self.invariants: list[Node] = []       # hoisted invariants' lazy-binding nodes
        self.guards: list[tuple] = []          # node.variable of if(flag, ...) statements
        self.marks = itertools.count()         # ``_W<n>(`` cast points (:func:`render`)
        self.inplace_keys: set[Any] = set()     # variables changed in place (``x += e``)
        self.aliased: set[Any] = set()          # variables bound to another's value
        # variables the hoisted invariants' expressions read: none may be one the loop
        # binds (the IR's hoisting reads an invariant bound in the body, ``m = j + 1``
        # then ``a[m]``; bound before the kernel, ``E`` would read it unbound)
        self.invariant_reads: set[Any] = set()

    def mark(self, code: str) -> tuple[int, str]:
        """(n, code wrapped in the cast point ``_W<n>(...)``): rendered as a float32
        cast or plain parentheses, per signature (:func:`infer` decides)."""
        n = next(self.marks)
        return n, f"_W{n}({code})"

    def name(self, key: Any, instance: str | None) -> str:
        if key not in self.names:
            clean = re.sub(r"\W", "_", instance or "")
            self.names[key] = f"v{len(self.names)}_{clean}"
        return self.names[key]

    def expr(self, node: Node) -> tuple[str, tuple] | None:
        """(numba code, typing term) of an expression, None if not translatable."""
        if node.is_const:
            v = node.value
            if type(v) is bool or (type(v) in (int, float) and np.isfinite(v)
                                   and abs(v) < 2 ** 62):
                return repr(v), ("value", v)
            return None
        p = node.primitive
        invariant = _lazy_invariant(node)
        if invariant is not None:               # hoisted: bound before the kernel runs
            self.invariants.append(node)
            computed = node.children[2].children[0].children[0]   # E of store(v, E)
            self.invariant_reads.update(
                inner.variable[0] for inner in computed.walk()
                if inner.primitive == "access-variable" and inner.variable is not None)
            node = invariant
            p = node.primitive
        if p == "access-variable":
            if node.variable is None:
                return None
            key = node.variable[0]
            if key == self.index_key:
                return "i_", ("value", 0)
            if key not in self.bound and key not in self.inputs:
                self.inputs.append(key)
                self.readers[key] = node.variable
            return self.name(key, node.instance), ("var", key)
        if p in ("dot", "matmul", "transpose"):
            args = self.operands(node.children)
            if args is None:
                return None
            codes, terms = args
            if p == "transpose":
                return (f"np.transpose({codes[0]})", ("transpose", terms[0])) \
                    if len(codes) == 1 else None
            if len(codes) != 2:
                return None
            n, code = self.mark(f"np.dot(_U{next(self.marks)}a({codes[0]}), "
                                f"_U{next(self.marks)}b({codes[1]}))")
            return code, ("dot", n, *terms)
        if p == "block":
            return self.short_circuit(node)
        info = _classify(node)
        if info is None:
            return None
        name, impl, rule, params = info
        args = self.operands([c for i, c in enumerate(node.children) if i not in params])
        if args is None:
            return None
        codes, terms = args
        if rule is None:                        # whole-array sum / mean
            if any(v is not None and v is not False for v in params.values()):
                return None                     # along an axis, or keepdims
            n, code = self.mark(f"np.{name}({codes[0]})")
            return code, ("reduce", n, terms[0])
        code = _array_code(name, rule)
        if code is None:
            return None
        marked = [self.mark(c) for c in codes]
        codes = [c for _, c in marked]
        term = ("apply", impl, params, name, [n for n, _ in marked], *terms)
        if rule.fold and len(codes) > 2:
            out = code.format(codes[0], codes[1])
            for c in codes[2:]:
                out = code.format(out, c)
            return out, term
        return code.format(*codes), term

    def short_circuit(self, node: Node) -> tuple[str, tuple] | None:
        """``a and b`` / ``a or b`` as the frontend writes them (``block(define(t, a),
        if(t, b, t))`` / ``if(t, t, b)``): numba's ``and``/``or`` of two booleans
        (:func:`infer` takes only booleans for them); ``b`` is evaluated only when it
        decides, as in Python."""
        if len(node.children) != 2:
            return None
        first, test = node.children
        if first.primitive != "define-variable" or first.variable is None \
                or len(first.children) != 1 or test.primitive != "if" \
                or len(test.children) != 3:
            return None
        key = first.variable[0]
        reads = [c.primitive == "access-variable" and c.variable is not None
                 and c.variable[0] == key for c in test.children]
        if not reads[0] or reads == [True, True, True]:
            return None
        op, other = ("and", test.children[1]) if reads[2] else \
            ("or", test.children[2]) if reads[1] else (None, None)
        if op is None:
            return None
        left = self.expr(first.children[0])
        hoisted = len(self.invariants)
        right = None if left is None else self.expr(other)
        if right is None or len(self.invariants) != hoisted:
            # an invariant under ``b`` is evaluated only when ``b`` decides: bound
            # before the kernel, its error would be raised where the tree raises none
            return None
        (a, ta), (b, tb) = left, right
        return f"(({a}) {op} ({b}))", ("logic", ta, tb)

    def operands(self, nodes) -> tuple[list, list] | None:
        made = [self.expr(c) for c in nodes]
        if None in made:
            return None
        return [m[0] for m in made], [m[1] for m in made]

    def body(self, body: Node) -> tuple | None:
        """(source lines, inputs, outputs, the result's variable) of a loop body, None
        if a statement does not translate or a guard's flag is bound in the loop."""
        statements = _statements(body)
        lines = [self.statement(stmt) for stmt in statements]
        if not statements or None in lines or any(g[0] in self.bound for g in self.guards):
            return None
        if self.invariant_reads & (self.bound | {self.index_key}):
            return None   # an invariant computed from a variable of the body (see above)
        if self.inplace_keys & self.aliased:
            # changed in place and also bound to another name's array: the arrays the
            # loop writes would not be only the ones it was given (see loops.py)
            return None
        inputs = [(k, self.readers[k]) for k in self.inputs]
        outputs = [(k, self.writers[k]) for k in self.writers]
        last = statements[-1]
        result_key = last.variable[0] if last.primitive == "define-variable" else None
        return lines, inputs, outputs, result_key

    def statement(self, node: Node) -> str | None:
        if node.primitive == "if" and len(node.children) == 2 \
                and node.children[0].primitive == "access-variable" \
                and node.children[0].variable is not None:
            # if(flag, anything) with a flag the loop never binds: compiled only for
            # calls where the flag is False (examples/lra.py's optional printing)
            self.guards.append(node.children[0].variable)
            return "pass"
        if node.primitive not in _BINDERS or len(node.children) != 1 \
                or node.variable is None or node.variable[0] is None \
                or node.variable[0] == self.index_key:   # the loop variable rebound
            return None
        key = node.variable[0]
        value = node.children[0]
        made = self.inplace(key, value) if value.primitive == "__inplace" \
            else self.expr(value)
        if made is None:
            return None
        if made[1][0] in ("var", "transpose", "value"):
            self.aliased.add(key)      # may be another name's array (or a view of it)
        self.bound.add(key)
        self.writers[key] = node.variable
        self.typing.append((key, made[1]))
        return f"{self.name(key, node.instance)} = {made[0]}"

    def inplace(self, key: Any, node: Node) -> tuple[str, tuple] | None:
        """``x += e`` (``store(x, __inplace(x, x + e))``): an array changes in place, as
        in the tree (other names of it see the change; :meth:`LoopPlan.render` makes the
        line ``x[...] = ...`` for array kinds), any other value is rebound.  ``e`` is a
        computed value, never a view of ``x``."""
        target, value = node.children if len(node.children) == 2 else (None, None)
        if target is None or target.primitive != "access-variable" \
                or target.variable is None or target.variable[0] != key:
            return None
        current = self.expr(target)
        made = self.expr(value)
        if current is None or made is None or made[1][0] not in ("apply", "dot", "reduce"):
            return None
        n = next(self.marks)
        self.inplace_keys.add(key)
        return f"_IP{n}({made[0]})", ("inplace", n, current[1], made[1])


def _statements(body: Node) -> list[Node]:
    """The statements of a loop body in order, nested blocks (common-subexpression
    elimination writes ``block(define(__cse1, ...), store(v, ...))``) flattened: a
    block shares its frame, so its statements run as if written in line."""
    if body.primitive != "block":
        return [body]
    return [stmt for child in body.children for stmt in _statements(child)]


def _lazy_invariant(node: Node) -> Node | None:
    """The variable read of a loop invariant hoisted by ``compiler/rewrite/hoist.py``
    (``if(flag, v, block(store(v, E), store(flag, true), v))``), else None.  ``E`` is
    pure; when it reads nothing the loop binds (``_Source.body`` declines the loop
    otherwise), running the ``if`` once before the kernel binds ``v`` to the value every
    iteration would read (a loop that runs at least once evaluates ``E`` anyway)."""
    if node.primitive != "if" or len(node.children) != 3:
        return None
    flag, var, compute = node.children
    if not (flag.primitive == var.primitive == "access-variable" and flag.variable
            and var.variable and compute.primitive == "block"
            and len(compute.children) == 3):
        return None
    store_v, store_flag, read_v = compute.children
    same = (store_v.primitive == store_flag.primitive == "store"
            and read_v.primitive == "access-variable"
            and store_v.variable and store_flag.variable and read_v.variable
            and store_v.variable[0] == var.variable[0] == read_v.variable[0]
            and store_flag.variable[0] == flag.variable[0]
            and (var.instance or "").startswith(HOISTED))
    return var if same else None


class LoopPlan:
    """A translated loop: its source and the variables it reads and binds."""

    def __init__(self, source: str, inputs: list, outputs: list, result_key: Any,
                 typing: list, invariants: list, guards: list = (), cond: Node | None = None,
                 cond_term: tuple | None = None, invariant_names: tuple = ()):
        self.template = source        # with ``_W<n>(`` cast points (:meth:`render`)
        self.guards = list(guards)    # flags that must be False for the kernel to run
        self.cond = cond              # a while loop's condition node (None: for_each)
        self.cond_term = cond_term    # its typing term
        self.invariants = invariants  # lazy-binding nodes run before the kernel
        self.typing = typing          # [(key, typing term)] per statement (:func:`infer`)
        self.inputs = inputs          # [(key, node.variable)] in the kernel's order
        self.outputs = outputs        # [(key, node.variable)] in the returned tuple's order
        self.result_key = result_key  # the last statement's variable if it is a define
        bound = {key for key, _ in outputs}
        out_index = {key: i for i, (key, _) in enumerate(outputs)}
        #: (input position, output position) of the variables carried to the next
        #: iteration
        #: inputs the loop never binds (converted once when a product needs float64)
        self.invariant_names = list(invariant_names)
        self.inplace_keys: frozenset = frozenset()   # variables the loop changes in place
        self.carried = [(i, out_index[key]) for i, (key, _) in enumerate(inputs)
                        if key in bound]

    def render(self, casts: frozenset = frozenset()) -> str:
        """The kernel's source with the cast points in ``casts`` made ``np.float32(``
        (NumPy's weak Python scalars and float32 reductions) and the others plain
        parentheses: the source for one signature's kinds."""
        source = _MARK.sub(lambda m: "np.float32(" if int(m.group(1)) in casts else "(",
                           self.template)
        source = _UPCAST.sub(lambda m: "_f64(" if m.group(1) in casts else "(", source)
        source = _INPLACE.sub(lambda m: f"{m.group(1)}{m.group(2)}[...] = {m.group(4)}"
                              if f"ip{m.group(3)}" in casts
                              else f"{m.group(1)}{m.group(2)} = ({m.group(4)})", source)
        if "_f64(" not in source:
            return source
        # an input the loop never binds is converted once, before the loop
        head, _, rest = source.partition("\n    i_ = r_start\n" if self.cond is None
                                         else "\n    n_ = 1\n")
        hoisted = []
        for name in self.invariant_names:
            for form in (name, f"{name}_T"):
                if f"_f64({form})" in rest:
                    hoisted.append(f"    {form}_64 = {form}.astype(np.float64)\n")
                    rest = rest.replace(f"_f64({form})", f"{form}_64")
        start = "i_ = r_start" if self.cond is None else "n_ = 1"
        prelude, _, kernel = head.partition("\n\n@njit(cache=True")
        return (prelude + _UPCAST_HELPER + "\n\n@njit(cache=True" + kernel + "\n"
                + "".join(hoisted) + f"    {start}\n" + rest)

    @functools.cached_property
    def source(self) -> str:
        """The source for float64 (no cast point taken); rendered once: ``loops.py`` reads
        it on every call the tree runs the loop (the compile cost it is weighed against),
        and its four regular-expression passes cost more than a small loop's run."""
        return self.render()


def translate(node: Node) -> LoopPlan | None:
    """The plan of a ``for_each`` node, or None if it is not a loop this module takes."""
    if node.primitive != "for_each" or node.variable is None or len(node.children) != 2:
        return None
    iterable, body = node.children
    if iterable.primitive != "range":
        return None
    src = _Source(node.variable[0])
    made = src.body(body)
    if made is None:
        return None
    lines, inputs, outputs, result_key = made
    params = ", ".join(["r_start", "r_stop", "r_step"] + [src.names[k] for k, _ in inputs])
    returned = ", ".join([src.names[k] for k, _ in outputs] + ["i_"])
    prologue, (iteration,) = _transposed_once(src, inputs, "\n".join(lines))
    source = (f"{codegen.PRELUDE}\n\n"
              f'@njit(cache=True, error_model="numpy", nogil=True)\n'
              f"def kernel_par({params}):\n{prologue}    i_ = r_start\n"
              + _indent(iteration, 4)
              + "\n    for i_ in range(r_start + r_step, r_stop, r_step):\n"
              + _indent(iteration, 8)
              + f"\n    return ({returned},)\n")
    plan = LoopPlan(source, inputs, outputs, result_key, src.typing, src.invariants,
                    src.guards, invariant_names=_unbound(src, inputs))
    plan.inplace_keys = frozenset(src.inplace_keys)
    return plan


def translate_while(node: Node) -> LoopPlan | None:
    """The plan of a ``while`` node whose condition and body translate: the kernel runs
    at most ``r_max`` iterations (the caller saw the condition hold) and returns the
    bound variables, the iterations run and whether the condition still holds."""
    if node.primitive != "while" or len(node.children) != 2:
        return None
    cond, body = node.children
    src = _Source(None)
    made = src.expr(cond)            # read first in every iteration
    translated = None if made is None else src.body(body)
    if translated is None or not src.bound:
        return None
    lines, inputs, outputs, result_key = translated
    params = ", ".join(["r_max"] + [src.names[k] for k, _ in inputs])
    prologue, (iteration, test) = _transposed_once(src, inputs, "\n".join(lines), made[0])
    returned = ", ".join([src.names[k] for k, _ in outputs] + ["n_", f"bool({test})"])
    source = (f"{codegen.PRELUDE}\n\n"
              f'@njit(cache=True, error_model="numpy", nogil=True)\n'
              f"def kernel_par({params}):\n{prologue}    n_ = 1\n"
              + _indent(iteration, 4)
              + f"\n    while n_ < r_max and {test}:\n"
              + _indent(iteration, 8)
              + "\n        n_ += 1"
              + f"\n    return ({returned},)\n")
    plan = LoopPlan(source, inputs, outputs, result_key, src.typing, src.invariants,
                    src.guards, cond, made[1], _unbound(src, inputs))
    plan.inplace_keys = frozenset(src.inplace_keys)
    return plan


def _unbound(src: _Source, inputs: list) -> tuple:
    return tuple(src.names[key] for key, _ in inputs if key not in src.bound)


def _transposed_once(src: _Source, inputs: list, *codes: str) -> tuple[str, list[str]]:
    """(prologue, codes) with ``np.transpose(v)`` of an input ``v`` the loop never binds
    computed once before the loop, as a C-contiguous copy: numba's ``np.dot`` on the
    transposed view cost W1 small's iteration more than the copy costs per call (the
    loops compiled here are small; ``benchmarks/loops.py``)."""
    lines = []
    for key, _ in inputs:
        name = src.names[key]
        use = f"np.transpose({name})"
        if key in src.bound or not any(use in code for code in codes):
            continue
        lines.append(f"    {name}_T = np.ascontiguousarray({use})\n")
        codes = tuple(code.replace(use, f"{name}_T") for code in codes)
    return "".join(lines), list(codes)


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.splitlines())
