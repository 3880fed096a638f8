"""``phylanx.ops``: PhySL primitives by name, inside ``@Phylanx`` and from plain Python."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx, ops
from phylanx.errors import PhylanxError
from phylanx.ops import fmap, relu


def test_an_imported_primitive_is_called_inside_a_decorated_function():
    @Phylanx
    def f(x):
        return relu(x) * 2.0

    x = np.array([-1.0, 0.5, 3.0])
    np.testing.assert_allclose(f(x), np.maximum(x, 0.0) * 2.0)


def test_module_attribute_form_and_function_values():
    @Phylanx
    def f(xs):
        return ops.fold_left(lambda c, v: c + v, 0, fmap(lambda v: v * v, xs))

    assert f([1, 2, 3]) == 14


def test_keywords_pass_through_by_the_primitive_s_names():
    @Phylanx
    def f(x):
        return ops.sum(x, axis=0)

    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(f(x), x.sum(axis=0))


def test_called_from_python_the_primitive_runs_once():
    x = np.array([-2.0, 4.0])
    np.testing.assert_allclose(relu(x), [0.0, 4.0])
    np.testing.assert_allclose(ops.sum(np.ones((2, 3)), axis=1), [3.0, 3.0])
    assert ops.fmap(lambda v: v + 1, [1, 2]) == [2, 3]


def test_unknown_names_and_control_forms_are_clear_errors():
    with pytest.raises(AttributeError, match="no primitive 'nosuch'"):
        ops.nosuch  # noqa: B018
    with pytest.raises(PhylanxError, match="control or special form"):
        ops.define(1, 2)

    @Phylanx
    def f(x):
        return ops.reluu(x)

    with pytest.raises(PhylanxError, match="phylanx.ops has no primitive 'reluu'") as info:
        f(np.ones(2))
    assert info.value.loc is not None and info.value.loc.line > 0
