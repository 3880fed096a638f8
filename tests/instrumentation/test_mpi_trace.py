"""``phylanx trace -n 2``: both ranks in one file, clocks aligned, collectives and remote
calls linked across ranks; a failing rank still leaves the trace."""
from __future__ import annotations

import pytest

from phylanx.cli.run import find_mpiexec
from phylanx.instrumentation.validate import load, problems

from .helpers import PROGRAMS, cli

pytestmark = pytest.mark.mpi


@pytest.fixture(scope="module")
def merged(tmp_path_factory):
    assert find_mpiexec(), "no mpiexec: install the mpi extra (pip install -e '.[mpi]')"
    out = tmp_path_factory.mktemp("mpi") / "trace.json"
    done = cli("trace", "-n", "2", "-o", str(out), str(PROGRAMS / "distributed.py"))
    assert done.returncode == 0, done.stdout + done.stderr
    return load(str(out), flows_paired=True)


def test_both_ranks_are_in_the_merged_trace(merged):
    assert problems(merged) == []
    other = merged["otherData"]
    assert other["ranks"] == [0, 1] and set(other["clock"]["offsets_ns"]) == {"0", "1"}
    procs = {e["pid"]: e["args"]["name"] for e in merged["traceEvents"]
             if e["ph"] == "M" and e["name"] == "process_name"}
    assert set(procs) == {0, 1} and procs[1].startswith("locality 1 (")
    for pid in (0, 1):
        assert any(e["ph"] == "X" and e["pid"] == pid for e in merged["traceEvents"])


def test_collectives_overlap_across_ranks_once_clocks_are_aligned(merged):
    spans = {}
    for e in merged["traceEvents"]:
        if e["ph"] == "X" and e["cat"] == "collective":
            spans[(e["args"]["name"], e["args"]["seq"], e["pid"])] = e
            if e["args"]["name"] == "trace_sum":
                assert e["args"]["bytes"] == 8000        # 1000 float64
    # (same host: one clock, so the estimated offset is the error of the estimate)
    assert abs(merged["otherData"]["clock"]["offsets_ns"]["1"]) < 5_000_000
    for name in ("trace_sum", "trace_gather", "trace_done"):
        a, b = spans[(name, 0, 0)], spans[(name, 0, 1)]
        # a collective completes on both ranks only after both started it
        assert a["ts"] <= b["ts"] + b["dur"] + 1000 and b["ts"] <= a["ts"] + a["dur"] + 1000


def test_flows_link_the_ranks(merged):
    starts = {e["id"]: e["pid"] for e in merged["traceEvents"] if e["ph"] == "s"}
    ends = {e["id"]: e["pid"] for e in merged["traceEvents"] if e["ph"] == "f"}
    across = [i for i in starts if starts[i] != ends[i]]
    assert len(across) >= 3 + 4     # 3 collectives (rank 1 -> 0); 2 remote calls, there and back
    remote = [e for e in merged["traceEvents"] if e["ph"] == "X" and e["cat"] == "remote"]
    assert {e["pid"] for e in remote} == {0, 1}


def test_a_failing_rank_still_leaves_the_trace(tmp_path):
    out = tmp_path / "t.json"
    done = cli("trace", "-n", "2", "-o", str(out), str(PROGRAMS / "distributed.py"), "fail")
    assert done.returncode != 0
    assert f"trace written up to the failure: {out}" in done.stderr
    data = load(str(out))
    assert "planned failure" in data["otherData"]["failed"]
    assert 1 in data["otherData"]["ranks"]
    assert not list(tmp_path.glob("t.json.rank*"))
