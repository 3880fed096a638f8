"""What a free name of a decorated function refers to in Python.

A name that is not local to the translated code is looked up like Python
does (closure cells, then module globals, then built-ins) and classified:
a module (numpy, numpy.linalg, numpy.random, math), another decorated
function, a plain Python function (translated on the fly), a NumPy function,
a built-in, a dtype, ``prange``/``parallel``, or a data value that is read
afresh at every call.  A name Python cannot resolve but PhySL has a primitive
of is that primitive, as in the original (``fmap(f, xs)``, ``hstack(...)``):
any Python binding of the name wins, and any other name is Python's NameError.
A primitive declared ``internal`` (written only by Phylanx itself: the frontend's
lowering, the compiler's rewrites) is no such name: Python's NameError too.
Resolution happens once, when the function is translated (its first call): a
binding made later is not seen, as for every function a name calls.
"""
from __future__ import annotations

import builtins
import enum
import types
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..ops import Primitive
from ..primitives.registry import lookup as primitive_spec
from .markers import DecoratedFunction, Parallel, prange


class Kind(enum.Enum):
    MODULE = "module"
    DECORATED = "decorated"
    FUNCTION = "function"
    NUMPY_FUNC = "numpy function"
    BUILTIN = "builtin"
    DTYPE = "dtype"
    PRANGE = "prange"
    PARALLEL = "parallel"
    PRIMITIVE = "primitive"   # phylanx.ops.<name>: a PhySL primitive called by its name
    VALUE = "value"
    OTHER = "other"


@dataclass
class Resolved:
    kind: Kind
    value: Any
    where: str          # "cell", "global" or "builtin"
    extra: Any = None   # module: (family, dotted prefix); numpy func: dotted name; dtype: str


_VALUE_TYPES = (int, float, bool, str, list, tuple, dict, np.ndarray, np.generic, type(None),
                range)


def _numpy_dotted(obj: Any) -> str | None:
    name = getattr(obj, "__name__", None)
    if not isinstance(name, str):
        return None
    for prefix, module in (("", np), ("linalg.", np.linalg), ("random.", np.random)):
        if getattr(module, name, None) is obj:
            return prefix + name
    return None


def _module_family(mod: types.ModuleType) -> tuple[str, str]:
    name = mod.__name__
    if name == "numpy":
        return "numpy", ""
    if name.startswith("numpy."):
        sub = name.split(".")[1]
        return "numpy", {"linalg": "linalg", "random": "random"}.get(sub, sub)
    if name == "math":
        return "math", ""
    return name, ""


def classify(value: Any) -> tuple[Kind, Any]:
    """The kind of a Python object met as a free name, plus kind-specific data."""
    if isinstance(value, types.ModuleType):
        return Kind.MODULE, _module_family(value)
    if isinstance(value, Primitive):
        return Kind.PRIMITIVE, value.name
    if isinstance(value, DecoratedFunction):
        return Kind.DECORATED, None
    if value is prange:
        return Kind.PRANGE, None
    if isinstance(value, Parallel):
        return Kind.PARALLEL, None
    if isinstance(value, type) and issubclass(value, np.generic):
        return Kind.DTYPE, str(np.dtype(value))
    if isinstance(value, np.dtype):
        return Kind.DTYPE, str(value)
    if isinstance(value, types.FunctionType):
        return Kind.FUNCTION, None
    if isinstance(value, (types.BuiltinFunctionType, type)) and \
            getattr(builtins, getattr(value, "__name__", ""), None) is value:
        return Kind.BUILTIN, None   # before NumPy: np.str etc. warn when looked up
    dotted = _numpy_dotted(value) if callable(value) else None
    if dotted is not None:
        return Kind.NUMPY_FUNC, dotted
    if isinstance(value, _VALUE_TYPES):
        return Kind.VALUE, None
    return Kind.OTHER, None


class Resolver:
    """Looks names up in a Python function's closure, globals and built-ins."""

    def __init__(self, fn: types.FunctionType, fglobals: dict | None = None):
        self.globals = fn.__globals__ if fglobals is None else fglobals
        # the built-ins Python itself would use: those of the function's globals
        found = self.globals.get("__builtins__", builtins)
        self.builtins = found if isinstance(found, dict) else vars(found)
        self.cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        # name -> (kind, object) as the translation bound it: all but a value (loaded at
        # every call) are bound once, so a translation is another function's only while
        # its names still resolve to these (linking.py: the helper cache)
        self.bound: dict[str, tuple[Kind, Any]] = {}

    def lookup(self, name: str) -> Resolved | None:
        cell = self.cells.get(name)
        if cell is not None:
            try:
                value = cell.cell_contents
            except ValueError:   # an empty cell: assigned later in the enclosing function
                return None
            where = "cell"
        elif name in self.globals:
            value, where = self.globals[name], "global"
        elif name in self.builtins:   # supported or not: Python knows the name
            value, where = self.builtins[name], "builtin"
        elif callable_by_name(name):   # no Python binding: the original's call
            return Resolved(Kind.PRIMITIVE, Primitive(name), "primitive", name)
        else:
            return None
        kind, extra = classify(value)
        if where == "builtin":
            kind = Kind.BUILTIN
        self.bound[name] = (kind, None if kind is Kind.VALUE else value)
        return Resolved(kind, value, where, extra)

    def still_bound(self, bound: dict) -> bool:
        """True if every name of ``bound`` (another resolver's :attr:`bound`) resolves here
        as it did there: the same object, or a value again."""
        for name, (kind, value) in bound.items():
            now = self.lookup(name)
            if now is None or now.kind is not kind or (
                    kind is not Kind.VALUE and now.value is not value):
                return False
        return True

    def getter(self, name: str, where: str):
        """A function returning the current value of ``name`` (read before every call)."""
        if where == "cell":
            cell = self.cells[name]
            return lambda: cell.cell_contents
        g = self.globals
        return lambda: g[name]

    def setter(self, name: str, where: str):
        if where == "cell":
            cell = self.cells[name]

            def set_cell(v):
                cell.cell_contents = v
            return set_cell
        g = self.globals

        def set_global(v):
            g[name] = v
        return set_global

    def key(self, name: str, where: str) -> tuple:
        """Identifies the storage of ``name`` (two functions reading it share a slot)."""
        if where == "cell":
            return ("cell", id(self.cells[name]), name)
        return ("global", id(self.globals), name)


def callable_by_name(name: str) -> bool:
    """True if ``name`` is a primitive a user's function may call by name: declared, and
    not ``internal`` (those are Phylanx's own: a user's code never names them)."""
    spec = primitive_spec(name)
    return spec is not None and not spec.internal


def primitive_stub(fn: Any, name: str) -> str | None:
    """The primitive a do-nothing Python function stands for, else None.

    The original's users wrote ``def fmap(f, x): pass`` beside their decorated code to
    keep flake8 quiet, and the original called the primitive ``fmap``: a plain function
    named like a (non-special) primitive whose body is only ``pass``, ``...``, a docstring
    or a bare ``return`` is such a stand-in.
    """
    from ..primitives.registry import lookup
    spec = lookup(name)
    if spec is None or spec.special or spec.internal or \
            not isinstance(fn, types.FunctionType) or fn.__name__ != name:
        return None
    import ast

    from ..errors import PhylanxError
    from .source import function_source
    try:
        body = function_source(fn).node.body
    except (PhylanxError, SyntaxError):    # no source (SourceUnavailableError is one)
        return None
    for stmt in body:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(
                stmt.value, ast.Constant)) or (isinstance(stmt, ast.Return) and (
                stmt.value is None or (isinstance(stmt.value, ast.Constant)
                                       and stmt.value.value is None))):
            continue
        return None
    return name
