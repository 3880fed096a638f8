"""conv47: applications whose operands are all plain (no future, container or function
value) are recorded by ``Tape.record_plain``; the tape, and so every gradient, must be
the one ``Tape.record`` makes: losses through selections of an operand, integer and
boolean results, Python numbers, float32 and complex intermediates, with and without the
short path, and against JAX."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.autodiff import recording as rec
from phylanx.autodiff import tape as tapes
from phylanx.ops import conv1d

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)      # as the other JAX comparisons here


def conv_relu(w, b, x):
    h = np.maximum(conv1d(x, w, "causal") + b, 0.0)
    return np.sum(np.mean(h, axis=1) ** 2)


def selections(w, b, x):
    y = x @ w
    z = np.where(y > 0, y, b[0])                # a bool operand, a selection
    k = np.argmax(z, axis=1)                    # an int result: not recorded
    return np.sum(z * z) + np.sum(z[np.arange(5), k]) + 2 * b[1]


def complex_middle(w, b, x):
    z = (x @ w) * (1.0 + 0.5j) + b[0]           # complex intermediates (rules_complex)
    return np.sum(np.abs(z) ** 2)


def _jax_loss(name):
    if name == "conv_relu":
        def f(w, b, x):
            h = jax.lax.conv_general_dilated(x, w, (1,), [(2, 0)],
                                             dimension_numbers=("NWC", "WIO", "NWC"))
            return jnp.sum(jnp.mean(jnp.maximum(h + b, 0.0), axis=1) ** 2)
    elif name == "selections":
        def f(w, b, x):
            y = x @ w
            z = jnp.where(y > 0, y, b[0])
            k = jnp.argmax(z, axis=1)
            return jnp.sum(z * z) + jnp.sum(z[jnp.arange(5), k]) + 2 * b[1]
    else:
        def f(w, b, x):
            z = (x @ w) * (1.0 + 0.5j) + b[0]
            return jnp.sum(jnp.abs(z) ** 2)
    return f


def _operands(name, dtype):
    rng = np.random.default_rng(47)
    if name == "conv_relu":
        shapes = [(3, 2, 4), (4,), (2, 9, 2)]
    else:
        shapes = [(3, 4), (4,), (5, 3)]
    return [rng.normal(size=s).astype(dtype) for s in shapes]


@pytest.mark.parametrize("name,dtype", [("conv_relu", np.float32), ("selections", np.float64),
                                        ("complex_middle", np.float32)])
def test_the_short_path_records_the_tape_record_makes(name, dtype, monkeypatch):
    loss = {"conv_relu": conv_relu, "selections": selections,
            "complex_middle": complex_middle}[name]
    w, b, x = _operands(name, dtype)
    tapes_made = []

    class Kept(tapes.Tape):
        def __init__(self):
            super().__init__()
            tapes_made.append(self)

    monkeypatch.setattr(tapes, "Tape", Kept)
    short = phylanx.value_and_grad(loss, (0, 1))(w, b, x)
    monkeypatch.setattr(rec, "PLAIN_OPERANDS", frozenset())
    general = phylanx.value_and_grad(loss, (0, 1))(w, b, x)
    for got, want in zip(short[1], general[1]):
        assert got.dtype == want.dtype == dtype
        assert np.array_equal(got, want)
    assert short[0] == general[0]
    # the same entries, names and producers, in the same order
    one, two = tapes_made[-2:]
    assert [(e.name, [p and p.index for p in e.parents]) for e in one.entries] == \
        [(e.name, [p and p.index for p in e.parents]) for e in two.entries]
    assert any(e.name == tapes.LEAF for e in one.entries)
    want = jax.jit(jax.grad(_jax_loss(name), (0, 1)))(w, b, x)
    tol = 2e-4 if dtype == np.float32 else 1e-10
    for got, expected in zip(short[1], want):
        np.testing.assert_allclose(got, np.asarray(expected), rtol=tol, atol=tol)
