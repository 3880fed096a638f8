"""The kinds of a compiled loop's values, and which inputs a loop is compiled for.

A kind is ``(letter, ndim)``.  :func:`infer` decides, from the kinds of a loop's inputs,
whether the compiled loop (``loop_plan.py``) computes what the tree computes, and which
Python/NumPy scalar types the tree leaves in each variable: it runs each element-wise
primitive's own kernel on sample values of its operands' kinds (``float`` and
``np.float64``, ``bool`` and ``np.bool_`` apart), and it collects the cast points of the
kernel's source that these kinds need (NumPy 2's float32 rules, which numba does not
follow).  :func:`shapes_hold` decides, from the inputs' shapes, whether every operation
of the loop takes its operands' shapes in every iteration (broadcasting, the inner
dimensions of a product, an in-place target that keeps its shape): the compiled loop
runs only then, so a shape error is the tree's located error and never the kernel's.
"""
from __future__ import annotations

from typing import Any

import numpy as np

# A kind is (letter, ndim): scalars ``f`` float, ``F`` np.float64, ``S`` np.float32,
# ``b`` bool, ``B`` np.bool_, ``i`` int; arrays (ndim >= 1) ``f`` float64, ``s`` float32,
# ``b`` bool.

_SAMPLES = {"f": 0.5, "F": np.float64(0.5), "b": True, "B": np.True_, "i": 3,
            "s": np.float32(0.5), "S": np.float32(0.5)}
#: the kinds numba does not tell apart
_NUMBA = {"F": "f", "B": "b"}
#: the scalar type the tree leaves for each scalar letter
SCALAR_TYPES = {"f": float, "F": np.float64, "b": bool, "B": np.bool_, "i": int,
                "S": np.float32}
#: Python scalars: NumPy 2 casts them to the other operands' dtype (NEP 50), numba
#: does not (a Python float is a float64 to it)
_WEAK = frozenset((("f", 0), ("i", 0)))
#: kinds that are float32 / float64 (a weak scalar takes float32 only beside the first)
_FLOAT32 = frozenset("sS")
_FLOAT64 = frozenset("fF")


def kind_of(value: Any) -> tuple | None:
    """The kind of a value, None if no compiled loop takes it."""
    t = type(value)
    if t is np.ndarray:
        letter = {"f8": "f", "f4": "s", "b1": "b"}.get(value.dtype.str[1:])
        return None if letter is None or value.ndim == 0 else (letter, value.ndim)
    letter = {float: "f", np.float64: "F", bool: "b", np.bool_: "B", int: "i",
              np.float32: "S"}.get(t)
    return None if letter is None else (letter, 0)


def numba_kind(kind: tuple) -> tuple:
    return _NUMBA.get(kind[0], kind[0]), kind[1]


def _sample(kind: tuple) -> Any:
    letter, ndim = kind
    return _SAMPLES[letter] if ndim == 0 else np.full((1,) * ndim, _SAMPLES[letter])


def infer(typing: list, kinds: dict, cond_term: tuple | None = None,
          casts: set | None = None) -> tuple[dict, dict] | None:
    """The kinds every bound variable has after the first iteration and after any later
    one, for inputs of ``kinds`` (key -> kind); None if the loop is not compiled for
    them: integer arithmetic (Python ints do not overflow, int64 does), a variable
    whose numba type changes between iterations, a kernel refusing the kinds, operands
    of a product with different dtypes (numba's ``np.dot`` refuses them).

    ``casts`` receives the cast points (:meth:`LoopPlan.render`) these kinds need:
    a Python scalar beside float32 operands and none of float64 (NumPy 2 computes in
    float32 there), and a float32 reduction or scalar product (numba's are float64)."""
    known = dict(kinds)
    casts = set() if casts is None else casts

    def kind(term, in_dot: bool = False) -> tuple | None:
        tag = term[0]
        if tag == "value":
            return kind_of(term[1])
        if tag == "var":
            return known.get(term[1])
        parts = [kind(t, tag == "dot") for t in term[1:] if type(t) is tuple]
        if None in parts:
            return None
        if tag == "transpose":
            # a transposed matrix only as a product's operand: bound to a variable,
            # its Fortran order would meet C order and numba would unify them into a
            # strided type (slower products, a NumbaPerformanceWarning)
            ok = parts[0][0] in "fs" and (parts[0][1] == 1 or parts[0][1] == 2 and in_dot)
            return parts[0] if ok else None
        if tag == "dot":
            (la, na), (lb, nb) = parts
            if not (la in "fs" and lb in "fs" and na and nb):
                return None
            if la != lb:          # float32 with float64: the float32 side converted
                casts.add(f"{term[1] - 2}a" if la == "s" else f"{term[1] - 1}b")
                la = lb = "f"
            if na + nb > 2:
                return la, na + nb - 2
            if la == "s":
                casts.add(term[1])
            return ("F", 0) if la == "f" else ("S", 0)
        if tag == "logic":
            booleans = (("b", 0), ("B", 0))
            return ("b", 0) if parts[0] in booleans and parts[1] in booleans else None
        if tag == "inplace":
            (lv, nv), (le, ne) = parts
            if nv == 0:
                return parts[1]           # a number: rebound, as the tree does
            if lv not in "fs" or le not in "fsbi" or ne > nv:
                return None               # NumPy's same-kind cast refuses, or broadcasts up
            casts.add(f"ip{term[1]}")
            return parts[0]
        if tag == "reduce":
            if parts[0][0] not in "fs" or not parts[0][1]:
                return None
            if parts[0][0] == "s":
                casts.add(term[1])
            return ("F", 0) if parts[0][0] == "f" else ("S", 0)
        strong = {k[0] for k in parts if k not in _WEAK}
        if strong & _FLOAT32 and not strong & _FLOAT64:
            casts.update(n for n, k in zip(term[4], parts) if k in _WEAK)
        impl, params = term[1], term[2]
        args = [_sample(k) for k in parts]
        for slot in sorted(params):
            args.insert(slot, params[slot])
        try:
            with np.errstate(all="ignore"):
                result = kind_of(impl(*args))
        except Exception:   # a kernel that refuses these kinds: the tree decides
            return None
        if result is None or (result[0] == "i" and not _counter(term, parts)):
            return None
        return result[0], max(k[1] for k in parts)

    if cond_term is not None and kind(cond_term) not in (("b", 0), ("B", 0)):
        return None            # the condition as first evaluated is not a boolean
    passes = []
    for _ in range(3):
        for key, term in typing:
            got = kind(term)
            if got is None or (key in known and numba_kind(known[key]) != numba_kind(got)):
                return None
            known[key] = got
        passes.append({key: known[key] for key, _ in typing})
    if passes[2] != passes[1]:
        return None            # the tree's scalar types still change: leave it the loop
    if cond_term is not None and kind(cond_term) not in (("b", 0), ("B", 0)):
        return None
    return passes[0], passes[1]


def _counter(term: tuple, parts: list) -> bool:
    """``k + c`` or ``k - c`` of a Python int and a literal int of at most 1024: a loop
    counter (inputs are ints of at most 53 bits, so int64 cannot overflow within 2**52
    iterations)."""
    operands = [t for t in term[4:] if type(t) is tuple]
    return (term[3] in ("__add", "__sub") and len(parts) == 2
            and all(p == ("i", 0) for p in parts)
            and any(t[0] == "value" and type(t[1]) is int and 0 < abs(t[1]) <= 1024
                    for t in operands))


def shapes_hold(typing: list, shapes: dict, cond_term: tuple | None = None) -> bool:
    """True if every statement of the loop takes the shapes its operands have in every
    iteration, for inputs of ``shapes`` (key -> shape, ``()`` for a number), by NumPy's
    rules (``np.broadcast_shapes``, ``np.dot``'s inner dimensions, an in-place result
    of the target's own shape).  The shapes are followed until they no longer change
    (broadcasting only grows a length 1, so within ``ndim + 2`` passes); one that still
    changes, or an operation refusing its operands, leaves the loop to the tree."""
    known = dict(shapes)

    def shape(term) -> tuple | None:
        tag = term[0]
        if tag == "value":
            return ()
        if tag == "var":
            return known.get(term[1])
        parts = [shape(t) for t in term[1:] if type(t) is tuple]
        if None in parts:
            return None
        if tag == "transpose":
            return parts[0][::-1]
        if tag == "dot":
            return _dot_shape(*parts)
        if tag == "reduce":
            return ()
        if tag == "inplace":
            target, value = parts
            if not target:
                return value              # a number: rebound, as the tree does
            return target if _broadcast(target, value) == target else None
        return _broadcast(*parts)         # element-wise and ``and``/``or``

    passes = max((len(s) for s in shapes.values()), default=0) + 2
    for _ in range(passes):
        if cond_term is not None and shape(cond_term) != ():
            return False
        changed = False
        for key, term in typing:
            got = shape(term)
            if got is None:
                return False
            changed |= known.get(key) != got
            known[key] = got
        if not changed:
            return cond_term is None or shape(cond_term) == ()
    return False


def _broadcast(*shapes: tuple) -> tuple | None:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


def _dot_shape(a: tuple, b: tuple) -> tuple | None:
    """``np.dot``'s result shape for vectors and matrices (what a compiled loop takes),
    None if the inner dimensions differ."""
    if not a or not b or len(a) > 2 or len(b) > 2 or a[-1] != b[0]:
        return None
    return a[:-1] + b[1:]
