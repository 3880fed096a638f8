"""NumPy calls -> primitives: renames, argument rewrites and array literals.

``np.zeros(shape)`` becomes ``__npconstant(0, shape)``, ``np.array([[1, 2]])`` an
array literal, ``np.random.normal(m, s, n)`` ``random(n, list("normal", m, s))``;
NumPy keywords that a primitive only takes by position are moved into place
using NumPy's own signature.  Everything else maps by name through
:data:`.tables.NUMPY_RENAMES`, and a NumPy function without a primitive is a
located error.
"""
from __future__ import annotations

import ast
import inspect
import math

import numpy as np

from ..language import ast as past
from ..primitives import registry
from ..primitives.frontend_support.python_builtins import MATH_FUNCTIONS
from ..primitives.matrixops.numpy_random import NUMPY_RANDOM_FUNCTIONS
from . import tables
from .numpy_more import NumpyMoreMixin


class NumpyMixin(NumpyMoreMixin):
    """NumPy call rules; mixed into the expression translator."""

    def pinned(self, expr, node, out: list):
        """``expr``, or a temporary holding its value (defined in ``out``) when evaluating
        it twice could differ or repeat a side effect."""
        if is_pure(expr):
            return expr
        tmp = self.temp(node)
        out.append(self.define(tmp, expr, node))
        return self.ident(tmp, node)

    def keyword_call(self, prim: str, dotted: str, args: list, node):
        """``prim(args)`` with the NumPy keywords it takes by position moved into place;
        arguments with effects are still evaluated in the order written, as in Python
        (``np.clip(x, a_max=f(), a_min=g())`` calls f first)."""
        if prim in MASKED_REDUCTIONS and any(isinstance(a, past.KeywordArg) and
                                             a.name == "where" for a in args):
            return self.masked_reduction(prim, dotted, args, node)
        moved = _as_evaluated(prim, positional_keywords(prim, dotted, args))
        effects = [id(_value(a)) for a in args if not is_pure(_value(a))]
        if [id(_value(a)) for a in moved if not is_pure(_value(a))] == effects:
            return self.call(prim, moved, node)
        out: list = []
        args = [past.KeywordArg(a.name, self.pinned(a.value, node, out), a.loc)
                if isinstance(a, past.KeywordArg) else self.pinned(a, node, out) for a in args]
        return self.call("block", [*out, self.call(prim, positional_keywords(prim, dotted, args),
                                                    node)], node)

    def masked_reduction(self, prim: str, dotted: str, args: list, node):
        """``np.sum(a, ..., where=m)``: NumPy's masked reduction, the reduction of
        ``np.where(m, a, fill)`` with ``fill`` the reduction's identity (``initial`` for
        ``max``/``min``, which NumPy requires there); ``mean`` counts the selected
        elements (``__masked_mean``).  The gradient is the unmasked one through
        ``where``: zero where ``m`` is False.  Arguments are evaluated once, in the
        order written."""
        out: list = []
        args = [past.KeywordArg(a.name, self.pinned(a.value, node, out), a.loc)
                if isinstance(a, past.KeywordArg) else self.pinned(a, node, out) for a in args]
        mask = next(a for a in args if isinstance(a, past.KeywordArg) and a.name == "where")
        rest = [a for a in args if a is not mask]
        if not rest or isinstance(rest[0], past.KeywordArg):
            raise self.error(node, f"np.{dotted} with where= needs the array as its first "
                                   "argument")
        array, rest = rest[0], rest[1:]
        if prim == "mean":
            # NumPy's positions as the mean primitive reads them (np.mean(x, 0, np.float32)
            # gives dtype=), then passed to __masked_mean by name
            moved = positional_keywords(prim, dotted, [array, *rest])
            slots = registry.lookup(prim).signature.params
            positional = [a for a in moved if not isinstance(a, past.KeywordArg)]
            if len(positional) > len(slots):
                raise self.error(node, f"np.{dotted}: too many arguments")
            named = [past.KeywordArg(slots[i].name, a, node_loc(a, mask))
                     for i, a in enumerate(positional[1:], 1)]
            value = self.call("__masked_mean", [array, mask.value, *named, *(
                a for a in moved if isinstance(a, past.KeywordArg))], node)
        else:
            fill = MASKED_REDUCTIONS[prim]
            if fill is None:
                initial = next((a for a in rest if isinstance(a, past.KeywordArg)
                                and a.name == "initial"), None)
                if initial is None:
                    raise self.error(node, f"np.{dotted} with where= needs initial= (NumPy: "
                                           "the maximum and minimum have no identity)")
                fill = initial.value
            else:
                fill = self.lit(fill, node)
            masked = self.call("__npwhere", [mask.value, array, fill], node)
            value = self.call(prim, positional_keywords(prim, dotted, [masked, *rest]), node)
        return self.call("block", [*out, value], node) if out else value

    def numpy_name(self, dotted: str, node) -> str:
        prim = tables.NUMPY_RENAMES.get(dotted) or numpy_namesake(dotted)
        if prim is None:
            raise self.error(node, f"np.{dotted} is not supported: Phylanx has no primitive "
                                   f"for it (see 'phylanx primitives' for what exists)")
        return prim

    def numpy_call(self, dotted: str, node, module: str = "numpy"):
        if module == "math":
            # Python's own math function: its results, types and errors, exactly
            if dotted not in MATH_FUNCTIONS:
                raise self.error(node.func, f"math.{dotted} is not a function of Python's "
                                            "math module")
            return self.call("__pymath", [self.lit(dotted, node),
                                          *self.keywords_last(self.arguments(node), node)],
                             node)
        if (tables.NUMPY_RENAMES.get(dotted) or dotted) in tables.PYTHON_OPERATORS and \
                len(node.args) == 2 and not node.keywords:
            return self.numpy_operator(dotted, node)
        if module == "numpy" and dotted in tables.SHAPE_METHODS and node.args and \
                not isinstance(node.args[0], ast.Starred) and not (
                    dotted == "reshape" and sized_shape(node.args[1:2])):
            return self.numpy_shape_call(dotted, node)
        value = self.numpy_call_of(dotted, node, module)
        if module == "numpy" and dotted in tables.NUMPY_ARRAY_RESULTS:
            return self.call("__asndarray", [value], node)
        if isinstance(value, (past.Call, past.BinOp, past.UnaryOp)) and \
                _primitive_of(value) in tables.NUMPY_SCALAR_RESULTS:
            return self.call("__asnumpy", [value], node)
        if module == "numpy" and dotted in tables.NUMPY_BOOL_RESULTS:
            return self.call("__pyconvert", [value, self.lit("bool", node)], node)
        if module == "numpy" and dotted in tables.NUMPY_TUPLE_RESULTS:
            return self.call("__nptuple", [value], node)
        return value

    def numpy_operator(self, dotted: str, node):
        """``np.divide(a, b)`` (``floor_divide``, ``mod``, ``divmod``, ``power`` ...):
        NumPy's result where the operator on Python numbers differs (``np.divide(1, 0)``
        is ``inf`` with a warning, not ``ZeroDivisionError``; ``np.power(bool_array, 2)``
        is int64, not ``**``'s int8): Python-number operands are NumPy's (``__npoperand``)."""
        out: list = []
        a, b = (self.pinned(self.expr(x), node, out) for x in node.args)
        prim = tables.NUMPY_RENAMES.get(dotted) or dotted
        value = self.call("__asnumpy", [self.call(prim, [
            self.call("__npoperand", [a, b], node),
            self.call("__npoperand", [b, a], node)], node)], node)
        return self.call("block", [*out, value], node) if out else value

    def numpy_shape_call(self, dotted: str, node):
        """``np.squeeze(a)``, ``np.reshape(a, ())``: a 0-d array where
        NumPy gives one (``__asndarray``), a scalar for a NumPy scalar ``a``, as NumPy's;
        ``a`` is evaluated once."""
        out: list = []
        first = node.args[0]
        done = self.__dict__.setdefault("translated", {})
        done[id(first)] = receiver = self.pinned(self.expr(first), node, out)
        try:
            value = self.numpy_call_of(dotted, node, "numpy")
        finally:
            del done[id(first)]
        value = self.call("__asndarray", [value, receiver], node)
        return self.call("block", [*out, value], node) if out else value

    def numpy_call_of(self, dotted: str, node, module: str):
        for k in node.keywords:
            if k.arg == "out":
                raise self.error(k, "the 'out=' argument is not supported; assign the result")
        if module == "numpy" and dotted.startswith("random."):
            return self.numpy_random(dotted[len("random."):], node)
        if module == "numpy" and dotted in ("reshape", "argmax", "argmin"):
            lowered = self.numpy_keywords(dotted, node)
            if lowered is not None:
                return lowered
        special = getattr(self, "np_" + dotted.replace(".", "_"), None)
        if special is not None:
            return special(node)
        at = self.ufunc_at(dotted, node)
        if at is not None:
            return at
        if module == "numpy" and dotted in tables.NUMPY_DTYPES:   # np.float32(x)
            return self.call("__pycast", [*self.arguments(node),
                                          self.lit(tables.NUMPY_DTYPES[dotted], node)], node)
        prim = self.numpy_name(dotted, node.func)
        return self.keyword_call(prim, dotted, self.arguments(node), node)

    def numpy_random(self, name: str, node):
        """``np.random.<name>(...)``: NumPy's own function on its global stream, so a
        decorated function draws the numbers the undecorated one draws."""
        if name not in NUMPY_RANDOM_FUNCTIONS:
            raise self.error(node.func, f"np.random.{name} is not a function of numpy.random")
        return self.call("__nprandom", [self.lit(name, node),
                                        *self.keywords_last(self.arguments(node), node)], node)

    def numpy_keywords(self, name: str, node, receiver=None):
        """NumPy keywords the PhySL primitive has no slot for, lowered (None: no such
        keyword, translate as usual): ``reshape(..., order=o)`` is ``__npreshape``;
        ``argmax(..., keepdims=True)`` the reduction and ``__keepdims`` (the plain
        reduction keeps the rewrites that know it)."""
        keywords = {k.arg: k for k in node.keywords}
        if name == "reshape" and "order" in keywords:
            if receiver is None:
                bound = _bind(node, ("a", "newshape", "order"), self)
            else:
                positional = [self.expr(a) for a in node.args]
                shape = positional[0] if len(positional) == 1 else \
                    self.call("list", positional, node)
                bound = {"a": receiver, "newshape": shape,
                         "order": self.expr(keywords["order"].value)}
            return self.call("__npreshape", [bound["a"], bound["newshape"], bound["order"]],
                             node)
        if name in ("argmax", "argmin") and "keepdims" in keywords:
            names = ("axis", "out", "keepdims") if receiver is not None else \
                ("a", "axis", "out", "keepdims")
            bound = _bind(node, names, self)
            if receiver is not None:
                bound["a"] = receiver
            out: list = []
            a = self.pinned(bound["a"], node, out)
            axis = bound.get("axis") or self.lit(None, node)
            value = self.call(name, [a, axis], node)
            kept = self.call("__keepdims", [value, a, axis], node)
            result = self.call("if", [bound["keepdims"], kept, value], node)
            return self.call("block", [*out, result], node) if out else result
        return None

    def keywords_last(self, args: list, node) -> list:
        """``list(<keyword names>), positional..., keyword values...`` of a call passed on
        to a Python callable as it was written (``__nprandom``, ``__random_method``)."""
        positional = [a for a in args if not isinstance(a, past.KeywordArg)]
        keywords = [a for a in args if isinstance(a, past.KeywordArg)]
        names = self.call("list", [self.lit(k.name, node) for k in keywords], node)
        return [names, *positional, *(k.value for k in keywords)]

    def _filled(self, value, node, like=False):
        args = self.arguments(node)
        # NumPy's dtypes: np.zeros_like keeps a's, np.zeros(n, np.float32) is float32; PhySL
        # constant_like takes the value's and constant maps "float..." to float64 (the original)
        return self.call("__npconstant_like" if like else "__npconstant",
                         [self.lit(value, node), *args], node)

    def np_zeros(self, node):
        return self._filled(0, node)

    def np_ones(self, node):
        return self._filled(1, node)

    np_empty = np_zeros

    def np_zeros_like(self, node):
        return self._filled(0, node, like=True)

    def np_ones_like(self, node):
        return self._filled(1, node, like=True)

    np_empty_like = np_zeros_like

    def np_array(self, node, copy=True):
        if node.args and not node.keywords and len(node.args) == 1:
            literal = array_literal(node.args[0])
            if literal is not None:
                return past.ArrayLiteral(literal[0], literal[1], literal[2], self.loc(node))
        args = self.arguments(node, skip_keywords=("copy", "order", "ndmin"))
        if not copy:
            args.append(past.KeywordArg("copy", self.lit(False, node), self.loc(node)))
        return self.call("__array", args, node)

    def np_asarray(self, node):
        return self.np_array(node, copy=False)

    np_asanyarray = np_ascontiguousarray = np_asarray

    def moment(self, prim, node, receiver=None):
        """``np.std(x, axis, dtype, out, ddof, keepdims)``/``x.var(...)``: NumPy's positions
        bound by name and passed as keywords (the primitives order their slots differently)."""
        names = ("axis", "dtype", "out", "ddof", "keepdims")
        bound = _bind(node, names if receiver is not None else ("a", *names), self)
        if receiver is not None:
            bound["a"] = receiver
        out = bound.pop("out", None)
        if out is not None and not (isinstance(out, past.Literal) and out.value is None):
            raise self.error(node, "the 'out=' argument is not supported; assign the result")
        rest = [past.KeywordArg(k, v, self.loc(node)) for k, v in bound.items() if k != "a"]
        return self.call(prim, [bound["a"], *rest], node)

    def np_std(self, node):
        return self.moment("std", node)

    def np_var(self, node):
        return self.moment("var", node)

    def np_pad(self, node):
        args = self.arguments(node)
        positional = [a for a in args if not isinstance(a, past.KeywordArg)]
        if len(positional) == 2 and not any(isinstance(a, past.KeywordArg) and a.name == "mode"
                                            for a in args):
            args.insert(2, self.lit("constant", node))   # NumPy's default mode
        return self.keyword_call("__nppad", "pad", args, node)

    def np_size(self, node):
        bound = _bind(node, ("a", "axis"), self)
        if "axis" not in bound:
            return self.call("size", [bound["a"]], node)
        return self.call("__subscript", [self.call("shape", [bound["a"]], node), bound["axis"]],
                         node)


def numpy_namesake(dotted: str) -> str | None:
    """The primitive that ``np.<dotted>`` is by its name alone, or None.

    A name is NumPy's function only where the meaning is the same: a submodule's function
    differs from the top-level one of the same name (``np.emath.sqrt(-1)`` is ``1j``,
    ``np.polynomial.polynomial.polyval`` takes its coefficients lowest first, ``np.ma``
    honours masks, ``np.linalg.trace`` takes the last two axes), so only ``np.linalg``'s
    own names (``svd``, ``qr`` ... which the top level lacks) go by name; and a PhySL
    primitive without a NumPy oracle only shares the name (``block`` is a sequence,
    ``broadcast`` a collective) unless it is listed as NumPy's."""
    sub, _, name = dotted.rpartition(".")
    spec = registry.lookup(name)
    if spec is None or (sub and not (sub == "linalg" and not hasattr(np, name))):
        return None
    if spec.oracle is None and name not in tables.NUMPY_WITHOUT_ORACLE:
        return None
    return name


def _numpy_parameters(dotted: str) -> list[str] | None:
    obj = np
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
    try:
        return list(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        return None


# NumPy keyword-only aliases of positional parameters (NumPy >= 2.1: np.clip(a, min=, max=)),
# and NumPy's names of the primitives' slots that mean the same under another name
KEYWORD_ALIASES = {"clip": {"min": "a_min", "max": "a_max"},
                   "full": {"fill_value": "value"}, "full_like": {"fill_value": "value"},
                   "arange": {"start_or_stop": "start"}}


def _numpy_positionals(dotted: str) -> list[str] | None:
    """The names of NumPy's parameters that take positional arguments, in order, up to a
    ``*args`` (None where NumPy's signature is unknown)."""
    obj = np
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return None
    out = []
    for p in params:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            break
        out.append(p.name)
    return out


def named_positionals(prim: str, dotted: str, args: list) -> list:
    """Positional arguments past the point where the primitive's parameters stop meaning
    NumPy's, passed by NumPy's names instead (``np.sum(x, 0, np.float32)`` ->
    ``sum(x, 0, dtype=float32)``: the primitive's third slot is ``keepdims``).  A slot
    counts as the same when the primitive leaves it unnamed (the original's order) or
    names it as NumPy does.  ``out=None`` given by position is NumPy's default and goes;
    any other ``out`` stays a keyword the compiler refuses, located."""
    spec = registry.lookup(prim)
    names = _numpy_positionals(dotted)
    if spec is None or names is None:
        return args
    aliases = KEYWORD_ALIASES.get(dotted, {})
    names = [aliases.get(n, n) for n in names]
    slots = spec.signature.params
    count = sum(not isinstance(a, past.KeywordArg) for a in args)
    for i in range(min(count, len(names))):
        slot = slots[i] if i < len(slots) else None
        if slot is not None and (slot.variadic or slot.name in (None, names[i])):
            continue
        moved = [past.KeywordArg(name, a, getattr(a, "loc", None) or _value(a).loc)
                 for name, a in zip(names[i:], args[i:count])]
        if count > len(names):      # more than NumPy takes: left for the compiler to refuse
            return args
        moved = [k for k in moved if not (k.name == "out" and isinstance(k.value, past.Literal)
                                          and k.value.value is None)]
        return args[:i] + moved + args[count:]
    return args


def positional_keywords(prim: str, dotted: str, args: list) -> list:
    """NumPy keywords the primitive only takes by position (``np.argmin(x, axis=1)`` ->
    ``argmin(x, 1)``), moved into place using NumPy's own signature (after
    :func:`named_positionals` has named the positional ones the primitive reads otherwise)."""
    args = named_positionals(prim, dotted, args)
    aliases = KEYWORD_ALIASES.get(dotted)
    if aliases:
        args = [past.KeywordArg(aliases[a.name], a.value, a.loc)
                if isinstance(a, past.KeywordArg) and a.name in aliases else a for a in args]
    spec = registry.lookup(prim)
    known = spec.signature.keywords if spec is not None else {}
    keywords = [a for a in args if isinstance(a, past.KeywordArg) and a.name not in known]
    if not keywords:
        return args
    params = _numpy_parameters(dotted)
    if params is None:
        return args
    params = [(aliases or {}).get(n, n) for n in params]
    out = [a for a in args if not isinstance(a, past.KeywordArg)]
    rest = [a for a in args if isinstance(a, past.KeywordArg) and a.name in known]
    for kw in sorted(keywords, key=lambda k: params.index(k.name) if k.name in params else 99):
        slot = spec.signature.params[len(out)] if len(out) < len(spec.signature.params) \
            else None
        if kw.name in params and params.index(kw.name) == len(out) and slot is not None and \
                slot.name in (None, kw.name):
            out.append(kw.value)
        else:
            rest.append(kw)   # the compiler reports it as an unknown keyword, located
    return out + rest


#: the reductions taking NumPy's ``where=`` -> the identity filling what is left out
#: (None: ``initial=``, required by NumPy; ``mean``: counted instead, ``__masked_mean``)
MASKED_REDUCTIONS = {"sum": 0, "nansum": 0, "prod": 1, "any": False, "all": True,
                     "amax": None, "amin": None, "mean": 0}


def node_loc(expr, fallback):
    """Where ``expr`` (a translated argument) was written, else ``fallback``'s place."""
    return getattr(expr, "loc", None) or fallback.loc


def _as_evaluated(prim: str, args: list) -> list:
    """``args`` in the order the compiled call evaluates them: the positional ones, then
    the keywords in the order of the primitive's slots they bind to (``clip``'s
    ``a_max=`` after ``a_min=`` however written)."""
    spec = registry.lookup(prim)
    slots = spec.signature.keywords if spec is not None else {}
    keywords = [a for a in args if isinstance(a, past.KeywordArg)]
    return [a for a in args if not isinstance(a, past.KeywordArg)] + sorted(
        keywords, key=lambda k: slots.get(k.name, len(slots)))


def is_pure(expr) -> bool:
    """A name, a literal or a list of them: evaluating it again gives the same value."""
    if isinstance(expr, (past.Identifier, past.Literal, past.ArrayLiteral)):
        return True
    return isinstance(expr, past.Call) and expr.func in ("list", "__newaxis", "__ellipsis") \
        and all(is_pure(a) for a in expr.args)


def _primitive_of(expr) -> str | None:
    """The primitive a translated call is (an infix operator shows as BinOp/UnaryOp)."""
    if isinstance(expr, past.Call):
        return expr.func
    if isinstance(expr, past.BinOp):
        return past.BINARY_OPS[expr.op][1]
    return past.UNARY_OPS.get(expr.op)


def _value(arg):
    return arg.value if isinstance(arg, past.KeywordArg) else arg


def _bind(node, names, tr) -> dict:
    out = {}
    for name, a in zip(names, node.args):
        out[name] = tr.expr(a)
    for k in node.keywords:
        if k.arg not in names:
            raise tr.error(k, f"unknown keyword '{k.arg}' (expected: {', '.join(names)})")
        out[k.arg] = tr.expr(k.value)
    return out



def sized_shape(args) -> bool:
    """The shape arguments of a reshape give at least one axis (``reshape(n, k)``,
    ``reshape((n, k))``, ``reshape(-1)``): the result is never 0-d."""
    if len(args) >= 2:
        return True
    if len(args) != 1:
        return False
    a = args[0]
    return (isinstance(a, (ast.Tuple, ast.List)) and bool(a.elts)) or (
        isinstance(a, ast.Constant) and type(a.value) is int) or (
        isinstance(a, ast.UnaryOp) and isinstance(a.operand, ast.Constant))


def array_literal(node):
    """``(nested tuple, kind, ndim)`` for a rectangular literal of numbers, else None."""
    def walk(n, depth):
        if isinstance(n, (ast.List, ast.Tuple)):
            items = [walk(e, depth + 1) for e in n.elts]
            if any(i is None for i in items) or not items:
                return None
            shapes = {i[1] for i in items}
            if len(shapes) != 1:
                return None
            return tuple(i[0] for i in items), (len(items),) + shapes.pop()
        v = n.value if isinstance(n, ast.Constant) else None
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(
                n.operand, ast.Constant):
            v = -n.operand.value if isinstance(n.operand.value, (int, float)) and not \
                isinstance(n.operand.value, bool) else None
        if isinstance(v, (bool, int, float)) and (not isinstance(v, float) or math.isfinite(v)):
            return v, ()
        return None
    found = walk(node, 0) if isinstance(node, (ast.List, ast.Tuple)) else None
    if found is None or not 1 <= len(found[1]) <= 4:
        return None
    flat = _flatten(found[0])
    if all(isinstance(v, bool) for v in flat):
        kind = "bool"
    elif any(isinstance(v, bool) for v in flat):
        return None
    elif all(isinstance(v, int) for v in flat):
        if not all(-(2**63) <= v < 2**63 for v in flat):
            return None
        kind = "int"
    else:
        kind = "float"
    return found[0], kind, len(found[1])


def _flatten(value):
    if isinstance(value, tuple):
        return [x for v in value for x in _flatten(v)]
    return [value]


