"""Core primitives: output, assertions, strings, timing, locality queries, annotations.

``cout`` writes to ``sys.stdout`` in program order, once per call; ``debug``
writes to a buffer that ``phylanx.util.debug_output()`` returns.
"""
from __future__ import annotations

import io
import sys
import threading
import time
import weakref
from typing import Any

import numpy as np

from ...errors import PhylanxAssertionError, PhylanxValueError
from ...runtime.locality import here
from ...values import call, display, truth
from ..registry import primitive

_print_lock = threading.Lock()
_debug_buffer = io.StringIO()


@primitive("cout", "cout(__1)", takes_tiled=True, side_effects=True,
           example="cout(\"x =\", 42)", result="nil", no_oracle="writes to stdout")
def cout(*args):
    """Print the arguments separated by spaces and a newline to stdout; returns nil."""
    text = " ".join(display(a) for a in args) + "\n"
    with _print_lock:
        sys.stdout.write(text)
        sys.stdout.flush()


@primitive("debug", "debug(__1)", takes_tiled=True, side_effects=True,
           example="debug(\"checkpoint\", 1)", result="nil",
           no_oracle="writes to the debug buffer")
def debug(*args):
    """Write the arguments without separators and a newline to the debug stream.

    No separators, as the original; read the stream with ``phylanx.util.debug_output()``.
    """
    with _print_lock:
        _debug_buffer.write("".join(display(a) for a in args) + "\n")


def debug_output() -> str:
    """Everything written by ``debug()`` so far."""
    return _debug_buffer.getvalue()


@primitive("assert", "assert(_1_test, __arg(_2_msg, nil))",
           side_effects=True, example="assert(1 < 2, \"order\")", result="nil",
           no_oracle="raises on failure")
def assert_(test, msg=None):
    """Raise an assertion error (with the message) if ``test`` is false; else nil."""
    ok = bool(np.all(test)) if isinstance(test, np.ndarray) else truth(test)
    if not ok:
        raise PhylanxAssertionError("assertion failed" + (f": {display(msg)}" if msg is not None
                                                          else ""))


@primitive("format", "format(_1, __2)",
           example="format(\"{} + {} = {}\", 1, 2, 3)", result="\"1 + 2 = 3\"",
           oracle=lambda s, *a: s.format(*a))
def format_(fmt, *args):
    """Python/fmt-style formatting: replace ``{}``/``{N:spec}`` with the arguments."""
    if not isinstance(fmt, str):
        raise PhylanxValueError("the first argument of format must be a string")
    try:
        return fmt.format(*[a.item() if isinstance(a, np.generic) else a for a in args])
    except (IndexError, KeyError, ValueError) as e:
        raise PhylanxValueError(f"bad format string {fmt!r}: {e}") from None


@primitive("string", "string(__1)",
           example="string(\"n=\", 3)", result="\"n=3\"",
           oracle=lambda *a: "".join(map(str, a)))
def string(*args):
    """Concatenate the string forms of all arguments."""
    return "".join(display(a) for a in args)


@primitive("timer", "timer(_1, _2)", lazy=True, side_effects=True,
           example="timer(1 + 1, lambda(t, nil))", result="2", no_oracle="measures time")
def timer(node, children):
    """Evaluate ``expr``, call ``done(elapsed_seconds)``; the value of ``expr``."""
    expr, done = children

    def run(frame):
        start = time.perf_counter()
        value = expr.choice.call(frame)
        call(done.choice.call(frame), np.float64(time.perf_counter() - start))
        return value
    return run


@primitive("find_here", "find_here()", example="find_here()", result="0",
           no_oracle="locality id")
def find_here():
    """Id of the locality running this node (0 in a single process)."""
    return np.int64(here().id())


@primitive("num_localities", "num_localities()", example="num_localities()",
           result="1", no_oracle="locality count")
def num_localities():
    """Number of localities (MPI ranks) of the application."""
    return np.int64(here().count())


@primitive("find_all_localities", "find_all_localities()",
           example="find_all_localities()", result="list(0)", no_oracle="locality list")
def find_all_localities():
    """List of all locality ids."""
    return [np.int64(i) for i in range(here().count())]


@primitive("hostname", "hostname()", example="__len(hostname()) > 0",
           result="true", no_oracle="host name")
def hostname():
    """Host name of the locality running this node."""
    return here().hostname()


_TYPE_INDEX = {type(None): 0, str: 3, list: 7, range: 7, dict: 8}


@primitive("__type", "__type(_1)", example="__type(1.5)", result="4",
           no_oracle="type tag of the original's variant")
def type_(value):
    """Index of the value's kind in the original's variant.

    0 nil, 1 bool, 2 int, 3 string, 4 float, 5 function, 6 future, 7 list, 8 dictionary.
    """
    if isinstance(value, (np.ndarray, np.generic, bool, int, float)):
        kind = np.asarray(value).dtype.kind
        return np.int64({"b": 1, "i": 2, "u": 2}.get(kind, 4))
    from ...runtime.futures import Future
    if isinstance(value, Future):
        return np.int64(6)
    return np.int64(_TYPE_INDEX.get(type(value), 5))


@primitive("__name", "__name(_1)", example="__name(1)", result="\"int64\"",
           no_oracle="debugging aid")
def name_(value):
    """Name of the value's type (``float64``, ``list``, ``function`` ...)."""
    if isinstance(value, (np.ndarray, np.generic, bool, int, float)):
        return str(np.asarray(value).dtype)
    from ...values import type_name
    return type_name(value)


@primitive("enable_tracing", "enable_tracing(_1)", side_effects=True,
           example="enable_tracing(false)", result="nil", no_oracle="switches tracing")
def enable_tracing(flag):
    """Globally switch evaluation tracing on or off.

    While on, code compiled from then on logs every evaluation (node name and
    nanoseconds) at DEBUG level to the ``phylanx.trace`` logger; trees compiled
    earlier are traced through ``execution_tree.enable_measurements``.  Also
    ``PHYLANX_TRACING=1``.
    """
    from ... import config
    from ...runtime import hooks
    from ...runtime.measure import TRACE_LOG
    on = truth(flag)
    config.set("tracing", on)
    (hooks.install if on else hooks.remove)(TRACE_LOG)


# arrays are unhashable: annotations are keyed by id, dropped when the array dies
_annotations: dict[int, Any] = {}


def annotation_of(value: Any) -> Any:
    """The annotation attached to an array by ``annotate``, or None."""
    return _annotations.get(id(value)) if isinstance(value, np.ndarray) else None


@primitive("annotate", "annotate(_1_target, __arg(_2_args, nil))",
           example="annotate([1, 2], list(\"tile\", list(\"columns\", 0, 2)))", result="[1, 2]",
           no_oracle="attaches metadata")
def annotate(target, args=None):
    """Attach a (non-distributed) annotation list to an array; returns the array."""
    if not isinstance(target, np.ndarray):
        target = np.asarray(target)
    key = id(target)
    if key not in _annotations:
        weakref.finalize(target, _annotations.pop, key, None)
    _annotations[key] = args
    return target
