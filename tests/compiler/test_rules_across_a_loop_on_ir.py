"""Row blocks, gram row passes and label statistics never move a read across a loop
changing it in place, nor across a rebinding of a name it reads.

``row_blocks.py`` makes the argmin read ``x`` and the products' operands where the argmin
stands, ``gram_rows.py`` the gram, ``label_stats.py`` makes ``add_at``/``bincount`` use
what the row pass read of ``x`` and the labels; all require that nothing between changes
those values in place.
A ``for`` loop's equation (``for_each``) holds a body that may store into an array
(through its own name or another), so it is not an equation that changes nothing: the
rules must not fire across it, and the program gives NumPy's answer (with row blocks of
7 rows, the distances computed after the loop's change gave other labels).
Raising reads a variable by its PhySL name, so a value moved past ``c = c * 3.0`` would
read the new ``c``: the rules must not move a read of a name across its rebinding (the
argmin's row blocks did, and gave other labels).
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import config

from .test_gram_rows_on_ir import RULE as GRAM_RULE
from .test_label_stats_on_ir import RULE as STATS_RULE
from .test_rewrite_engine import compiled, configured
from .test_row_blocks_on_ir import RULE as BLOCKS_RULE
from .test_row_blocks_on_ir import data, on_ir


@pytest.fixture
def tiles_of_7():
    config.set("tile_rows", 7)
    yield
    config.reset("tile_rows")


_DISTANCES = "    d = np.sum(c * c, axis=1) - 2.0 * (x @ c.T)\n"
_CHANGES = {                       # (statements before the distances, the loop's store)
    "x": ("", "x[i] = 0.0"),
    "x through another name": ("    y = x\n", "y[i] = 0.0"),
    "the centres": ("", "c[i % 4] = 100.0"),
}


@pytest.mark.parametrize("changed", list(_CHANGES))
def test_argmin_reads_the_distances_computed_before_a_loop_changing_their_operands(
        changed, tiles_of_7):
    before, store = _CHANGES[changed]
    source = ("def sample(x, c):\n" + before + _DISTANCES
              + f"    for i in range(3):\n        {store}\n"
              + "    return np.argmin(d, axis=1)\n")
    x, c = data(np.random.default_rng(3))
    on, python = compiled(source)
    np.testing.assert_array_equal(on(x.copy(), c.copy()), python(x.copy(), c.copy()),
                                  err_msg=source)
    assert on_ir(on.get_physl_source())[0][BLOCKS_RULE] == 0, source


@pytest.mark.parametrize("rebound", ["x", "c"])
def test_argmin_reads_the_distances_computed_before_a_name_they_read_is_rebound(
        rebound, tiles_of_7):
    source = ("def sample(x, c):\n" + _DISTANCES + f"    {rebound} = {rebound} * 3.0 + 1.0\n"
              + f"    return np.argmin(d, axis=1), {rebound}\n")
    x, c = data(np.random.default_rng(3))
    on, python = compiled(source)
    for got, want in zip(on(x.copy(), c.copy()), python(x.copy(), c.copy())):
        np.testing.assert_array_equal(got, want, err_msg=source)
    assert on_ir(on.get_physl_source())[0][BLOCKS_RULE] == 0, source


_PREDICTION = "    pred = np.tanh(x @ w) - y\n"
_GRAM_CHANGES = {                  # (statements before the prediction, after it)
    "x in a loop": ("", "    for i in range(3):\n        x[i] = 0.0\n"),
    "x through another name in a loop": ("    z = x\n",
                                         "    for i in range(3):\n        z[i] = 0.0\n"),
    "w in a loop": ("", "    for i in range(2):\n        w[i] = 9.0\n"),
    "w rebound": ("", "    w = w * 3.0\n"),
    "y rebound": ("", "    y = y + 1.0\n"),
}


@pytest.mark.parametrize("changed", list(_GRAM_CHANGES))
def test_the_gram_reads_the_prediction_computed_before_a_change_of_what_it_reads(
        changed, tiles_of_7):
    before, change = _GRAM_CHANGES[changed]
    source = ("def sample(x, w, y):\n" + before + _PREDICTION + change
              + "    return x.T @ pred, w, y\n")
    rng = np.random.default_rng(5)
    args = (rng.normal(size=(30, 3)), rng.normal(size=3), rng.normal(size=30))
    with configured((("blocking_gram", True),)):
        on, python = compiled(source)
        got = on(*[a.copy() for a in args])
        assert on_ir(on.get_physl_source())[0][GRAM_RULE] == 0, source
    for g, want in zip(got, python(*[a.copy() for a in args])):
        np.testing.assert_allclose(g, want, rtol=1e-12, err_msg=source)


_STATS = {                         # (statements before the labels, between the consumers)
    "x through another name": ("    y = x\n", "y[i] = 100.0"),
    "the labels through another name": ("", "m[i] = 0"),
}


@pytest.mark.parametrize("changed", list(_STATS))
def test_label_statistics_not_gathered_across_a_loop_changing_x_or_the_labels(
        changed, tiles_of_7):
    before, store = _STATS[changed]
    source = ("def sample(x, c):\n    k = c.shape[0]\n" + before
              + "    labels = np.argmin(np.sum(c * c, axis=1) - 2.0 * (x @ c.T), axis=1)\n"
              + "    m = labels\n    counts = np.bincount(labels, minlength=k)\n"
              + f"    for i in range(3):\n        {store}\n"
              + "    sums = np.zeros((k, x.shape[1]))\n    np.add.at(sums, labels, x)\n"
              + "    return counts, sums\n")
    x, c = data(np.random.default_rng(4))
    on, python = compiled(source)
    for got, want in zip(on(x.copy(), c.copy()), python(x.copy(), c.copy())):
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=source)
    assert on_ir(on.get_physl_source())[0][STATS_RULE] == 0, source
