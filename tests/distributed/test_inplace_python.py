"""An in-place operator on a tiled array in plain Python (``x += 1`` outside
``@Phylanx``, ``np.multiply(x, 2, out=x)``) is a store into the whole array, as NumPy's
is: before, NumPy's ``out=`` came back to ``__array_ufunc__`` until RecursionError.
NumPy on the whole array is the oracle, for the values and for the casting error; a
gathered copy standing for a view (``y = x[2]``) sees the new values, as NumPy's view
does (``view_copies.py``).  One process: the tile is the whole array, and the path
is the one every rank takes (``programs/view_refresh.py`` stores from Python on 1-4
ranks)."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import distributed as dist
from phylanx.errors import PhylanxError

X = np.arange(12.0).reshape(4, 3)


def tiled(a=X, name="inplace_py"):
    return dist.tiled(a.copy(), "row", name=name)


@pytest.mark.parametrize("change", [
    lambda a: a.__iadd__(1.5),
    lambda a: a.__imul__(np.arange(3.0)),
    lambda a: a.__isub__(a),
    lambda a: np.multiply(a, 2.0, out=a),
    lambda a: np.negative(a, out=(a,)),
])
def test_an_inplace_operator_in_python_changes_the_whole_array(change):
    x, expected = tiled(), X.copy()
    view, expected_view = x[2], expected[2]
    got = change(x)
    change(expected)
    assert got is x
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(view, expected_view)


def test_an_inplace_operator_that_numpy_cannot_cast_is_numpys_error():
    whole = np.arange(6).reshape(3, 2)
    x = tiled(whole, "inplace_int")
    with pytest.raises(TypeError):          # NumPy's UFuncTypeError (same_kind)
        whole.copy().__iadd__(0.5)
    with pytest.raises(TypeError):
        x += 0.5
    np.testing.assert_array_equal(np.asarray(x), whole)


def test_out_with_where_into_a_tiled_array_is_an_error_not_a_recursion():
    x = tiled()
    with pytest.raises(PhylanxError, match="where"):
        np.add(x, 1.0, out=x, where=np.ones(3, bool))
    np.testing.assert_array_equal(np.asarray(x), X)
