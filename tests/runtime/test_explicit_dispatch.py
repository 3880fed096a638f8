"""Operands are dispatched by kind before a kernel runs; no kernel is run twice
(issue 27 item 3, runtime/nodes.py).

An ``async`` value (a future), a list that would hold one, a future holding a tiled
array: the closure sees the kind and waits or dispatches first, so the kernel is called
once, on values it takes.  The old failure path let the kernel raise on the future and
ran it again with the values: a kernel with a side effect (here, a call counter) saw
two calls for one evaluation.  The oracle is the same expression without ``async``.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import distributed as dist
from phylanx.compiler.special_forms import future_free_names
from phylanx.distributed import PhylanxDistributionError
from phylanx.errors import PhylanxError
from phylanx.language import parser
from phylanx.primitives import registry
from phylanx.runtime.futures import holds_future


@pytest.fixture
def counted(monkeypatch):
    """``counted(name)``: the primitive's kernel, counting the operands of each call
    (set before compiling: the compiler binds the kernel into the node's closure)."""
    calls: dict[str, list] = {}

    def count(name):
        spec = registry.lookup(name)
        kernel = spec.impl
        seen = calls.setdefault(name, [])

        def counting(*args):
            seen.append(args)
            return kernel(*args)
        monkeypatch.setattr(spec, "impl", counting)
        return seen
    return count


# (expression whose kernel ``name`` gets an async value, directly or inside a list or
#  through a function, the same without async, name)
CASES = [
    ("__len(async(list(1, 2, 3)))", "__len(list(1, 2, 3))", "__len"),
    ("shape(async([[1, 2, 3]]), 1)", "shape([[1, 2, 3]], 1)", "shape"),
    ("sum(list(async(1 + 2), async(3)))", "sum(list(1 + 2, 3))", "sum"),
    ("sum(list(list(async(1), 2), list(3, 4)))", "sum(list(list(1, 2), list(3, 4)))", "sum"),
    ("sum(fmap(lambda(x, async(x * 2)), list(1, 2, 3)))",
     "sum(fmap(lambda(x, x * 2), list(1, 2, 3)))", "sum"),
    ("sum(parallel_map(lambda(x, async(x * 2)), list(1, 2, 3)))",
     "sum(parallel_map(lambda(x, x * 2), list(1, 2, 3)))", "sum"),
    ("block(define(f, lambda(a, async(a + 1))), sum(list(f(1), f(2))))",
     "sum(list(2, 3))", "sum"),
    ("block(define(x, async([1.0, 2.0])), dot(x, x))", "dot([1.0, 2.0], [1.0, 2.0])", "dot"),
    ("hstack(list(async([1, 2]), [3]))", "hstack(list([1, 2], [3]))", "hstack"),
]


@pytest.mark.parametrize("with_async, plain, name", CASES, ids=[c[0] for c in CASES])
def test_a_kernel_given_a_future_is_called_once_with_the_value(counted, with_async, plain,
                                                                name):
    want = phylanx.evaluate(plain)
    seen = counted(name)
    got = phylanx.evaluate(with_async)
    assert len(seen) == 1, f"{name} called {len(seen)} times: {seen}"
    # ... on values: no future, also not inside a list (NumPy would wait for it inside
    # the kernel, which then ran on an operand it cannot take)
    assert not any(holds_future(a) for a in seen[0]), seen
    np.testing.assert_array_equal(got, want)
    assert type(got) is type(want)


def test_a_kernel_error_on_a_future_operand_is_raised_once_and_located(counted):
    seen = counted("__len")
    with pytest.raises(PhylanxError) as info:
        phylanx.evaluate("block(define(x, async(3.5)),\n  __len(x))")
    assert len(seen) == 1                       # not run again on the value
    assert info.value.primitive == "__len"
    assert (info.value.loc.line, info.value.loc.col) == (2, 3)


# -- guards (they passed before too): what the explicit dispatch must keep -------------

def test_a_side_effect_kernel_given_a_future_runs_once(counted, capsys):
    seen = counted("cout")
    phylanx.evaluate("cout(async(40 + 2), list(async(1)))")
    assert len(seen) == 1 and capsys.readouterr().out == "42 [1]\n"


def test_a_list_of_futures_is_itself_an_async_value_and_keeps_the_order():
    got = phylanx.evaluate(
        "block(define(xs, list(async(block(define(i, 0), while(i < 20000, "
        "store(i, i + 1)), i)), 2, async(3))), xs)")
    assert got == [20000, 2, 3] and type(got) is list


def test_a_failed_async_in_a_list_fails_its_consumer_located():
    with pytest.raises(PhylanxError) as info:
        phylanx.evaluate("block(define(xs, list(1, async(slice([1], 5)))),\n sum(xs))")
    assert info.value.primitive == "slice"
    assert (info.value.loc.line, info.value.loc.col) == (1, 32)


def test_a_future_holding_a_tiled_array_is_dispatched_not_given_to_the_kernel(counted):
    seen = counted("cumprod")
    with pytest.raises(PhylanxDistributionError) as info:
        phylanx.evaluate('lambda(a, file_write("/nonexistent/f", async(a)))',
                         dist.tiled(np.ones((4, 3)), "row", name="x"))
    assert info.value.primitive == "file_write"
    # a primitive without a rule gets the gathered whole array, never the future or tile
    # (cumprod: cumsum has a rule of its own, global_structure.py)
    with pytest.warns(dist.PhylanxPerformanceWarning, match="cumprod"):
        got = phylanx.evaluate("lambda(a, cumprod(async(a)))",
                               dist.tiled(np.ones((4, 3)), "row", name="x"))
    np.testing.assert_array_equal(got, np.cumprod(np.ones((4, 3))))
    assert len(seen) == 1 and type(seen[0][0]) is np.ndarray


# programs where ``<`` meets a local that is, or may be, bound to an async value
LOCALS = [
    ("block(define(f, n, if(n < 2, n, f(n - 1) + f(n - 2))), f(async(6)))", 8),
    ("block(define(g, a, b, if(a < b, a, b)), g(async(3), 2))", 2),
    ("block(define(h, n, block(store(n, async(7)), if(n < 2, 1, 0))), h(0))", 0),
    ("block(define(k, n, block(define(x, async(n)), if(x < 2, 1, 0))), k(5))", 0),
    ("block(define(m, n, block(define(x, 0), store(x, async(n)), x < 2)), m(1))", True),
    ("block(define(p, n, fold_left(lambda(c, y, if(c < 10, c + y, c)), async(n), "
     "list(1, 2))), p(3))", 6),
]


@pytest.mark.parametrize("program, want", LOCALS, ids=[p[:40] for p, _ in LOCALS])
def test_a_local_bound_to_a_future_reaches_the_operator_as_its_value(monkeypatch, program,
                                                                     want):
    """``n < 2`` on a local is evaluated in place by its parent (slot_op) without a kind
    test only where the local never holds a future (a parameter: the call waits for an
    ``async`` argument; a variable bound only to operators' values); elsewhere the node
    tests it.  The operator gets values only (it used to get the future, fail, and be
    run again)."""
    spec = registry.lookup("__lt")
    operator_lt = spec.flags["binary"]
    seen = []

    def counting(x, y):
        seen.append(x)
        return operator_lt(x, y)
    monkeypatch.setitem(spec.flags, "binary", counting)    # bound when compiled
    assert phylanx.evaluate(program) == want
    assert seen and not any(holds_future(x) for x in seen), seen


def test_the_locals_known_never_to_hold_a_future():
    body = parser.parse(
        "block(define(s, 0), store(s, s + 1), define(t, async(1)), store(n, f(1)), "
        "define(u, -s), define(v, [1, 2]), define(w, s && 1), "
        "for_each(lambda(i, store(u, u * i)), list(1)))").body[0]
    assert future_free_names(body, ["n", "m"]) == {"s", "u", "v", "m"}
