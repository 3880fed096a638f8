"""The digest ranks compare for plain operands meeting tiled arrays
(``agreement.operand_digest``, issue 28) and what a tiled array carries of them
(``darray.merged``): equal values give equal digests whatever their memory layout,
one changed element a different digest, small or large; the carried list stays
bounded without forgetting a digest."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from phylanx.distributed.agreement import DIGEST_WHOLE_BYTES, combine, operand_digest
from phylanx.distributed.darray import merged

arrays = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=9),
                    elements=st.floats(-1e6, 1e6))


@settings(max_examples=40, deadline=None)
@given(arrays, st.data())
def test_equal_values_equal_digests_one_change_another(a, data):
    assert operand_digest(a) == operand_digest(a.copy())
    assert operand_digest(np.asfortranarray(a)) == operand_digest(a)
    changed = a.copy()
    at = data.draw(st.integers(0, a.size - 1))
    changed.reshape(-1)[at] += 1.0
    assert operand_digest(changed) != operand_digest(a)


def test_a_large_operand_is_sampled_and_summed_exactly():
    a = np.random.default_rng(0).normal(size=DIGEST_WHOLE_BYTES // 8 * 4 + 3)
    assert operand_digest(a) == operand_digest(a.copy())
    assert operand_digest(a[::-1]) == operand_digest(a[::-1].copy())
    for at in (0, a.size // 3 + 1, a.size - 1):    # sampled or not, the word sum sees it
        changed = a.copy()
        changed[at] = np.nextafter(changed[at], np.inf)
        assert operand_digest(changed) != operand_digest(a), at


def test_scalars_by_type_and_value_and_what_has_no_digest():
    assert operand_digest(2.0) == operand_digest(2.0) != operand_digest(2.5)
    assert operand_digest(np.float32(1)) != operand_digest(np.float64(1))
    assert operand_digest(3) != operand_digest(3.0)
    assert operand_digest("text") is None and operand_digest(None) is None
    assert operand_digest(np.array([None], object)) is None


def test_carried_digests_stay_bounded_and_are_combined_never_dropped():
    carried = ()
    for i in range(20):
        carried = merged(carried, ((i, f"operand {i}"),))
    assert len(carried) == 8
    names = ", ".join(n for _, n in carried)
    assert all(f"operand {i}" in names for i in range(20))
    again = merged(carried, ((99, "operand 19"),))      # a loop's operand: combined
    assert len(again) == 8 and again[-1] == (combine((19, 99)), "operand 19")


@settings(max_examples=40, deadline=None)
@given(st.binary(min_size=3, max_size=64), st.data())
def test_the_data_checksum_sees_small_second_differences(raw, data):
    """``agreement.checksum`` (what ranks compare for ``dist.tiled``'s data and data
    parallel fit's x and y) sees bytes changed by +1, -2, +1 -- adler32's sums did not."""
    from phylanx.distributed.agreement import checksum
    a = np.frombuffer(raw, np.uint8).copy()
    at = data.draw(st.integers(0, a.size - 3))
    changed = a.astype(np.int64)
    changed[at:at + 3] += (1, -2, 1)
    if changed.min() < 0 or changed.max() > 255:
        changed[at:at + 3] -= 2 * np.array((1, -2, 1))
    if changed.min() < 0 or changed.max() > 255:
        return
    assert checksum(changed.astype(np.uint8)) != checksum(a)
    assert checksum(a.copy()) == checksum(a)


def _garbage_padding(a):
    """``a`` with x86's 6 padding bytes of each 80-bit value overwritten (elsewhere,
    where a long double has no padding, ``a`` itself)."""
    b = a.copy()
    if np.finfo(np.longdouble).nmant == 63 and np.dtype(np.longdouble).itemsize == 16:
        raw = b.reshape(-1).view(np.uint8).reshape(-1, 16)
        raw[:, 10:] = np.random.default_rng(1).integers(0, 256, raw[:, 10:].shape)
    return b


def test_long_doubles_are_digested_by_value_not_their_padding():
    from phylanx.distributed.agreement import checksum
    from phylanx.distributed.tiles import _overlap_digest
    real = np.concatenate([np.arange(-6, 6, dtype=np.longdouble) / 3,
                           np.array([np.inf, -np.inf, 1e-4000, 1e4000], np.longdouble)])
    for a in (real, real.astype(np.clongdouble) * (1 - 2j)):
        b = _garbage_padding(a)
        for digest in (operand_digest, checksum, _overlap_digest):
            assert digest(b) == digest(a), digest
            changed = a.copy()           # the last mantissa bit, past float64's 53
            changed[1] = np.nextafter(changed[1].real, np.longdouble(np.inf))
            assert digest(changed) != digest(a), digest
        assert operand_digest(b[3]) == operand_digest(a[3])
    nans = np.array([np.nan, -np.nan], np.longdouble)
    assert _overlap_digest(nans) == _overlap_digest(nans[::-1].copy())
