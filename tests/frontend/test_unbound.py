"""Unbound locals: a read of a local not assigned on the path taken raises Python's error.

The undecorated function is the oracle: same value, or the same exception type (and
message).  The definite-assignment analysis (phylanx/frontend/definite.py) must leave
definitely assigned reads as plain reads, so the generated PhySL is checked too.
"""
from __future__ import annotations

import ast
import inspect
import textwrap

import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxError
from phylanx.frontend.definite import unbound_reads

from .helpers import same

MESSAGE = "cannot access local variable '{}' where it is not associated with a value"


def line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def outcome(fn, *args):
    try:
        return "value", fn(*args)
    except Exception as e:   # noqa: BLE001 - the exception is the outcome compared
        return "raise", e


def assert_like_python(fn, *args):
    kind, got = outcome(fn, *args)
    want_kind, want = outcome(fn.python, *args)
    assert kind == want_kind, f"{fn.__name__}{args}: phylanx {got!r}, python {want!r}"
    if kind == "value":
        assert same(got, want), f"{fn.__name__}{args}: phylanx {got!r} != python {want!r}"
    else:
        assert isinstance(got, PhylanxError) and isinstance(got, type(want)), (got, want)
        assert got.message == str(want)


@Phylanx
def maybe(n):
    if n > 5:
        y = 1
    return y


def test_the_read_raises_unbound_local_error_at_the_read():
    with pytest.raises(UnboundLocalError) as info:
        maybe(3)
    err = info.value
    assert isinstance(err, PhylanxError)
    assert err.message == MESSAGE.format("y")
    assert err.loc.line == line_of(maybe.python, "return y")
    assert err.loc.col == 12
    assert "__bound" not in str(err)          # the user's read, not an internal name
    assert maybe(7) == 1
    assert_like_python(maybe, 3)


@Phylanx
def previous(n):
    t = 0
    for i in range(n):
        if i:
            t += prev * i   # noqa: F821 - bound by an earlier iteration
        prev = i        # noqa: F841
    return t


def test_a_local_assigned_by_an_earlier_iteration_is_checked_and_bound():
    assert "__bound(prev" in previous.get_physl_source()
    for n in (0, 1, 5):
        assert_like_python(previous, n)


@Phylanx
def both(n):
    if n > 5:
        y = 1
    elif n > 2:
        y = 2
    else:
        y = 3
    z = y + n
    for i in range(n):
        z += i
    while z > 100:
        z -= 1
    return z, y


def test_definitely_assigned_reads_stay_plain_reads():
    src = both.get_physl_source()
    assert "__bound" not in src and "__unbound" not in src
    for n in (1, 4, 9, 30):
        assert_like_python(both, n)


@Phylanx
def loop_variable(n):
    for i in range(n):  # noqa: B007 - read after the loop
        pass
    return i


def test_the_loop_variable_after_zero_iterations():
    assert_like_python(loop_variable, 3)
    with pytest.raises(UnboundLocalError, match=MESSAGE.format("i")):
        loop_variable(0)


@Phylanx
def while_found(values, target):
    k = 0
    while k < len(values):
        if values[k] == target:
            where = k
        k += 1
    return where


def break_paths(values):   # not decorated: 'for ... else' is not translated (yet)
    for v in values:
        if v < 0:
            found = v
            break
    else:
        found = None
    return found


@Phylanx
def first_negative(values):
    for v in values:
        if v < 0:
            found = v
            break
    return found


@Phylanx
def forever(n):
    i = 0
    while True:
        i += 1
        if i > n:
            last = i
            break
    return last


def test_while_and_break_paths():
    for args in (([1, 2, 3], 2), ([1, 2, 3], 9), ([], 0)):
        assert_like_python(while_found, *args)
    for values in ([1, -2, -3], [1, 2], []):
        assert_like_python(first_negative, values)
    assert "__bound" not in forever.get_physl_source()   # the only exit assigns it
    assert forever(3) == 4


def test_for_else_is_understood_by_the_analysis():
    # the analysis knows that the break path and the else clause both assign ``found``
    assert not _flagged(break_paths)


@Phylanx
def closure_later(n):
    def get():
        return k
    early = get() if n < 0 else 0
    k = n
    return early + get()


@Phylanx
def counter(n):
    def bump():
        nonlocal count
        count += 1
    if n:
        count = 0
    bump()
    return count


@Phylanx
def comprehension(n):
    r = [y + i for i in range(n)]   # noqa: F821 - the error under test
    y = 1                           # noqa: F841
    return r


@Phylanx
def recursive(n):
    def fact(k):
        return 1 if k <= 1 else k * fact(k - 1)
    return fact(n)


def test_reads_from_nested_scopes_raise_python_name_error():
    assert_like_python(closure_later, 3)
    with pytest.raises(NameError, match="free variable 'k'"):
        closure_later(-1)
    assert_like_python(closure_later, -1)
    assert_like_python(counter, 1)
    assert_like_python(counter, 0)      # 'count += 1' in bump reads the unset count
    assert_like_python(comprehension, 0)
    assert_like_python(comprehension, 2)
    # a nested function calling itself reads its own name, bound by then: no check
    assert "__bound" not in recursive.get_physl_source()
    assert recursive(5) == 120


@Phylanx
def table_a(n):
    if n:
        a = n
    else:
        return -1
    return a


@Phylanx
def table_b(n):
    for i in range(n):
        if i == 2:
            x = i
            continue
    return x


@Phylanx
def table_c(n):
    total = 0
    for i in range(n):
        total += i
    return total + i


@Phylanx
def table_d(n):
    if n > 0:
        if n > 1:
            q = 2
        else:
            q = 1
    return q


@Phylanx
def table_e(n):
    a, b = (n, n + 1) if n else (0, 0)
    if a:
        c = a + b
    return [c, a]


@Phylanx
def table_f(n):
    s = 0
    j = 0
    while j < n:
        if j % 2:
            s += last   # noqa: F821 - bound by an earlier iteration
        last = j    # noqa: F841
        j += 1
    return s


@Phylanx
def table_g(n):
    print_it = n > 1
    if print_it:
        msg = "big"
    return msg if print_it else "small"


@Phylanx
def table_h(n):
    g = lambda v: v + w   # noqa: E731
    if n:
        w = 10
    return g(n)


@pytest.mark.parametrize("fn", [table_a, table_b, table_c, table_d, table_e, table_f,
                                table_g, table_h], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1, 2, 4])
def test_like_the_undecorated_function(fn, n):
    assert_like_python(fn, n)


def _flagged(pyfunc) -> set:
    tree = ast.parse(textwrap.dedent(inspect.getsource(pyfunc)))
    return {k[2] for k in unbound_reads(tree.body[0]).reads}


def _source(text: str):
    return ast.parse(textwrap.dedent(text)).body[0]


@pytest.mark.parametrize("text, names", [
    ("def f(x):\n  try:\n    y = 1\n  except E:\n    pass\n  return y", {"y"}),
    ("def f(x):\n  try:\n    y = 1\n  except E:\n    y = 2\n  return y", set()),
    ("def f(x):\n  try:\n    pass\n  finally:\n    y = 1\n  return y", set()),
    ("def f(x):\n  y = 1\n  del y\n  return y", {"y"}),
    ("def f(x):\n  with c as y:\n    pass\n  return y", set()),
    ("def f(x):\n  global g\n  if x:\n    g = 1\n  return g", set()),
    ("def f(x):\n  return x\n  return y\n  y = 1", set()),     # unreachable read
    ("def f(x):\n  y: int\n  return y", {"y"}),                # an annotation binds nothing
    ("def f(x):\n  for i in x:\n    if i:\n      break\n    y = i\n  else:\n    return 0\n"
     "  return y", {"y"}),
])
def test_the_analysis_on_constructs_the_frontend_does_not_translate(text, names):
    assert {k[2] for k in unbound_reads(_source(text)).reads} == names


def test_a_hot_loop_emits_no_check():
    @Phylanx
    def adds(n):
        s = 0
        i = 0
        while i < n:
            s = s + i
            i = i + 1
        return s
    src = adds.get_physl_source()
    assert "__bound" not in src and "__unbound" not in src
    assert adds(100) == sum(range(100))
