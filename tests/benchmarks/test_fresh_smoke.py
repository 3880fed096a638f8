"""Smoke test of benchmarks/fresh.py (a guard): every phrasing of every fresh program,
decorated, gives NumPy's result of the same phrasing at the quick sizes: same shape,
same dtype, values within the program's tolerance; the phrasings of a program agree."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from fresh import agreement, as_float32  # noqa: E402
from fresh_programs import PROGRAMS  # noqa: E402

from phylanx import Phylanx  # noqa: E402


def test_eight_to_ten_programs_of_two_phrasings_or_more():
    assert 8 <= len(PROGRAMS) <= 10 and len({p.name for p in PROGRAMS}) == len(PROGRAMS)
    assert all(len(p.phrasings) >= 2 for p in PROGRAMS)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_every_phrasing_agrees_with_numpy(program):
    args = program.data(True)
    first = np.asarray(program.phrasings[0].fn(*args))
    for ph in program.phrasings:
        given = as_float32(args) if ph.float32 else args
        want = ph.fn(*given)
        tol = program.tol32 if ph.float32 else program.tol
        assert agreement(Phylanx(ph.fn)(*given), want, tol) == "same", ph.name
        if not ph.float32:
            assert agreement(want, first, program.tol) == "same", ph.name


@pytest.mark.parametrize("got,want", [
    (np.array([np.nan, 2.0]), np.array([1.0, 2.0])),      # a NaN NumPy does not give
    (np.float64("nan"), np.float64(0.5)),
    (np.array([1.0, 2.0]), np.array([np.nan, 2.0])),      # NumPy's NaN, a number given
    (np.array([5.0, np.inf]), np.array([1.0, np.inf])),   # an inf in NumPy's result
    (np.array([np.inf, 1.0]), np.array([-np.inf, 1.0])),
])
def test_agreement_refuses_nans_and_infinities_numpy_does_not_give(got, want):
    """A NaN is no number's agreement: the check must not report a NaN result, or any
    result beside an infinity of NumPy's, as the same (max over NaN keeps the 0)."""
    assert agreement(got, want, 1e-6).startswith("DIFFERS")


def test_agreement_takes_the_same_nans_and_infinities():
    x = np.array([np.nan, np.inf, -np.inf, 1.0])
    assert agreement(x.copy(), x, 1e-6) == "same"
