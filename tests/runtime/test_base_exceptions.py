"""BaseExceptions and late cancels leave no future pending and no flag raised (issue 27 item 7).

Every wait has a timeout, so a future left pending for ever fails the test instead of
hanging it.
"""
from __future__ import annotations

import threading

import pytest

from phylanx.runtime import cancel
from phylanx.runtime.cancel import PENDING, CancelledError, close_token, open_token
from phylanx.runtime.futures import Future, FutureTimeoutError


class _Stop(BaseException):
    """A BaseException that is neither KeyboardInterrupt nor SystemExit."""


def test_cancelling_a_closed_token_leaves_pending_as_it_was():
    before = PENDING[0]
    token = open_token(None)
    close_token(token)
    assert token.cancel(RuntimeError("a task failed after its group was joined"))
    assert token.reason() is not None
    assert PENDING[0] == before       # was before + 1 for ever: every hot path checked
    close_token(token)                # a second close does not lower it either
    assert PENDING[0] == before


def test_cancel_then_close_still_balances():
    before = PENDING[0]
    token = open_token(None)
    assert token.cancel(RuntimeError("x")) and not token.cancel(RuntimeError("y"))
    assert PENDING[0] == before + 1
    close_token(token)
    assert PENDING[0] == before


def test_cancel_racing_with_close_counts_once():
    before = PENDING[0]
    for _ in range(200):
        token = open_token(None)
        threads = [threading.Thread(target=close_token, args=(token,)),
                   threading.Thread(target=token.cancel, args=(RuntimeError("r"),))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=10)
        assert PENDING[0] == before


@pytest.mark.parametrize("kind", [SystemExit, _Stop])
def test_then_continuation_raising_a_base_exception_completes_its_future(kind):
    source = Future()

    def boom(done):
        raise kind("stop")

    out = source.then(boom)
    with pytest.raises(kind):              # propagates in the completing thread
        source.set_result(1)
    try:
        error = out.exception(timeout=2)
    except FutureTimeoutError:
        pytest.fail("the continuation's future stayed pending")
    assert isinstance(error, CancelledError) and isinstance(error.cause, kind)


def test_then_continuation_interrupted_cancels_open_scopes():
    source = Future()
    source.set_result(1)
    token = open_token(None)
    try:
        def interrupted(done):
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):   # already done: runs in this thread
            source.then(interrupted)
        assert isinstance(token.reason(), KeyboardInterrupt)
    finally:
        close_token(token)
    assert cancel.current() is None


@pytest.mark.parametrize("kind", [SystemExit, _Stop, KeyboardInterrupt])
def test_a_callback_interrupt_does_not_skip_the_other_callbacks(kind):
    # two continuations of one future; the first raises: the second still runs
    source = Future()

    def boom(done):
        raise kind("stop")

    first, second = source.then(boom), source.then(lambda done: done.result() + 1)
    token = open_token(None)
    try:
        with pytest.raises(kind):              # after every callback ran
            source.set_result(1)
    finally:
        close_token(token)
    try:
        assert second.result(timeout=2) == 2
    except FutureTimeoutError:
        pytest.fail("the second continuation's future stayed pending")
    assert isinstance(first.exception(timeout=2), CancelledError)
