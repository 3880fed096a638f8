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


def check(fn, *args, **kwargs):
    """``fn(*args)`` through Phylanx equals ``fn.python(*args)``; returns the value."""
    expected = fn.python(*args, **kwargs)
    got = fn(*args, **kwargs)
    assert same(got, expected), f"{fn.__name__}{args}: phylanx {got!r} != python {expected!r}"
    return got
