"""Every primitive with an ``oracle`` against that oracle, on its ``samples``.

One test per (primitive, sample): the primitive is called through PhySL (a
compiled ``lambda`` around the call, so argument binding is exercised) and
compared with the oracle called on the same values: same shape, same dtype,
NaN-aware closeness.  When the oracle raises, phylanx must raise a
PhylanxError (not a bare Python exception).
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx.errors import PhylanxError
from phylanx.primitives.registry import all_specs

from .families import samples_of
from .harness import as_phylanx_arguments, assert_same, call_primitive, quiet_numpy

#: The one promotion difference applied to every oracle: the PhySL value model has no
#: float16/int8/int16/uint8 (bool < int64 < float32/float64).  Where NumPy answers in such a
#: small type although no input had it (float16 from math on bool, int8 from bool % bool),
#: phylanx may widen to float64/int64 instead (arithmetic_math.py widens bool inputs to int64
#: first); NumPy's own small type is accepted too.
_WIDENED = {np.dtype(np.float16): np.dtype(np.float64), np.dtype(np.int8): np.dtype(np.int64),
            np.dtype(np.int16): np.dtype(np.int64), np.dtype(np.uint8): np.dtype(np.int64),
            np.dtype(np.uint16): np.dtype(np.int64)}

#: primitives whose result dtype may differ from the oracle's (same kind still required),
#: each with the reason why matching NumPy exactly is impossible or undesirable.
DTYPE_KIND_ONLY: dict[str, str] = {}


def _cases():
    cases = []
    for spec in all_specs():
        if spec.oracle is None or spec.samples is None:
            continue
        try:
            samples = samples_of(spec.samples)
        except KeyError as e:  # reported by the contract test; keep collection going
            cases.append(pytest.param(spec, None, id=f"{spec.name}-bad-samples",
                                      marks=pytest.mark.skip(reason=str(e))))
            continue
        for i, args in enumerate(samples):
            cases.append(pytest.param(spec, args, id=f"{spec.name}-{i}"))
    return cases


@pytest.mark.parametrize("spec, args", _cases())
def test_against_oracle(spec, args):
    oracle_args = as_phylanx_arguments(args)
    with quiet_numpy():
        try:
            expected = spec.oracle(*oracle_args)
        except Exception as oracle_error:  # noqa: BLE001 - any failure of the oracle counts
            try:
                call_primitive(spec.name, *args)
            except PhylanxError:
                return
            pytest.fail(f"{spec.name}{_shapes(oracle_args)}: the oracle raised "
                        f"{type(oracle_error).__name__}: {oracle_error}; phylanx returned a value")
        actual = call_primitive(spec.name, *args)
    expected = widen_small_types(actual, expected, oracle_args)
    dtype = "kind" if spec.name in DTYPE_KIND_ONLY else "exact"
    assert_same(actual, expected, dtype=dtype, where=f"{spec.name}{_shapes(oracle_args)}")


def widen_small_types(actual, expected, args: tuple):
    """``expected`` cast to the wide type where NumPy's small type was widened (``_WIDENED``)."""
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        return type(expected)(widen_small_types(a, e, args) for a, e in zip(actual, expected))
    if isinstance(expected, (np.ndarray, np.generic)):
        given = {a.dtype for a in args if isinstance(a, (np.ndarray, np.generic))}
        wide = _WIDENED.get(expected.dtype)
        if (wide is not None and expected.dtype not in given
                and getattr(actual, "dtype", None) == wide):
            return expected.astype(wide)
    return expected


def _shapes(args: tuple) -> str:
    parts = []
    for a in args:
        shape = getattr(a, "shape", None)
        dtype = getattr(a, "dtype", None)
        parts.append(f"{dtype}{list(shape)}" if shape is not None else repr(a)[:40])
    return "(" + ", ".join(parts) + ")"


def test_some_oracle_cases_exist():
    # guards against a silently empty parametrisation (e.g. a broken registry import)
    assert len(_cases()) > 50
