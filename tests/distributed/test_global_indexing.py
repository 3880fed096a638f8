"""Global subscripts and structure ops of tiled arrays in one process (issue 28 item 1,
part B): the dispatch paths (sequence operands, stores, ``__pyindex``), located errors,
and the one-locality guards.  Values on 1-4 localities: ``programs/global_indexing.py``
and ``programs/global_index_property.py``."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import distributed as dist
from phylanx.distributed import DistributedArray
from phylanx.errors import PhylanxIndexError, PhylanxValueError
from phylanx.runtime import nodes

X = np.arange(20.0).reshape(5, 4) % 7


def ev(code, *args):
    names = ", ".join("abc"[:len(args)])
    return phylanx.evaluate(f"lambda({names}, {code})", *args)


def tiled(a=X, name="g"):
    return dist.tiled(a, "row", name=name)


def plain(value):
    return value.gather() if type(value) is DistributedArray else value


@pytest.mark.parametrize("code, want", [
    ("__subscript(a, -1, list(nil, nil, -2))", X[-1, ::-2]),
    ("__subscript(a, __pyindex(a > 3))", X[X > 3]),
    ("__subscript(a, [3, 0, 3])", X[[3, 0, 3]]),
    ("concatenate(list(a, a))", np.concatenate((X, X))),
    ("concatenate(tuple(a, [[1, 2, 3, 4]]))", np.concatenate((X, [[1, 2, 3, 4]]))),
    ("__npstack(list(a, a), 2)", np.stack((X, X), 2)),
    ("argmax(a)", np.argmax(X)), ("argmin(a, 0)", np.argmin(X, 0)),
    ("cumsum(a)", np.cumsum(X)), ("cumsum(a, 0)", np.cumsum(X, 0)),
    ("sort(a, 0)", np.sort(X, 0)), ("argsort(a, nil)", np.argsort(X, None)),
])
def test_rules_give_numpys_answer(code, want):
    got = plain(ev(code, tiled()))
    assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == np.asarray(want).dtype
    assert np.array_equal(got, want)


def test_a_plain_list_still_goes_to_the_kernel_and_a_tiled_one_to_the_rule():
    # concatenate tests its list operands by kind: plain lists are the kernel's
    assert np.array_equal(ev("concatenate(list(a, a))", X), np.concatenate((X, X)))
    got = ev("concatenate(list(a, b), 1)", tiled(), X)
    assert type(got) in (DistributedArray, np.ndarray)
    assert np.array_equal(plain(got), np.concatenate((X, X), 1))


def test_stores_use_global_indices():
    x = tiled(name="st")
    ev("store(__subscript(a, 2, list(1, 3)), 9)", x)
    want = X.copy()
    want[2, 1:3] = 9
    assert np.array_equal(x.gather(), want)
    x[x.gather() > 5] = -1.0
    want[want > 5] = -1.0
    assert np.array_equal(x.gather(), want)


def test_a_bad_index_is_numpys_index_error_located():
    x = tiled()
    with pytest.raises(PhylanxIndexError) as info:
        ev("__subscript(a, 5, 0)", x)
    assert info.value.loc is not None and "out of bounds" in str(info.value)
    with pytest.raises(PhylanxIndexError) as info:
        x[np.ones(3, bool)]
    assert info.value.loc is not None and info.value.loc.file == __file__
    with pytest.raises(PhylanxIndexError):
        x[0, 9] = 1.0
    with pytest.raises(PhylanxValueError, match="broadcast"):
        x[1:3] = np.ones(3)


def test_one_locality_keeps_the_concurrency_of_ordinary_programs():
    # guard: the rules communicate only with several localities, where they are ordered
    assert "__subscript" not in nodes.ORDERED and "concatenate" not in nodes.ORDERED
