"""One reverse-mode engine: ``grad``'s tape and ``phylanx.nn``'s symbolic backward pass
take every derivative from the VJP table, with one unbroadcast.

* registry: ``dot`` and ``all_reduce`` have rules in the table, written as equations
  (so nn emits one statement per operand's cotangent);
* AST scans: ``phylanx/nn`` holds no per-primitive derivative code, the symbolic engine
  names no primitive, and the cotangent unbroadcast is defined once;
* products in every rank combination and spelling, through ``grad`` and through the
  symbolic engine, equal JAX's gradients (guards: these held before the move too).
"""
from __future__ import annotations

import ast
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import phylanx
from phylanx.autodiff import VJP, grad
from phylanx.autodiff.symbolic import Graph, gradients
from phylanx.nn.model_parallel import _compile

jax.config.update("jax_enable_x64", True)

ROOT = Path(phylanx.__file__).resolve().parent


def test_the_table_has_the_product_and_collective_rules_as_equations():
    for name in ("dot", "all_reduce"):
        rule = VJP.get(name)
        assert rule is not None, f"no VJP rule for {name}"
        assert callable(getattr(rule, "equations", None)), f"{name}'s rule has no equations"


def _compares_primitive_to_a_name(tree: ast.AST) -> list[int]:
    """Lines comparing ``<x>.primitive`` (or ``primitive``) with a string literal."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        names_primitive = any(isinstance(s, ast.Attribute) and s.attr == "primitive" or
                              isinstance(s, ast.Name) and s.id == "primitive" for s in sides)
        literal = any(isinstance(s, ast.Constant) and isinstance(s.value, str) for s in sides)
        if names_primitive and literal:
            lines.append(node.lineno)
    return lines


def test_nn_holds_no_per_primitive_derivative_code():
    """nn builds forward programs only: no module of it differentiates (defines a
    backward walk, emits ``vjp`` or a cotangent's collective).  (Looking at a
    statement's primitive to build the forward pass, as a softmax followed by a
    cross-entropy does, is not differentiating.)"""
    found = []
    for path in sorted((ROOT / "nn").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in ("gradients", "_backward"):
                found.append(f"{path.name}:{node.lineno} defines {node.name}")
            if isinstance(node, ast.Constant) and node.value in ("vjp", "vjp_of", "/ct"):
                found.append(f"{path.name}:{node.lineno} emits {node.value}")
    assert not found, found


def test_the_symbolic_engine_names_no_primitive():
    """The symbolic reverse pass is generic: each derivative comes from the table."""
    path = ROOT / "autodiff" / "symbolic.py"
    assert path.exists(), "no symbolic reverse pass in phylanx.autodiff"
    assert _compares_primitive_to_a_name(ast.parse(path.read_text())) == []


def test_one_unbroadcast():
    """Summing a cotangent over an operand's broadcast axes is written once
    (``primitives.rules.unbroadcast``), and both engines call it."""
    definitions, others = [], []
    for path in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            if fn.name == "unbroadcast":
                definitions.append(path.relative_to(ROOT).as_posix())
                continue
            text = ast.unparse(fn)
            if "keepdims=True" in text and "== 1" in text and "broadcast_to" in text:
                others.append(f"{path.relative_to(ROOT)}:{fn.name}")
    assert definitions == ["primitives/rules.py"], definitions
    assert not others, others
    for module in ("autodiff/tape.py", "primitives/keras_support/gradients.py"):
        assert "unbroadcast(" in (ROOT / module).read_text(), module


# -- products in every rank combination (guards: the oracle is JAX) -------------------
SHAPES = [((), (3,)), ((3,), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
          ((2, 3), (3, 4)), ((2, 2, 3), (3,)), ((3,), (2, 3, 4)), ((2, 2, 3), (3, 4)),
          ((2, 3), (2, 3, 4)), ((2, 2, 3), (2, 3, 4))]


def _operands(sa, sb, seed=0):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    w = rng.standard_normal(np.shape(np.dot(a, b)))
    return a, b, w


@phylanx.Phylanx
def _dot_loss(a, b, w):
    return np.sum(np.dot(a, b) * w)


@phylanx.Phylanx
def _matmul_loss(a, b, w):
    return np.sum((a @ b) * w)


@pytest.mark.parametrize("sa,sb", SHAPES, ids=[f"{a}x{b}" for a, b in SHAPES])
def test_grad_of_dot_in_every_rank_combination_equals_jax(sa, sb):
    a, b, w = _operands(sa, sb)
    want = jax.grad(lambda a, b: jnp.sum(jnp.dot(a, b) * w), argnums=(0, 1))(a, b)
    got = grad(_dot_loss, argnums=(0, 1))(a, b, w)
    for g, j in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(j), rtol=1e-12, atol=1e-12)


MATMUL_SHAPES = [s for s in SHAPES if () not in s] + [((2, 2, 3), (1, 3, 4))]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=[f"{a}x{b}" for a, b in MATMUL_SHAPES])
def test_grad_of_matmul_in_every_rank_combination_equals_jax(sa, sb):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    w = rng.standard_normal(np.shape(np.matmul(a, b)))
    want = jax.grad(lambda a, b: jnp.sum(jnp.matmul(a, b) * w), argnums=(0, 1))(a, b)
    got = grad(_matmul_loss, argnums=(0, 1))(a, b, w)
    for g, j in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(j), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sa,sb", SHAPES, ids=[f"{a}x{b}" for a, b in SHAPES])
def test_the_symbolic_backward_of_dot_equals_jax(sa, sb):
    """The statements the equations of ``dot``'s rule emit, compiled and run."""
    a, b, w = _operands(sa, sb, seed=2)
    g = Graph(prefix="d")
    va, vb = g.input("a", sa, active=True), g.input("b", sb, active=True)
    vw = g.input("w", np.shape(w))
    out = g.op("dot", va, vb, shape=np.shape(np.dot(a, b)))
    loss = g.op("sum", g.op("__mul", out, vw, shape=np.shape(w)), shape=())
    grads = gradients(g, loss, [va, vb])
    assert not any(s.primitive in ("vjp", "vjp_of") and "dot" in s.operands
                   for s in g.stmts), g.physl()
    got = _compile(f"dot_grad_{len(sa)}_{len(sb)}_{len(g.stmts)}", g, [va, vb, vw],
                   grads)(a, b, w)
    want = jax.grad(lambda a, b: jnp.sum(jnp.dot(a, b) * w), argnums=(0, 1))(a, b)
    for x, j in zip(got, want):
        np.testing.assert_allclose(np.asarray(x), np.asarray(j), rtol=1e-12, atol=1e-12)


def test_a_layers_two_products_are_separate_statements_weight_first():
    g = Graph(prefix="p")
    x, w = g.input("x", (None, 3), active=True), g.input("w", (3, 2), active=True)
    loss = g.op("sum", g.op("dot", x, w, shape=(None, 2)), shape=())
    dx, dw = gradients(g, loss, [x, w])
    order = [s.out for s in g.stmts]
    producers = {s.out: s for s in g.stmts}
    assert producers[dx].primitive == producers[dw].primitive == "dot"
    assert order.index(dw) < order.index(dx)
    # neither product reads the other
    assert dw not in producers[dx].operands and dx not in producers[dw].operands
