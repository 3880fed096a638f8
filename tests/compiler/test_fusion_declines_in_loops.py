"""A node fusion took, inside a translated loop, when fusion declines the evaluation.

A row pass (``xb.T @ (xb @ w - t)``) of a matrix below its size threshold runs the
expression as written, untimed and uncounted (``rowpass.RowPolicy.cold``); a retired
region always does.  Inside a translated loop that evaluation ran the *tree* of the
expression (closures, operand tests, generic subscripts) in the middle of generated
code.  Now the generated code asks the fused node first (``declines(frame)``) and runs
its own translation of the expression then, which computes what the tree computes (the
array loops' law: bit for bit); a matrix the row pass takes still goes to it.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx, config, fusion
from phylanx.compiler import scalar_loops

pytestmark = pytest.mark.skipif(not fusion.backend_available(),
                                reason="numba is not installed: fusion takes nothing")


def minibatches(x, t, epochs, batch, rate):
    w = np.zeros(x.shape[1])
    for _ in range(epochs):
        for start in range(0, x.shape[0], batch):
            xb = x[start:start + batch]
            err = xb @ w - t[start:start + batch]
            w = w - rate * (xb.T @ err) / xb.shape[0]
    return w


def minibatches_by_dot(x, t, epochs, batch, rate):
    w = np.zeros(x.shape[1])
    n = x.shape[0]
    for _ in range(epochs):
        start = 0
        while start < n:
            xb = x[start:start + batch]
            grad = np.dot(xb.T, np.dot(xb, w) - t[start:start + batch])
            w = w - rate * grad / xb.shape[0]
            start += batch
    return w


def decorated(fn, **settings):
    for name, value in settings.items():
        config.set(name, value)
    try:
        dec = Phylanx(fn)
        dec._ensure_compiled()
    finally:
        for name in settings:
            config.reset(name)
    return dec


def counted_originals(dec, monkeypatch) -> list:
    """The row passes fusion took in ``dec``, each counting the evaluations it runs as
    the tree (its ``original``)."""
    taken = fusion.regions_of(dec._function.body)
    assert taken, "fusion took no node"
    calls = []
    for region in taken:
        real = region.original

        def counting(frame, real=real):
            calls.append(1)
            return real(frame)
        monkeypatch.setattr(region, "original", counting)
    return calls


@pytest.mark.parametrize("fn", [minibatches, minibatches_by_dot], ids=lambda f: f.__name__)
def test_a_declined_row_pass_runs_the_translation(fn, monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 4))
    t = x @ rng.normal(size=4)
    dec = decorated(fn)
    loop_nodes = [n for n in dec._function.body.walk() if n.primitive in ("for_each", "while")]
    assert all(scalar_loops.translated(n) for n in loop_nodes)
    calls = counted_originals(dec, monkeypatch)
    got = dec(x, t, 3, 16, 0.1)
    assert calls == []          # small: never the tree
    tree = decorated(fn, scalar_loops=False)
    np.testing.assert_array_equal(got, tree(x, t, 3, 16, 0.1))
    np.testing.assert_allclose(got, fn(x, t, 3, 16, 0.1), rtol=1e-12)


def test_a_matrix_the_row_pass_takes_still_goes_to_it(monkeypatch):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(1 << 12, 20))     # 81,920 elements: above the row pass' size
    t = x @ rng.normal(size=20)
    dec = decorated(minibatches)
    calls = counted_originals(dec, monkeypatch)
    got = dec(x, t, 1, x.shape[0], 0.1)   # one batch: the whole matrix
    assert calls                            # the row pass ran it (cold: timed as written)
    np.testing.assert_allclose(got, minibatches(x, t, 1, x.shape[0], 0.1), rtol=1e-10)
