"""Python constructs a scientist writes, each decorated function against its ``.python``.

Operators, matrix products, array attributes and methods, comparisons and ``in``/``is``,
unpacking, loops with break/continue/early return, comprehensions, lists and dicts.
The other families are in test_functions.py and test_numpy_usage.py.
"""
from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from phylanx import Phylanx

from .helpers import check

FEW = settings(max_examples=30, deadline=None)
MANY = settings(max_examples=50, deadline=None)

ints = st.integers(-50, 50)
nonzero_ints = ints.filter(lambda v: v != 0)
floats = st.floats(-100, 100, allow_nan=False).filter(lambda v: abs(v) > 1e-3 or v == 0)
float_vectors = hnp.arrays(np.float64, st.integers(1, 6), elements=st.floats(-10, 10))
matrices = hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=5),
                      elements=st.floats(-10, 10))
small_lists = st.lists(st.integers(-9, 9), max_size=8)


# -- operators ----------------------------------------------------------------
@Phylanx
def arithmetic(a, b):
    q, r = divmod(a, b)
    return a + b, a - b, a * b, a / b, a // b, a % b, a ** 2, -a, +a, abs(a), q, r


@given(ints, nonzero_ints)
@MANY
def test_arithmetic_operators_on_python_ints(a, b):
    check(arithmetic, a, b)


@given(floats, floats.filter(lambda v: v != 0))
@MANY
def test_arithmetic_operators_on_python_floats(a, b):
    check(arithmetic, a, b)


@given(float_vectors)
@FEW
def test_arithmetic_operators_on_arrays(x):
    assume(np.all(np.abs(x) > 1e-3))
    check(arithmetic, x, x[::-1] + 0.5 * np.sign(x[::-1]), strict=True)


@Phylanx
def integer_powers_and_bits(a, b):
    return a ** b, 2 ** b, a & b, a | b, a ^ b, ~a, a << 2, a >> 1, a // 2 * 2 + a % 2 == a


@given(ints, st.integers(0, 6))
@FEW
def test_integer_power_and_bitwise_operators(a, b):
    check(integer_powers_and_bits, a, b)


@Phylanx
def mixed_int_float(n):
    half = n / 2
    whole = n // 2
    scaled = n * 1.5
    return half, whole, scaled, float(n), int(scaled), n ** 0.5 if n >= 0 else 0.0


@given(ints)
@FEW
def test_int_float_mixing_follows_python(n):
    check(mixed_int_float, n)


# -- matrix products ------------------------------------------------------------
@Phylanx
def products(a, b, v):
    return a @ b, np.matmul(a, b), np.dot(a, b), a.dot(b), a.T @ a, a @ v, v @ a.T @ a, v @ v


@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.data())
@FEW
def test_matrix_products(n, k, m, data):
    elements = st.floats(-5, 5)
    a = data.draw(hnp.arrays(np.float64, (n, k), elements=elements))
    b = data.draw(hnp.arrays(np.float64, (k, m), elements=elements))
    v = data.draw(hnp.arrays(np.float64, (k,), elements=elements))
    check(products, a, b, v, strict=True)


# -- attributes ------------------------------------------------------------------
@Phylanx
def attributes(x):
    n = x.shape[0]
    last = x.shape[-1]
    return x.shape, x.T, x.dtype, x.ndim, x.size, len(x), n, last, x.T.shape


@given(hnp.arrays(st.sampled_from([np.float64, np.float32, np.int64, np.bool_]),
                  hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)))
@FEW
def test_array_attributes(x):
    check(attributes, x)


@Phylanx
def shape_unpacking(x):
    rows, cols = x.shape
    total = 0.0
    for i in range(rows):
        for j in range(cols):
            total += x[i, j] * (i - j)
    return rows, cols, total


@given(matrices)
@FEW
def test_shape_unpacking_and_index_loops(x):
    check(shape_unpacking, x)


# -- array methods ---------------------------------------------------------------
@Phylanx
def reductions(x):
    return (x.sum(), x.sum(axis=0), x.sum(axis=1, keepdims=True), x.mean(axis=0), x.std(),
            x.var(axis=1), x.max(), x.min(axis=0), x.argmax(), x.argmin(axis=1), x.prod(axis=0),
            x.cumsum(), x.cumsum(axis=1), x.any(), x.all(axis=0), x.trace(), x.diagonal())


@given(matrices)
@MANY
def test_reduction_methods_with_axis_keywords(x):
    check(reductions, x, strict=True)


@Phylanx
def reshaping(x):
    rows, cols = x.shape
    return (x.reshape(-1), x.reshape((x.size, 1)), x.reshape(cols, rows), x.reshape(1, -1),
            x.flatten(), x.ravel(), x.transpose(), x.copy(), x.squeeze(), x.clip(-1, 1),
            x.round(), x.round(1), x.tolist(), x.T.reshape(-1))


@given(matrices)
@FEW
def test_reshape_copy_clip_round_tolist(x):
    check(reshaping, x, strict=True)


@Phylanx
def casting(x):
    single = x.astype(np.float32)
    whole = x.astype(int)
    flags = x.astype(bool)
    return single, single * 2, single + 1.5, single / 2, np.sqrt(np.abs(single)), \
        single.sum(), whole, flags, whole.dtype, single.astype(np.float64).dtype


@given(matrices)
@FEW
def test_astype_and_float32_is_kept(x):
    check(casting, x, strict=True)


# -- comparisons, in, is -----------------------------------------------------------
@Phylanx
def comparisons(a, b, items):
    between = 0 <= a < b
    return (a < b, a <= b, a == b, a != b, between, a in items, b not in items,
            a > 0 and b > 0, a > 0 or b > 0, not a, a or b, a and b, items or None)


@given(ints, ints, small_lists)
@MANY
def test_comparisons_membership_and_boolean_values(a, b, items):
    check(comparisons, a, b, items)


@Phylanx
def is_none(x, default=None):
    if default is None:
        default = 0
    if x is not None:
        return x + default
    return default


def test_is_none_and_is_not_none():
    for args in [(None,), (3,), (3, 4), (None, 5)]:
        check(is_none, *args)
    check(is_none, np.arange(3), default=2)


@Phylanx
def string_membership(word, text):
    return word in text, word not in text, text in ["a", "bc"], {"a": 1}.get(word, 0)


def test_in_on_strings_lists_and_dicts():
    for word, text in [("a", "abc"), ("d", "abc"), ("bc", "bc"), ("", "x")]:
        check(string_membership, word, text)


# -- unpacking ---------------------------------------------------------------------------
@Phylanx
def unpacking(values):
    def stats(v):
        return min(v), max(v), len(v)
    lo, hi, n = stats(values)
    first, *rest = values
    *init, last = values
    (a, b), c = (lo, hi), n
    lo, hi = hi, lo
    pairs = []
    for i, v in enumerate(values):
        pairs.append(i * v)
    for i, (p, q) in enumerate(zip(values, rest)):
        pairs.append(i + p * q)
    for k, (x, y) in zip(range(10), [(1, 2), (3, 4)]):
        pairs.append(k * x - y)
    return lo, hi, n, first, rest, init, last, a + b + c, pairs


@given(st.lists(st.integers(-9, 9), min_size=1, max_size=7))
@FEW
def test_tuple_unpacking_everywhere(values):
    check(unpacking, values)


# -- loops: break, continue, early return ---------------------------------------------
@Phylanx
def first_index(values, target):
    i = 0
    while i < len(values):
        if values[i] == target:
            return i
        i += 1
    return -1


@Phylanx
def scan(values, limit):
    total = 0
    seen = 0
    for v in values:
        if v < 0:
            continue
        seen += 1
        if total + v > limit:
            break
        total += v
    else_part = total
    while True:
        limit -= 7
        if limit < 0:
            break
    return total, seen, else_part, limit


@Phylanx
def search_grid(grid, target):
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == target:
                return i, j
            if v > 100:
                break
    return None


@given(small_lists, st.integers(-9, 9))
@MANY
def test_early_return_from_while_loop(values, target):
    check(first_index, values, target)


@given(small_lists, st.integers(0, 40))
@MANY
def test_break_and_continue(values, limit):
    check(scan, values, limit)


@given(hnp.arrays(np.int64, (3, 4), elements=st.integers(0, 6)), st.integers(0, 6))
@FEW
def test_return_from_nested_for_loops(grid, target):
    check(search_grid, grid, target)


@Phylanx
def newton_sqrt(a, tol=1e-12):
    x = a if a > 1 else 1.0
    for _ in range(100):
        nxt = 0.5 * (x + a / x)
        if abs(nxt - x) < tol:
            return nxt
        x = nxt
    return x


@given(st.floats(1e-3, 1e6))
@FEW
def test_iterative_solver_with_early_return(a):
    check(newton_sqrt, a)


# -- comprehensions --------------------------------------------------------------------
@Phylanx
def comprehensions(values):
    evens = [v for v in values if v % 2 == 0]
    squares = {v: v * v for v in values if v > 0}
    pairs = [(i, v) for i, v in enumerate(values) if i != v]
    grid = [a * b for a in values for b in evens if a < b]
    twice = [v for v in values if v > -5 if v < 5]
    total = sum(v * v for v in values)
    return (evens, squares, pairs, grid, twice, total, any(v > 5 for v in values),
            all([v < 9 for v in values]), max([abs(v) for v in values] + [0]))


@given(small_lists)
@MANY
def test_comprehensions_with_filters(values):
    check(comprehensions, values)


@Phylanx
def row_norms(x):
    return np.array([np.sqrt((row ** 2).sum()) for row in x]), [r.max() for r in x if r.sum() > 0]


@given(matrices)
@FEW
def test_comprehension_over_array_rows(x):
    check(row_norms, x)


# -- lists ---------------------------------------------------------------------------------
@Phylanx
def list_methods(values, extra):
    out = []
    for v in values:
        out.append(v * 2)
    out.extend(extra)
    out += [100]
    popped = out.pop()
    head = out.pop(0) if out else None
    zeros = [0] * 3
    joined = values + extra
    return (out, popped, head, zeros, joined, len(joined), joined[-1] if joined else None,
            joined[1:3], joined[::-1], sorted(joined), sorted(joined, reverse=True),
            list(reversed(joined)), sum(joined), max(joined + [0]), min([0] + joined))


@given(small_lists, small_lists)
@MANY
def test_list_append_extend_pop_and_slicing(values, extra):
    check(list_methods, values, extra)


@Phylanx
def list_store(n):
    grid = [[0] * n for _ in range(n)]
    for i in range(n):
        grid[i][i] = 1
        grid[i][n - 1 - i] += 2
    return grid


@given(st.integers(0, 5))
@FEW
def test_nested_list_stores(n):
    check(list_store, n)


# -- dicts ---------------------------------------------------------------------------------
@Phylanx
def word_counts(words):
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    most, best = None, 0
    for word, n in counts.items():
        if n > best:
            most, best = word, n
    total = 0
    for k in counts.keys():
        total += counts[k]
    return counts, most, best, total, sorted(counts.values()), list(counts), "a" in counts


@given(st.lists(st.sampled_from(["a", "b", "cc", "d"]), max_size=10))
@FEW
def test_dict_get_items_keys_values(words):
    check(word_counts, words)
