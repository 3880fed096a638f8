"""Lockstep and agreement without MPI (issue 26 items 3, 4): every distributed primitive
is one lockstep operation; what decides an operation's end; how disagreeing ranks are
named; a tile count other than the number of localities is a located error."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.distributed import agreement as ag
from phylanx.errors import PhylanxError, PhylanxIndexError, PhylanxValueError
from phylanx.primitives.registry import all_specs


def test_every_distributed_primitive_is_a_lockstep_operation():
    tiled = [s for s in all_specs() if s.flags.get("ordered")
             and s.module.startswith("phylanx.distributed.primitives")
             and not s.module.endswith(".collectives")]
    assert len(tiled) >= 20
    missing = [s.name for s in tiled if not getattr(s.impl, "lockstep", False)]
    assert not missing, missing


def _headers(flags, seqs, lengths=None):
    headers = np.zeros((len(flags), ag.HEADER_LENGTH), np.int64)
    headers[:, ag.FLAGS] = flags
    headers[:, ag.SEQ] = seqs
    headers[:, ag.STEP] = 1
    headers[:, 7] = lengths or [0] * len(flags)
    return headers


def _messages(*texts):
    out = np.zeros((len(texts), ag.MESSAGE_BYTES), np.uint8)
    for i, t in enumerate(texts):
        out[i, :len(t)] = np.frombuffer(t, np.uint8)
    return out


def test_an_operation_ends_cleanly_only_if_every_rank_ended_it_without_error():
    end = ag.END
    assert ag.step_outcome(_headers([end, end, end], [4, 4, 4]), _messages(b"", b"", b"")) \
        is None
    # one rank failed: its class and text, naming it, on every rank
    text = ag.end_message(PhylanxIndexError("index 7 is out of bounds"))
    error = ag.step_outcome(_headers([end, end | ag.FAILED], [4, 4], [0, len(text)]),
                            _messages(b"", text))
    assert type(error) is PhylanxIndexError and error.agreed and error.step_end == 4
    assert error.message == "on locality 1: index 7 is out of bounds"
    # a rank still communicating meets the failing rank's end: the same error
    headers = _headers([0, end | ag.FAILED, 0], [4, 4, 4], [0, len(text), 0])
    error = ag.step_outcome(headers, _messages(b"", text, b""))
    assert error.message == "on locality 1: index 7 is out of bounds"
    # a Python exception travels as the PhylanxError a kernel's would become
    text = ag.end_message(ValueError("bad value"))
    error = ag.step_outcome(_headers([end | ag.FAILED, end], [2, 2], [len(text), 0]),
                            _messages(text, b""))
    assert type(error) is PhylanxValueError and "on locality 0: bad value" in error.message
    # no error, but ranks at different places: out of step, named
    for flags, seqs in (([end, 0], [3, 3]), ([end, end], [3, 4])):
        error = ag.step_outcome(_headers(flags, seqs), _messages(b"", b""))
        assert "out of step" in error.message and "rank 0" in error.message \
            and "rank 1" in error.message, error.message


def test_disagreement_names_the_ranks_of_each_value():
    assert ag.disagreement([(8, 6)] * 3, "shape") is None
    assert ag.disagreement([np.ones(2), np.ones(2)], "x") is None
    assert ag.disagreement([(8, 6), (9, 6), (8, 6)], "shape") == \
        "shape differs: ranks 0, 2: (8, 6); rank 1: (9, 6)"
    assert ag.disagreement([np.ones(2), np.ones(2, np.float32)], "x") is not None
    a = np.arange(6.0).reshape(2, 3)
    assert ag.checksum(a) == ag.checksum(a.copy()) != ag.checksum(a + 1e-12)
    assert ag.checksum(a) != ag.checksum(a.reshape(3, 2)) != ag.checksum(a.astype(np.float32))
    assert ag.checksum(a.T) == ag.checksum(np.ascontiguousarray(a.T))


@pytest.mark.parametrize("code", [
    'constant_d(1.0, list(8, 6), 0, 2, "a")',
    'random_d(list(8, 6), 0, 3)',
    'identity_d(4, 0, 2)',
])
def test_a_tile_count_other_than_the_number_of_localities_is_a_located_error(code):
    # it made an array of another shape: (4, 6) for constant_d's (8, 6)
    with pytest.raises(PhylanxError, match="numtiles .* differs from the number of "
                                           "localities") as info:
        phylanx.evaluate(code)
    assert info.value.loc is not None


def test_every_ordered_primitive_is_kept_in_program_order():
    # ORDERED was empty (the loader that filled it lost the line in a refactoring), so
    # the runtime could run dot_d(transpose_d(x), dot_d(x, v))'s operands, or overlapping
    # statements, concurrently: now and then one rank numbered its operations otherwise
    # ("ranks are out of step ... rank 0 ended operation #90; rank 1 ended operation #89"
    # in a power iteration on 2 ranks)
    from phylanx.compiler.dependencies import primitive_is_pure
    from phylanx.primitives.registry import all_specs
    from phylanx.runtime.nodes import ORDERED, Node, writes_frame
    ordered = {s.name for s in all_specs() if s.flags.get("ordered")}
    assert {"dot_d", "transpose_d", "sum_d", "all_reduce", "barrier"} <= ordered
    assert ordered <= ORDERED, sorted(ordered - ORDERED)
    for name in sorted(ordered):
        assert writes_frame(Node(name, None)), name      # never spawned beside siblings
        assert not primitive_is_pure(name), name          # never overlapped in a block


def test_a_site_id_does_not_depend_on_where_the_program_file_sits():
    # ranks running the same program from copies at different paths (node-local
    # copies, another mount point or install prefix on another host) reach the same
    # node: their operations' labels must agree (they failed with a mismatch)
    from phylanx.distributed import lockstep
    from phylanx.source import SourceLoc
    ids = []
    for where in ("/scratch/node1/job/train.py", "/home/u/job/train.py"):
        outer = lockstep.enter_site("sum", SourceLoc(where, 7, 12))
        try:
            ids.append(lockstep.site_id())
        finally:
            lockstep.leave_site(outer)
    assert ids[0] == ids[1] == "@sum:train.py:7:12"



def test_a_site_id_is_formatted_once_per_site_not_per_operation():
    from phylanx.distributed import lockstep
    from phylanx.source import SourceLoc
    outer = lockstep.enter_site("sum", SourceLoc("/a/b.py", 3, 4))
    try:
        assert lockstep.site_id() is lockstep.site_id()
    finally:
        lockstep.leave_site(outer)


def test_a_task_run_while_an_operation_waits_for_its_turn_may_not_start(monkeypatch):
    """An operation waits for its turn (``comm_order.my_turn``), where this thread may
    run an earlier task; the rule of a statement's value in start mode
    (``runtime/started.py``) may be the one waiting: that task's collectives must not
    be left in flight (a ``Started`` nobody waits for), as its operations must not carry
    the rule's plain operands or site either.  The rule itself may, after its turn."""
    from phylanx import distributed as api
    from phylanx.distributed import lockstep
    from phylanx.runtime import comm_order, started
    seen = []
    monkeypatch.setattr(api, "num_localities", lambda: 2)
    monkeypatch.setattr(comm_order, "my_turn", lambda: seen.append(started.may_start()))
    seq = lockstep._state.seq
    node = object()
    try:
        with started.startable(node):
            outer = started.enter_rule(node)
            try:
                assert started.may_start()
                with lockstep.operation("started_test", local=True):
                    assert started.may_start()
            finally:
                started.leave_rule(outer)
    finally:
        lockstep._state.seq = seq
    assert seen == [False]
    assert not started.may_start()
