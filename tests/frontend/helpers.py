"""Compare a decorated function with its undecorated Python original."""
from __future__ import annotations

import numpy as np


def same(a, b) -> bool:
    """Values equal as Python/NumPy sees them (NaN-aware; lists and tuples alike)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return a == b
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    if a_arr.shape != b_arr.shape:
        return False
    if a_arr.dtype.kind in "fc" or b_arr.dtype.kind in "fc":
        return bool(np.allclose(a_arr, b_arr, equal_nan=True))
    return bool(np.array_equal(a_arr, b_arr))


def _kind(x) -> str:
    if isinstance(x, (bool, np.bool_)):
        return "b"
    if isinstance(x, (int, np.integer)):
        return "i"
    if isinstance(x, (float, np.floating)):
        return "f"
    return type(x).__name__


def type_mismatch(got, expected, where="result") -> str | None:
    """Where ``got`` differs from ``expected`` in kind of value: arrays keep their exact
    dtype, 0-d values are scalars of the same kind (a NumPy scalar for a Python number is
    fine), lists/tuples and dicts match in structure.  None when they agree."""
    if isinstance(expected, np.ndarray):   # 0-d arrays too: NumPy keeps them 0-d
        if not isinstance(got, np.ndarray):
            return f"{where}: expected an array, got {type(got).__name__}"
        if got.dtype != expected.dtype:
            return f"{where}: dtype {got.dtype} != {expected.dtype}"
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(got, (list, tuple)):
            return f"{where}: expected a {type(expected).__name__}, got {type(got).__name__}"
        for i, (g, e) in enumerate(zip(got, expected)):
            found = type_mismatch(g, e, f"{where}[{i}]")
            if found:
                return found
        return None
    if isinstance(expected, dict):
        for k in expected:
            found = type_mismatch(got.get(k), expected[k], f"{where}[{k!r}]")
            if found:
                return found
        return None
    if isinstance(expected, np.dtype):   # x.dtype is the dtype's name, which compares equal
        return None if got == expected else f"{where}: dtype {got!r} != {expected}"
    if isinstance(expected, np.generic) and isinstance(got, np.generic):
        return None if got.dtype == expected.dtype else \
            f"{where}: {got.dtype} scalar != {expected.dtype} scalar"
    if _kind(got) != _kind(expected) or isinstance(got, np.ndarray):
        return f"{where}: {type(got).__name__} != {type(expected).__name__}"
    return None


def _copied(value):
    """A deep copy of data (functions are passed as they are)."""
    if isinstance(value, (list, tuple)):
        return type(value)(_copied(v) for v in value)
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    return value.copy() if isinstance(value, np.ndarray) else value


def check(fn, *args, strict=False, **kwargs):
    """``fn(*args)`` through Phylanx equals ``fn.python(*args)``; returns the value.

    The Python original runs on deep copies, so functions that change their inputs are
    compared fairly.  ``strict`` also compares dtypes and kinds of values (see
    :func:`type_mismatch`).
    """
    expected = fn.python(*_copied(args), **_copied(kwargs))
    got = fn(*args, **kwargs)
    assert same(got, expected), f"{fn.__name__}{args}: phylanx {got!r} != python {expected!r}"
    if strict:
        problem = type_mismatch(got, expected)
        assert problem is None, f"{fn.__name__}{args}: {problem}"
    return got
