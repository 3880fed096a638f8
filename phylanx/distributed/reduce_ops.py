"""Floats as integers ordered like them, so that MPI's MIN/MAX propagate NaN as NumPy does.

MPI's own ``MIN``/``MAX`` of floats keep whichever operand the comparison picks, so a
NaN is kept or dropped depending on which rank holds it, while ``np.min``/``np.max``
(and the collectives' inline path, NumPy's ufuncs) propagate it.  A user-defined op
applying ``np.maximum`` would be NumPy's, but it is a Python call inside MPI's progress
and makes MPI choose another algorithm than a built-in op's: ranks disagreeing in the
op (caught by the header exchange, the data already started) would then leave requests
that never complete.  Instead a float's bits are mapped to an integer of its width,
monotonically (IEEE's total order: -0.0 below +0.0), with every NaN made the one that
sorts beyond the infinities in the op's direction; MPI's built-in integer MIN/MAX then
return the NaN whenever a rank has one, and the same result on every rank whatever the
order of combination.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: the integer type of each float width whose bits are reinterpreted
_BITS = {4: np.int32, 8: np.int64}


def orderable(dtype: np.dtype, op: str) -> bool:
    """Are ``op``'s reductions of ``dtype`` made on ordered keys (float min/max)?"""
    return op in ("min", "max") and dtype.kind == "f" and dtype.itemsize in _BITS


def ordered_keys(array: np.ndarray, op: str) -> tuple[np.ndarray, Callable]:
    """``array``'s floats as ordered integer keys for ``op`` ("min" or "max"), and the
    conversion of reduced keys back to floats of ``array``'s dtype."""
    dtype = array.dtype.newbyteorder("=")
    integer = _BITS[dtype.itemsize]
    # (a copy we own, C-contiguous, of array's shape, 0-d included, in native byte order)
    floats = np.array(array, dtype, order="C", ndmin=0)
    np.copyto(floats, np.copysign(np.nan, 1.0 if op == "max" else -1.0),
              where=np.isnan(floats))
    keys = floats.view(integer)
    keys ^= _sign_spread(keys)

    def back(reduced: np.ndarray) -> np.ndarray:
        return _flip(reduced).view(dtype)
    return keys, back


def _flip(bits: np.ndarray) -> np.ndarray:
    """Negative floats' bits with all but the sign flipped (its own inverse): as
    signed integers these order like the floats (sign-magnitude to two's complement)."""
    # (asarray: NumPy's operators make a 0-d operand's result a scalar)
    return np.asarray(bits ^ _sign_spread(bits))


def _sign_spread(bits: np.ndarray) -> np.ndarray:
    """All but the sign bit set where ``bits`` is negative, none elsewhere."""
    spread = bits >> (bits.dtype.itemsize * 8 - 1)
    spread &= np.iinfo(bits.dtype).max
    return spread
