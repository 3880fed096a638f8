"""Interrupts in the MPI machinery leave no future pending and no thread dead (issue 27 item 7).

A ``KeyboardInterrupt``, ``SystemExit`` or other ``BaseException`` raised by user code
that the communication machinery runs (a reduction function, a done-callback of a
future it completes) must not be stored in a future, must not leave another future
pending, and must not end the progress or service thread silently
(``phylanx/distributed/interrupts.py``).  Single process: the machinery is driven
directly, with the MPI parts faked.  Every wait has a timeout, so a future left
pending fails the test instead of hanging it.
"""
from __future__ import annotations

import collections
import pickle
import threading
import time
import types

import pytest

from phylanx.distributed import active_messages, progress
from phylanx.distributed.active_messages import REPLY, REQUEST, Service
from phylanx.distributed.mpi_locality import MPILocality
from phylanx.distributed.progress import ProgressEngine
from phylanx.runtime import cancel
from phylanx.runtime.cancel import CancelledError, close_token, open_token
from phylanx.runtime.futures import Future, FutureTimeoutError


class _Stop(BaseException):
    """A BaseException that is neither KeyboardInterrupt nor SystemExit."""


KINDS = [SystemExit, _Stop, KeyboardInterrupt]


def _raise_system_exit(done: Future) -> None:
    raise SystemExit("a callback")


def _error_of(future: Future) -> BaseException | None:
    try:
        return future.exception(timeout=2)
    except FutureTimeoutError:
        pytest.fail("the future stayed pending")


@pytest.fixture
def scope():
    """An open cancellation scope (a KeyboardInterrupt must cancel it), closed after."""
    token = open_token(None)
    yield token
    close_token(token)
    assert cancel.current() is None


# -- the reduction fold (mpi_locality._custom_reduce) ------------------------------------

def _custom_reduce(op, root=None):
    gathered = Future()
    collectives = types.SimpleNamespace(all_gather=lambda value, name, where: gathered,
                                        gather=lambda value, root, name, where: gathered)
    fake = types.SimpleNamespace(collectives=collectives)
    return gathered, MPILocality._custom_reduce(fake, 1.0, op, "r", None, root)


@pytest.mark.parametrize("kind", KINDS)
def test_an_interrupt_in_the_reduction_function_is_not_stored(kind, scope):
    def op(a, b):
        raise kind("stop")

    gathered, result = _custom_reduce(op)
    with pytest.raises(kind):           # goes on in the thread that completed the gather
        gathered.set_result([1.0, 2.0])
    error = _error_of(result)
    assert isinstance(error, CancelledError) and isinstance(error.cause, kind)
    assert isinstance(scope.reason(), KeyboardInterrupt) == (kind is KeyboardInterrupt)


def test_the_fold_still_folds_and_locates_errors():
    gathered, result = _custom_reduce(lambda a, b: a * 10 + b)
    gathered.set_result([1, 2, 3])
    assert result.result(timeout=2) == 123
    gathered, result = _custom_reduce(lambda a, b: a / 0)
    gathered.set_result([1, 2])
    assert "reduction function <lambda> failed: ZeroDivisionError" in str(_error_of(result))
    gathered, result = _custom_reduce(lambda a, b: a + b, root=0)
    gathered.set_result(None)                 # reduce: not the root
    assert result.result(timeout=2) is None


# -- the progress engine -------------------------------------------------------------

@pytest.fixture
def engine(monkeypatch):
    monkeypatch.setattr(progress, "_register_progress", lambda engine: lambda: None)
    yield ProgressEngine()


@pytest.mark.parametrize("kind", KINDS)
def test_an_interrupt_in_an_operation_fails_its_future_with_cancelled(kind, engine, scope):
    finished = []

    def operation():
        raise kind("stop")
        yield  # pragma: no cover - a generator

    running = engine.track(5.0, lambda: RuntimeError("late"), on_finish=finished.append)
    with pytest.raises(kind):
        engine.run(running, operation())
    error = _error_of(running.future)
    assert isinstance(error, CancelledError) and isinstance(error.cause, kind)
    assert finished == [running] and engine.outstanding() == 0


def test_a_callback_interrupt_still_finishes_the_operation_and_its_neighbours(engine):
    # two operations time out in one poll; a done-callback of the first raises
    late = [engine.track(0.0, lambda: RuntimeError("timed out")) for _ in range(2)]
    late[0].future.add_done_callback(_raise_system_exit)
    time.sleep(0.01)
    with pytest.raises(SystemExit):
        engine.poll()
    for running in late:
        assert "timed out" in str(_error_of(running.future))
    assert engine.outstanding() == 0         # on_finish bookkeeping ran for both


@pytest.mark.parametrize("kind", KINDS)
def test_the_progress_thread_reports_an_interrupt_and_goes_on(kind, capfd):
    calls = []

    def poll():
        calls.append(1)
        if len(calls) == 1:
            raise kind("from a callback")
        return False

    class Engine:       # what the thread uses of a ProgressEngine: requests in flight
        busy = staticmethod(lambda: True)
        driven = staticmethod(lambda: False)        # and no waiter driving them
        check_deadlines = staticmethod(lambda: None)
        posts = 0                                   # (idle only: never asked here)
        doze = staticmethod(lambda longest: None)
        wake = staticmethod(lambda: None)

    Engine.poll = staticmethod(poll)
    stop = progress._start_polling_thread(Engine())
    try:
        deadline = time.monotonic() + 10
        while len(calls) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        stop()
    assert len(calls) >= 3, "the progress thread died"
    err = capfd.readouterr().err
    assert f"{kind.__name__}: from a callback" in err and "phylanx-mpi-progress" in err
    assert "test_interrupts.py:" in err      # located


# -- the active-message service ------------------------------------------------------

def _service(sent: list) -> Service:
    """A service without MPI and without its thread: ``_send`` records messages."""
    service = Service.__new__(Service)
    service.rank, service.size = 0, 2
    service.functions, service.arrays = {}, {}
    service.left, service.gone = set(), set()
    service.on_left = None
    service._leaving = False
    service._pending = {}
    service._lock = threading.Lock()
    service._registered = threading.Condition()
    service._send = lambda message, target, tag: sent.append((message, target, tag))
    return service


def test_a_callback_interrupt_leaves_no_request_pending_when_a_rank_goes():
    service = _service([])
    left = []
    service.on_left = lambda rank, status, started: left.append(rank)
    futures = [Future() for _ in range(3)]
    for i, future in enumerate(futures):
        service._pending[i] = (future, time.monotonic() + 60, 1, f"run_on(1, f{i})", None)
    futures[0].add_done_callback(_raise_system_exit)
    with pytest.raises(SystemExit):
        service._departed(1, 0, {}, gone=True)
    for future in futures:
        assert "has finished and stopped serving" in str(_error_of(future))
    assert left == [1]                  # the collectives heard of it too


def test_a_callback_interrupt_leaves_no_request_pending_when_requests_expire():
    service = _service([])
    futures = [Future() for _ in range(3)]
    for i, future in enumerate(futures):
        service._pending[i] = (future, 0.0, 1, f"run_on(1, f{i})", None)
    futures[0].add_done_callback(_raise_system_exit)
    with pytest.raises(SystemExit):
        service._expire(time.monotonic())
    for future in futures:
        assert "did not answer within" in str(_error_of(future))


def _exits(code):
    raise SystemExit(code)


def test_a_remote_call_raising_an_interrupt_answers_and_is_reported(capfd):
    sent = []
    service = _service(sent)
    payload = pickle.dumps((_exits, (3,)))
    service._dispatch(1, REQUEST, (7, "run_on(0, _exits)", payload))
    deadline = time.monotonic() + 10
    while not sent and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sent == [((7, False, "SystemExit: 3"), 1, REPLY)]   # the requester knows
    deadline = time.monotonic() + 10
    err = ""
    while "SystemExit: 3" not in err and time.monotonic() < deadline:
        time.sleep(0.01)
        err += capfd.readouterr().err
    assert "SystemExit: 3" in err and "phylanx-mpi-remote-call" in err


class _FakeMPI:
    """What the service loop asks of mpi4py, for a loop without MPI."""

    ANY_SOURCE = ANY_TAG = -1

    class Status:
        def Get_source(self):  # noqa: N802
            return 1

        def Get_tag(self):  # noqa: N802
            return REPLY

    class Request:
        @staticmethod
        def Testsome(requests):  # noqa: N802
            return []


class _Message:
    def __init__(self, data):
        self.data = data

    def recv(self):
        return self.data


def test_the_service_loop_survives_a_callback_interrupt(monkeypatch, capfd):
    monkeypatch.setattr(active_messages, "MPI", lambda: _FakeMPI)
    replied, late = Future(), Future()
    replied.add_done_callback(_raise_system_exit)
    messages = [_Message((1, True, "value"))]
    comm = types.SimpleNamespace(improbe=lambda *a: messages.pop() if messages else None)
    service = _service([])
    service.comm = comm
    service._pids, service._waiting = {}, lambda: False
    service._new_sends, service._sends = collections.deque(), []
    service._stopping = threading.Event()
    service._pending[1] = (replied, time.monotonic() + 60, 1, "run_on(1, f)", None)
    service._pending[2] = (late, time.monotonic() + 0.2, 1, "run_on(1, g)", None)
    thread = threading.Thread(target=service._loop, name="phylanx-mpi-service", daemon=True)
    thread.start()
    try:
        assert replied.result(timeout=5) == "value"
        # the loop went on after the callback's SystemExit: the late request expires
        assert "did not answer within" in str(_error_of(late))
        assert thread.is_alive()
    finally:
        service._stopping.set()
        thread.join(5)
    assert "SystemExit: a callback" in capfd.readouterr().err
