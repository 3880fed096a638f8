"""Errors of ``set_weights`` and of a diverging ``fit`` point at the user's line (user43).

They were the only ``phylanx.nn`` errors of a wrong call that said nothing of where it
was: ``weight dense/kernel has shape (5, 8), got (5, 9)`` with no ``file:line``.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import PhylanxError, nn


def _model():
    nn.set_seed(0)
    model = nn.Sequential([nn.Input((3,)), nn.Dense(2)])
    model.compile(optimizer=nn.SGD(0.1), loss="mse")
    return model


def _located_here(error) -> None:
    assert error.loc is not None and error.loc.file == __file__ and error.loc.line > 0, \
        str(error)


@pytest.mark.parametrize("target", ["model", "layer"])
def test_set_weights_errors_are_located(target):
    model = _model()
    owner = model if target == "model" else model.layers[-1]
    kernel, bias = owner.get_weights()
    for values, match in (([kernel.T, bias], "has shape"), ([kernel], "got 1"),
                          ([kernel * 1j, bias], "real numbers")):
        with pytest.raises(PhylanxError, match=match) as caught:
            owner.set_weights(values)
        _located_here(caught.value)


def test_a_diverging_fit_is_located():
    model = _model()
    x = np.full((4, 3), np.nan, np.float32)
    with pytest.raises(nn.TrainingDivergedError, match="the loss is nan") as caught:
        model.fit(x, np.zeros((4, 2), np.float32), verbose=0)
    _located_here(caught.value)
