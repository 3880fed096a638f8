"""What each equation sends between the ranks, known before running (issue 28 item 2).

The specialised IR marks every equation with a tiled operand with its ``comm``
parameter, decided from the layouts by the functions the distribution rules decide with
(``distributed/layout_facts.py``): in one process on simulated layouts of two ranks,
``x.T @ r`` of row-tiled arrays sums partial products (``all_gather``) in every spelling
and dtype, ``x @ w`` and element-wise work on alike tiles send nothing, a differently
tiled operand is fetched, a reduction over the split axis gathers partials, a primitive
without a rule gathers every tile; the bytes moved (``moved``) are what the fetches and
gathers move; the text prints and parses back. That the marks are the collectives the
run starts, on 1, 2 and 3 ranks: ``test_layout_facts.py`` (its program counts them).
Under ``mpiexec -n 2`` (``programs/comm_facts.py``, one launch): ranks reaching one
operation from different sites of the plan fail, each located at its own, and stay in
step; two statements (``g = x.T @ y``, ``m = np.sum(y * y)``) start their collectives,
which wait for a late rank, the local work runs while they are in flight and they are
waited for after it, on one thread, as the timeline recorder of ``phylanx trace``
shows (failed before ``runtime/started.py``; before, the statements' overlap took a
second thread once the policy had measured them: that check is replaced by this one);
ranks whose started statements differ in site fail at the wait, located at their own
(a guard: the blocking collective failed there too), and a statement failing between a
start and its join raises its own error, the ranks in step after it (a guard).
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.distributed.darray import DistributedArray
from phylanx.distributed.tiles import Layout
from phylanx.ir.specialise import signature_of
from phylanx.ir.text import parse, renumbered, show

from .test_mpi import assert_all_ok, program

ROWS = [((0, 3), (0, 4)), ((3, 6), (0, 4))]           # a 6 x 4 array, row blocks
COLUMNS = [((0, 6), (0, 2)), ((0, 6), (2, 4))]


def _tiled(boxes, shape=(6, 4), dtype="float64"):
    return DistributedArray(np.zeros(0, dtype), Layout(boxes, shape, None), "s")


@Phylanx
def gram_at(x, r):
    return x.T @ r


@Phylanx
def gram_dot(x, r):
    return np.dot(x.T, r)


@Phylanx
def gram_method(x, r):
    return x.T.dot(r)


def _transposed(x):
    return np.transpose(x)


@Phylanx
def gram_helper(x, r):
    return _transposed(x) @ r


@Phylanx
def rows_times(x, w):
    return x @ w


@Phylanx
def added(x, y):
    return x + y * 2.0


@Phylanx
def column_sums(x):
    return np.sum(x, axis=0)


@Phylanx
def row_sums(x):
    return np.sum(x, axis=1)


def _comms(fn, *args):
    """``{primitive: comm}`` of the equations of ``fn`` specialised for ``args``."""
    return {e.prim: e.param("comm") for e in fn.ir_function(signature_of(args)).eqns}


@pytest.mark.parametrize("dtype", ("float64", "float32"))
@pytest.mark.parametrize("gram", (gram_at, gram_dot, gram_method, gram_helper))
def test_a_gram_product_of_row_tiled_arrays_gathers_partial_products(gram, dtype):
    x, r = _tiled(ROWS, dtype=dtype), _tiled(ROWS, dtype=dtype)
    comms = _comms(gram, x, r)
    assert comms["dot_general"] == "all_gather"
    assert comms["transpose"] == "none"
    assert 'comm="all_gather"' in gram.ir(x, r)


def test_work_on_each_rank_s_own_tile_sends_nothing_and_other_tiles_are_fetched():
    x, w = _tiled(ROWS), np.ones((4, 2))
    assert _comms(rows_times, x, w)["dot_general"] == "none"
    assert set(_comms(added, x, _tiled(ROWS)).values()) == {"none"}
    assert _comms(added, x, _tiled(COLUMNS))["__add"] == "fetch"
    assert _comms(column_sums, x)["sum"] == "all_gather"
    assert _comms(row_sums, x)["sum"] == "none"
    # a row-tiled lhs times a column-tiled rhs: the general product
    assert _comms(rows_times, x, _tiled(COLUMNS, (4, 6)))["dot_general"] == "dot_d"


def _mask(box, shape):
    m = np.zeros(shape, bool)
    m[tuple(slice(*span) for span in box)] = True
    return m


def test_the_bytes_moved_are_those_the_fetches_and_the_gathers_move():
    x, y = _tiled(ROWS), _tiled(COLUMNS)
    eqn, = added.ir_function(signature_of((x, y))).eqns[1:]       # x + (y * 2.0)
    # the driver is x (a tie: the first): each rank reads the rows of its x tile from
    # the columns of y the other rank owns
    lacking = sum(int((_mask(rows, (6, 4)) & ~_mask(mine, (6, 4))).sum())
                  for rows, mine in zip(ROWS, COLUMNS))
    assert eqn.param("comm") == "fetch"
    assert eqn.param("moved") == lacking * np.dtype("float64").itemsize
    # x.T @ r: every rank receives the other's partial product (4 x 4 float32)
    gram, = [e for e in gram_at.ir_function(signature_of(
        (_tiled(ROWS, dtype="float32"), _tiled(ROWS, dtype="float32")))).eqns
        if e.prim == "dot_general"]
    partial = np.zeros((4, 4), np.float32)
    assert gram.param("moved") == 2 * 1 * partial.nbytes
    assert _comms(added, x, _tiled(ROWS)) and "moved" not in added.ir(x, _tiled(ROWS))


@Phylanx
def cumulative(x):
    return np.cumprod(x, 1)


def test_a_primitive_without_a_rule_gathers_every_tile():
    x = _tiled(ROWS)
    eqn, = cumulative.ir_function(signature_of((x,))).eqns
    assert eqn.param("comm") == "gather"
    # every rank receives the other rank's tile
    assert eqn.param("moved") == sum(int(_mask(b, (6, 4)).sum()) for b in ROWS) * 8


def test_one_tile_sends_nothing():
    whole = [((0, 6), (0, 4))]
    assert set(_comms(gram_at, _tiled(whole), _tiled(whole)).values()) == {"none"}
    assert _comms(column_sums, _tiled(whole))["sum"] == "none"


def test_the_marks_print_and_parse_back():
    fn = renumbered(gram_at.ir_function(signature_of((_tiled(ROWS), _tiled(ROWS)))))
    assert 'comm="all_gather"' in show(fn) and parse(show(fn)) == fn


@pytest.mark.mpi
def test_sites_are_told_apart_and_collectives_are_started_early_and_waited_late():
    done, _ = program(2, "comm_facts.py", timeout=300)
    assert_all_ok(done, 2)


@pytest.mark.mpi
def test_one_program_run_from_copies_at_different_paths_agrees_on_its_sites(tmp_path):
    # rank 0 runs one copy of the program, rank 1 another at another path (MPMD): the
    # same program, so every operation agrees (the file's directory made the labels
    # differ: a collective mismatch at the first reduction)
    import shutil
    import sys

    from .test_mpi import PROGRAMS, launch
    copies = []
    for node in ("node0", "node1"):
        (tmp_path / node).mkdir()
        copies.append(str(shutil.copy(PROGRAMS / "sites_anywhere.py", tmp_path / node)))
    done, _ = launch(1, sys.executable, copies[0], ":", "-n", "1", sys.executable,
                     copies[1], timeout=300)
    assert_all_ok(done, 2)


@Phylanx
def squared_column_sums(x):
    return (x ** 2).sum(axis=0)


@Phylanx
def soft(x, y):
    return np.log1p(x) + np.logaddexp(x, y)


def test_element_wise_primitives_without_a_rule_of_their_own_have_the_facts_of_tilewise():
    # (user44) power, log1p, logaddexp ... run tile by tile (darray._dispatch: an
    # element-wise kernel without a rule) but had no facts: `x ** 2` hid every later
    # equation's comm, as `(x ** 2).sum(axis=0)`'s all_gather
    x = _tiled(ROWS)
    assert _comms(squared_column_sums, x) == {"power": "none", "sum": "all_gather"}
    assert 'comm="all_gather"' in squared_column_sums.ir(x)
    comms = _comms(soft, x, _tiled(COLUMNS))
    assert comms["log1p"] == "none" and comms["logaddexp"] == "fetch"


@Phylanx
def column_medians(x):
    return np.median(x, axis=0)


def test_a_primitive_without_a_rule_called_with_keywords_gathers_every_tile_too():
    # (user44) np.median(x, axis=0) takes the gather fallback whatever its keywords,
    # but only a call without keywords said so
    eqn, = column_medians.ir_function(signature_of((_tiled(ROWS),))).eqns
    assert eqn.param("comm") == "gather"
    assert eqn.param("moved") == sum(int(_mask(b, (6, 4)).sum()) for b in ROWS) * 8
