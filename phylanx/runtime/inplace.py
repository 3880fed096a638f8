"""In-place reuse of temporaries: element-wise nodes that write into a dead operand.

``w - alpha * g`` evaluated node by node allocates two arrays: ``alpha * g`` and the
difference.  The product is a *temporary*: nobody but the subtraction will ever see it,
so the subtraction can be computed into it (``np.subtract(w, tmp, out=tmp)``), as NumPy
itself does for large operands of Python expressions.  Inside loops a node also keeps
the arrays it produced (a pool of :data:`POOL_SIZE`): once the loop is warm, a buffer
of the pool that nobody holds any more is written again instead of allocating one, so
``w = w - alpha * g`` in a loop allocates nothing after its first two iterations.

What is a temporary is decided at run time by reference counting, the test NumPy's own
temporary elision uses: an operand array that owns its data and whose only references
are this evaluation's (plus, for a pooled child, the child's pool) is unreachable from
anything else: not a variable, a constant, a list, an argument the caller owns, an
operand shared by two parents or a value an autodiff tape recorded (each holds a
reference).  Futures, lists, views, subclasses, read-only arrays and anything whose
result shape or dtype would differ from the operand's are left to the ordinary kernel.
The counts are calibrated at import on this interpreter rather than assumed, and the
test is only trusted where it is proven (:func:`refcounts_proven`): CPython with the GIL
whose calibration showed exact counts.  Elsewhere (a free-threaded build, another
interpreter) nothing is reused: results stay right, only allocations come back.  Arrays
under :data:`MIN_ELEMENTS` are left alone: for them the tests cost what an allocation
does.

The compiler calls :func:`build` for eager primitives when ``optimize`` is on; a node
that is not covered gets the ordinary closure of ``nodes.build_eager``.
"""
from __future__ import annotations

import math
import sys
import weakref

import numpy as np

from . import choices
from .nodes import Node, build_eager, dispatch_operands, node_failed, operand_kinds

#: binary operator primitive -> ufunc computing it for float/complex arrays
BINARY = {"__add": np.add, "__sub": np.subtract, "__mul": np.multiply,
          "__div": np.true_divide}
#: element-wise primitive of one operand (``dtype`` left at nil) -> ufunc
UNARY = {"__minus": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
         "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh, "sinh": np.sinh,
         "cosh": np.cosh, "absolute": np.absolute, "expm1": np.expm1, "log1p": np.log1p,
         "exp2": np.exp2, "log2": np.log2, "log10": np.log10}

#: buffers a node inside a loop keeps for reuse (two: a loop-carried value such as
#: ``w`` holds one while the next iteration computes into the other)
POOL_SIZE = 2
#: larger results are not pooled (the pool keeps them alive after the loop)
POOL_MAX_BYTES = 256 << 20

_getrefcount = sys.getrefcount
_ndarray = np.ndarray

#: node -> its pool, so a parent recognises a pooled child's result as a temporary
_POOLS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _refs(y):
    return _getrefcount(y)


def _calibrate() -> tuple[int, int, int]:
    """Reference counts of a fresh array held in one local: seen directly
    (``getrefcount(y)`` in the closures), seen through :func:`_refs` (in ``_take``),
    and seen directly while a pool list holds it too."""
    y = np.empty(1)
    local = _getrefcount(y)
    through = _refs(y)
    pool = [y]
    pooled = _getrefcount(y)
    del pool
    return local, through, pooled


_LOCAL, _TEMP, _LOCAL_POOLED = _calibrate()


def _calibration_exact(local: int, through: int, pooled: int) -> bool:
    """The calibrated counts tell one holder from two: a second reference (the pool)
    adds exactly one, and passing the array on (``_refs``) adds at least one."""
    return local >= 1 and pooled == local + 1 and through > local


#: the calibration at import saw the counts the decisions below rely on
_CALIBRATED = (sys.implementation.name == "cpython"
               and _calibration_exact(_LOCAL, _TEMP, _LOCAL_POOLED))


def refcounts_proven() -> bool:
    """Reference counts can decide "temporary" here: CPython with the GIL and an exact
    calibration.  Without the GIL (free-threaded builds, ``sys._is_gil_enabled()``
    False) another thread may take or drop a reference between the count and the write,
    and deferred or biased reference counting makes the counts themselves inexact, so
    a shared array could be taken for a temporary and overwritten.  Asked at each
    build, since such a build can switch its GIL on or off at run time."""
    gil = getattr(sys, "_is_gil_enabled", None)
    return _CALIBRATED and (gil is None or bool(gil()))

#: smaller arrays are left to NumPy's allocator: for them the tests below cost about
#: what a fresh allocation does (NumPy's own elision starts far higher, at 256 KiB)
MIN_ELEMENTS = 2048


def _temp(y, rc: int, pool) -> bool:
    """``y``, an array of which a closure's local holds ``rc`` references (counted
    there), is a temporary nobody else can see."""
    if rc != _LOCAL and not (rc == _LOCAL_POOLED and pool is not None
                             and any(b is y for b in pool)):
        return False
    return y.base is None and y.flags.writeable


def _fits(y, x) -> bool:
    """``ufunc(x, y)`` (either order) has ``y``'s dtype and shape."""
    if y.dtype.kind not in "fc":
        return False
    t = type(x)
    if t is float or t is int or t is bool:
        return True                    # a weak Python scalar keeps the array's dtype
    if t is _ndarray or isinstance(x, np.generic):
        if x.dtype != y.dtype:
            return False
        xs, ys = x.shape, y.shape
        return xs == ys or (len(xs) <= len(ys) and np.broadcast_shapes(xs, ys) == ys)
    return False


def _result_like(x, y):
    """(shape, dtype) of ``ufunc(x, y)`` when it is a float/complex array that a pool
    could hold, else None."""
    tx, ty = type(x), type(y)
    if tx is _ndarray and ty is _ndarray:
        if x.dtype == y.dtype and x.shape == y.shape and x.ndim and x.dtype.kind in "fc":
            return x.shape, x.dtype
        return None
    if tx is _ndarray:
        arr, other = x, y
    elif ty is _ndarray:
        arr, other = y, x
    else:
        return None
    if not arr.ndim or arr.dtype.kind not in "fc":
        return None
    to = type(other)
    if to is float or to is int or to is bool or (
            isinstance(other, np.generic) and other.dtype == arr.dtype):
        return arr.shape, arr.dtype
    return None


def _take(pool, shape, dtype):
    """A buffer of ``pool`` nobody else holds, of this shape and dtype, or None."""
    for _ in range(len(pool)):
        try:
            b = pool.pop()
        except IndexError:             # another thread emptied it meanwhile
            return None
        if _refs(b) == _TEMP:
            if b.shape == shape and b.dtype == dtype:
                pool.append(b)         # back in, it stays this node's buffer
                return b
            continue                   # free but of another shape: let it go
        pool.insert(0, b)              # busy: try the other one
    return None


def _keep(pool, r):
    if len(pool) < POOL_SIZE and r.nbytes <= POOL_MAX_BYTES:
        pool.append(r)


def _in_loop(node: Node) -> bool:
    """``node`` is re-evaluated by a loop of its own function body."""
    p = node.parent
    while p is not None:
        if p.primitive in ("for_each", "while", "for", "fold_left", "fold_right"):
            return True
        if p.primitive in ("lambda", "define-function"):
            return False
        p = p.parent
    return False


#: evaluations a covered node is watched before it keeps the reusing closure (an array
#: of MIN_ELEMENTS or more seen) or goes back to the ordinary one for good (scalars and
#: small arrays only: the tests would cost more than they save)
PROBE = 3


def build(node: Node, impl, spec) -> Node | None:
    """Give ``node`` a closure that reuses temporaries, if its primitive is covered
    (and reference counts are trusted here: :func:`refcounts_proven`)."""
    if not refcounts_proven():
        return None                     # the ordinary closure: correct, allocates
    name, children = node.primitive, node.children
    if name in BINARY and len(children) == 2:
        kind = "binary"
    elif name in UNARY and (len(children) == 1 or (
            len(children) == 2 and children[1].is_const and children[1].value is None)):
        kind = "unary"
    elif name == "matmul" and len(children) == 2:
        kind = "matmul"
    else:
        return None
    build_eager(node, impl)             # the ordinary closure: async operands use it
    plain = node.inline
    if getattr(plain, "slot_op", None) is not None:
        # `local op literal` (n - 1, n < 2): parents evaluate it in place (nodes.slot_op),
        # the recursive-call fast path; a variable and a literal hold no temporary
        return node
    pool: list = []
    _POOLS[node] = pool
    loop = [False]                      # pooling: decided at the first evaluation
    if kind == "unary":
        fast = _unary(node, impl, UNARY[name], plain, pool, loop)
    elif kind == "binary":
        fast = _binary(node, impl, BINARY[name], plain, pool, loop)
    else:
        fast = _matmul(node, impl, plain, pool, loop)
    return node.set_run(_probing(node, fast, plain, loop))


def _probing(node: Node, fast, plain, loop):
    """The closure a covered node starts with: it runs ``fast`` for a few evaluations,
    then has the side table run ``fast`` or ``plain``, so scalar code (loop counters,
    recursion) and small arrays keep the ordinary closure and pay nothing after the
    first evaluations.  A node that saw only small arrays is probed again after
    ``choices.REVISIT_FIRST`` top-level evaluations, then twice as many each time
    (later calls may bring large ones); one that cannot hold a temporary (no operand
    computed by a node, outside loops) keeps the ordinary closure for good."""
    chosen: list = [None]
    left = [PROBE]
    period = [choices.REVISIT_FIRST]
    temps_possible = any(not c.is_const and c.slot is None for c in node.children)
    temps_possible = temps_possible and node.primitive != "matmul"

    def choose(fn):
        chosen[0] = fn
        # the side table runs the chosen closure from now on (probing stays the node's
        # compiled closure: it defers to the choice too), unless another variant
        # replaced this one meanwhile (a fused region whose original closure this is)
        choices.set_variant(node, fn, replacing=probing)

    def reprobe():
        # the arrays may be larger now: probe again (unless a fused region or another
        # choice replaced the ordinary closure meanwhile)
        if chosen[0] is plain and node.choice.variant is plain:
            left[0] = PROBE
            chosen[0] = None
            choices.set_variant(node, probing, replacing=plain)

    def probing(frame):
        fn = chosen[0]
        if fn is not None:
            return fn(frame)
        if left[0] == PROBE:
            loop[0] = _in_loop(node)
            if not loop[0] and not temps_possible:
                choose(plain)
                return plain(frame)
        r = fast(frame)
        if type(r) is _ndarray and r.size >= MIN_ELEMENTS:
            choose(fast)
        else:
            left[0] -= 1
            if left[0] <= 0:
                choose(plain)
                choices.later(period[0], reprobe)
                period[0] = min(2 * period[0], choices.REVISIT_MAX)
        return r
    return probing


def _value_of(child: Node):
    """(constant value, True) for a literal child, else (None, False)."""
    return (child.value, True) if child.is_const else (None, False)


def _unary(node, impl, ufunc, plain, pool, loop):
    a = node.children[0]
    a_pool = _POOLS.get(a)
    extra = (None,) if len(node.children) == 2 else ()
    ai = a.slot if a.slot is not None else -1
    kinds = operand_kinds(node)
    me = node.choice
    ae = node.children[0].choice

    def run(frame):
        if me.async_children:
            return plain(frame)
        x = frame[ai] if ai >= 0 else ae.call(frame)
        if type(x) in kinds:
            return dispatch_operands(node, impl, (x, *extra))
        try:
            if type(x) is _ndarray and x.size >= MIN_ELEMENTS and x.dtype.kind == "f":
                if ai < 0 and _temp(x, _getrefcount(x), a_pool):
                    return ufunc(x, out=x)
                if loop[0]:
                    b = _take(pool, x.shape, x.dtype)
                    if b is not None:
                        return ufunc(x, out=b)
                    r = impl(x, *extra)
                    if type(r) is _ndarray:
                        _keep(pool, r)
                    return r
            return impl(x, *extra)
        except Exception as e:  # also ControlSignal: node_failed passes it on
            return node_failed(node, impl, (x, *extra), e)
    return run


def _binary(node, impl, ufunc, plain, pool, loop):
    a, b = node.children
    be = b.choice
    av, a_const = _value_of(a)
    bv, b_const = _value_of(b)
    # a local read straight from the frame (as nodes.build_eager does): never a temporary
    ai = a.slot if a.slot is not None else -1
    bi = b.slot if b.slot is not None else -1
    a_temp, b_temp = not a_const and ai < 0, not b_const and bi < 0
    a_pool, b_pool = _POOLS.get(a), _POOLS.get(b)
    kinds = operand_kinds(node)
    me = node.choice
    ae = node.children[0].choice
    be = node.children[-1].choice    # (the second operand; unused for one)

    def run(frame):
        if me.async_children:
            return plain(frame)
        x = av if a_const else frame[ai] if ai >= 0 else ae.call(frame)
        y = bv if b_const else frame[bi] if bi >= 0 else be.call(frame)
        if type(x) in kinds or type(y) in kinds:
            return dispatch_operands(node, impl, (x, y))
        try:
            big = False
            if type(x) is _ndarray and x.size >= MIN_ELEMENTS:
                big = True
                if a_temp and _temp(x, _getrefcount(x), a_pool) and _fits(x, y):
                    return ufunc(x, y, out=x)
            if type(y) is _ndarray and y.size >= MIN_ELEMENTS:
                big = True
                if b_temp and _temp(y, _getrefcount(y), b_pool) and _fits(y, x):
                    return ufunc(x, y, out=y)
            if big and loop[0]:
                like = _result_like(x, y)
                if like is not None:
                    buf = _take(pool, *like)
                    if buf is not None:
                        return ufunc(x, y, out=buf)
                    r = impl(x, y)
                    if type(r) is _ndarray:
                        _keep(pool, r)
                    return r
            return impl(x, y)
        except Exception as e:  # also ControlSignal: node_failed passes it on
            return node_failed(node, impl, (x, y), e)
    return run


def _matmul_shape(x, y):
    """Result shape of ``x @ y`` for same-dtype float arrays of rank 1-2 that fit and
    reach :data:`MIN_ELEMENTS`, else None (the cheap tests first)."""
    if type(x) is not _ndarray or type(y) is not _ndarray:
        return None
    xs, ys = x.shape, y.shape
    if len(xs) == 2 and len(ys) == 1 and xs[1] == ys[0]:
        shape = (xs[0],)
    elif len(xs) == 2 and len(ys) == 2 and xs[1] == ys[0]:
        shape = (xs[0], ys[1])
    elif len(xs) == 1 and len(ys) == 2 and xs[0] == ys[0]:
        shape = (ys[1],)
    else:
        return None
    if math.prod(shape) < MIN_ELEMENTS or x.dtype != y.dtype or x.dtype.kind not in "fc":
        return None
    return shape


def _matmul(node, impl, plain, pool, loop):
    a, b = node.children
    be = b.choice
    ai = a.slot if a.slot is not None else -1
    bi = b.slot if b.slot is not None else -1
    kinds = operand_kinds(node)
    me = node.choice
    ae = node.children[0].choice
    be = node.children[-1].choice    # (the second operand; unused for one)

    def run(frame):
        if me.async_children:
            return plain(frame)
        x = frame[ai] if ai >= 0 else ae.call(frame)
        y = frame[bi] if bi >= 0 else be.call(frame)
        if type(x) in kinds or type(y) in kinds:
            return dispatch_operands(node, impl, (x, y))
        try:
            if loop[0]:
                shape = _matmul_shape(x, y)
                if shape is not None:
                    buf = _take(pool, shape, x.dtype)
                    if buf is not None:
                        return np.matmul(x, y, out=buf)
                    r = impl(x, y)
                    if type(r) is _ndarray:
                        _keep(pool, r)
                    return r
            return impl(x, y)
        except Exception as e:  # also ControlSignal: node_failed passes it on
            return node_failed(node, impl, (x, y), e)
    return run


