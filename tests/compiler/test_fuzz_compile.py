"""Fuzzing the compiler and evaluator: random PhySL trees fail only with a PhylanxError.

Hypothesis builds ASTs from the grammar (language/ast.py) with the real primitive
names at random arities, random keyword arguments, lambdas, defines, stores and the
concurrency forms; each is compiled and run in a fresh compiler state.  Whatever
happens, the only exception allowed out is a :class:`PhylanxError` (never a bare
``TypeError``/``IndexError``/``RuntimeError`` or a control-flow signal), and every
run finishes within a watchdog timeout.  Literal integers are small so no example
allocates much; loops whose condition is random (``while``, ``for``) and primitives
that touch files or global switches are left out.
"""
from __future__ import annotations

import contextlib
import io
import threading
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phylanx import execution_tree as et
from phylanx.errors import PhylanxError
from phylanx.language import ast
from phylanx.primitives import registry
from phylanx.runtime.futures import Future

WATCHDOG_SECONDS = 20.0

# unbounded loops on random conditions, files, process-wide switches, slow solvers
_EXCLUDED_CATEGORIES = {"fileio", "algorithms", "solvers"}
_EXCLUDED = {"while", "for", "enable_tracing", "set_seed", "__arg", "cout", "debug",
             "__print", "timer", "__inplace"}
NAMES = sorted(s.name for s in registry.all_specs()
               if s.category not in _EXCLUDED_CATEGORIES and s.name not in _EXCLUDED)
VARS = ["x", "y", "f", "g"]
# the compiler raises the recursion limit once; do it before hypothesis records it
et.compiler_state("fuzz-setup")
KEYWORDS = sorted({k for s in registry.all_specs() for k in s.signature.keywords}
                  | {"x", "y", "zz"})


def literals():
    return st.one_of(
        st.integers(-3, 6),
        st.sampled_from([0.0, -1.5, 2.5, float("nan"), float("inf")]),
        st.booleans(),
        st.none(),
        st.sampled_from(["", "a", "ab", "{}"]),
    ).map(ast.Literal)


def arrays():
    ints = st.lists(st.integers(-2, 3), min_size=0, max_size=4)
    one = ints.map(lambda v: ast.ArrayLiteral(tuple(v), "int", 1))
    two = st.lists(st.lists(st.floats(-2, 2, allow_nan=False, width=32), min_size=2,
                            max_size=2), min_size=1, max_size=3).map(
        lambda rows: ast.ArrayLiteral(tuple(tuple(r) for r in rows), "float", 2))
    return st.one_of(one, two)


def leaves():
    return st.one_of(literals(), arrays(), st.sampled_from(VARS).map(ast.Identifier),
                     st.sampled_from(NAMES).map(ast.Identifier))


def _arity(name: str) -> tuple[int, int]:
    sig = registry.lookup(name).signature
    hi = sig.max_args
    return sig.min_args, min(4, sig.min_args + 2 if hi is None else hi)


def extend(children):
    args = st.lists(children, max_size=4).map(tuple)

    def well_formed(name):  # a legal arity and known keywords, so evaluation is reached
        lo, hi = _arity(name)
        keywords = sorted(registry.lookup(name).signature.keywords)
        positional = st.lists(children, min_size=min(lo, 4), max_size=max(hi, min(lo, 4)))
        if not keywords:
            return positional.map(lambda a: ast.Call(name, tuple(a)))
        keyword = st.builds(ast.KeywordArg, st.sampled_from(keywords), children)
        return st.builds(lambda a, k: ast.Call(name, tuple(a) + tuple(k)),
                         positional, st.lists(keyword, max_size=1))

    legal_call = st.sampled_from(NAMES).flatmap(well_formed)
    any_call = st.builds(lambda name, a, k: ast.Call(name, a + tuple(k)),
                         st.sampled_from(NAMES), args,
                         st.lists(st.builds(ast.KeywordArg, st.sampled_from(KEYWORDS), children),
                                  max_size=1))
    params = st.lists(st.sampled_from(VARS).map(ast.Identifier), max_size=2, unique=True)
    lam = st.builds(lambda ps, body: ast.Call("lambda", tuple(ps) + (body,)), params, children)
    define = st.builds(lambda v, ps, body: ast.Call("define", (ast.Identifier(v), *ps, body)),
                       st.sampled_from(VARS), params, children)
    store = st.builds(lambda v, e: ast.Call("store", (ast.Identifier(v), e)),
                      st.sampled_from(VARS), children)
    user_call = st.builds(lambda v, a: ast.Call(v, a), st.sampled_from(VARS), args)
    binop = st.builds(ast.BinOp, st.sampled_from(sorted(ast.BINARY_OPS)), children, children)
    unop = st.builds(ast.UnaryOp, st.sampled_from(["-", "!"]), children)
    quoted = st.lists(children, max_size=3).map(lambda items: ast.QuotedList(tuple(items)))
    # legal calls dominate: one bad arity anywhere makes the whole tree a compile error
    return st.one_of(legal_call, legal_call, legal_call, legal_call, binop, lam, user_call,
                     define, store, unop, quoted, any_call)


expressions = st.recursive(leaves(), extend, max_leaves=12)


def _prelude(x, y, f_body, g_body):
    """Bind the variable names first so most trees pass name resolution."""
    name = ast.Identifier
    return (ast.Call("define", (name("x"), x)),
            ast.Call("define", (name("y"), y)),
            ast.Call("define", (name("g"), ast.Literal(None))),
            ast.Call("define", (name("f"), name("x"), f_body)),
            ast.Call("store", (name("g"), ast.Call("lambda", (name("x"), name("y"), g_body)))))


values = st.one_of(literals(), arrays())
programs = st.builds(
    lambda pre, body: ast.Program(pre + tuple(body)),
    st.builds(_prelude, values, values, expressions, expressions),
    st.lists(expressions, min_size=1, max_size=3))


def run_program(program: ast.Program) -> None:
    state = et.compiler_state("fuzz", "<fuzz>")
    value = state.run(state.compile_text(program))
    if isinstance(value, Future):
        value.result()


def check(program: ast.Program) -> None:
    outcome: list[BaseException | None] = []

    def target():
        try:
            run_program(program)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - inspected below
            outcome.append(exc)

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
            np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        worker = threading.Thread(target=target, daemon=True)
        worker.start()
        worker.join(WATCHDOG_SECONDS)
    assert not worker.is_alive(), f"hang: {program}"
    error = outcome[0]
    if error is not None and not isinstance(error, PhylanxError):
        raise AssertionError(f"{type(error).__name__} escaped: {error!r}\n{program}") from error
    if isinstance(error, PhylanxError):
        # located, and not the last-resort wrapper of compiler_state.run
        assert error.loc is not None, f"unlocated: {error!r}\n{program}"
        assert not error.message.startswith("internal error"), f"{error}\n{program}"
        str(error)  # formatting never fails


# 100 programs on the pool and 100 under sync_execution (a few seconds)
@pytest.mark.parametrize("sync", [False, True])
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(program=programs)
def test_random_programs_raise_only_phylanx_errors(sync, program):
    from phylanx import config
    config.set("sync_execution", sync)
    try:
        check(program)
    finally:
        config.reset("sync_execution")
