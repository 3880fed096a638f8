"""Arguments that are ndarray subclasses or array-likes: their meaning, or a located error.

A masked array passed to a decorated function had its mask dropped (``np.sum`` counted
the masked entries: 103 where NumPy says 3), and an ``np.matrix`` became a plain array
(``m @ v`` of shape (2,) where NumPy gives a (1, 2) matrix): both silently wrong (user43).
Now a subclass whose operations differ from ndarray's is a located ``PhylanxTypeError``
at the caller's line; ``np.memmap`` (plain data) is computed on.  An array-like that is
not an ndarray (a JAX array) is refused at the caller's line too (it was unlocated).
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx
from phylanx.errors import PhylanxTypeError


@Phylanx
def totals(a):
    return np.sum(a), np.mean(a)


@Phylanx
def product(a, b):
    return a @ b


def _raises_here(call, *args, match):
    """``call(*args)`` raises a PhylanxTypeError located at this file's calling line."""
    with pytest.raises(PhylanxTypeError, match=match) as caught:
        call(*args)
    loc = caught.value.loc
    assert loc is not None and loc.file == __file__ and loc.line > 0
    return caught.value


def test_a_masked_array_is_refused_not_summed_with_its_masked_entries():
    masked = np.ma.array([1.0, 2.0, 100.0], mask=[0, 0, 1])
    error = _raises_here(totals, masked, match="MaskedArray")
    assert "mask" in str(error)


def test_a_masked_array_inside_a_list_is_refused_too():
    @Phylanx
    def first_total(items):
        return np.sum(items[0])

    _raises_here(first_total, [np.ma.array([1.0, 5.0], mask=[0, 1])], match="MaskedArray")


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_a_matrix_is_refused_not_multiplied_as_an_array():
    m = np.matrix(np.arange(4.0).reshape(2, 2))
    assert np.shape(product.python(m, np.ones(2))) == (1, 2)     # NumPy's meaning
    _raises_here(product, m, np.ones(2), match="matrix")


def test_an_unknown_subclass_is_refused():
    class Tagged(np.ndarray):
        pass

    _raises_here(totals, np.arange(3.0).view(Tagged), match="Tagged")


def test_a_memmap_is_plain_data(tmp_path):
    """Guard: np.memmap keeps ndarray's operations, so it is computed on."""
    values = np.arange(6.0)
    mapped = np.memmap(tmp_path / "v.bin", dtype=np.float64, mode="w+", shape=(6,))
    mapped[:] = values
    got = totals(mapped)
    np.testing.assert_allclose(got, totals.python(values))


def test_an_array_like_that_is_not_an_ndarray_is_refused_at_the_callers_line():
    class ArrayLike:
        def __array__(self, dtype=None, copy=None):
            return np.arange(3.0)

    error = _raises_here(totals, ArrayLike(), match="np.asarray")
    assert "ArrayLike" in str(error)


def test_evaluate_refuses_a_masked_array_too():
    with pytest.raises(PhylanxTypeError, match="MaskedArray"):
        phylanx.evaluate("lambda(x, sum(x))", np.ma.array([1.0, 9.0], mask=[0, 1]))


def test_a_recarray_is_plain_data():
    """np.recarray keeps ndarray's arithmetic (it adds only field access by attribute):
    it was computed on at 24f2018 and must not be refused (rev19)."""
    values = np.arange(6.0).reshape(2, 3)
    records = values.view(np.recarray)
    np.testing.assert_allclose(totals(records), totals.python(values))
    from phylanx.autodiff import grad
    np.testing.assert_allclose(grad(lambda a: np.sum(a * a))(records), 2 * values)
