"""A gathered copy standing for NumPy's view of a tiled array (``y = x[2]``) stays
read-only for good: its writes could reach neither the array nor survive the next
store (``view_copies.refresh`` rewrites it), so ``y.flags.writeable = True`` is
NumPy's own refusal (as for a view of a read-only array), not a way to a change lost
silently.  Changes in place through Phylanx (``y *= 2``) still reach the array, and
stores into the array still reach the copy.  One process: the path every rank takes."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx import distributed as dist

X = np.arange(20.0).reshape(4, 5)


def test_the_copy_cannot_be_made_writable_and_still_follows_the_array():
    x = dist.tiled(X.copy(), "row", name="locked_py")
    y = x[2]
    with pytest.raises(ValueError):
        y.flags.writeable = True
    x[2, 0] = -1.0
    expected = X.copy()
    expected[2, 0] = -1.0
    np.testing.assert_array_equal(y, expected[2])


def doubled_through_the_copy(x):
    y = x[2]
    y *= 2.0
    return y


def test_a_change_in_place_through_phylanx_still_reaches_the_array():
    x = dist.tiled(X.copy(), "row", name="locked_phylanx")
    expected = X.copy()
    want = doubled_through_the_copy(expected)
    got = Phylanx(doubled_through_the_copy)(x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.asarray(x), expected)
    with pytest.raises(ValueError):
        got.flags.writeable = True
