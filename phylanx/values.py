"""Run-time values of PhySL and their conversion to and from Python.

Values are plain Python/NumPy objects so kernels stay cheap:

* arrays: ``numpy.ndarray``; 0-d results of array operations: NumPy scalars
  (``np.int64`` ...); Python numbers (literals, ``len``, loop counters, arithmetic on
  them) stay Python ``int``/``float``/``bool``, as in the undecorated code;
* nil: ``None``; strings: ``str``; lists: ``list`` (``range`` for lazy ranges);
  tuples: ``tuple`` (immutable and hashable: dict keys, one index per axis);
  dictionaries: ``dict``;
* functions: :class:`Function` (compiled PhySL lambdas and defines) and
  :class:`Builtin` (a primitive used as a value, e.g. ``fmap(sqrt, xs)``).
"""
from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from .errors import PhylanxError, PhylanxTypeError, PhylanxValueError
from .source import user_line

SCALAR_TYPES = (np.generic, int, float, bool)


class _NewAxis:
    """The value of ``None``/``np.newaxis`` inside a Python subscript (a new length-1 axis)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "newaxis"


NEWAXIS = _NewAxis()


class Deferred:
    """A value still being computed: the base of ``runtime.futures.Future``.

    Declared here so conversions (:func:`to_python`, :func:`display`, :func:`call`)
    can wait for an ``async`` value without importing the runtime.
    """

    __slots__ = ()

    def result(self, timeout: float | None = None) -> Any:
        raise NotImplementedError


class ControlSignal(Exception):  # noqa: N818 - not an error, a jump
    """Base of the jumps used for ``break``, ``continue`` and early ``return``.

    ``loc`` is where the jump was made, for the error raised when nothing catches it.
    """

    keyword = "jump"
    outside = "outside of a loop"

    def __init__(self, loc: Any = None):
        super().__init__()
        self.loc = loc

    def as_error(self) -> PhylanxError:
        """The located error for a jump that escaped every loop (or function)."""
        from .errors import PhylanxRuntimeError
        return PhylanxRuntimeError(f"{self.keyword}() {self.outside}", self.loc, self.keyword)


class BreakSignal(ControlSignal):
    keyword = "break"


class ContinueSignal(ControlSignal):
    keyword = "continue"


class ReturnSignal(ControlSignal):
    keyword = "return"
    outside = "outside of a function"

    def __init__(self, value: Any, loc: Any = None):
        super().__init__(loc)
        self.value = value


class Function:
    """A compiled PhySL function (``lambda`` or ``define(f, args..., body)``).

    ``frame_size`` slots are allocated per call: slot 0 links to the frame the
    function was created in (its closure), slots 1..n hold the arguments,
    the rest its locals.  ``defaults`` holds, per optional parameter, a node
    evaluated in the new frame when the caller omits that argument.
    """

    __slots__ = ("name", "params", "body", "entry", "closure", "frame_size", "defaults",
                 "nparams", "min_args", "loc", "catches_return", "keeps")

    def __init__(self, name, params, body, closure, frame_size, defaults, loc=None,
                 catches_return=False):
        self.name = name
        self.params = params
        self.body = body
        # the body's entry in the scheduler's side table: a call evaluates it as
        # ``entry.call(frame)`` (runtime/choices.py)
        self.entry = body.choice
        self.closure = closure
        self.frame_size = frame_size
        self.defaults = defaults
        self.nparams = len(params)
        self.min_args = self.nparams - sum(1 for d in defaults if d is not None)
        self.loc = loc
        self.catches_return = catches_return
        # what must live as long as this function value: the use of the global slots its
        # body reads, made by a decorated function's call (frontend/decorator.py)
        self.keeps = None

    def invoke(self, args: list | tuple, kwargs: dict | None = None) -> Any:
        n = len(args)
        if kwargs:
            args = self._bind_keywords(list(args), kwargs)
            n = len(args)
        if n > self.nparams:
            if not (self.nparams == 0 and n == 1 and args[0] is None):
                raise PhylanxTypeError(
                    f"function '{self.name}' takes {self.nparams} argument(s), got {n}",
                    None, self.name)
            n = 0
            args = ()
        frame = [None] * self.frame_size
        frame[0] = self.closure
        frame[1:n + 1] = args
        if n < self.nparams:
            for i in range(n, self.nparams):
                default = self.defaults[i]
                if default is None:
                    raise PhylanxTypeError(
                        f"function '{self.name}' is missing argument '{self.params[i]}' "
                        f"(takes {self.min_args} to {self.nparams}, got {n})", None, self.name)
                frame[i + 1] = default.choice.call(frame)
        for i in range(1, self.nparams + 1):
            # parameters are bound to values: an ``async`` argument is waited for here,
            # so reads of a parameter never test for a future (runtime/nodes.py, slot_op)
            while isinstance(frame[i], Deferred):
                frame[i] = frame[i].result()
        if self.catches_return:
            try:
                return self.entry.call(frame)
            except ReturnSignal as ret:
                return ret.value
        return self.entry.call(frame)

    def _bind_keywords(self, args: list, kwargs: dict) -> list:
        _missing = object()
        slots = args + [_missing] * (self.nparams - len(args))
        for key, value in kwargs.items():
            if key not in self.params:
                raise PhylanxTypeError(
                    f"function '{self.name}' has no argument named '{key}' "
                    f"(arguments: {', '.join(self.params) or 'none'})", self.loc, self.name)
            i = self.params.index(key)
            if i < len(args):
                raise PhylanxTypeError(
                    f"function '{self.name}' got argument '{key}' twice", self.loc, self.name)
            slots[i] = value
        # trailing omitted arguments take their defaults; holes in the middle are filled
        # by evaluating the default here (in a frame holding what is known so far)
        while slots and slots[-1] is _missing:
            slots.pop()
        for i, value in enumerate(slots):
            if value is _missing:
                default = self.defaults[i]
                if default is None:
                    raise PhylanxTypeError(
                        f"function '{self.name}' is missing argument '{self.params[i]}'",
                        self.loc, self.name)
                frame = [self.closure] + slots[:i] + [None] * (self.frame_size - 1 - i)
                slots[i] = default.choice.call(frame)
        return slots

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # called as a Python callable (from Python, or by a kernel): no loop of the
        # caller can catch a break() from here
        try:
            return self.invoke(args, kwargs)
        except ControlSignal as jump:
            raise jump.as_error() from None

    def __repr__(self) -> str:
        return f"<PhySL function {self.name}({', '.join(self.params)})>"


class Builtin:
    """A primitive used as a value: ``fmap(sqrt, x)``, ``apply(vstack, xs)``."""

    __slots__ = ("name", "call")

    def __init__(self, name: str, call: Callable[..., Any]):
        self.name = name
        self.call = call

    def invoke(self, args: list | tuple, kwargs: dict | None = None) -> Any:
        return self.call(*args, **(kwargs or {}))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.call(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"


def call_function(fn: Any, args: list | tuple, kwargs: dict | None = None,
                  name: str | None = None) -> Any:
    """Call a function value with evaluated arguments: the one way to do it.

    ``fn`` is a PhySL :class:`Function`, a :class:`Builtin` primitive, any Python
    callable, or a future of one (``define(f, async(lambda(...)))``).  ``name`` is
    how the caller spelled it, for the error when ``fn`` is not a function.
    The compiler's ``call-function`` nodes, the higher-order primitives (via
    :func:`call`) and ``execution_tree.invoke`` (from Python) all end here.
    """
    t = type(fn)
    if t is Function or t is Builtin:
        return fn.invoke(args, kwargs)
    if isinstance(fn, Deferred):
        return call_function(fn.result(), args, kwargs, name)
    if callable(fn):
        return fn(*args, **(kwargs or {}))
    if name is not None:
        raise PhylanxTypeError(f"'{name}' is a {type_name(fn)}, not a function")
    raise PhylanxTypeError(f"a {type_name(fn)} is not a function and cannot be called")


def call(fn: Any, *args: Any) -> Any:
    """``call_function(fn, args)``: the spelling used by the higher-order primitives."""
    return call_function(fn, args)


def truth(value: Any) -> bool:
    """PhySL truthiness: nil is false, arrays must have one element (as NumPy)."""
    if value is None:
        return False
    if isinstance(value, np.ndarray):
        if value.size != 1:   # a ValueError, as NumPy's
            raise PhylanxValueError(
                f"the truth value of an array with {value.size} elements is ambiguous; "
                "use all() or any()")
        return bool(value.reshape(()))
    if isinstance(value, Deferred):   # a future does not guess: its value's truth
        return truth(value.result())
    return bool(value)


_TYPE_NAMES = {
    type(None): "nil", str: "string", list: "list", range: "list", tuple: "tuple",
    dict: "dictionary",
    Function: "function", Builtin: "primitive",
}


def type_name(value: Any) -> str:
    """A short name of a value's kind for error messages: 'float64 array (2, 3)'."""
    if isinstance(value, np.ndarray):
        return f"{value.dtype} array of shape {value.shape}"
    if isinstance(value, np.generic):
        return f"{value.dtype} scalar"
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def array_protocol(value: Any, dtype: Any = None, copy: Any = None) -> np.ndarray:
    """``__array__`` of an object standing for ``value`` (a variable, a future), under
    NumPy 2's protocol: ``copy=True`` (``np.array(obj)``) an array of its own (others
    share ``value``), ``copy=False`` no copy or a ValueError, None either (NumPy 1 never
    passes ``copy``, and its ``asarray`` has no such argument)."""
    if copy:
        return np.array(value, dtype=dtype, copy=True)
    if copy is None:
        return np.asarray(value, dtype=dtype)
    return np.asarray(value, dtype=dtype, copy=False)


# -- copies standing for views ------------------------------------------------------
#: id of a copy -> (a weak reference to it, how to write a new value through to its source)
_WRITE_THROUGH: dict[int, tuple[Any, Callable[[np.ndarray, np.ndarray], None]]] = {}


def stands_for_view(copy: np.ndarray,
                    write_back: Callable[[np.ndarray, np.ndarray], None]) -> np.ndarray:
    """Mark ``copy`` (a selection gathered from a tiled array, where NumPy gives a view)
    so a change in place reaches the source: ``__inplace`` calls ``write_back(copy,
    new)`` (which may refuse: the source changed since), then the copy takes ``new``.
    Any other write into it (``y[0] = v``, ``y.sort()``, a view of it changed) is
    NumPy's read-only error, never a change lost silently.  The array returned is a
    view of ``copy`` (which stays read-only): NumPy refuses ``writeable = True`` on a
    view of a read-only array, so a user cannot unlock it either (a write would reach
    neither the source nor survive ``view_copies.refresh``); :func:`unlocked` is how
    the copy's own machinery writes into it."""
    copy.flags.writeable = False
    shown = copy.view() if copy.base is None else copy
    key = id(shown)
    _WRITE_THROUGH[key] = (weakref.ref(shown, lambda _: _WRITE_THROUGH.pop(key, None)),
                           write_back)
    return shown


@contextmanager
def unlocked(array: np.ndarray) -> Iterator[np.ndarray]:
    """``array`` (a copy from :func:`stands_for_view`, read-only) writable for the
    body; it and its bases take their flags back after it."""
    chain = [array]
    while isinstance(chain[-1].base, np.ndarray):
        chain.append(chain[-1].base)
    was = [a.flags.writeable for a in chain]
    for a in reversed(chain):           # (a view may be unlocked only after its base)
        a.flags.writeable = True
    try:
        yield array
    finally:
        for a, flag in zip(chain, was):
            a.flags.writeable = flag


def write_through_of(array: np.ndarray) -> Callable[[np.ndarray, np.ndarray], None] | None:
    """The ``write_back`` of a copy marked by :func:`stands_for_view`, else None."""
    entry = _WRITE_THROUGH.get(id(array))
    if entry is None or entry[0]() is not array:
        return None
    return entry[1]


def scalarize(value: Any) -> Any:
    """0-d arrays become NumPy scalars; everything else is returned as is."""
    if type(value) is np.ndarray and value.ndim == 0:
        return value[()]
    return value


#: NumPy's random generators, passed to decorated code as themselves
_RANDOM_STATES = (np.random.Generator, np.random.RandomState)


def from_python(value: Any) -> Any:
    """Python argument -> PhySL value (arrays pass through without copying)."""
    t = type(value)
    if t is np.ndarray:
        return value   # a 0-d array stays one, as in NumPy (its operations give scalars)
    if t is int or t is float or t is bool:
        return value  # weak scalars, as in NumPy code (see compiler.literal_value)
    if value is None or t is str or isinstance(value, (np.generic, Function, Builtin, range)):
        return value
    if isinstance(value, _RANDOM_STATES) or t is set or t is frozenset:
        return value   # held as themselves: their methods draw, or are Python's
    if t is list:
        if _KEPT_AS_THEY_ARE.issuperset(map(type, value)):
            return value        # (the types gathered in C, as in to_python)
        items = [from_python(v) for v in value]
        # a list that needs no conversion is passed as itself, so in-place changes
        # (append, item stores) are seen by the caller, as in Python
        if all(a is b for a, b in zip(items, value)):
            return value
        return items
    if t is tuple:
        items = tuple(from_python(v) for v in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    if t is dict:
        converted = {k: from_python(v) for k, v in value.items()}
        if all(converted[k] is v for k, v in value.items()):
            return value
        return converted
    if isinstance(value, np.ndarray):
        return plain_array(value)
    conv = getattr(t, "__phylanx_value__", None)
    if conv is not None:   # a variable's current value; a DistributedArray is itself
        return conv(value)
    if callable(value):
        return value
    hint = " (np.asarray(x) passes its values)" if hasattr(value, "__array__") else ""
    raise PhylanxTypeError(f"cannot pass a Python {t.__name__} to PhySL{hint}", user_line())


#: ndarray subclasses that are plain data (ndarray's arithmetic, reductions and
#: indexing): passed as an ndarray of their memory.  A recarray only adds reading
#: fields as attributes; its operations are ndarray's
_PLAIN_DATA_SUBCLASSES = (np.memmap, np.recarray)


def _subclass_meaning(value: np.ndarray) -> str:
    """Why a subclass NumPy ships cannot be passed as its values alone (numpy.ma is
    looked up, not imported: a masked array exists only once it is loaded)."""
    ma = sys.modules.get("numpy.ma")
    if ma is not None and isinstance(value, ma.MaskedArray):
        return ("its mask would be ignored (masked entries counted in sums, means, ...): "
                "pass a.filled(value) or a.compressed()")
    if isinstance(value, np.matrix):
        return "its * and ** are matrix products and its results stay 2-d: pass np.asarray(m)"
    return "its operations may differ from an ndarray's: pass np.asarray(x) if its values " \
           "alone are meant"


def plain_array(value: np.ndarray) -> np.ndarray:
    """``value``, an ndarray or a subclass of it, as a plain ndarray: a subclass whose
    operations differ from ndarray's (a masked array, np.matrix, any other) is a located
    error, never its values taken silently without what it means."""
    if type(value) is np.ndarray:
        return value
    if isinstance(value, _PLAIN_DATA_SUBCLASSES):
        return np.asarray(value)
    t = type(value)
    raise PhylanxTypeError(f"cannot pass a {t.__module__}.{t.__name__} (a subclass of "
                           f"numpy.ndarray) to PhySL: {_subclass_meaning(value)}", user_line())


#: item types that both from_python and to_python return as they are (exact types: a
#: subclass may convert)
_KEPT_AS_THEY_ARE = frozenset(
    (np.ndarray, int, float, bool, str, type(None))
    + tuple(np.dtype(code).type for code in "?bhilqBHILQefdgFDG"))


def to_python(value: Any) -> Any:
    """PhySL value -> Python result.

    0-d arrays stay 0-d arrays (as NumPy keeps them); Python and NumPy scalars are
    returned as they are (a Python number stays one, as in the undecorated code); lists, tuples and
    dicts are converted element by element and keep their kind at any depth (a list or
    tuple none of whose items converts is returned as itself, not copied).
    """
    t = type(value)
    if t is np.ndarray:
        return value
    if t is int or t is float or t is bool or t is str or value is None:
        return value
    if t is list or t is tuple:
        # built once: the container itself when no item converts (as from_python passes
        # a list), a copy only from the first item that does; the items' types are
        # gathered in C (a call of this function per item cost 0.1 us: 1 ms a 10,000-item
        # list)
        if _KEPT_AS_THEY_ARE.issuperset(map(type, value)):
            return value
        for i, item in enumerate(value):
            converted = to_python(item)
            if converted is not item:
                items = [*value[:i], converted, *map(to_python, value[i + 1:])]
                return items if t is list else tuple(items)
        return value
    if t is range:
        return list(value)
    if t is dict:
        return {to_python(k): to_python(v) for k, v in value.items()}
    if isinstance(value, Deferred):   # ``async`` values reach Python as their values
        return to_python(value.result())
    return value


__all__ = [
    "Builtin", "Deferred", "Function", "PhylanxError", "call", "call_function", "from_python",
    "plain_array", "scalarize", "to_python", "truth", "type_name",
]


def display(value: Any) -> str:
    """How ``cout`` and ``phylanx physl --print`` show a value (Python-like)."""
    t = type(value)
    if t is list:
        return "[" + ", ".join(display(v) for v in value) + "]"
    if t is tuple:
        return "(" + ", ".join(display(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if t is range:
        return display(list(value))
    if t is dict:
        return "{" + ", ".join(f"{display(k)}: {display(v)}" for k, v in value.items()) + "}"
    if t is str:
        return value
    if isinstance(value, np.ndarray):
        return np.array2string(value, separator=", ") if value.ndim else str(value[()])
    if isinstance(value, Deferred):
        return display(value.result())
    return str(value)
