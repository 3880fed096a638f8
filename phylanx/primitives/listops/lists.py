"""List and dictionary basics: ``list``, ``make_list``, ``dict``, ``__len``.

Lists are Python lists (copied on construction); ``dict`` builds a dictionary
from ``[key, value]`` pairs.  ``list`` and ``make_list`` take ``async`` values as they
are (``takes_futures``): with one among the items, the list is a future of the list of
values (``runtime.futures.gathered``), so a list never holds a future and every other
kernel is dispatched by the kind of its operands alone (``runtime/nodes.py``).
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...runtime.futures import gathered
from ...values import type_name
from ..registry import primitive


@primitive("list", "list(__1)", takes_tiled=True, aliases=(),
           example="list(1, \"two\", [3])", result="'(1, \"two\", [3])",
           oracle=lambda *a: list(a), differentiable=True, flags={"takes_futures": True})
def list_(*items):
    """A list of the arguments (also what quoted lists ``'(...)`` and Python literals become)."""
    return gathered(list(items))


@primitive("make_list", "make_list(__1)", takes_tiled=True,
           example="make_list(1, 2)", result="list(1, 2)",
           oracle=lambda *a: list(a), flags={"takes_futures": True})
def make_list(*items):
    """Alias of ``list``."""
    return gathered(list(items))


@primitive("dict", "dict(__1)", takes_tiled=True,
           example="slice(dict(list(list(\"a\", 1), list(\"b\", 2))), \"b\")", result="2",
           no_oracle="builds a dict from pairs; checked in tests")
def dict_(*pairs):
    """A dictionary from a list of ``[key, value]`` pairs (or the pairs as arguments)."""
    if len(pairs) == 1 and isinstance(pairs[0], (list, tuple)) and (
            not pairs[0] or isinstance(pairs[0][0], (list, tuple))):
        pairs = tuple(pairs[0])
    out = {}
    for p in pairs:
        if not isinstance(p, (list, tuple)) or len(p) != 2:
            raise PhylanxValueError(f"dict needs [key, value] pairs, got {type_name(p)}")
        key = p[0]
        if isinstance(key, np.ndarray):
            raise PhylanxTypeError("an array cannot be a dictionary key")
        out[key] = p[1]
    return out


@primitive("__len", "__len(_1)", oracle=len, distributable=True,
           example="__len([[1, 2], [3, 4], [5, 6]])", result="3")
def len_(value):
    """Length along the outermost dimension of an array, list, dict or string."""
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            raise PhylanxTypeError("a 0-d value has no length")
        return value.shape[0]   # Python's len() is a Python int
    if isinstance(value, (list, tuple, range, dict, str, set, frozenset)):
        return len(value)
    raise PhylanxTypeError(f"a {type_name(value)} has no length")
