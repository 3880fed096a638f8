# ruff: noqa: B006, B008, B023 - the Python behaviour these rules warn about is under test
"""Default arguments and closures bind as in Python (issue 31 items 4 and 5).

A default is evaluated once, where its ``def`` or ``lambda`` runs, in the enclosing
scope; a mutable default is one object shared by every call.  A comprehension is one
scope whose variables every iteration rebinds, so a closure made in it sees their last
value, like a closure made in a ``for`` loop.  Each case is a decorated function against
its undecorated original (value, kind and dtype).
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxSyntaxError

from .helpers import check, same, type_mismatch


@Phylanx
def lambda_defaults_in_a_loop():
    fs = []
    for i in range(3):
        fs.append(lambda j=i: j)
    return [f() for f in fs]


@Phylanx
def default_of_a_later_rebound_local():
    n = 1

    def g(k=n):
        return k
    n = 100
    return g(), n


@Phylanx
def lambda_default_named_like_the_outer_local():
    n = 5
    h = lambda n=n: n * 2  # noqa: E731
    return h(), h(1)


@Phylanx
def closures_of_a_comprehension():
    fs = [lambda: i for i in range(3)]
    return [f() for f in fs]


@Phylanx
def mutable_default_of_a_nested_def(x):
    def f(y, acc=[]):
        acc.append(y)
        return acc
    f(x)
    return f(x + 1)


@Phylanx
def array_default_evaluated_once(a):
    def g(v=a * 2):
        v += 1   # in place: the one default array grows from call to call
        return v
    g()
    return g(), a


@Phylanx
def keyword_only_defaults(x):
    n, scale = 2, 10.0

    def g(a, *, k=n, s=scale * x):
        return a + k * s
    n, scale = 50, -1.0
    return g(1), g(1, k=3), g(1, s=0.5)


@Phylanx
def defaults_read_the_enclosing_locals(items):
    a = 10

    def g(a=1, b=a, c=len(items)):   # b is the outer a (10), not the parameter
        return a, b, c
    items.append(0)
    return g(), g(2)


@Phylanx
def default_evaluated_once_not_per_call():
    calls = []

    def g(k=calls.append(1)):
        return k
    g()
    g()
    g(3)
    return len(calls)


@Phylanx
def recursive_nested_def_with_a_default(n):
    def fact(m, acc=1):
        return acc if m <= 1 else fact(m - 1, acc * m)
    return fact(n), fact(n, 2)


@Phylanx
def closures_in_dict_and_set_comprehensions():
    d = {k: (lambda: k * 10) for k in range(3)}
    s = {lambda: j for j in range(4)}
    return {k: f() for k, f in d.items()}, sorted(f() for f in s)


@Phylanx
def closures_in_a_generator_expression():
    fs = list(lambda i=i: i for i in range(3))   # the default binds: no closure of i
    return [f() for f in fs], sum(f() for f in [lambda: 2 for _ in range(3)])


def test_a_closure_reading_a_generator_variable_is_a_located_error():
    # Python's generator is lazy: a closure called while it runs sees the current value
    # ([0, 1, 2] here) and one called after it ran the last; the eager translation can
    # give only one of them, so it refuses, at the lambda
    @Phylanx
    def lazily():
        return [f() for f in (lambda: i for i in range(3))]
    with pytest.raises(PhylanxSyntaxError, match="generator expression") as info:
        lazily()
    assert info.value.loc.line == lazily.python.__code__.co_firstlineno + 2


@Phylanx
def closures_in_nested_comprehensions():
    grid = [[lambda: (i, j) for j in range(2)] for i in range(3)]
    flat = [lambda: (i, j) for i in range(2) for j in range(3)]
    return [[f() for f in row] for row in grid], [f() for f in flat]


@Phylanx
def closures_in_a_filtered_comprehension():
    # the variable's last value is the last item iterated, even one the filter drops
    fs = [lambda: i for i in range(5) if i < 3]
    pairs = [lambda: (a, b) for a, b in [(1, 2), (3, 4)] if a > 0]
    return [f() for f in fs], [f() for f in pairs]


@Phylanx
def comprehension_scope_is_its_own():
    i = 10
    fs = [lambda: i for i in range(3)]
    groups = []
    for n in (2, 4):   # each evaluation of a comprehension has its own variables
        groups.append([lambda: i for i in range(n)])
    return i, [f() for f in fs], [[f() for f in g] for g in groups]


@Phylanx
def default_binds_early_in_a_comprehension():
    fs = [lambda i=i: i * i for i in range(4)]
    return [f() for f in fs]


@Phylanx
def closures_in_a_for_loop():
    # for contrast: a for loop's variable is rebound too, so its closures bind late
    fs = []
    for i in range(3):
        fs.append(lambda: i)

        def g():
            return i * 2
        fs.append(g)
    return [f() for f in fs]


CASES = [
    (lambda_defaults_in_a_loop, ()),
    (default_of_a_later_rebound_local, ()),
    (lambda_default_named_like_the_outer_local, ()),
    (closures_of_a_comprehension, ()),
    (mutable_default_of_a_nested_def, (1,)),
    (array_default_evaluated_once, (np.arange(3.0),)),
    (array_default_evaluated_once, (np.arange(3, dtype=np.int32),)),
    (keyword_only_defaults, (2.0,)),
    (defaults_read_the_enclosing_locals, ([1, 2],)),
    (default_evaluated_once_not_per_call, ()),
    (recursive_nested_def_with_a_default, (5,)),
    (closures_in_dict_and_set_comprehensions, ()),
    (closures_in_a_generator_expression, ()),
    (closures_in_nested_comprehensions, ()),
    (closures_in_a_filtered_comprehension, ()),
    (comprehension_scope_is_its_own, ()),
    (default_binds_early_in_a_comprehension, ()),
    (closures_in_a_for_loop, ()),
]


@pytest.mark.parametrize("fn, args", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_like_python(fn, args):
    check(fn, *args, strict=True)


def test_a_nested_mutable_default_is_new_each_time_its_def_runs():
    # the def runs once per call of the outer function: each call starts a fresh list
    first = mutable_default_of_a_nested_def(1)
    assert first == mutable_default_of_a_nested_def(1) == [1, 2]


def fresh(source: str, name: str):
    """A new function object made from ``source`` (its defaults are new objects too)."""
    namespace: dict = {"np": np}
    exec(compile(source, "<test>", "exec"), namespace)
    return namespace[name]


TOP_LEVEL = '''
def grow(x, acc=[], seen={}, t=(1, 2.5), arr=np.zeros(2)):
    acc.append(x)
    seen[x] = len(acc)
    arr += 1
    return acc, seen, t, arr


def twice():
    grow(1)
    return grow(2)
'''


def test_mutable_defaults_of_the_decorated_function_are_shared_across_calls():
    python = fresh(TOP_LEVEL, "twice")
    namespace: dict = {"np": np}
    exec(compile(TOP_LEVEL, "<test>", "exec"), namespace)
    grow = namespace["grow"] = Phylanx(source=TOP_LEVEL)(namespace["grow"])
    twice = Phylanx(source=TOP_LEVEL)(namespace["twice"])
    # grow called from decorated code takes its PhySL defaults: Python's objects, once
    check_same(twice(), python())
    # then from Python: the same objects again, as the original's own calls would
    check_same(grow(3), python.__globals__["grow"](3))


def check_same(got, want):
    assert same(got, want), f"phylanx {got!r} != python {want!r}"
    assert type_mismatch(got, want) is None, type_mismatch(got, want)
