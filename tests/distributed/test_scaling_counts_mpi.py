"""The collectives of the unchanged examples on 2 localities, counted by the runtime's
timeline, equal the cost model's (``programs/scaling_counts.py``): a row-tiled
``x @ w`` sends nothing, an LRA iteration one all_gather of the gradient's partial
sums.  One launch; and ``make run``'s unchanged LRA on 2 localities."""
from __future__ import annotations

import sys

import pytest

from .test_mpi import ROOT, assert_all_ok, launch, program

pytestmark = pytest.mark.mpi


def test_counted_messages_match_the_cost_model():
    done, _ = program(2, "scaling_counts.py", timeout=120, OPENBLAS_NUM_THREADS="1")
    assert_all_ok(done, 2)


def test_make_run_shows_the_unchanged_lra_on_tiled_inputs():
    # `make run`'s distributed lines: examples/lra.py's own function on row tiles
    done, _ = launch(2, sys.executable, str(ROOT / "examples" / "lra.py"), "--tiled",
                     "--samples", "3000", "--features", "8", "--iterations", "5",
                     "--warmup", "0", "--repeat", "1", timeout=120, OPENBLAS_NUM_THREADS="1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tiled by rows over 2 localities" in done.stdout
    assert "weights agree: True" in done.stdout and done.stdout.count("accuracy:") == 1
