"""The coverage report of ``phylanx primitives --coverage`` (not coverage itself: see README)."""
from __future__ import annotations

from phylanx.cli.primitives import coverage_text
from phylanx.primitives.original_names import (
    COMPILER_INTERNAL,
    CONDITIONAL,
    DISTRIBUTED,
    ORIGINAL_BY_CATEGORY,
    coverage_report,
    original_names,
)
from phylanx.primitives.registry import CATEGORIES


def test_original_names_match_the_catalogue_counts():
    # §3.2 of the reference: 289 registered names, 11 compiler-internal node kinds
    names = original_names()
    assert len(names) == 289 == len({n.name for n in names})
    counts = {cat: len(v) for cat, v in ORIGINAL_BY_CATEGORY.items()}
    assert counts == {"core": 30, "arithmetics": 51, "booleans": 16, "controls": 16,
                      "listops": 36, "matrixops": 65, "statistics": 10, "solvers": 17,
                      "fileio": 7, "keras_support": 25, "algorithms": 3,
                      "dist_matrixops": 12, "dist_keras_support": 1}
    assert set(counts) <= set(CATEGORIES)
    assert len(COMPILER_INTERNAL) == 11 and "access-argument" in COMPILER_INTERNAL
    assert len(DISTRIBUTED) == 18 and {"shape_d", "annotate_d", "conv1d_d"} <= DISTRIBUTED
    assert len(CONDITIONAL) == 15 and "file_read_hdf5" in CONDITIONAL


def test_report_on_a_given_set_of_names():
    report = coverage_report(["sum", "cumsum", "dot_d", "my_extension", "__add__int", "define"])
    assert len(report.expected) == 289 - 11 - 18
    assert report.present == 3
    assert "sum" not in report.missing and "mean" in report.missing
    assert "access-argument" not in report.missing  # compiler-internal: no PhySL name
    assert report.distributed_missing == tuple(n for n in report.distributed_expected
                                               if n != "dot_d")
    assert report.extensions == ("my_extension",)
    assert report.missing_by_category()["statistics"][0] == "var"


def test_report_of_the_registry_and_its_text():
    report = coverage_report()
    assert report.present > 0
    text = coverage_text()
    assert f"{report.present} of {len(report.expected)}" in text
    for name in report.missing:
        assert name in text


def test_every_non_distributed_name_of_the_original_exists():
    # every name of the original (260 of 260); a removed primitive fails here
    from phylanx.primitives.registry import all_names
    report = coverage_report(all_names())
    assert report.missing == () and report.present == len(report.expected) == 260
