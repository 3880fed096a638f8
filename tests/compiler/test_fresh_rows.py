"""The fresh-table rule (``compiler/rewrite/fresh_rows.py``): which allocations it gives
the rows of ``x``, proven from the compiled program, and that plain programs keep NumPy's
answer.  The property test over its sample is test_rewrite_engine.py's; the distributed
behaviour is tests/distributed/programs/fresh_tables.py's."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.compiler.through_ir import optimize_through_ir
from phylanx.language import parser

RULE = "fresh_table_with_the_rows_of_x"


def fired(source: str) -> tuple[int, object, object]:
    """(times the rule fired, decorated, undecorated) for the function ``f`` of ``source``."""
    namespace: dict = {"np": np}
    exec(compile(source, "<fresh>", "exec"), namespace)
    python = namespace["f"]
    decorated = Phylanx(source=source)(python)
    counts: Counter = Counter()
    optimize_through_ir(parser.parse(decorated.get_physl_source()), counts)
    return counts[RULE], decorated, python


FIRES = {
    "zeros, columns": """
def f(x, c):
    d = np.zeros((x.shape[0], c.shape[0]))
    for j in range(c.shape[0]):
        d[:, j] = np.sum((x - c[j]) ** 2, axis=1)
    return np.argmin(d, axis=1)
""",
    "full, reduced both ways": """
def f(x, c):
    d = np.full((x.shape[0], c.shape[0]), np.inf)
    for j in range(c.shape[0]):
        d[:, j] = np.sqrt(np.sum((x - c[j]) ** 2, axis=1))
    return np.min(d, axis=1) + np.sum(d)
""",
    "empty, float32, in a while loop": """
def f(x, c):
    d = np.empty((x.shape[0], c.shape[0]), dtype=np.float32)
    j = 0
    while j < c.shape[0]:
        d[:, j] = np.max(x - c[j], axis=1)
        j += 1
    return np.max(d, axis=1)
""",
    "len(x) rows, a list shape": """
def f(x, c):
    d = np.zeros([len(x), c.shape[0]])
    for j in range(c.shape[0]):
        d[:, j] = np.sum((x - c[j]) ** 2, axis=1)
    return np.argmin(d, axis=1)
""",
    "the row count named first": """
def f(x, c):
    n = x.shape[0]
    d = np.zeros((n, c.shape[0]))
    for j in range(c.shape[0]):
        d[:, j] = np.sum(np.abs(x - c[j]), axis=1)
    return np.argmax(d, axis=1)
""",
    "ones, one axis, under a branch": """
def f(x, c):
    v = np.ones(x.shape[0])
    if c.shape[0] > 2:
        v[:] = np.sum(x, axis=1)
    return v * 2.0
""",
}

SHARED = {
    "bound to another name": """
def f(x, c):
    d = np.zeros((x.shape[0], 2))
    e = d
    e[:, 0] = np.sum(x, axis=1)
    return np.sum(d, axis=1)
""",
    "returned": """
def f(x, c):
    d = np.zeros((x.shape[0], 2))
    d[:, 0] = np.sum(x, axis=1)
    return d
""",
    "a view read, then stored into": """
def f(x, c):
    d = np.zeros((x.shape[0], 2))
    v = d[:, 0]
    d[:, 0] = np.sum(x, axis=1)
    return np.sum(v)
""",
    "in a tuple": """
def f(x, c):
    d = np.zeros((x.shape[0], 2))
    d[:, 0] = np.sum(x, axis=1)
    t = (d, 1)
    return np.sum(t[0])
""",
    "rows of another axis": """
def f(x, c):
    d = np.zeros((x.shape[1], 2))
    d[:, 0] = np.sum(x, axis=0)
    return np.sum(d, axis=1)
""",
    "dtype from a value": """
def f(x, c):
    d = np.zeros((x.shape[0], 2), dtype=x.dtype)
    d[:, 0] = np.sum(x, axis=1)
    return np.sum(d, axis=1)
""",
}


@pytest.mark.parametrize("name", FIRES)
def test_a_fresh_table_no_other_name_holds_gets_the_rows_of_x(name):
    count, decorated, python = fired(FIRES[name])
    assert count >= 1, name
    rng = np.random.default_rng(3)
    x, c = rng.normal(size=(9, 3)), rng.normal(size=(4, 3))
    np.testing.assert_allclose(decorated(x, c), python(x, c), rtol=1e-6)


@pytest.mark.parametrize("name", SHARED)
def test_guard_a_table_another_name_may_see_is_left_alone(name):
    # guard (passes on the old code too): the rule must not fire where sharing is possible
    count, decorated, python = fired(SHARED[name])
    assert count == 0, name
    rng = np.random.default_rng(4)
    x, c = rng.normal(size=(5, 5)), rng.normal(size=(2, 5))
    np.testing.assert_allclose(decorated(x, c), python(x, c), rtol=1e-12)


#: np.diff of order 0 returns its operand itself (NumPy: ``if n == 0: return a``), so the
#: table is then seen through a second name; an order the program computes may be 0
ORDER_ZERO = {
    "n=0": "np.diff(d, n=0)",
    "0 positional, an axis": "np.diff(d, 0, axis=0)",
    "an order the caller gives": "np.diff(d, n=k)",
}


@pytest.mark.parametrize("name", ORDER_ZERO)
def test_a_table_np_diff_may_return_itself_is_left_alone(name):
    source = ("def f(x, k):\n    d = np.zeros((x.shape[0], 2))\n"
              f"    u = {ORDER_ZERO[name]}\n"
              "    d[:, 0] = np.sum(x, axis=1)\n    return np.sum(u)\n")
    count, decorated, python = fired(source)
    assert count == 0, name
    x = np.random.default_rng(5).normal(size=(5, 3))
    np.testing.assert_allclose(decorated(x, 0), python(x, 0), rtol=1e-12)


def test_a_table_np_diff_of_order_one_is_a_new_value():
    # guard: a literal order of 1 or more (or none: 1) makes a new array
    count, _, _ = fired("def f(x, c):\n    d = np.zeros((x.shape[0], 2))\n"
                        "    u = np.diff(d, axis=0) + np.diff(d, 2, axis=0)\n"
                        "    d[:, 0] = np.sum(x, axis=1)\n    return np.sum(u) + np.sum(d)\n")
    assert count == 1
