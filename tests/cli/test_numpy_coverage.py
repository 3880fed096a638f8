"""The NumPy part of ``phylanx primitives --coverage`` (phylanx/cli/numpy_coverage.py): the
table of the 200 most used NumPy functions and which of them translate under ``@Phylanx``."""
from __future__ import annotations

import numpy as np

from phylanx.cli import main as cli_main
from phylanx.cli.numpy_coverage import numpy_coverage, translates
from phylanx.cli.numpy_top200 import NUMPY_TOP200

#: the functions issue 12 item 4 added (refused by @Phylanx before)
ISSUE_12 = ("allclose argwhere array_equal atleast_1d atleast_2d average bincount broadcast_to "
            "deg2rad diff digitize einsum expm1 fill_diagonal flatnonzero histogram inner "
            "interp isclose isin kron log1p logspace meshgrid moveaxis nan_to_num nanmax "
            "nanmean nanmin nansum polyfit polyval ptp rad2deg reciprocal rot90 searchsorted "
            "split swapaxes take trapezoid unravel_index").split()


def _numpy_object(dotted: str):
    obj = np
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
    return obj


def test_the_table_has_200_distinct_numpy_functions():
    assert len(NUMPY_TOP200) == 200 == len(set(NUMPY_TOP200))
    assert [n for n in NUMPY_TOP200 if not callable(_numpy_object(n))] == []
    assert set(ISSUE_12) <= set(NUMPY_TOP200)


def test_report_runs_and_the_issue_12_functions_translate(capsys):
    assert cli_main.main(["primitives", "--coverage"]) == 0
    out = capsys.readouterr().out
    report = numpy_coverage()
    assert f"translate under @Phylanx: {report.count} of 200" in out
    assert report.count + len(report.missing) == 200
    assert [n for n in ISSUE_12 if n in report.missing] == []
    for name in report.missing:
        assert name in out and "is not supported" in report.reasons[name]


def test_translation_is_measured_not_assumed():
    assert translates("busday_count") is not None          # a NumPy function without primitive
    assert "np.busday_count is not supported" in translates("busday_count")
    assert translates("bincount") is None
    # np.random.binomial needs n and p: it translates with two arguments
    assert translates("random.binomial") is None
    assert translates("no_such_function") is not None
