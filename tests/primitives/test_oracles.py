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

from .families import samples_for
from .harness import as_phylanx_arguments, assert_same, call_primitive, quiet_numpy

#: primitives whose result dtype may differ from the oracle's (same kind still required),
#: each with the reason why matching NumPy exactly is impossible or undesirable.
DTYPE_KIND_ONLY: dict[str, str] = {}


def _cases():
    cases = []
    for spec in all_specs():
        if spec.oracle is None:
            continue
        try:
            samples = samples_for(spec)
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
    dtype = "kind" if spec.name in DTYPE_KIND_ONLY else "exact"
    assert_same(actual, expected, dtype=dtype, where=f"{spec.name}{_shapes(oracle_args)}")


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


# -- the harness itself must be able to fail ---------------------------------------------

def test_harness_detects_wrong_values_dtypes_and_shapes():
    from types import SimpleNamespace

    from .harness import assert_same

    x = np.array([1.0, np.nan])
    assert_same(x.copy(), x)                                   # NaN-aware
    for actual, expected in [(x.astype(np.float32), x), (x[:1], x), (list(x), x),
                             (np.array([1.0, 2.0]), x), (np.int64(1), np.float64(1))]:
        with pytest.raises(AssertionError):
            assert_same(actual, expected)
    wrong = SimpleNamespace(name="__add", oracle=np.subtract)
    with pytest.raises(AssertionError):
        test_against_oracle(wrong, (np.array([1, 2]), np.int64(3)))
    refusing = SimpleNamespace(name="__add", oracle=lambda a, b: 1 / 0)
    with pytest.raises(pytest.fail.Exception):
        test_against_oracle(refusing, (np.array([1, 2]), np.int64(3)))


def test_strict_numpy_comparison_detects_wrong_kinds_dtypes_and_values():
    from .harness import assert_like_numpy

    x = np.array([1.0, np.nan], dtype=np.float32)
    assert_like_numpy(x.copy(), x)                             # NaN-aware
    assert_like_numpy(np.float64(2.0), 2.0)
    for actual, expected in [(x.astype(np.float64), x), (np.array(2.0), np.float64(2.0)),
                             (np.float64(2.0), np.array([2.0])), (list(x), x),
                             (np.array([1.0, 2.0], np.float32), x), (np.int64(3), np.int64(2)),
                             (np.float64(1.0 + 1e-9), np.float64(1.0))]:
        with pytest.raises(AssertionError):
            assert_like_numpy(actual, expected)


def test_families_cover_ranks_dtypes_and_specials():
    from .families import FAMILIES

    for name, family in FAMILIES.items():
        cases = family()
        assert cases and all(isinstance(c, tuple) for c in cases), name
    arrays = [c[0] for c in FAMILIES["unary"]()]
    assert {np.ndim(a) for a in arrays} == {0, 1, 2, 3, 4}
    assert {np.asarray(a).dtype for a in arrays} == {np.dtype(t) for t in
                                                    (bool, np.int64, np.float32, np.float64)}
    assert any(np.size(a) == 0 for a in arrays)
    assert any(np.isnan(a).any() for a in arrays if np.asarray(a).dtype.kind == "f")
    axes = {c[1] for c in FAMILIES["reduction"]()}
    assert None in axes and any(a is not None and a < 0 for a in axes)
    assert {bool(c[2]) for c in FAMILIES["reduction"]()} == {False, True}
