"""The generated backward pass of a summing ``all_reduce`` (synchronised batch statistics,
column-split softmax) all-reduces the cotangent; other reductions have no rule.
Single process here (the collective is the identity); under mpiexec in
``tests/distributed/test_nn_parallel_mpi.py``.  Synchronised batch statistics refuse an
input whose non-batch axes are unknown, with the way out."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import nn
from phylanx.autodiff.symbolic import Graph, gradients
from phylanx.errors import PhylanxValueError
from phylanx.nn.model_parallel import _compile


def test_summing_all_reduce_is_differentiated_by_all_reducing_the_cotangent():
    g = Graph(prefix="t")
    x = g.input("x", (2, 3), active=True)
    total = g.op("all_reduce", x, "sum", "addends", shape=(2, 3))
    loss = g.op("sum", g.op("__mul", total, total, shape=(2, 3)), shape=())
    (grad,) = gradients(g, loss, [x])
    assert any(s.primitive == "all_reduce" and s.operands[2] == "addends/ct"
               for s in g.stmts), g.physl()
    value = np.arange(6.0).reshape(2, 3) - 2.5
    got = _compile("summing_all_reduce_grad", g, [x], grad)(value)
    np.testing.assert_allclose(np.asarray(got), 2.0 * value, rtol=1e-12)


def test_a_max_all_reduce_has_no_gradient_rule_unless_declared_constant():
    """A maximum over ranks depends on its addends: differentiating through it is a
    located error naming the reduction (was: silently no gradient); a value the caller
    declares constant (a softmax's shift, ``constant=True``) carries none."""
    g = Graph(prefix="u")
    x = g.input("x", (3,), active=True)
    top = g.op("all_reduce", x, "max", "top", shape=(3,))
    assert top.active
    loss = g.op("sum", top, shape=())
    with pytest.raises(PhylanxValueError, match="all_reduce with op 'max'"):
        gradients(g, loss, [x])
    g = Graph(prefix="u")
    x = g.input("x", (3,), active=True)
    top = g.op("all_reduce", x, "max", "top", shape=(3,), constant=True)
    assert not top.active
    assert gradients(g, g.op("sum", top, shape=()), [x]) == [None]


def test_synchronised_batchnorm_needs_known_steps_and_says_how_to_do_without():
    model = nn.Sequential([nn.Input((None, 3)), nn.Conv1D(4, 3), nn.BatchNormalization(),
                           nn.GlobalAveragePooling1D(), nn.Dense(2, activation="softmax")])
    model.compile(nn.SGD(0.1), "sparse_categorical_crossentropy")
    x = np.random.default_rng(0).normal(size=(8, 10, 3)).astype(np.float32)
    y = np.arange(8) % 2
    with pytest.raises(PhylanxValueError, match="sync_batchnorm=False"):
        model.fit(x, y, batch_size=4, verbose=0, distributed="data")
    history = model.fit(x, y, batch_size=4, verbose=0, distributed="data",
                        sync_batchnorm=False)
    assert np.isfinite(history.history["loss"][0])
