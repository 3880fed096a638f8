"""The gram row pass as a rule of the IR (compiler/rewrite/gram_rows.py).

``x.T @ f(x @ w, ...)`` with ``f`` element-wise becomes ``__rows_gram`` on the IR (with
``blocking_gram``), whatever the product's spelling (``@``, ``np.dot``, ``.dot``,
``np.matmul``), the transpose's (``x.T``, ``np.transpose(x)``), the data's dtype, a
helper ``def``, the loop around it (``for`` or ``while``) and the names given to the
parts of ``f`` (``pred = sigmoid(x @ w)`` then ``x.T @ (pred - y)``, or a chain of
them).  Without ``blocking_gram`` (a fused row pass computes it) the product stays, its
named parts raised into one expression.  Random element-wise expressions, evaluated by
tiles of 7 rows, agree with the program with the rule off and with NumPy; the rule fires
exactly where the generator says the law holds (not across a change of ``x`` in place
nor a rebinding of a name the moved expression reads).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx.compiler.rewrite import gram_rows
from phylanx.compiler.through_ir import optimize_through_ir
from phylanx.language import parser, to_physl

from .test_rewrite_engine import compiled, configured, sample_program
from .test_row_blocks_on_ir import on_ir

RULE = "row_pass_of_a_gram_product"
SAMPLE = gram_rows.PHASE.rules[0].sample
TILES = (("blocking_gram", True), ("tile_rows", 7))


def close(got, want, dtype, what):
    rtol = 1e-5 if dtype == np.float32 else 1e-10
    scale = float(np.abs(want).max())
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=what)


def agree(source: str, args, dtype=np.float64):
    """``sample`` with the rule on and off and NumPy give the same gram (to rounding:
    the tiles' sum is in another order)."""
    with configured(TILES):
        on, python = compiled(source)
        got = on(*[np.copy(a) for a in args])
    want = python(*[np.copy(a) for a in args])
    with configured(TILES, disabled=RULE):
        off, _ = compiled(source)
        without = off(*[np.copy(a) for a in args])
    close(got, without, dtype, source)
    close(got, want, dtype, source)
    return on


def fired(on) -> int:
    with configured((("blocking_gram", True),)):
        return on_ir(on.get_physl_source())[0][RULE]


def data(rng, n=30, d=3, dtype=np.float64):
    x = rng.normal(size=(n, d)).astype(dtype)
    return x, (rng.uniform(size=n) > 0.5).astype(dtype), (rng.normal(size=d) * 0.3).astype(dtype)


@pytest.mark.parametrize("spelling", SAMPLE.spellings)
def test_every_spelling_of_the_sample_is_a_row_pass_on_the_ir(spelling):
    source, dtype = sample_program(SAMPLE, spelling)
    on = agree(source, data(np.random.default_rng(5), dtype=dtype), dtype)
    # (the helper's own body is a function of the program too: it fires there as well)
    assert fired(on) == (2 if spelling == "helper" else 1)


_SIGMOID = "1.0 / (1.0 + np.exp(-(x @ w)))"

PHRASINGS = {
    "inline": f"def sample(x, y, w):\n    return x.T @ ({_SIGMOID} - y)\n",
    "np.transpose": f"def sample(x, y, w):\n    return np.transpose(x) @ ({_SIGMOID} - y)\n",
    "named prediction": f"def sample(x, y, w):\n    pred = {_SIGMOID}\n"
                        "    return x.T @ (pred - y)\n",
    "named product": "def sample(x, y, w):\n    z = np.dot(x, w)\n"
                     "    return np.dot(x.T, np.tanh(z) - y)\n",
    "a chain of names": f"def sample(x, y, w):\n    pred = {_SIGMOID}\n    err = pred - y\n"
                        "    n = x.shape[0]\n    return x.T.dot(err) / n\n",
    "for": "def sample(x, y, w):\n    for _ in range(3):\n"
           f"        pred = {_SIGMOID}\n        w = w - 0.1 * (x.T @ (pred - y))\n"
           "    return w\n",
    "while": "def sample(x, y, w):\n    i = 0\n    while i < 3:\n"
             f"        pred = {_SIGMOID}\n        w -= 0.1 * np.matmul(x.T, pred - y)\n"
             "        i += 1\n    return w\n",
    "helper": "def sample(x, y, w):\n    def sigmoid(z):\n        return 1.0 / (1.0 + np.exp(-z))\n"
              "    pred = sigmoid(x @ w)\n    return x.T @ (pred - y)\n",
}


@pytest.mark.parametrize("phrasing", list(PHRASINGS))
def test_every_phrasing_is_a_row_pass_on_the_ir(phrasing):
    # (float32 data: the sample's spelling above)
    on = agree(PHRASINGS[phrasing], data(np.random.default_rng(6)))
    assert fired(on) == 1


_BOUND = ("def sample(x, y, w):\n    xt = x.T\n{before}    i = 0\n    while i < 3:\n"
          "{inside}        pred = " + _SIGMOID + "\n"
          "        w = w - 0.1 * (xt @ (pred - y))\n        i += 1\n    return w\n")


@pytest.mark.parametrize("before, inside, fires", [
    ("", "", 1),
    ("", "        if i < 0:\n            print(i, w)\n", 1),       # printing changes nothing
    ("", "        x = x * 1.0\n", 0),          # x rebound: the product reads another x
    ("    z = x\n    z[0, 0] = 5.0\n", "", 0),  # x changed in place through an alias
], ids=["bound", "print", "x rebound", "in place"])
def test_a_transpose_bound_before_the_loop_is_a_row_pass(before, inside, fires):
    """``transx = x.T`` before the loop (examples/lra.py): normalize reads it as
    ``transpose(x)`` at the product (the same value when nothing changes a value in place
    and ``x`` is not rebound; a ``print`` changes nothing), which the gram rule takes."""
    on = agree(_BOUND.format(before=before, inside=inside), data(np.random.default_rng(8)))
    assert fired(on) == fires


@pytest.mark.parametrize("read_after", ["", "    w = w + xt[:, 0]\n"],
                         ids=["unread", "read after the loop"])
def test_a_bound_transpose_is_read_at_the_product_and_kept(monkeypatch, read_after):
    """For the fused row pass (blocking_gram off): the product reads ``transpose(x)``;
    the binding stays, read after the loop or not (its transpose fails where ``x`` is
    no array, test_normalize.test_a_transpose_binding_keeps_its_error)."""
    from phylanx import fusion
    monkeypatch.setattr(fusion, "backend_available", lambda: True)
    source = _BOUND.format(before="", inside="").replace(
        "    return w\n", read_after + "    return w\n")
    on = agree(source, data(np.random.default_rng(9)))
    with configured((("blocking_gram", False), ("fusion_rows", True))):
        text = to_physl(optimize_through_ir(parser.parse(on.get_physl_source())))
    assert "dot(transpose(x), " in text or "matmul(transpose(x), " in text, text
    assert "define(xt, transpose(x))" in text, text


def test_for_a_fused_row_pass_the_named_parts_are_raised_into_the_product(monkeypatch):
    """blocking_gram off, row passes on (numba there): no ``__rows_gram``; the chain of
    names is raised as one expression, which fusion/rowpass.py finds."""
    from phylanx import fusion
    monkeypatch.setattr(fusion, "backend_available", lambda: True)
    on, _ = compiled(PHRASINGS["a chain of names"])
    with configured((("blocking_gram", False), ("fusion_rows", True))):
        text = to_physl(optimize_through_ir(parser.parse(on.get_physl_source())))
    assert "__rows_gram" not in text and "define(pred" not in text \
        and "define(err" not in text
    assert "dot(transpose(x), 1.0 / (1.0 + exp(-matmul(x, w))) - y) / n" in text


# -- random programs ------------------------------------------------------------------------

#: leaves of f: (source, is a product of x); v is (n,), s a number
LEAVES = {"x @ w": True, "np.dot(x, u)": True, "x.dot(w)": True, "v": False, "s": False,
          "2.0": False, "x[:, 0]": False}
UNARY = ("np.tanh({})", "np.exp(-np.abs({}))", "-({})", "np.abs({})")
BINARY = ("({} + {})", "({} - {})", "({} * {})", "np.maximum({}, {})")
#: statements between the named f and the gram: (source, what stops the rule: "always"
#: (a change in place), a name (rebound: it stops the rule when f reads it), or "")
BETWEEN = {"": "", "    k = v * 2.0\n": "",
           "    y = x\n    y[0, 0] = 1.0e3\n": "always",       # x changed in place
           "    w = w * 3.0\n": "w",                            # a name f may read rebound
           "    for i in range(2):\n        v[i] = 5.0\n": "always"}


@st.composite
def expressions(draw, depth=3):
    """(source, has a product of x, the leaves it reads)."""
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        leaf = draw(st.sampled_from(list(LEAVES)))
        return f"({leaf})", LEAVES[leaf], {leaf}
    if draw(st.booleans()):
        src, p, leaves = draw(expressions(depth - 1))
        return draw(st.sampled_from(UNARY)).format(src), p, leaves
    (a, pa, la), (b, pb, lb) = draw(expressions(depth - 1)), draw(expressions(depth - 1))
    return draw(st.sampled_from(BINARY)).format(a, b), pa or pb, la | lb


@settings(max_examples=10, deadline=None)
@given(expressions(), st.booleans(), st.sampled_from(list(BETWEEN)), st.integers(8, 30),
       st.integers(0, 2**31))
def test_random_expressions_agree_with_the_rule_off_and_numpy(expression, named, between,
                                                              n, seed):
    src, product, leaves = expression
    src = f"{src} + 0.0 * v"            # (n,) whatever the leaves
    if named:
        body = f"    f = {src}\n{between}    return x.T @ f\n"
    else:
        body = f"    return x.T @ ({src})\n"
    source = "def sample(x, w, u, v, s):\n" + body
    rng = np.random.default_rng(seed)
    args = (rng.normal(size=(n, 3)), rng.normal(size=3), rng.normal(size=3),
            rng.normal(size=n), 0.5)
    on = agree(source, args)
    stop = BETWEEN[between]
    reads = {name for leaf in leaves for name in ("w", "u", "v", "s") if name in leaf}
    fires = product and (not named or not stop or (stop != "always" and stop not in reads))
    assert fired(on) == int(fires), source


@pytest.mark.parametrize("program", [
    "define(pred, exp(matmul(x, w)))\nmatmul(transpose(x), pred - y)",
    "define(d, sum(c * c, 1) - 2.0 * dot(x, transpose(c)))\nargmin(d, 1)",
], ids=["gram", "argmin"])
def test_a_name_bound_at_the_top_of_a_program_stays_bound(program):
    """A top-level define is a global a later program may read: neither row rule takes
    it into its expression (the argmin's row blocks absorbed ``d`` before)."""
    with configured((("blocking_gram", True),)):
        text = "\n".join(to_physl(e) for e in
                         optimize_through_ir(parser.parse(program)).body)
    assert text.startswith(program.split("\n")[0]), text
