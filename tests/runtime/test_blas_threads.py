"""BLAS threads shared with concurrent tasks (runtime/blas_threads.py).

The oracle is the count threadpoolctl reports before the test: inside a group of ``k``
concurrent pieces BLAS has ``max(1, before // k)`` threads, and ``before`` again after.
"""
from __future__ import annotations

import pytest

from phylanx import config
from phylanx.runtime import blas_threads
from phylanx.runtime.forkjoin import fork_join

threadpoolctl = pytest.importorskip("threadpoolctl")


@pytest.fixture
def two_blas_threads():
    """BLAS at 2 threads for the test (so halving is visible on any machine), then back."""
    if blas_threads.current() is None:
        pytest.skip("no BLAS library that threadpoolctl controls")
    with threadpoolctl.threadpool_limits(limits=None):
        before = blas_threads.current()
        blas_threads._set(2)
        yield 2
        blas_threads._set(before)


def test_a_group_shares_the_cores_and_restores(two_blas_threads):
    with blas_threads.sharing(2):
        assert blas_threads.current() == 1
        with blas_threads.sharing(3):          # nested: 1 + 1 + 2 pieces
            assert blas_threads.current() == 1
    assert blas_threads.current() == 2
    with blas_threads.sharing(1):              # one piece: nothing to share
        assert blas_threads.current() == 2


def test_fork_join_pieces_run_with_shared_blas(two_blas_threads):
    seen = fork_join([blas_threads.current, blas_threads.current], share_blas=True)
    assert seen == [1, 1]
    assert blas_threads.current() == 2


def test_unlike_pieces_keep_every_blas_thread(two_blas_threads):
    """Statements and operands run concurrently keep BLAS's threads: a large product
    beside a small one would otherwise run on one thread after the small one ended."""
    assert fork_join([blas_threads.current, blas_threads.current]) == [2, 2]


def test_the_count_is_restored_after_an_error(two_blas_threads):
    def boom():
        raise ValueError("boom")
    with pytest.raises(ValueError):
        fork_join([blas_threads.current, boom], share_blas=True)
    assert blas_threads.current() == 2


def test_a_fixed_count_is_never_changed(two_blas_threads):
    config.set("blas_threads", 1)
    try:
        blas_threads.configure()
        assert blas_threads.current() == 1
        assert fork_join([blas_threads.current, blas_threads.current]) == [1, 1]
        blas_threads._set(2)
        with blas_threads.sharing(2):          # fixed: sharing leaves BLAS alone
            assert blas_threads.current() == 2
    finally:
        config.reset("blas_threads")


def test_one_per_rank(two_blas_threads):
    blas_threads.one_per_rank()
    assert blas_threads.current() == 1
    with blas_threads.sharing(2):
        assert blas_threads.current() == 1
    assert blas_threads.current() == 1


def test_any_thread_can_share(two_blas_threads):
    """threadpoolctl lets only the first thread that set OpenBLAS change it again; the
    runtime's groups start on any thread (pool workers, user threads)."""
    import threading
    seen = []
    thread = threading.Thread(
        target=lambda: seen.append(fork_join([blas_threads.current, blas_threads.current],
                                             share_blas=True)))
    thread.start()
    thread.join(timeout=30)
    assert seen == [[1, 1]]
    assert blas_threads.current() == 2


def test_a_library_loaded_later_is_taken_in_at_the_count_in_force(two_blas_threads,
                                                                   monkeypatch):
    counts = {"old": 2, "new": 7}

    def calls(name):
        return (lambda: counts[name]), (lambda n: counts.__setitem__(name, n))
    def controllers():             # what threadpoolctl finds once SciPy's BLAS is loaded
        if blas_threads._blas is None:
            blas_threads._blas = [calls("old"), calls("new")]
        return blas_threads._blas
    monkeypatch.setattr(blas_threads, "_blas", [calls("old")])
    monkeypatch.setattr(blas_threads, "_controllers", controllers)
    blas_threads.include_loaded_libraries()
    assert counts == {"old": 2, "new": 2}
    assert len(blas_threads._blas) == 2
