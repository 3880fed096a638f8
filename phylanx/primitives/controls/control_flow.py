"""Control primitives: block, parallel_block, if, while, for, for_each, maps and folds.

Control forms are lazy builders: they receive their operand nodes and decide
what to evaluate.  ``for_each`` over a literal ``lambda`` runs the body in the
enclosing frame (no call per iteration; variables assigned in the body stay
visible after the loop, as in Python).  ``parallel_block`` and ``parallel_map``
are ``runtime.forkjoin.fork_join`` (the calling thread runs the last piece
itself and helps while waiting, so nesting never deadlocks; the first error
cancels the rest); ``async`` is ``runtime.forkjoin.spawn``.  Loops check for
cancellation once per iteration.
"""
from __future__ import annotations

import operator
import threading
from functools import partial
from time import perf_counter_ns
from typing import Any

import numpy as np

from ...errors import PhylanxError, PhylanxTypeError, PhylanxValueError
from ...runtime import comm_order, measure
from ...runtime.cancel import PENDING, check
from ...runtime.forkjoin import adopt, fork_join, spawn
from ...runtime.futures import (
    Forward,
    Future,
    all_done,
    failed,
    forwarded,
    gathered,
    ready,
    resolve_deep,
    waited,
)
from ...runtime.nodes import node_failed, resolve_args, slot_op
from ...values import (
    BreakSignal,
    ContinueSignal,
    call,
    truth,
    type_name,
)
from ..dtypes import to_int
from ..registry import lookup, primitive


@primitive("block", "block(__1)", lazy=True,
           flags={"locates_errors": True},
           example="block(1, 2, 3)", result="3", no_oracle="sequencing")
def block(node, children):
    """Evaluate the statements in order; the value of the last (nil if empty)."""
    if not children:
        return lambda frame: None
    if len(children) == 1:
        only = children[0].choice
        return lambda frame: only.call(frame)
    body = tuple(c.choice for c in children)

    def run(frame):
        result = None
        for stmt in body:
            result = stmt.call(frame)
        return result
    return run


@primitive("parallel_block", "parallel_block(__1)", lazy=True,
           example="parallel_block(1 + 1, 2 * 3)", result="6", no_oracle="concurrency")
def parallel_block(node, children):
    """Evaluate all statements concurrently; the value of the last one."""
    body = tuple(children)

    def run(frame):
        if not body:
            return None
        return fork_join([partial(stmt.choice.call, frame) for stmt in body])[-1]
    return run


@primitive("if", "if(_1, _2, _3)", "if(_1, _2)", lazy=True,
           flags={"locates_errors": True},
           example="if(2 > 1, 10, 20)", result="10", no_oracle="control flow")
def if_(node, children):
    """``if(cond, then[, else])``: evaluate only the branch selected by ``cond``."""
    # Fast path for genuine booleans (Python's first: what comparisons of Python
    # numbers give); anything else goes through truth(), whose errors (an ambiguous
    # array) are located here (this hot form is not wrapped).
    true_, false_ = np.True_, np.False_

    def test(v):
        try:
            return truth(v)
        except PhylanxError as err:
            raise node.locate(err)

    if len(children) == 2:
        c, t = children[0].choice, children[1].choice

        def run2(frame):
            v = c.call(frame)
            if v is True or v is true_ or (v is not False and v is not false_ and test(v)):
                return t.call(frame)
            return None
        return run2
    cn, t, e = children
    # ``n < 2`` is evaluated in place while nothing measures it (see slot_op)
    c_run, ci, c_impl, c_const = slot_op(cn)
    c, te, e = cn.choice, t.choice, e.choice
    if t.slot is not None:
        # a branch that reads a local is read here, as build_eager reads its operands
        # (``n`` in ``if(n < 2, n, ...)``): no call per evaluation
        ts = t.slot

        def run3_read(frame):
            if c.call is c_run:
                x = frame[ci]
                try:
                    v = c_impl(x, c_const)
                except Exception as exc:  # also ControlSignal: node_failed passes it on
                    v = node_failed(cn, c_impl, (x, c_const), exc)
            else:
                v = c.call(frame)
            if v is True or v is true_ or (v is not False and v is not false_ and test(v)):
                return frame[ts]
            return e.call(frame)
        return run3_read

    def run3(frame):
        if c.call is c_run:
            x = frame[ci]
            try:
                v = c_impl(x, c_const)
            except Exception as exc:  # also ControlSignal: node_failed passes it on
                v = node_failed(cn, c_impl, (x, c_const), exc)
        else:
            v = c.call(frame)
        if v is True or v is true_ or (v is not False and v is not false_ and test(v)):
            return te.call(frame)
        return e.call(frame)
    return run3


@primitive("while", "while(_1, _2)", lazy=True,
           example="block(define(i, 0), while(i < 5, store(i, i + 1)), i)", result="5",
           no_oracle="control flow")
def while_(node, children):
    """``while(cond, body)``: repeat ``body`` while ``cond`` holds; value of the last body."""
    c, body = children[0].choice, children[1].choice

    def run(frame):
        result = None
        while truth(c.call(frame)):
            if PENDING[0]:
                check()   # stop here if this branch was cancelled
            try:
                result = body.call(frame)
            except BreakSignal:
                break
            except ContinueSignal:
                continue
        return result
    return run


@primitive("for", "for(_1, _2, _3, _4)", lazy=True,
           example="block(define(s, 0), for(define(i, 0), i < 4, store(i, i + 1), "
                   "store(s, s + i)), s)", result="6", no_oracle="control flow")
def for_(node, children):
    """C-style loop ``for(init, cond, step, body)``; value of the last body."""
    init, c, step, body = (child.choice for child in children)

    def run(frame):
        init.call(frame)
        result = None
        while truth(c.call(frame)):
            if PENDING[0]:
                check()   # stop here if this branch was cancelled
            try:
                result = body.call(frame)
            except BreakSignal:
                break
            except ContinueSignal:
                pass
            step.call(frame)
        return result
    return run


def iterate(value: Any):
    """What ``for_each``/``fmap`` iterate over: list items, array rows or elements,
    dictionary keys, set elements, string characters, range values."""
    if isinstance(value, (list, tuple, str)):
        return value
    if isinstance(value, range):
        return value   # Python ints, as Python's loop counters
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            raise PhylanxTypeError("cannot iterate over a 0-d value")
        return list(value)
    if isinstance(value, (dict, set, frozenset)):
        return list(value)   # keys, set elements: in Python's iteration order
    if isinstance(value, Future):
        return iterate(value.result())
    raise PhylanxTypeError(f"cannot iterate over a {type_name(value)}")


def _zip_items(iterables):
    seqs = [list(iterate(it)) for it in iterables]
    n = min(len(s) for s in seqs) if seqs else 0
    return [[s[i] for s in seqs] for i in range(n)]


@primitive("fmap", "fmap(_1, __2)",
           example="fmap(lambda(x, x * 2), list(1, 2, 3))", result="list(2, 4, 6)",
           no_oracle="higher-order: list(map(f, xs)); over arrays the original's rule, "
           "hand tests in tests/compiler/test_control_flow.py", higher_order=True)
def fmap(f, *iterables):
    """Apply ``f`` to each element (zipped across several lists); a list of the results.

    Over one 1-d or 2-d array, the original's rule (compat addendum B.5): a 1-d array
    gives a 1-d array of the *input's* dtype (``fmap(lambda(x, x / 2), [1, 3])`` is
    ``[0, 1]``); a 2-d array hands ``f`` its rows, which must give scalars (a 1-d
    result) or vectors of one length (a 2-d result), again of the input's dtype.
    Several arrays (the original's numeric form): of one shape, 1-d or 2-d; ``f``
    gets one element (or row) of each, and the results make a float64 array.
    Several iterables of other kinds must have one length (no quiet truncation).
    Python's ``map`` and comprehensions keep Python's meaning (a list): ``__pymap``.
    """
    if len(iterables) == 1:
        source = iterables[0]
        if type(source) is np.ndarray and source.ndim in (1, 2):
            return _fmap_array(f, source)
        return pymap(f, source)
    if _zipped_arrays(iterables):
        results = [waited(call(f, *items)) for items in zip(*iterables)]
        return _array_results(results, np.empty((0,) * iterables[0].ndim))  # float64
    return pymap(f, *iterables)


def _fmap_array(f, source: np.ndarray) -> np.ndarray:
    return _array_results([waited(call(f, x)) for x in source], source)


def _zipped_arrays(iterables) -> bool:
    """Whether several iterables of ``fmap``/``parallel_map`` are the original's numeric
    form (arrays of one shape, 1-d or 2-d: a float64 result); else they must have one
    length (no quiet truncation).  A located error if neither holds."""
    if all(type(s) is np.ndarray for s in iterables):
        if len({s.shape for s in iterables}) != 1 or iterables[0].ndim not in (1, 2):
            raise PhylanxValueError(f"several arrays must be 1-d or 2-d of one shape (the "
                                    f"original's rule), got shapes "
                                    f"{[s.shape for s in iterables]}")
        return True
    lengths = {len(iterate(s)) for s in iterables}
    if len(lengths) > 1:
        raise PhylanxValueError(f"all iterables must have the same length (the original's "
                                f"rule), got lengths {sorted(lengths)}")
    return False


def _array_results(results: list, source: np.ndarray, name: str = "fmap") -> np.ndarray:
    """``fmap``'s (and ``parallel_map``'s) results over the array ``source`` as the
    original's array (compat addendum B.5), or a located error saying why not."""
    if not results:
        return np.empty((0,) * source.ndim, source.dtype)
    shapes = {np.shape(r) for r in results}
    if len(shapes) != 1 or len(next(iter(shapes))) > source.ndim - 1:
        what = "scalars" if source.ndim == 1 else "scalars or vectors of one length"
        raise PhylanxValueError(
            f"{name} over a {source.ndim}-d array: the function must return {what} (the "
            f"original's rule), got shapes {sorted(shapes)[:3]}; to collect other values "
            "map over list(...) of the array, or use Python's map in @Phylanx code")
    values = np.asarray(results)
    if values.dtype.kind not in "biuf":
        raise PhylanxTypeError(
            f"{name} over an array: the function must return numbers (the original's rule), "
            f"got {type_name(results[0])}; map over list(...) of the array to collect "
            "other values")
    if source.dtype.kind in "iu" and values.dtype.kind == "f":
        info = np.iinfo(source.dtype)
        if not (np.all(np.isfinite(values)) and info.min <= values.min()
                and values.max() <= info.max):
            raise PhylanxValueError(
                f"{name} over a {source.dtype} array: the results are converted to {source.dtype} "
                "(the original's rule), and inf, NaN or a value out of its range cannot be; "
                "map over a float array (astype) or use Python's map")
    return values.astype(source.dtype)


@primitive("__pymap", "__pymap(_1, __2)", extension=True, internal=True,
           example="__pymap(lambda(x, x / 2), [1, 3])", result="list(0.5, 1.5)",
           no_oracle="higher-order: list(map(f, xs))", higher_order=True)
def pymap(f, *iterables):
    """Python's ``map`` and comprehensions: a list of ``f`` of each element.

    Several iterables are zipped; any iterable gives a list (``fmap`` over an array
    follows the original's rule instead)."""
    # a list never holds a future: with one among the results, a future of the list
    if len(iterables) == 1:
        return gathered([call(f, x) for x in iterate(iterables[0])])
    return gathered([call(f, *xs) for xs in _zip_items(iterables)])


@primitive("parallel_map", "parallel_map(_1, __2)",
           example="parallel_map(lambda(x, x * x), list(1, 2, 3))", result="list(1, 4, 9)",
           no_oracle="higher-order: list(map(f, xs)), concurrently", higher_order=True)
def parallel_map(f, *iterables):
    """Like ``fmap`` with every application run as a concurrent task.

    Over arrays the results follow ``fmap``'s rule (one array: of the input's dtype;
    several of one shape: float64); several iterables must have one length."""
    arrays = len(iterables) > 1 and _zipped_arrays(iterables)
    items = ([[x] for x in iterate(iterables[0])] if len(iterables) == 1
             else _zip_items(iterables))
    results = fork_join([partial(call, f, *xs) for xs in items], share_blas=True)
    source = iterables[0]
    if len(iterables) == 1 and type(source) is np.ndarray and source.ndim in (1, 2):
        return _array_results([waited(r) for r in results], source, "parallel_map")
    if arrays:
        return _array_results([waited(r) for r in results], np.empty((0,) * source.ndim),
                              "parallel_map")
    return gathered(results)   # a list never holds a future (runtime/nodes.py)


@primitive("filter", "filter(_1, _2)",
           example="filter(lambda(x, x > 1), list(1, 2, 3))", result="list(2, 3)",
           no_oracle="higher-order: [x for x in xs if f(x)]", higher_order=True)
def filter_(f, iterable):
    """The elements of ``iterable`` for which ``f`` is true, as a list.

    ``f`` nil keeps the true elements themselves, as Python's ``filter(None, xs)``."""
    if f is None:
        return [x for x in iterate(iterable) if truth(x)]
    return [x for x in iterate(iterable) if truth(call(f, x))]


@primitive("fold_left", "fold_left(_1_func, _2_initial, _3_data)",
           example="fold_left(lambda(c, x, c - x), 10, list(1, 2))", result="7",
           no_oracle="higher-order: functools.reduce", higher_order=True)
def fold_left(func, initial, data):
    """Left fold: ``c = initial; for x in data: c = func(c, x)``."""
    items = list(iterate(data))
    acc = initial
    if acc is None:
        if not items:
            return None
        acc, items = items[0], items[1:]
    for x in items:
        acc = call(func, acc, x)
    return acc


@primitive("fold_right", "fold_right(_1_func, _2_initial, _3_data)",
           example="fold_right(lambda(x, c, x - c), 0, list(1, 2, 3))", result="2",
           no_oracle="higher-order: right fold", higher_order=True)
def fold_right(func, initial, data):
    """Right fold: ``c = initial; for x in reversed(data): c = func(x, c)``."""
    items = list(iterate(data))
    acc = initial
    if acc is None:
        if not items:
            return None
        acc, items = items[-1], items[:-1]
    for x in reversed(items):
        acc = call(func, x, acc)
    return acc


@primitive("apply", "apply(_1, _2)",
           example="apply(lambda(a, b, a * b), list(6, 7))", result="42",
           no_oracle="higher-order: f(*args)", higher_order=True)
def apply(f, args):
    """Call ``f`` once with the elements of the list ``args`` as its arguments."""
    if not isinstance(args, (list, tuple, range)):
        raise PhylanxTypeError(f"apply needs a list of arguments, got a {type_name(args)}")
    return call(f, *args)


@primitive("async", "async(_1)", lazy=True,
           example="async(1 + 2) + 1", result="4", no_oracle="concurrency")
def async_(node, children):
    """Evaluate the expression as a task; the result is a future, waited for where used.

    With several localities a body that may communicate is evaluated where it stands
    (:func:`_may_communicate`)."""
    (expr,) = children
    spec = lookup(expr.primitive)
    start = spec.flags.get("start") if spec is not None else None
    if start is not None:
        with_plan = getattr(start, "with_plan", None)
        if with_plan is not None:   # (the collective's header carries expr's plan key)
            start = with_plan(expr.plan)
        return _async_start(expr, start)

    def run(frame):
        if _may_communicate(expr, frame):
            return adopt(_evaluated_now(expr.choice.call, frame))
        return spawn(expr.choice.call, frame)
    return run


def _may_communicate(expr, frame) -> bool:
    """With several localities, True unless ``expr`` provably cannot communicate: its
    task would run outside the program order of communication (``comm_order.py``), its
    collectives starting before or after a later statement's on different ranks, so
    it is evaluated where it stands in program order instead."""
    if not comm_order.enabled():
        return False
    quiet = comm_order.silent([expr], frame)
    return quiet is None or not quiet[0]


def _evaluated_now(call, *args) -> Future:
    """``call(*args)`` evaluated here, its outcome delivered as its task's would be:
    where the value is read or the scope ends."""
    try:
        return ready(call(*args))
    except Exception as error:  # noqa: BLE001 - the value's outcome, raised where read
        return failed(error)


def _async_start(expr, start):
    """``async(<collective>)``: the operands are evaluated and the collective started,
    then the value comes when MPI completes it (a ``Forward``), so no thread blocks in
    the collective and no consumer can end up waiting for a collective that its own
    thread runs further up its stack.

    Operands that are only variables and literals, all of them ready, are read and the
    collective started here and now: a task for it waits in the queue until a worker is
    free, and the collective would start late (data-parallel training's gradient
    all-reduces, one worker per rank: 2-4 ms after their gradients).  Otherwise, with
    one locality, a task evaluates the operands (their computation overlaps with what
    follows); with several, they are evaluated here, in program order (``comm_order.py``:
    ranks must start their collectives in the same order)."""
    def locate(error: Exception) -> BaseException:
        return expr.locate(error) if isinstance(error, PhylanxError) else expr.wrap(error)

    def begin(frame, args=None):
        measured = expr.choice.counted     # instrumentation is on
        t0 = perf_counter_ns() if measured else 0
        args = resolve_deep(resolve_args(expr, frame) if args is None else args)
        try:
            future = start(*args)
        except Exception as e:  # noqa: BLE001 - located like the primitive's own errors
            raise locate(e) from e
        if measured:    # counted and timed until MPI completes it, as if it had waited
            thread = threading.get_ident()
            future.add_done_callback(
                lambda _: measure.record(expr, t0, perf_counter_ns(), thread))
        return Forward(future, locate)

    reads_only = all(c.is_const or c.primitive == "access-variable" for c in expr.children)

    def start_here(frame, args=None):
        try:
            started = begin(frame, args)
        except Exception as error:  # noqa: BLE001 - the value's outcome, not retried
            # delivered as the task's failure would be: where the value is read
            # or the scope ends (the collective is not started a second time)
            started = Forward(failed(error))
        # joined to the scope as a task's future: its error is not lost
        return adopt(forwarded(started))

    def run(frame):
        args = None
        if reads_only:
            args = [c.choice.call(frame) for c in expr.children]
            if all(all_done(a) for a in args):
                return start_here(frame, args)
        if comm_order.enabled():
            # the operands and the collective communicate in program order (see
            # _may_communicate); the collective still completes while later work runs
            return start_here(frame, args)
        return spawn(begin, frame)
    return run


def _index(value: Any, what: str) -> int:
    """A bound of ``range`` as Python's takes it: anything with ``__index__`` (ints,
    NumPy ints, bools, 0-d integer arrays); a float, even an integral one
    (``range(len(t) / 2)``), is Python's TypeError, not its int."""
    if type(value) is int:
        return value
    if not isinstance(value, (float, np.floating, str, bytes)):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise PhylanxTypeError(f"{what} must be an integer, got a {type_name(value)}")


@primitive("range", "range(_1)", "range(_1, _2)", "range(_1, _2, _3)",
           oracle=lambda *a: list(range(*a)), samples="range",
           example="range(1, 7, 2)", result="list(1, 3, 5)")
def range_(a, b=None, c=None):
    """Python-style lazy range ``range(stop)``, ``range(start, stop[, step])``."""
    if b is None:
        return range(_index(a, "range stop"))
    if c is None:
        return range(_index(a, "range start"), _index(b, "range stop"))
    step = _index(c, "range step")
    if step == 0:
        raise PhylanxValueError("range step must not be zero")
    return range(_index(a, "range start"), _index(b, "range stop"), step)


@primitive("break", "break()", extension=True, lazy=True,
           example="block(define(i, 0), while(true, if(i == 3, break(), store(i, i + 1))), i)",
           result="3", no_oracle="control flow", side_effects=True)
def break_(node, children):
    """Leave the innermost loop (Python ``break``)."""
    loc = node.loc   # a break that no loop catches is reported here

    def run(frame):
        raise BreakSignal(loc)
    return run


@primitive("continue", "continue()", extension=True, lazy=True,
           example="block(define(s, 0), for_each(lambda(x, if(x == 2, continue(), "
                   "store(s, s + x))), [1, 2, 3]), s)",
           result="4", no_oracle="control flow", side_effects=True)
def continue_(node, children):
    """Skip to the next iteration of the innermost loop (Python ``continue``)."""
    loc = node.loc

    def run(frame):
        raise ContinueSignal(loc)
    return run


@primitive("fromfunction", "fromfunction(_1, _2, __arg(_2_dtype, \"float\"))",
           example="fromfunction(lambda(i, j, i + j), list(2, 2))",
           result="[[0., 1.], [1., 2.]]",
           oracle=None, no_oracle="takes a function; checked against np.fromfunction in tests",
           higher_order=True)
def fromfunction(function, shape, dtype="float"):
    """numpy.fromfunction: call ``function`` with the coordinate arrays of ``shape``."""
    from ..dtypes import to_dtype
    coords = np.indices([int(s) for s in shape], dtype=to_dtype(dtype))
    return call(function, *coords)


def _original_indices_dtype(dtype) -> np.dtype:
    """The original's indices dtype: ``"int..."`` int64, ``"bool"`` an error, else float64."""
    key = dtype.strip().lower() if isinstance(dtype, str) else (
        "int" if dtype is None else np.dtype(dtype).name)
    if key == "bool":
        raise PhylanxTypeError("the dtype \"bool\" is not supported by the original's "
                               "indices (use \"int\" or \"float\"; np.indices is __npindices)")
    return np.dtype(np.int64 if key.startswith(("int", "uint")) else np.float64)


def _positive_shape(dimensions) -> list[int]:
    if not isinstance(dimensions, (list, tuple)):
        raise PhylanxTypeError(f"the shape must be a list of positive integers, "
                               f"got a {type_name(dimensions)}")
    shape = [to_int(d, f"element {i} of the shape") for i, d in enumerate(dimensions)]
    for i, d in enumerate(shape):
        if d <= 0:
            raise PhylanxValueError(f"element {i} of the shape ({d}) does not hold "
                                    "a positive integer value type (np.indices accepts 0)")
    return shape


def _indices_oracle(dimensions, dtype="int", sparse=False):
    if any(int(d) <= 0 for d in dimensions) or dtype == "bool":
        raise ValueError("the original takes positive sizes and an int or float dtype")
    dt = np.int64 if dtype.startswith("int") else np.float64
    return list(np.indices(tuple(dimensions), dt, bool(sparse))) if len(dimensions) else []


@primitive("indices", "indices(_1, __arg(_2_dtype, \"int\"), __arg(_3_sparse, false))",
           oracle=_indices_oracle,
           example="indices(list(2, 2))", result="list([[0, 0], [1, 1]], [[0, 1], [0, 1]])")
def indices(dimensions, dtype="int", sparse=False):
    """The original's indices(shape, dtype, sparse): a LIST of grid index arrays.

    One array per dimension, each of the full shape (or, if ``sparse``, of broadcastable
    shapes (r, 1) and (1, c) ...).  The sizes must be positive; an empty shape gives an
    empty list.  dtype ``"int..."`` gives int64, ``"float..."`` or any other string
    float64, ``"bool"`` is an error.  ``np.indices`` (one stacked array) compiles to
    ``__npindices``."""
    shape = _positive_shape(dimensions)
    dt = _original_indices_dtype(dtype)
    if not shape:
        return []
    return list(np.indices(shape, dtype=dt, sparse=truth(sparse)))


@primitive("__npindices", "__npindices(_1, __arg(_2_dtype, \"int\"), __arg(_3_sparse, false))",
           oracle=lambda d, dtype="int", sparse=False: (
               list(np.indices(d, dtype=np.float64 if dtype == "float" else np.int64,
                               sparse=True)) if sparse else
               np.indices(d, dtype=np.float64 if dtype == "float" else np.int64)),
           example="__npindices(list(2, 2))", result="[[[0, 0], [1, 1]], [[0, 1], [0, 1]]]",
           extension=True, internal=True)
def npindices(dimensions, dtype="int", sparse=False):
    """``np.indices(dimensions, dtype, sparse)``: one stacked array of grid indices.

    A list of broadcastable arrays if sparse; zero sizes are allowed."""
    from ..dtypes import to_dtype
    shape = [to_int(d, f"element {i} of dimensions") for i, d in enumerate(
        dimensions if isinstance(dimensions, (list, tuple)) else [dimensions])]
    if any(d < 0 for d in shape):
        raise PhylanxValueError(f"negative dimensions are not allowed, got {shape}")
    out = np.indices(shape, dtype=to_dtype(dtype), sparse=truth(sparse))
    return list(out) if truth(sparse) else out
