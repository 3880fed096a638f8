"""Float min/max reduced on ordered integer keys (``distributed/reduce_ops.py``, through
``collectives._prepare_for_op``) give NumPy's ``np.min``/``np.max`` in any order of
combination: NaN wherever an operand has one; infinities, zeros, subnormals, 0-d, float16
and big-endian arrays alike.  (A guard of the transformation: the bug it fixes, MPI's
MIN/MAX dropping a NaN, is shown by ``test_reduce_nan_mpi.py``.)"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from phylanx.distributed import collectives

OPS = {"min": (np.min, np.minimum), "max": (np.max, np.maximum)}


@settings(max_examples=30, deadline=None)
@given(dtype=st.sampled_from(["float16", "float32", "float64", ">f8"]),
       op=st.sampled_from(sorted(OPS)), data=st.data())
def test_keys_reduce_as_numpy(dtype, op, data):
    ranks = data.draw(st.integers(1, 4))
    shape = data.draw(st.sampled_from([(), (5,)]))
    stacked = data.draw(hnp.arrays(dtype, (ranks, *shape), elements=hnp.from_dtype(
        np.dtype(dtype), allow_nan=True, allow_infinity=True, allow_subnormal=True)))
    order = data.draw(st.permutations(range(ranks)))
    oracle, ufunc = OPS[op]
    # (``[...]``: a 0-d array, not the scalar a row of a 1-d array is)
    prepared = [collectives._prepare_for_op(row[...], op) for row in stacked]
    combined = prepared[order[0]][0]
    for rank in order[1:]:
        combined = ufunc(combined, prepared[rank][0])
    got = prepared[0][1](combined)
    want = oracle(stacked, axis=0)
    assert got.dtype == want.dtype.newbyteorder("=") and got.shape == np.shape(want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    # (equal as numbers: which zero np.max picks among -0.0 and 0.0 depends on order)
    np.testing.assert_array_equal(got[finite], want[finite])

