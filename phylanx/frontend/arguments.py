"""Binding the arguments of a call from Python the way Python binds them.

A call of a decorated function from Python is bound against the Python
signature (defaults applied) before the compiled function runs.  When the
call does not fit, the error carries the message Python itself gives for that
call (``f() got an unexpected keyword argument 'z'``, ``f() takes 2 positional
arguments but 3 were given`` ...): the call is replayed on a body-less stub
with the function's parameters, defaults and qualified name, so the message
is CPython's own rather than ``inspect``'s paraphrase (which, for instance,
reports a missing ``y`` where Python reports the unexpected ``z``).
"""
from __future__ import annotations

import inspect
import types
from typing import Any

from ..errors import PhylanxTypeError
from ..source import SourceLoc


def _stub(fn: types.FunctionType) -> types.FunctionType:
    """A function with ``fn``'s parameters, defaults and name, and an empty body."""
    code = fn.__code__
    names = code.co_varnames
    npos, nposonly = code.co_argcount, code.co_posonlyargcount
    params = list(names[:nposonly]) + (["/"] if nposonly else [])
    params += list(names[nposonly:npos])
    nkwonly = code.co_kwonlyargcount
    kwonly = list(names[npos:npos + nkwonly])
    rest = npos + nkwonly   # *args, then **kwargs, follow the named parameters
    if code.co_flags & inspect.CO_VARARGS:
        params += [f"*{names[rest]}", *kwonly]
        rest += 1
    elif kwonly:
        params += ["*", *kwonly]
    if code.co_flags & inspect.CO_VARKEYWORDS:
        params.append(f"**{names[rest]}")
    namespace: dict[str, Any] = {}
    exec(f"def stub({', '.join(params)}):\n    pass\n", namespace)   # noqa: S102 - our text
    stub = namespace["stub"]
    stub.__defaults__, stub.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    stub.__name__, stub.__qualname__ = fn.__name__, fn.__qualname__   # Python's message uses it
    return stub


def python_message(fn: types.FunctionType, args: tuple, kwargs: dict) -> str | None:
    """The ``TypeError`` message Python gives for ``fn(*args, **kwargs)``, or None when
    Python would accept the call."""
    try:
        _stub(fn)(*args, **kwargs)
    except TypeError as e:
        return str(e)
    return None


def bind(fn: types.FunctionType, signature: inspect.Signature, args: tuple, kwargs: dict,
         loc: SourceLoc) -> list:
    """The values of every parameter of ``fn`` for this call, in order (defaults applied);
    a call Python would reject is a :class:`PhylanxTypeError` with Python's message."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as e:
        message = python_message(fn, args, kwargs) or f"{fn.__qualname__}(): {e}"
        raise PhylanxTypeError(message, loc) from None
    bound.apply_defaults()
    return [bound.arguments[p] for p in signature.parameters]
