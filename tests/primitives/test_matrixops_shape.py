"""Hand tests of matrixops shape manipulation, joining and splitting against NumPy.

Edge cases the oracle samples do not reach: negative axes, float32, empty
arrays, 0-d results as NumPy scalars, PhySL lists as arguments, the
dtype-suffix variants of hsplit/vsplit, and the error messages.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxError, PhylanxValueError

from .harness import assert_like_numpy

run = phylanx.evaluate

A23 = np.arange(6.0).reshape(2, 3)
A234 = np.arange(24).reshape(2, 3, 4)
F32 = np.arange(6, dtype=np.float32).reshape(3, 2)


def same_list(actual, expected):
    assert isinstance(actual, list) and len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert_like_numpy(a, e)


# -- reshape / flatten / squeeze / expand_dims --------------------------------------------------

@pytest.mark.parametrize("code, args, expected", [
    ("lambda(x, reshape(x, list(3, -1)))", (A23,), A23.reshape(3, -1)),
    ("lambda(x, reshape(x, -1))", (A234,), A234.reshape(-1)),
    ("lambda(x, reshape(x, list(1, 1, 1, 6)))", (F32,), F32.reshape(1, 1, 1, 6)),
    ("lambda(x, reshape(x, list()))", (np.array([4.5]),), np.float64(4.5)),
    ("lambda(x, reshape(x, list(2, 0)))", (np.zeros((3, 0)),), np.zeros((3, 0)).reshape(2, 0)),
    ("reshape(list(1, 2, 3, 4), list(2, 2))", (), np.arange(1, 5).reshape(2, 2)),
    ("lambda(x, flatten(x))", (A234,), A234.flatten()),
    ("lambda(x, flatten(x, \"F\"))", (A23,), A23.flatten("F")),
    ("flatten(3.5)", (), np.float64(3.5).flatten()),
    ("lambda(x, squeeze(x))", (np.zeros((1, 3, 1), np.float32),), np.zeros(3, np.float32)),
    ("lambda(x, squeeze(x, -1))", (np.zeros((1, 3, 1)),), np.zeros((1, 3))),
    ("lambda(x, squeeze(x))", (np.ones((1, 1)),), np.float64(1)),
    ("lambda(x, expand_dims(x, -1))", (A23,), np.expand_dims(A23, -1)),
    ("lambda(x, expand_dims(x, list(0, -1)))", (A23,), np.expand_dims(A23, (0, -1))),
    ("expand_dims(2, 0)", (), np.expand_dims(np.int64(2), 0)),
])
def test_reshape_family(code, args, expected):
    assert_like_numpy(run(code, *args), expected)


def test_reshape_errors_name_both_shapes():
    with pytest.raises(PhylanxValueError,
                       match=r"cannot reshape an array of shape \(2, 3\) \(6 elements\) "
                             r"into shape \(4, -1\)"):
        run("lambda(x, reshape(x, list(4, -1)))", A23)
    with pytest.raises(PhylanxValueError, match=r"into shape \(5,\)"):
        run("lambda(x, reshape(x, 5))", A23)
    with pytest.raises(PhylanxValueError, match="only have one unknown"):
        run("lambda(x, reshape(x, list(-1, -1)))", A23)


def test_squeeze_expand_dims_flatten_errors():
    with pytest.raises(PhylanxValueError, match=r"cannot squeeze axis 1 .* \(1, 3\)"):
        run("lambda(x, squeeze(x, 1))", np.zeros((1, 3)))
    with pytest.raises(PhylanxValueError, match="axis 3 is out of bounds for a 3-d array"):
        run("lambda(x, expand_dims(x, 3))", A23)
    with pytest.raises(PhylanxValueError, match="order must be one of"):
        run("lambda(x, flatten(x, \"Z\"))", A23)


# -- transpose / flip ----------------------------------------------------------------------------

@pytest.mark.parametrize("code, args, expected", [
    ("lambda(x, transpose(x))", (A234,), A234.T),
    ("lambda(x, transpose(x, list(-1, 0, 1)))", (A234,), np.transpose(A234, (2, 0, 1))),
    ("lambda(x, transpose(x, [1, 0]))", (F32,), F32.T),
    ("lambda(x, transpose(x))", (np.arange(3),), np.arange(3)),
    ("transpose(2.0)", (), np.float64(2)),
    ("lambda(x, flip(x))", (A234,), np.flip(A234)),
    ("lambda(x, flip(x, list(0, -1)))", (A234,), np.flip(A234, (0, 2))),
    ("lambda(x, flip(x, -2))", (A23,), np.flip(A23, -2)),
    ("lambda(x, flipud(x))", (F32,), np.flipud(F32)),
    ("lambda(x, fliplr(x))", (A234,), np.fliplr(A234)),
    ("lambda(x, flip(x, 0))", (np.zeros((0, 2)),), np.zeros((0, 2))),
])
def test_transpose_flip(code, args, expected):
    assert_like_numpy(run(code, *args), expected)


def test_transpose_flip_errors():
    with pytest.raises(PhylanxValueError, match="repeated axis"):
        run("lambda(x, transpose(x, list(0, 0)))", A23)
    with pytest.raises(PhylanxValueError, match="must list each of the 3 axes"):
        run("lambda(x, transpose(x, list(1, 0)))", A234)
    with pytest.raises(PhylanxValueError, match="at least 1 dimension"):
        run("flipud(1.0)")
    with pytest.raises(PhylanxValueError, match="at least 2 dimensions, got a 1-d"):
        run("fliplr([1, 2])")
    with pytest.raises(PhylanxValueError, match="axis 2 is out of bounds for a 2-d array"):
        run("lambda(x, flip(x, 2))", A23)


# -- queries -------------------------------------------------------------------------------

def test_size_ndim_shape():
    assert run("lambda(x, size(x))", A234) == np.int64(24)
    assert type(run("size(3)")) is int and run("size(3)") == 1   # as np.size(3)
    assert run("size(list(1, 2, 3))") == 3
    assert run("lambda(x, ndim(x))", A234) == 3 and run("ndim(2.0)") == 0
    assert run("ndim(list(1, [2, 3]))") == 1
    dims = run("lambda(x, shape(x))", A234)
    assert dims == (2, 3, 4) and all(type(d) is int for d in dims)   # as NumPy's x.shape
    assert run("shape(5)") == ()
    assert run("lambda(x, shape(x, -1))", A234) == np.int64(4)
    assert run("lambda(x, shape(x, 0))", np.zeros((0, 5))) == 0
    assert run("shape(list(1, 2))") == (2,)
    with pytest.raises(PhylanxValueError, match="dim 3 is out of bounds for a 3-d array"):
        run("lambda(x, shape(x, 3))", A234)
    with pytest.raises(PhylanxValueError, match="0-d value has no dimension"):
        run("shape(1.0, 0)")


def test_count_nonzero():
    data = np.array([[0.0, np.nan, -0.0], [1.0, 0.0, np.inf]])
    assert run("lambda(x, count_nonzero(x))", data) == np.count_nonzero(data)
    assert run("count_nonzero([true, false, true])") == 2
    assert isinstance(run("count_nonzero(0)"), np.int64)
    assert run("lambda(x, count_nonzero(x))", np.zeros((0, 3))) == 0


# -- astype / tile / repeat / pad -----------------------------------------------------------------

@pytest.mark.parametrize("code, args, expected", [
    ("astype([1.7, -2.7], \"int\")", (), np.array([1.7, -2.7]).astype(np.int64)),
    ("astype([0, 3], \"bool\")", (), np.array([False, True])),
    ("lambda(x, astype(x, \"float32\"))", (A23,), A23.astype(np.float32)),
    ("astype(2.9, \"int\")", (), np.int64(2)),
    ("lambda(x, tile(x, list(2, 1, 2)))", (F32,), np.tile(F32, (2, 1, 2))),
    ("lambda(x, tile(x, 0))", (A23,), np.tile(A23, 0)),
    ("lambda(x, repeat(x, 2, -1))", (A23,), np.repeat(A23, 2, -1)),
    ("lambda(x, repeat(x, list(0, 2, 1), 1))", (A23,), np.repeat(A23, [0, 2, 1], 1)),
    ("lambda(x, repeat(x, 2))", (F32,), np.repeat(F32, 2)),
    ("lambda(x, pad(x, 1, \"constant\"))", (F32,), np.pad(F32, 1)),
    ("lambda(x, pad(x, list(list(0, 1), list(2, 0)), \"constant\", 7))", (A23,),
     np.pad(A23, ((0, 1), (2, 0)), constant_values=7)),
    ("lambda(x, pad(x, list(1, 2), \"constant\", 0.5))", (np.arange(3.0),),
     np.pad(np.arange(3.0), (1, 2), constant_values=0.5)),
])
def test_astype_tile_repeat_pad(code, args, expected):
    assert_like_numpy(run(code, *args), expected)


def test_tile_repeat_pad_errors():
    with pytest.raises(PhylanxValueError, match="implemented for constant mode, got 'edge'"):
        run("pad([1, 2], 1, \"edge\")")
    with pytest.raises(PhylanxValueError, match="pad_width must hold non-negative integers"):
        run("pad([1, 2], -1, \"constant\")")
    with pytest.raises(PhylanxValueError, match="repeats .* must be non-negative"):
        run("repeat([1, 2], -1)")
    with pytest.raises(PhylanxValueError, match="reps .* must be non-negative"):
        run("tile([1, 2], list(-1))")
    with pytest.raises(PhylanxValueError, match="axis 2 is out of bounds"):
        run("lambda(x, repeat(x, 2, 2))", A23)


# -- diag / clip / gradient --------------------------------------------------------------------

@pytest.mark.parametrize("code, args, expected", [
    ("lambda(x, diag(x))", (A23,), np.diag(A23)),
    ("lambda(x, diag(x, -1))", (A23,), np.diag(A23, -1)),
    ("lambda(x, diag(x, 4))", (A23,), np.diag(A23, 4)),
    ("lambda(x, diag(x, 1))", (np.float32([1, 2]),), np.diag(np.float32([1, 2]), 1)),
    ("diag([1, 2, 3], -2)", (), np.diag([1, 2, 3], -2)),
    ("lambda(x, clip(x, 1, 3))", (A23,), np.clip(A23, 1, 3)),
    ("lambda(x, clip(x, nil, 2))", (np.arange(5),), np.clip(np.arange(5), None, 2)),
    ("lambda(x, a, b, clip(x, a, b))", (F32, np.float32(1), np.float32(4)),
     np.clip(F32, np.float32(1), np.float32(4))),
    ("lambda(x, clip(x, [0, 1, 2], 4))", (A23,), np.clip(A23, [0, 1, 2], 4)),
    ("clip(7, 0, 5)", (), np.int64(5)),
    ("lambda(x, clip(x, 0, 1))", (np.array([np.nan, 2.0]),), np.array([np.nan, 1.0])),
    ("gradient([1, 2, 4, 7])", (), np.gradient(np.array([1, 2, 4, 7]))),
    ("lambda(x, gradient(x))", (np.float32([1, 4, 9, 16]),),
     np.gradient(np.float32([1, 4, 9, 16]))),
    ("lambda(x, gradient(x, -1))", (A23 ** 2,), np.gradient(A23 ** 2, axis=-1)),
])
def test_diag_clip_gradient(code, args, expected):
    assert_like_numpy(run(code, *args), expected)


def test_gradient_of_a_matrix_is_a_list_per_axis():
    same_list(run("lambda(x, gradient(x))", A23 ** 2), list(np.gradient(A23 ** 2)))
    same_list(run("lambda(x, gradient(x, list(0, 2)))", A234),
              list(np.gradient(A234, axis=(0, 2))))


def test_diag_gradient_errors():
    with pytest.raises(PhylanxValueError, match="1-d or a 2-d array, got a 3-d"):
        run("lambda(x, diag(x))", A234)
    with pytest.raises(PhylanxValueError, match="at least"):
        run("gradient([1.0])")


# -- concatenate / hstack / vstack / dstack / stack ---------------------------------------------

@pytest.mark.parametrize("code, args, expected", [
    ("hstack(list(1, 2, 3))", (), np.array([1, 2, 3])),
    ("hstack(list(1, 2.5))", (), np.array([1, 2.5])),
    ("hstack(list(true, false))", (), np.array([True, False])),
    ("hstack(list(1.7, 2.2), \"int\")", (), np.array([1, 2])),
    # the original maps any "float..." dtype to float64; the NumPy spelling keeps float32
    ("hstack(list(1, 2), __arg(dtype, \"float32\"))", (), np.array([1.0, 2.0])),
    ("__nphstack(list(1, 2), __arg(dtype, \"float32\"))", (), np.array([1, 2], np.float32)),
    ("hstack(list())", (), np.zeros(0)),
    ("hstack(list(), \"int\")", (), np.zeros(0, np.int64)),
    ("lambda(a, b, hstack(list(a, b)))", (A23, F32.reshape(2, 3)),
     np.hstack([A23, F32.reshape(2, 3)])),
    ("lambda(a, hstack(list(a, 5)))", (np.float32([1, 2]),),
     np.hstack([np.float32([1, 2]), np.int64(5)])),
    ("vstack(list(hstack(list(1, 2)), hstack(list(3, 4))))", (), np.array([[1, 2], [3, 4]])),
    ("vstack(list(hstack(list())))", (), np.zeros((1, 0))),
    ("vstack(list([1, 2], [3.5, 4]), \"float32\")", (), np.array([[1, 2], [3.5, 4]])),
    ("__npvstack(list([1, 2], [3.5, 4]), \"float32\")", (), np.float32([[1, 2], [3.5, 4]])),
    ("dstack(list(vstack(list([1, 2])), vstack(list([3, 4]))))", (),
     np.dstack([np.array([[1, 2]]), np.array([[3, 4]])])),
    ("lambda(a, stack(list(a, a), -1))", (A23,), np.stack([A23, A23], -1)),
    ("stack(list(1, 2, 3), 0, \"float\")", (), np.array([1.0, 2.0, 3.0])),
    ("lambda(a, concatenate(list(a, a), -1))", (A234,), np.concatenate([A234, A234], -1)),
    ("lambda(a, b, concatenate(list(a, b), nil))", (A23, np.arange(2)),
     np.concatenate([A23, np.arange(2)], None)),
    ("lambda(a, b, concatenate(list(a, b)))", (np.float32([1]), np.arange(2.0)),
     np.concatenate([np.float32([1]), np.arange(2.0)])),
    ("lambda(a, concatenate(list(a, a), 1))", (np.zeros((2, 0)),), np.zeros((2, 0))),
])
def test_stacking(code, args, expected):
    assert_like_numpy(run(code, *args), expected)


def test_stacking_errors():
    with pytest.raises(PhylanxValueError, match="vstack needs a list of at least one array"):
        run("__npvstack(list())")
    with pytest.raises(PhylanxValueError, match=r"stack needs arrays of one shape"):
        run("stack(list([1, 2], [1, 2, 3]))")
    with pytest.raises(PhylanxValueError, match="cannot join 0-d values"):
        run("concatenate(list(1, 2))")
    with pytest.raises(PhylanxValueError, match="axis 2 is out of bounds"):
        run("lambda(a, concatenate(list(a, a), 2))", A23)
    with pytest.raises(PhylanxError, match="dimensions"):
        run("vstack(list([1, 2], [1, 2, 3]))")
    with pytest.raises(PhylanxError, match="has to be a list of arrays"):
        run("hstack(\"ab\")")
    with pytest.raises(PhylanxError, match="must be a list of arrays"):
        run("__nphstack(\"ab\")")


# -- insert ------------------------------------------------------------------------------------

@pytest.mark.parametrize("code, args, expected", [
    ("insert([1, 2, 3], 1, 9)", (), np.insert([1, 2, 3], 1, 9)),
    ("insert([1, 2, 3], list(0, 3), list(7, 8))", (), np.insert([1, 2, 3], [0, 3], [7, 8])),
    ("lambda(a, insert(a, 1, 5, -1))", (A23,), np.insert(A23, 1, 5, -1)),
    ("lambda(a, insert(a, 0, [1, 2, 3], 0))", (A23,), np.insert(A23, 0, [1, 2, 3], 0)),
    ("lambda(a, insert(a, 2, 0.5))", (F32,), np.insert(F32, 2, 0.5)),
    ("insert([1.5, 2.5], 0, 1, __arg(dtype, \"int\"))", (), np.array([1, 1, 2])),
])
def test_insert(code, args, expected):
    assert_like_numpy(run(code, *args), expected)


def test_insert_out_of_bounds_is_an_error():
    with pytest.raises(IndexError, match="out of bounds"):
        run("insert([1, 2, 3], 7, 1)")


# -- hsplit / vsplit --------------------------------------------------------------------------

@pytest.mark.parametrize("code, args, expected", [
    ("lambda(x, hsplit(x, 3))", (A23,), np.hsplit(A23, 3)),
    ("lambda(x, hsplit(x, list(1)))", (A23,), np.hsplit(A23, [1])),
    ("lambda(x, hsplit(x, 1, 2))", (A23,), np.hsplit(A23, [1, 2])),
    ("lambda(x, hsplit(x, 2))", (np.arange(4.0),), np.hsplit(np.arange(4.0), 2)),
    ("lambda(x, hsplit(x, [1, 9]))", (A234,), np.hsplit(A234, [1, 9])),
    ("lambda(x, vsplit(x, 3))", (F32,), np.vsplit(F32, 3)),
    ("lambda(x, vsplit(x, list(1, 3)))", (A234,), np.vsplit(A234, [1, 3])),
    ("lambda(x, hsplit__int(x, 3))", (A23 + 0.5,), [p.astype(np.int64) for p in
                                                  np.hsplit(A23 + 0.5, 3)]),
    ("lambda(x, vsplit__float(x, 2))", (np.arange(4).reshape(2, 2),),
     [p.astype(np.float64) for p in np.vsplit(np.arange(4).reshape(2, 2), 2)]),
])
def test_splits(code, args, expected):
    same_list(run(code, *args), list(expected))


def test_split_errors():
    with pytest.raises(PhylanxValueError, match="cannot split an axis of length 3 into 2"):
        run("lambda(x, hsplit(x, 2))", A23)
    with pytest.raises(PhylanxValueError, match="at least 2 dimensions, got a 1-d"):
        run("vsplit([1, 2], 2)")
    with pytest.raises(PhylanxValueError, match="number of sections must be positive"):
        run("lambda(x, hsplit(x, 0))", A23)
    with pytest.raises(PhylanxValueError, match="at least 1 dimension"):
        run("hsplit(1.0, 1)")


# Python numbers (literals, numbers passed from Python) are weak scalars in NumPy's promotion:
# combined with a float32 array they keep it float32, in any argument position.
def test_clip_keeps_python_number_bounds_weak():
    x = np.array([-1.0, 0.5, 3.0], dtype=np.float32)
    for bounds in [(0, 1), (None, 2.5), (0.25, None), (0, np.float32(1))]:
        assert_like_numpy(phylanx.evaluate("lambda(x, lo, hi, clip(x, lo, hi))", x, *bounds),
                          np.clip(x, *bounds))
    assert_like_numpy(phylanx.evaluate("clip(5, 0, 2)"), np.clip(5, 0, 2))
