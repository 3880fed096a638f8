"""A bad input on one rank ends the job within seconds (issue 28 "Bad input", rule 3).

``programs/bad_input.py CASE 1``: rank 1 alone passes a bad argument (an axis out of
range, a plain operand of another shape, an index past the end, a bad batch) at some
point of a program, or raises, or calls ``sys.exit(3)`` between two phylanx calls.
Every case must end the job with its status (3 for the exit, else 1) and one located
message (the line marked ``# fails: CASE``; for the exit, the line where the others
wait for the rank that left), in about the time of a clean run: each case's job is
timed against one job running every case without a bad rank (``several.py``), which
also checks each case's answer against NumPy.  Before, ``var``, ``std``, ``sum`` over
the split axis, ``x.T @ r``, a global index, and the reductions in loops waited 60 s
(``collective_timeout``): the failing rank asked the others how the evaluation ended
while they waited in its collective, which it never called.  Each case is a launch
of its own (it ends its job): 2 ranks for every case, 3 for those where two ranks wait,
and ``var`` failing on ranks 0 and 1 of 3 (both end the job: rank 0's message only), or
on ranks 1 and 2 (rank 1's only: rank 2 learns that rank 1 failed, though rank 0, which
it asks first, waits in their collective).  (``xtr`` and ``index`` on 3 ranks, stuck in
the same all_gather as ``var``, are no path of their own.)
"""
from __future__ import annotations

import functools
import re
import sys
import time

import pytest

from .test_mpi import PROGRAMS, launch, several

pytestmark = pytest.mark.mpi

PROGRAM = PROGRAMS / "bad_input.py"
SOURCE = PROGRAM.read_text().splitlines()
CASES = ("sum", "amax", "var", "std", "xtr", "dot", "fetch", "index", "fallback", "started",
         "for", "while", "fit", "raise", "exit")
#: on 3 ranks too: two ranks wait for the failing one (as it leaves), or defer to rank 0's
#: report of an agreed error; two ranks wait in its collective in ``var`` below
ON_THREE = ("fit", "exit")
#: the rank that exits is told as having left by the others, at the sum they wait in
#: (``failed_exit_grace`` long: it would report itself after 5 s of a loaded machine)
ENV = dict(PHYLANX_FAILED_EXIT_GRACE="30", OPENBLAS_NUM_THREADS="1")


def _line(case: str) -> int:
    marker = f"# fails: {'sum' if case == 'exit' else case}"
    return next(i for i, text in enumerate(SOURCE, 1) if marker in text)


@functools.cache
def clean(k: int) -> float:
    """Seconds of one job running every case with no bad rank (each checks its answer)."""
    start = time.monotonic()
    done = several(k, *[("bad_input.py", case, "-1") for case in CASES], timeout=240, **ENV)
    elapsed = time.monotonic() - start
    finished = re.findall(r"DONE bad_input\.py (\d+)\.", done.stdout)
    assert done.returncode == 0 and len(finished) == k * len(CASES), done.stdout + done.stderr
    return elapsed


@pytest.mark.parametrize("case, k, bad", [(c, 2, "1") for c in CASES] +
                         [(c, 3, "1") for c in ON_THREE] +
                         [("var", 3, "0,1"), ("var", 3, "1,2")])
def test_a_bad_input_on_one_rank_ends_the_job_fast_with_one_located_message(case, k, bad):
    reference = clean(k)
    # (a collective waiting for the failing rank would wait 300 s: past the launch's
    # timeout, however slow the clean job was on a loaded machine)
    done, elapsed = launch(k, sys.executable, str(PROGRAM), case, bad, timeout=150,
                           PHYLANX_COLLECTIVE_TIMEOUT="300", **ENV)
    output = done.stdout + done.stderr
    assert done.returncode == (3 if case == "exit" else 1), output
    assert "OK 1" not in done.stdout, output
    assert elapsed < reference + 10, (elapsed, reference, output)
    reports = {re.sub(r"^\[rank \d+\] ", "", text) for text in output.splitlines()
               if text.startswith("[rank ") and "Traceback" not in text}
    assert len(reports) == 1, output
    assert next(iter(reports)).startswith(f"{PROGRAM}:{_line(case)}:"), output
