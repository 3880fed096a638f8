"""Extension primitives the Python frontend translates to (names start with ``__``).

Python operators and built-ins with no primitive of the original: ``//``,
bitwise operators, ``in``, ``is``, ``float()``/``int()``, ``enumerate``,
``zip``, Python's ``sum``/``max``/``min``, dict views, ``x.dtype``, ``np.array``
of any nesting, tuple-unpacking checks and ``raise``.  Each follows Python (or
NumPy, for arrays) exactly, so a decorated function behaves like the original.
"""
from __future__ import annotations

import builtins
import copy as _copy
import math
import operator
import threading
from functools import reduce

import numpy as np

from ...errors import (
    PhylanxAttributeError,
    PhylanxError,
    PhylanxIndexError,
    PhylanxRuntimeError,
    PhylanxTypeError,
    PhylanxValueError,
    phylanx_class,
)
from ...values import NEWAXIS, call, scalarize, truth, type_name, unlocked, write_through_of
from ..array_args import python_call
from ..controls.control_flow import iterate
from ..dtypes import to_dtype
from ..numeric_args import as_numeric
from ..registry import primitive


def _binary(name: str, op, oracle, doc: str, example: str, result: str,
            zero_gradient: str | None = None):
    def impl(a, b):
        return op(a, b)
    impl.__name__ = name
    impl.__doc__ = doc
    primitive(name, f"{name}(_1, _2)", extension=True, internal=True, elementwise=True,
              oracle=oracle, example=example, result=result,
              flags={"binary": op}, zero_gradient=zero_gradient)(impl)
    return impl


floordiv = _binary("__floordiv", operator.floordiv,
                   np.floor_divide,
                   "Floor division ``a // b`` (Python/NumPy semantics, rounding to -inf).",
                   "__floordiv([7, -7], 2)", "[3, -4]",
                   zero_gradient="piecewise constant in both operands (integer steps)")
bitand = _binary("__bitand", operator.and_, np.bitwise_and,
                 "Bitwise/logical and ``a & b`` (element-wise on arrays).",
                 "__bitand([true, false], true)", "[true, false]")
bitor = _binary("__bitor", operator.or_, np.bitwise_or,
                "Bitwise/logical or ``a | b`` (element-wise on arrays).",
                "__bitor([true, false], false)", "[true, false]")
bitxor = _binary("__bitxor", operator.xor, np.bitwise_xor,
                 "Bitwise/logical exclusive or ``a ^ b`` (element-wise on arrays).",
                 "__bitxor([true, false], true)", "[false, true]")
lshift = _binary("__lshift", operator.lshift, np.left_shift, "Left shift ``a << b``.",
                 "__lshift(1, 3)", "8")
rshift = _binary("__rshift", operator.rshift, np.right_shift, "Right shift ``a >> b``.",
                 "__rshift(16, 2)", "4")


@primitive("__invert", "__invert(_1)", extension=True, internal=True, elementwise=True,
           oracle=np.invert,
           example="__invert([true, false])", result="[false, true]")
def invert(a):
    """``~a``: logical not of NumPy booleans, bitwise not of integers (as NumPy).

    A Python ``bool`` is an ``int`` to ``~``, as in Python: ``~True`` is ``-2``."""
    return operator.invert(a)


@primitive("__contains", "__contains(_1, _2)", extension=True, internal=True,
           oracle=lambda c, x: x in c,
           example="__contains(list(1, 2, 3), 2)", result="true")
def contains(container, item):
    """``item in container`` (lists, strings, dict keys, array elements): a Python bool."""
    if isinstance(container, dict):
        if isinstance(item, np.ndarray):
            raise PhylanxTypeError("an array cannot be a dictionary key")
        return item in container
    if isinstance(container, (set, frozenset)):
        if isinstance(item, np.ndarray):
            raise PhylanxTypeError("an array cannot be a set element (unhashable)")
        return item in container
    if isinstance(container, (list, tuple, range)):
        return any(_same(item, v) for v in container)
    if isinstance(container, str):
        if not isinstance(item, str):
            raise PhylanxTypeError(f"'in <string>' needs a string, got a {type_name(item)}")
        return item in container
    if isinstance(container, np.ndarray):
        return bool(item in container)
    raise PhylanxTypeError(f"a {type_name(container)} does not support 'in'")


def _same(a, b) -> bool:
    """Python's list equality of items: identity first (a NaN equals itself), then ==."""
    if a is b:
        return True
    r = a == b
    if isinstance(r, np.ndarray):
        return bool(r.all()) if r.size else np.shape(a) == np.shape(b)
    return bool(r)


@primitive("__is", "__is(_1, _2)", takes_tiled=True, extension=True, internal=True,
           oracle=lambda a, b: a is b,
           example="__is(nil, nil)", result="true")
def is_(a, b):
    """``a is b``: identity for nil and booleans (what ``is`` is used for), else of objects.

    The result is a Python bool, as Python's ``is``."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (bool, np.bool_)) and isinstance(b, (bool, np.bool_)):
        return bool(a) == bool(b)
    return a is b


@primitive("__copy", "__copy(_1)", extension=True, internal=True, oracle=_copy.copy,
           example="__copy([1, 2])", result="[1, 2]", differentiable=True)
def copy_(x):
    """A shallow copy (``x.copy()``, ``np.copy(x)``)."""
    if isinstance(x, np.ndarray):
        return x.copy()
    return _copy.copy(x)


@primitive("__dtype", "__dtype(_1)", extension=True, internal=True, distributable=True,
           oracle=lambda x: np.asarray(x).dtype,
           example="__dtype([1, 2]) == \"int64\"", result="True")
def dtype_(x):
    """The dtype of an array or scalar (``x.dtype``), NumPy's ``np.dtype``.

    It compares equal to its name and to its class (``x.dtype == np.float32``,
    ``x.dtype == float``), as in NumPy."""
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype
    if not isinstance(x, (bool, int, float)):
        raise PhylanxTypeError(f"a {type_name(x)} has no dtype")
    return np.asarray(x).dtype


@primitive("__array", "__array(_1, __arg(_2_dtype, nil), __arg(_3_copy, true))",
           extension=True, internal=True,
           oracle=lambda x, dtype=None, copy=True: np.array(x, dtype=to_dtype(dtype)),
           example="__array(list(list(1, 2), list(3, 4)))", result="[[1, 2], [3, 4]]",
           differentiable=True)
def array(x, dtype=None, copy=True):
    """``np.array(x, dtype)`` / ``np.asarray(x, dtype)`` (``copy=false``) of nested lists."""
    try:
        if dtype is None and copy is True:   # np.array(list): nothing to convert
            out = np.array(x)
        else:
            out = np.array(x, dtype=to_dtype(dtype), copy=None if not truth(copy) else True)
    except ValueError as e:
        raise PhylanxValueError(f"cannot make an array: {e}") from None
    if out.dtype == object:
        raise PhylanxValueError("cannot make an array of ragged or mixed lists")
    return out   # np.array(3) is a 0-d array, as in NumPy


@primitive("__pycast", "__pycast(_1, _2_dtype)", extension=True, internal=True,
           oracle=lambda x, dtype: to_dtype(dtype).type(x),
           example="__pycast(2.7, \"int64\")", result="2", differentiable=True)
def pycast(x, dtype):
    """``np.float32(x)``, ``np.uint8(x)`` ...: NumPy's scalar type called on ``x``.

    NumPy decides everything: a Python number out of the type's range is its
    OverflowError (``np.uint8(-1)``), an array or list gives an array of that dtype, a
    string is parsed."""
    dt = to_dtype(dtype)
    return python_call(f"np.{dt.type.__name__}", dt.type, (), (x,))


@primitive("__pylist", "__pylist(_1)", extension=True, internal=True, oracle=list,
           example="__pylist(range(3))", result="list(0, 1, 2)", differentiable=True)
def pylist(x):
    """``list(x)``/``tuple(x)``: the items of any iterable (array rows, dict keys ...)."""
    return list(iterate(x))


@primitive("__enumerate", "__enumerate(_1, __arg(_2_start, 0))",
           extension=True, internal=True, oracle=lambda x, start=0: list(enumerate(x, start)),
           example="__enumerate(list(\"a\", \"b\"))",
           result="list(tuple(0, \"a\"), tuple(1, \"b\"))")
def enumerate_(x, start=0):
    """``enumerate(x, start)`` as a list of ``(index, item)`` tuples."""
    return list(enumerate(iterate(x), int(start)))


@primitive("__zip", "__zip(__1)", extension=True, internal=True,
           oracle=lambda *xs: list(zip(*xs)),
           example="__zip(list(1, 2), list(3, 4))", result="list(tuple(1, 3), tuple(2, 4))")
def zip_(*iterables):
    """``zip(a, b, ...)`` as a list of tuples (shortest input wins)."""
    return list(zip(*[list(iterate(x)) for x in iterables]))


@primitive("__flatten1", "__flatten1(_1)", extension=True, internal=True,
           oracle=lambda xs: [y for x in xs for y in x],
           example="__flatten1(list(list(1), list(2, 3)))", result="list(1, 2, 3)")
def flatten1(lists):
    """Concatenate a list of lists (nested comprehensions)."""
    return [y for x in lists for y in iterate(x)]


@primitive("__pysum", "__pysum(_1, __arg(_2_start, 0))", extension=True, internal=True,
           oracle=sum,
           example="__pysum(list(1, 2, 3))", result="6", differentiable=True)
def pysum(items, start=0):
    """Python's ``sum(items, start)``: adds the items (arrays element-wise) to ``start``."""
    return reduce(operator.add, iterate(items), start)


def _extreme(name: str, pick):
    def impl(*args):
        items = list(iterate(args[0])) if len(args) == 1 else list(args)
        if not items:
            raise PhylanxValueError(f"{name}() of an empty sequence")
        best = items[0]
        for v in items[1:]:
            if truth(pick(v, best)):
                best = v
        return best
    return impl


def _pymax(*args):
    """Python's ``max(a, b, ...)`` or ``max(iterable)`` (the first largest item)."""
    return _extreme("max", operator.gt)(*args)


def _pymin(*args):
    """Python's ``min(a, b, ...)`` or ``min(iterable)`` (the first smallest item)."""
    return _extreme("min", operator.lt)(*args)


primitive("__pymax", "__pymax(_1, __2)", extension=True, internal=True, oracle=max,
          example="__pymax(3, 7, 5)", result="7")(_pymax)
primitive("__pymin", "__pymin(_1, __2)", extension=True, internal=True, oracle=min,
          example="__pymin(3, 7, 5)", result="3")(_pymin)


@primitive("__sorted", "__sorted(_1, __arg(_2_reverse, false), __arg(_3_key, nil))",
           higher_order=True,
           extension=True, internal=True,
           oracle=lambda x, reverse=False, key=None: sorted(x, reverse=reverse),
           example="__sorted(list(3, 1, 2))",
           result="list(1, 2, 3)")
def sorted_(items, reverse=False, key=None):
    """Python's ``sorted(items, key=..., reverse=...)`` as a list (a stable sort)."""
    items = list(iterate(items))
    if key is None:
        return sorted(items, reverse=bool(truth(reverse)))
    keys = [call(key, v) for v in items]
    order = sorted(range(len(items)), key=keys.__getitem__, reverse=bool(truth(reverse)))
    return [items[i] for i in order]


@primitive("__best", "__best(_1, _2_key, _3_largest, __arg(_4_default, nil), "
           "__arg(_5_has_default, false))", extension=True, internal=True, higher_order=True,
           oracle=lambda x, key, largest, default=None, has_default=False:
           (max if largest else min)(x),
           example="__best(list(3, -7, 5), nil, true)",
           result="5")
def best(items, key, largest, default=None, has_default=False):
    """``max(items, key=f, default=d)`` / ``min(...)``: the first best item by ``key``."""
    items = list(iterate(items))
    if not items:
        if truth(has_default):
            return default
        raise PhylanxValueError(f"{'max' if truth(largest) else 'min'}() of an empty sequence")
    keys = items if key is None else [call(key, v) for v in items]
    pick = operator.gt if truth(largest) else operator.lt
    index = 0
    for i in range(1, len(items)):
        if truth(pick(keys[i], keys[index])):
            index = i
    return items[index]


@primitive("__reversed", "__reversed(_1)", extension=True, internal=True,
           oracle=lambda x: list(reversed(x)),
           example="__reversed(list(1, 2))", result="list(2, 1)")
def reversed_(items):
    """Python's ``reversed(items)`` as a list."""
    return list(iterate(items))[::-1]


@primitive("__round", "__round(_1, __arg(_2_ndigits, nil))", extension=True, internal=True,
           oracle=lambda x, n=None: round(x, n),
           example="__round(2.6)", result="3",
           zero_gradient="piecewise constant (steps of 10**-ndigits)")
def round_(x, ndigits=None):
    """Python's ``round(x[, ndigits])`` (half to even; an ``int`` without ndigits).

    Python's own ``round``: a Python float rounds its exact binary value
    (``round(3.55, 1)`` is 3.5), a NumPy scalar rounds as NumPy does and stays one.
    """
    if isinstance(x, np.ndarray):
        if x.ndim:
            return np.round(x, 0 if ndigits is None else int(ndigits))
        x = x[()]
    return round(x) if ndigits is None else round(x, int(ndigits))


@primitive("__item", "__item(_1, __2)", extension=True, internal=True,
           oracle=lambda x, *index: np.asarray(x).item(*index),
           example="__item([[3, 4]], 1)", result="4", differentiable=True)
def item(x, *index):
    """``x.item(*index)``: one element as a Python number, as NumPy's ``item``.

    No index: the only element of a one-element array; one integer: the element at that
    flat (C-order) position; one integer per axis (or a tuple of them): that element.
    """
    a = np.asarray(x)
    if not index and a.size != 1:
        raise PhylanxValueError(f"item() needs an array of size 1, got size {a.size}")
    if len(index) == 1 and isinstance(index[0], tuple):
        index = index[0]
    for i in index:
        if not isinstance(i, (int, np.integer)) or isinstance(i, (bool, np.bool_)):
            raise PhylanxTypeError(f"item() takes integer indices, got a {type_name(i)}")
    try:
        return a.item(*index)
    except IndexError as e:
        raise PhylanxIndexError(f"item{tuple(int(i) for i in index)}: {e}") from None
    except ValueError as e:
        raise PhylanxValueError(f"item{tuple(int(i) for i in index)}: {e}") from None


#: the functions of Python's ``math`` module, by name
MATH_FUNCTIONS = {name: getattr(math, name) for name in dir(math)
                  if not name.startswith("_") and callable(getattr(math, name))}


@primitive("__pymath", "__pymath(_1_function, _2_keywords, __3)", extension=True, internal=True,
           differentiable=True,
           no_oracle="Python's math module itself; tests compare with undecorated code",
           example="__pymath(\"comb\", list(), 5, 2)", result="10")
def pymath(function, keywords, *values):
    """Python's ``math.<function>(...)``: the module's own function.

    So results, types (``math.gcd`` an int) and errors (``math.sqrt(-1)`` a ValueError)
    are Python's.
    """
    fn = MATH_FUNCTIONS.get(function)
    if fn is None:
        raise PhylanxValueError(f"math.{function} is not a function of Python's math module")
    return python_call(f"math.{function}()", fn, keywords, values)


@primitive("__pydict", "__pydict(_1_keywords, __2)", extension=True, internal=True,
           no_oracle="Python's dict itself; tests compare with undecorated code",
           example="__pydict(list(\"b\"), dict(list(list(\"a\", 1))), 2)",
           result="dict(list(list(\"a\", 1), list(\"b\", 2)))")
def pydict(keywords, *values):
    """Python's ``dict(...)``: a copy of a mapping, pairs, ``key=value`` keywords.

    ``keywords`` names the last values.
    """
    return python_call("dict()", dict, keywords, values)


#: Python built-ins called as themselves (``pow`` with a modulus; the text of a value;
#: characters and integer digits)
PYTHON_BUILTINS = {"pow": pow, "repr": repr, "hash": hash, "ascii": ascii, "ord": ord,
                   "chr": chr, "bin": bin, "hex": hex, "oct": oct}


@primitive("__pybuiltin", "__pybuiltin(_1_function, _2_keywords, __3)", extension=True,
           internal=True,
           no_oracle="Python's built-ins themselves; tests compare with undecorated code",
           example="__pybuiltin(\"pow\", list(), 3, 4, 5)", result="1")
def pybuiltin(function, keywords, *values):
    """Python's built-in ``function(...)`` (``pow(a, b, m)``, ``repr``, ``ord`` ...).

    Called as themselves: ``pow``, ``repr``, ``hash``, ``ascii``, ``ord``, ``chr``,
    ``bin``, ``hex``, ``oct``."""
    fn = PYTHON_BUILTINS.get(function)
    if fn is None:
        raise PhylanxValueError(f"the built-in '{function}' is not callable here")
    return python_call(f"{function}()", fn, keywords, values)


#: receiver kind -> its methods called as themselves (the others have primitives)
_METHODS_OF = {kind: frozenset(n for n in dir(kind) if not n.startswith("_"))
               for kind in (str, set, frozenset, list, dict)}
PYTHON_METHODS = frozenset().union(*_METHODS_OF.values())


@primitive("__pymethod", "__pymethod(_1_receiver, _2_method, _3_keywords, __4)",
           extension=True, internal=True, side_effects=True,
           no_oracle="Python's str and set methods; tests compare with undecorated code",
           example="__pymethod(\"ab\", \"upper\", list())", result="\"AB\"")
def pymethod(receiver, method, keywords, *values):
    """``x.<method>(...)`` of a Python string, set, list or dict: the type's own method.

    ``upper``, ``split``, ``join``, ``replace`` ...; ``add``, ``union``, ``issubset`` ...;
    ``clear``, ``popitem`` ... (the methods with no primitive of their own).  A value
    changed in place (``add``, ``discard``, ``clear``) is changed for every name of it.
    """
    if method not in _METHODS_OF.get(type(receiver), ()):
        kinds = " or ".join(k.__name__ for k, names in _METHODS_OF.items() if method in names)
        raise PhylanxAttributeError(f"a {type_name(receiver)} has no method '.{method}()' "
                                    f"(it is a method of {kinds})")
    return python_call(f".{method}()", getattr(receiver, method), keywords, values)


@primitive("__pyset", "__pyset(_1_kind, __2)", extension=True, internal=True,
           no_oracle="Python's set itself; tests compare with undecorated code",
           example="__len(__pyset(\"set\", list(1, 2, 2)))", result="2")
def pyset(kind, *items):
    """Python's ``set(...)``/``frozenset(...)`` and set literals (``kind`` names the type)."""
    if kind not in ("set", "frozenset"):
        raise PhylanxValueError(f"unknown set kind {kind!r}")
    return python_call(f"{kind}()", set if kind == "set" else frozenset, (), items)


@primitive("__pycomplex", "__pycomplex(_1_real, _2_imag)", extension=True, internal=True,
           oracle=complex, samples="binary", example="__pycomplex(1.0, 2.0)",
           result="__pycomplex(1.0, 2.0)")
def pycomplex(real, imag):
    """A Python complex number (decorated code's complex literals such as ``2 + 3j``)."""
    return python_call("complex()", complex, (), (real, imag))


@primitive("__pyconj", "__pyconj(_1)", extension=True,
           internal=True, oracle=np.conjugate, samples="unary",
           differentiable=True, example="__pyconj(__pycomplex(1.0, 2.0))",
           result="__pycomplex(1.0, -2.0)")
def pyconj(x):
    """Python's ``x.conjugate()`` / ``x.conj()``.

    A Python number stays one; arrays and NumPy scalars are numpy.conjugate's.
    """
    if type(x) in (int, float, complex, bool):
        return x.conjugate()
    return np.conjugate(as_numeric(x))


@primitive("__tolist", "__tolist(_1)", extension=True, internal=True,
           oracle=lambda x: np.asarray(x).tolist(),
           example="__tolist([1, 2])", result="list(1, 2)", differentiable=True)
def tolist(x):
    """``x.tolist()``: nested lists of Python numbers, as NumPy's."""
    return np.asarray(x).tolist()


@primitive("__items", "__items(_1)", extension=True, internal=True,
           oracle=lambda d: list(d.items()),
           example="__items(dict(list(list(\"a\", 1))))", result="list(tuple(\"a\", 1))")
def items(d):
    """``d.items()`` as a list of ``(key, value)`` tuples."""
    return list(_dict(d, "items").items())


@primitive("__keys", "__keys(_1)", extension=True, internal=True, oracle=lambda d: list(d),
           example="__keys(dict(list(list(\"a\", 1))))",
           result="list(\"a\")")
def keys(d):
    """``d.keys()`` as a list."""
    return list(_dict(d, "keys"))


@primitive("__values", "__values(_1)", extension=True, internal=True,
           oracle=lambda d: list(d.values()),
           example="__values(dict(list(list(\"a\", 1))))", result="list(1)")
def values(d):
    """``d.values()`` as a list."""
    return list(_dict(d, "values").values())


@primitive("__dict_get", "__dict_get(_1, _2, __arg(_3_default, nil))",
           extension=True, internal=True, oracle=lambda d, k, default=None: d.get(k, default),
           example="__dict_get(dict(list(list(\"a\", 1))), \"b\", 7)", result="7")
def dict_get(d, key, default=None):
    """``d.get(key, default)``."""
    return _dict(d, "get").get(key, default)


def _dict(d, method: str) -> dict:
    # the method of a dict only: another receiver lacks it (Python's AttributeError)
    if not isinstance(d, dict):
        raise PhylanxAttributeError(f"a {type_name(d)} has no method '.{method}()' (a "
                                    "dictionary's)")
    return d


@primitive("__check_unpack", "__check_unpack(_1, _2)", extension=True, internal=True,
           no_oracle="raises or returns nil", example="__check_unpack(list(1, 2), 2)",
           result="nil")
def check_unpack(value, count):
    """Check that ``value`` unpacks into ``count`` targets (``-n``: at least n-1, one starred)."""
    if isinstance(value, np.ndarray) and value.ndim == 0 or not isinstance(
            value, (list, tuple, np.ndarray, str, range, dict)):
        raise PhylanxTypeError(f"cannot unpack a {type_name(value)}")
    n, want = len(value), int(count)
    if want >= 0 and n != want:
        more = "too many values" if n > want else "not enough values"
        raise PhylanxValueError(f"{more} to unpack (expected {want}, got {n})")
    if want < 0 and n < -want - 1:
        raise PhylanxValueError(f"not enough values to unpack (expected at least {-want - 1}, "
                                f"got {n})")


@primitive("__raise", "__raise(_1, _2)", extension=True, internal=True, side_effects=True,
           no_oracle="raises", example="if(false, __raise(\"ValueError\", \"bad\"), 1)",
           result="1")
def raise_(kind, message):
    """``raise ValueError(message)``: a located Phylanx error of the matching kind."""
    text = f"{kind}: {message}" if message != "" else kind
    raise _raised(kind)(text)


def _raised(kind: str) -> type:
    """The Phylanx class of ``raise <kind>(...)``: both a Phylanx error (located by the
    evaluator) and the built-in, so ``except KeyError:`` around the call catches it as it
    would the undecorated function's."""
    builtin = getattr(builtins, kind, None)
    if isinstance(builtin, type) and issubclass(phylanx_class(builtin), builtin):
        return phylanx_class(builtin)
    return PhylanxError


#: (error, what ``as e`` binds) for each ``except`` block running on this thread
_HANDLING = threading.local()


def _handling() -> list:
    stack = getattr(_HANDLING, "stack", None)
    if stack is None:
        stack = _HANDLING.stack = []
    return stack


def _exception_classes(kinds: str) -> tuple[type, ...]:
    """``"ValueError|KeyError"`` -> the built-in classes ("" catches every error)."""
    if not kinds:
        return (Exception,)
    return tuple(getattr(builtins, name) for name in kinds.split("|"))


def _as_python(error: PhylanxError) -> BaseException:
    """What ``except E as e`` binds: the class Python would raise (a built-in, or NumPy's
    ``AxisError``/``LinAlgError``), its message."""
    cls = next((c for c in type(error).__mro__ if c.__module__.split(".")[0] != "phylanx"
                and c is not RuntimeError), RuntimeError)
    message = error.message
    prefix = f"{cls.__name__}: "   # ``raise ValueError("x")`` says "ValueError: x"
    return cls(message[len(prefix):] if message.startswith(prefix) else message)


@primitive("__try", "__try(_1_body, _2_orelse, _3_final, __4)", extension=True,
           internal=True, lazy=True,
           side_effects=True, no_oracle="control flow; tests compare with undecorated code",
           example="block(define(r, 0), __try(__raise(\"KeyError\", \"k\"), nil, nil, "
                   "\"KeyError\", store(r, 7)), r)", result="7")
def try_(node, children):
    """Python's ``try``: ``body``, handlers, ``orelse`` and ``final``.

    The handlers are (classes, block) pairs tried in order; ``orelse`` runs when nothing
    was raised, ``final`` always (also on return and break).
    """
    body, orelse, final, *rest = children
    handlers = list(zip(rest[::2], rest[1::2]))

    def run(frame):
        try:
            body.choice.call(frame)
        except PhylanxError as error:
            for kinds, handler in handlers:
                if isinstance(error, _exception_classes(kinds.choice.call(frame))):
                    stack = _handling()
                    stack.append((error, _as_python(error)))
                    try:
                        handler.choice.call(frame)
                    finally:
                        stack.pop()
                    return None
            raise
        else:
            orelse.choice.call(frame)
        finally:
            final.choice.call(frame)
        return None
    return run


@primitive("__caught", "__caught()", extension=True, internal=True, side_effects=True,
           no_oracle="the exception an except block handles", example="__try(__raise("
           "\"KeyError\", \"k\"), nil, nil, \"KeyError\", __caught())", result="nil")
def caught():
    """The exception the innermost running ``except`` handles, as Python's class."""
    stack = _handling()
    if not stack:
        raise PhylanxRuntimeError("no exception is being handled here")
    return stack[-1][1]


@primitive("__reraise", "__reraise(_1)", extension=True, internal=True, side_effects=True,
           no_oracle="raises", example="if(false, __reraise(nil), 1)", result="1")
def reraise(exception):
    """``raise`` and ``raise e`` of a caught exception: raised again with its class."""
    if not isinstance(exception, BaseException):
        raise PhylanxTypeError(f"exceptions must derive from BaseException, got a "
                               f"{type_name(exception)}")
    for error, bound in reversed(_handling()):
        if bound is exception:
            raise error   # the original, with its location
    kind = type(exception).__name__
    raise _raised(kind)(f"{kind}: {exception}")


@primitive("__newaxis", "__newaxis()", extension=True, internal=True,
           example="shape(__subscript([1, 2, 3], nil, __newaxis()))", result="list(3, 1)",
           no_oracle="an index marker (None/np.newaxis in a Python subscript)")
def newaxis():
    """The index ``None``/``np.newaxis``: insert a length-1 axis (``x[:, None]``)."""
    return NEWAXIS


@primitive("__ellipsis", "__ellipsis()", extension=True, internal=True,
           example="__subscript([[1, 2], [3, 4]], __ellipsis(), 0)", result="[1, 3]",
           no_oracle="an index marker (... in a Python subscript)")
def ellipsis():
    """The index ``...``: as many whole axes as needed (``x[..., 0]``)."""
    return Ellipsis


@primitive("__inplace", "__inplace(_1, _2)", extension=True, internal=True, side_effects=True,
           distributable=True,
           oracle=lambda target, value: value,
           example="__inplace([1.0, 2.0], [3.0, 4.0])", result="[3.0, 4.0]",
           flags={"binary": lambda target, value: inplace(target, value)}, differentiable=True)
def inplace(target, value):
    """``x += v``: an array or list ``target`` takes the new value in place, else ``value``.

    As in Python, other names of the same array (or list) see the change; a 0-d array
    too (NumPy's ``__iadd__`` changes it), while a number or NumPy scalar (``np.float64``,
    immutable in NumPy as well) is rebound to ``value``.
    """
    if isinstance(target, np.ndarray) and target is not value:
        write_back = write_through_of(target)
        if not target.flags.writeable and write_back is None:
            # a read-only view (diagonal, broadcast_to): NumPy's error
            raise PhylanxValueError("output array is read-only")
        new = target.copy() if write_back is not None else target
        try:
            np.copyto(new, value, casting="same_kind")
        except TypeError:
            raise PhylanxTypeError(f"cannot store a {np.asarray(value).dtype} result in place "
                                   f"into a {target.dtype} array; convert with "
                                   f".astype() first") from None
        except ValueError:
            raise PhylanxValueError(f"a result of shape {np.shape(value)} does not fit in "
                                    f"place into an array of shape {target.shape}") from None
        if write_back is not None:
            # a copy standing for a view of a tiled array (``y = x[2]; y *= 2``): the
            # array changes too, as through NumPy's view (or a located error)
            write_back(target, new)
            _copy_into_read_only(target, new)
        return target
    if isinstance(target, list) and isinstance(value, list) and target is not value:
        target[:] = value
        return target
    return value


#: the operators ``x op= e`` is computed into ``x`` for (``update``), and their ufuncs
UPDATE_UFUNCS = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
                 operator.truediv: np.true_divide}
#: ``__update``'s third operand (the PhySL operator) -> the operator
UPDATE_OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul,
                    "/": operator.truediv}
_SCALARS = (int, float, complex, np.generic)


def update(op, target, other):
    """``inplace(target, op(target, other))`` (``target op= other``), computed into
    ``target`` where that is the same: a writable float/complex ndarray (0-d too), not a
    copy standing for a view (``values.stands_for_view``), ``other`` of its shape or a
    scalar, NumPy's ``result_type`` ``target``'s (no cast).  Otherwise that computation
    and :func:`inplace` (its casts, located errors, numbers rebound).  The law: a ufunc's
    output may overlap its inputs (NumPy buffers what an overlap needs), so
    ``op(x, e, out=x)`` writes the values the copy of ``op(x, e)`` into ``x`` writes,
    without the temporary and the second pass (NumPy's ``x.__iadd__``)."""
    if type(target) is np.ndarray and target.dtype.kind in "fc" \
            and target.flags.writeable and write_through_of(target) is None:
        if type(other) is np.ndarray:
            fits = other.shape == target.shape
        else:
            fits = isinstance(other, _SCALARS)
        if fits and np.result_type(target, other) == target.dtype:
            UPDATE_UFUNCS[op](target, other, out=target)
            return target
    return inplace(target, op(target, other))


def _restore_update(args: tuple, loc):
    """The expression an ``__update`` call replaced: ``__inplace(t, t op e)``."""
    from ...language import ast
    target, other, op = args
    return ast.Call("__inplace", (target, ast.BinOp(op.value, target, other, loc)), None, loc)


@primitive("__update", "__update(_1, _2, _3)", extension=True, internal=True,
           side_effects=True, distributable=True,
           no_oracle="internal: introduced by compiler/rewrite/updates.py; the oracle is "
                     "the __inplace expression it replaces (tests/compiler/test_loop_updates.py)",
           example="__update([1.0, 2.0], [3.0, 4.0], \"+\")", result="[4.0, 6.0]",
           flags={"restore": _restore_update})
def update_by_name(target, other, op):
    """``target op= other`` computed into ``target`` where NumPy's would be.

    ``__inplace(target, target op other)`` with ``target`` read once: :func:`update` of
    the operator ``op`` (``"+"``, ``"-"``, ``"*"``, ``"/"``)."""
    return update(UPDATE_OPERATORS[op], target, other)


def _copy_into_read_only(target: np.ndarray, value) -> None:
    """``np.copyto`` into a copy kept read-only (:func:`~phylanx.values.stands_for_view`)."""
    with unlocked(target):
        np.copyto(target, value, casting="same_kind")


@primitive("__npround", "__npround(_1, __arg(_2_decimals, 0))",
           extension=True, internal=True, elementwise=True, oracle=np.round,
           example="__npround([1.256, 2.5], 2)", result="[1.26, 2.5]",
           zero_gradient="piecewise constant (steps of 10**-decimals)")
def npround(x, decimals=0):
    """``np.round(x, decimals)`` / ``x.round(decimals)`` (half to even, dtype kept)."""
    return scalarize(np.round(x, int(decimals)))


@primitive("__divmod", "__divmod(_1, _2)", extension=True, internal=True,
           oracle=lambda a, b: tuple(np.divmod(a, b)),
           example="__divmod(7, 2)", result="tuple(3, 1)")
def divmod_(a, b):
    """``divmod(a, b)``: the tuple ``(a // b, a % b)`` (element-wise on arrays)."""
    return (operator.floordiv(a, b), operator.mod(a, b))
