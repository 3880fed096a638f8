"""``pipeline=ir`` (the default) keeps meaning: programs compiled through the IR (AST ->
IR -> AST) give what the former pipeline (``ast``), NumPy or the undecorated Python
function gives."""
from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import Phylanx, config
from phylanx.compiler import through_ir
from phylanx.errors import PhylanxError
from phylanx.language import ast

from .programs import draw_control_program, draw_program, run_physl

#: (name, PhySL defining it, arguments): loops, stores, element writes, closures,
#: recursion, keyword arguments, lists, early return, parallel blocks
PROGRAMS = [
    ("fact", "define(fact, n, if(n <= 1, 1, n * fact(n - 1)))", (10,)),
    ("fib", "define(fib, n, block(define(a, 0), define(b, 1), define(i, 0), "
            "while(i < n, block(define(t, a + b), store(a, b), store(b, t), "
            "store(i, i + 1))), a))", (30,)),
    ("acc", "define(acc, x, block(define(s, 0.0), for_each(lambda(i, store(s, s + "
            "sum(__subscript(x, i)))), range(shape(x, 0))), s))", (np.arange(12.0).reshape(4, 3),)),
    ("writes", "define(writes, n, block(define(v, constant(0.0, list(n))), "
               "for_each(lambda(i, store(slice(v, i), i * i)), range(n)), v))", (5,)),
    ("late", "define(late, k, block(define(g, lambda(v, v + k)), store(k, 10), g(1)))", (1,)),
    ("kw", "define(kw, x, sum(x, __arg(axis, 1), __arg(keepdims, true)))",
     (np.arange(6.0).reshape(2, 3),)),
    ("lists", "define(lists, n, fmap(lambda(v, v * 2), '(1, 2, n)))", (3,)),
    ("early", "define(early, n, block(define(i, 0), while(true, block(if(i >= n, "
              "return(i * 10)), store(i, i + 1)))))", (4,)),
    ("branches", "define(branches, x, c, block(if(c, define(t, transpose(x)), store(t, x)), "
                 "dot(t, transpose(t))))", (np.arange(6.0).reshape(2, 3), True)),
    ("par", "define(par, a, block(define(r, 0), define(q, 0), parallel_block(store(r, a + 1), "
            "store(q, a * 2)), r + q))", (5,)),
    ("nested", "define(nested, n, block(define(h, m, m * m), define(s, 0), "
               "for_each(lambda(i, if(i % 2 == 0, store(s, s + h(i)), store(s, s - 1))), "
               "range(n)), s))", (7,)),
    ("lra", "define(lra, x, y, alpha, iterations, block(define(weights, constant(0.0, "
            "shape(x, 1))), define(transx, transpose(x)), define(step, 0), while(step < "
            "iterations, block(define(pred, 1.0 / (1.0 + exp(-dot(x, weights)))), "
            "define(error, pred - y), define(gradient, dot(transx, error)), store(weights, "
            "weights - (alpha * gradient)), store(step, step + 1))), weights))",
     (np.linspace(-1, 1, 30).reshape(10, 3), np.linspace(0, 1, 10) > 0.5, 0.1, 20)),
]


def same(a, b) -> bool:
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.asarray(a).dtype == np.asarray(b).dtype and np.array_equal(a, b)
    return type(a) is type(b) and (a == b or (a != a and b != b))


@pytest.mark.parametrize("name,text,args", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_physl_programs_mean_the_same_through_the_ir(name, text, args):
    tree = run_physl(text, name, *args)
    ir = run_physl(text, name, *args, pipeline="ir")
    assert same(tree, ir), (tree, ir)


def test_the_default_pipeline_goes_through_the_ir(monkeypatch):
    calls = []
    original = through_ir.through_ir

    def spy(program, *on_ir):         # the definitions taken through the IR
        calls.extend(e.args[0].name for e in program.body
                     if type(e) is ast.Call and e.func == "define")
        return original(program, *on_ir)
    monkeypatch.setattr(through_ir, "through_ir", spy)
    assert config.SETTINGS["pipeline"].default == "ir"
    assert run_physl(PROGRAMS[0][1], "fact", 5, pipeline="ir") == math.factorial(5)
    assert calls == ["fact"]
    for former in ("ast", "tree"):        # the pipeline before the IR, by either name
        assert run_physl(PROGRAMS[0][1], "fact", 5, pipeline=former) == math.factorial(5)
    assert calls == ["fact"]


def test_the_switch_reads_its_names_and_refuses_others():
    parse = config.SETTINGS["pipeline"].parse
    assert [parse(w) for w in ("ir", " IR", "ast", "tree")] == ["ir", "ir", "ast", "ast"]
    with pytest.raises(ValueError, match="'ir' or 'ast'"):
        parse("graph")


def _kmeans_step(points, centres):
    d = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(-1)
    labels = np.argmin(d, axis=1)
    out = np.zeros_like(centres)
    for k in range(centres.shape[0]):
        out[k] = points[labels == k].mean(axis=0)
    return out


def _cg(a, b, maxit):
    x = np.zeros_like(b)
    r = b - a @ x
    p = r.copy()
    rr = r @ r
    i = 0
    while i < maxit and rr > 1e-20:
        ap = a @ p
        alpha = rr / (p @ ap)
        x += alpha * p
        r -= alpha * ap
        new = r @ r
        p = r + (new / rr) * p
        rr = new
        i += 1
    return x


def _power(m, n):
    v = np.ones(m.shape[0])
    for _ in range(n):
        v = m @ v
        v = v / np.linalg.norm(v)
    return v


def _edit_distance(a, b):
    d = np.zeros((len(a) + 1, len(b) + 1))
    for i in range(len(a) + 1):
        d[i, 0] = i
    for j in range(len(b) + 1):
        d[0, j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[len(a), len(b)]


def _closures(n):
    fs = []
    for i in range(n):
        fs.append(lambda v, i=i: v * i)
    total = 0
    for f in fs:
        total += f(2)
    return total


def _float32_sigmoid(x, w):
    return (1.0 / (1.0 + np.exp(-(x @ w)))).astype(np.float32)


rng = np.random.default_rng(3)
_SPD = rng.normal(size=(6, 6))
_SPD = _SPD @ _SPD.T + 6 * np.eye(6)
PYTHON = [
    (_kmeans_step, (rng.normal(size=(20, 2)), np.array([[0.0, 0.0], [1.0, 1.0]]))),
    (_cg, (_SPD, np.arange(6.0), 50)),
    (_power, (_SPD, 10)),
    (_edit_distance, ([1, 2, 3, 4], [1, 3, 4, 5, 6])),
    (_closures, (5,)),
    (_float32_sigmoid, (rng.normal(size=(8, 3)).astype(np.float32),
                        rng.normal(size=3).astype(np.float32))),
]


@pytest.mark.parametrize("fn,args", PYTHON, ids=[f.__name__ for f, _ in PYTHON])
def test_python_programs_through_the_ir_match_python(fn, args):
    expected = fn(*args)
    config.set("pipeline", "ir")
    try:
        f = Phylanx(fn)
        got = f(*args)
    finally:
        config.reset("pipeline")
    np.testing.assert_allclose(got, expected, rtol=1e-9 if np.asarray(got).dtype == np.float64
                               else 1e-5)
    assert np.asarray(got).dtype == np.asarray(expected).dtype


@given(st.data())
@settings(max_examples=30, deadline=None)
def test_random_programs_agree_both_ways(data):
    text, args, oracle = draw_program(data)
    tree = run_physl(text, "g", *args)
    ir = run_physl(text, "g", *args, pipeline="ir")
    assert same(tree, ir)


def test_errors_keep_their_location_through_the_ir():
    text = "define(bad, x, block(define(y, x + 1), dot(y, __subscript(x, 7))))"
    errors = []
    for pipeline in ("ast", "ir"):
        with pytest.raises(PhylanxError) as info:
            run_physl(text, "bad", np.ones(3), pipeline=pipeline)
        errors.append((type(info.value), info.value.loc.line, info.value.loc.col))
    assert errors[0] == errors[1]


@given(st.data(), st.integers(-5, 5), st.integers(-5, 5))
@settings(max_examples=40, deadline=None)
def test_random_control_flow_agrees_both_ways(data, a, b):
    text = draw_control_program(data)
    tree = run_physl(text, "h", a, b)
    ir = run_physl(text, "h", a, b, pipeline="ir")
    assert same(tree, ir), text


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from general_programs import PROGRAMS as GENERAL  # noqa: E402


@pytest.mark.parametrize("program", GENERAL, ids=[p.name for p in GENERAL])
def test_the_general_programs_through_the_ir_match_numpy(program):
    """The NumPy programs written for issue 27 (benchmarks/general_programs.py)."""
    data = program.data(True)
    fresh = lambda: tuple(np.copy(a) if i in program.copies else a  # noqa: E731
                          for i, a in enumerate(data))
    expected = program.fn(*fresh())
    config.set("pipeline", "ir")
    try:
        got = Phylanx(program.fn)(*fresh())
    finally:
        config.reset("pipeline")
    for g, e in zip(*((got, expected) if isinstance(expected, tuple) else ((got,), (expected,)))):
        scale = max(float(np.max(np.abs(e))), 1e-300) if np.size(e) else 1.0
        assert np.max(np.abs(np.asarray(g, dtype=float) - np.asarray(e, dtype=float)),
                      initial=0.0) <= program.tol * scale


#: a sub-suite of programs, Python statements and the compiler's fuzz test, run again
#: under the pipeline this run does not use (``ast`` while ``ir`` is the default), so
#: that neither pipeline rots while both are kept (docs/ir.md, "The switch")
OTHER_PIPELINE_SUITE = ("tests/compiler/test_programs.py", "tests/compiler/test_control_flow.py",
                        "tests/frontend/test_statements.py",
                        "tests/compiler/test_fuzz_compile.py")


@pytest.mark.slow
def test_a_sub_suite_passes_under_the_other_pipeline():
    root = Path(__file__).resolve().parents[2]
    other = "ast" if config.get("pipeline") == "ir" else "ir"
    env = dict(os.environ, PHYLANX_PIPELINE=other,
               PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "pytest", *OTHER_PIPELINE_SUITE, "-q", "-x",
                           "-p", "no:cacheprovider", "-o", "addopts="],
                          cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout
