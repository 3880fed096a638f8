"""The tape of ``grad`` and the Python globals of a ``@Phylanx`` call are per evaluation.

Each test makes calls overlap for sure: the differentiated (or called) function meets
the other threads' calls at a ``threading.Barrier`` (a Python callable passed as an
argument), so every call is in the middle of its evaluation at the same time.  Before,
the tape was process-global behind a lock (a second ``grad`` waited for the first, which
waited at the barrier: the barrier broke) and the globals were loaded into one shared
frame (a call read the value another call had assigned).

Globals (docs/python-frontend.md): a call reads the Python globals it uses when it
starts and sees its own assignments; a ``global`` statement's assignment is written to
the module when the call returns (the last call to return wins).  For calls that do not
overlap this is Python's semantics; overlapping calls are isolated from each other.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

from phylanx import Phylanx
from phylanx.autodiff import grad

from .helpers import assert_grad_close, numeric_grad

TIMEOUT = 60        # seconds a call waits for the others at the barrier (loaded machine)
_barrier = threading.Barrier(1)


class Meet:
    """A Python callable the functions below call: waits for the other calls."""

    def __call__(self) -> float:
        _barrier.wait()
        return 1.0


meet = Meet()


def _in_threads(calls: list) -> list:
    """Run the thunks ``calls`` at once, one Python thread each; their results."""
    global _barrier
    _barrier = threading.Barrier(len(calls), timeout=TIMEOUT)
    results: list = [None] * len(calls)
    errors: list = []

    def run(i):
        try:
            results[i] = calls[i]()
        except BaseException as e:       # reported below, with the thread's index
            errors.append((i, e))
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(2 * TIMEOUT)
    assert not any(t.is_alive() for t in threads), "a call did not finish"
    assert not errors, errors
    return results


def _sine_loss(x, cb):
    return np.sum(np.sin(x) * x) * cb()


def _cubic_loss(x, w, cb):
    return np.sum((x @ w) ** 3) * cb()


sine_loss = Phylanx(_sine_loss)
cubic_loss = Phylanx(_cubic_loss)


def _plain_sine(x):
    return np.sum(np.sin(x) * x)


def _plain_cubic(x, w):
    return np.sum((x @ w) ** 3)


def test_concurrent_grads_of_different_functions():
    rng = np.random.default_rng(0)
    x, xm, w = rng.standard_normal(5), rng.standard_normal((3, 4)), rng.standard_normal(4)
    got = _in_threads([lambda: grad(sine_loss)(x, meet),
                       lambda: grad(cubic_loss, argnums=(0, 1))(xm, w, meet)])
    assert_grad_close(got[0], numeric_grad(_plain_sine, [x]))
    assert_grad_close(got[1][0], numeric_grad(_plain_cubic, [xm, w], 0))
    assert_grad_close(got[1][1], numeric_grad(_plain_cubic, [xm, w], 1))


def test_concurrent_grads_of_one_function_with_different_inputs():
    inputs = [np.random.default_rng(seed).standard_normal(4 + seed) for seed in range(3)]
    got = _in_threads([lambda x=x: grad(sine_loss)(x, meet) for x in inputs])
    for x, g in zip(inputs, got):
        assert_grad_close(g, numeric_grad(_plain_sine, [x]))


last_assigned = 0.0
offset = 0.5


def _assigns_a_global(v, cb):
    global last_assigned
    last_assigned = v * 3.0
    k = cb()                      # every call has assigned before any reads it back
    return last_assigned * k + offset


assigns_a_global = Phylanx(_assigns_a_global)


def test_concurrent_calls_each_see_their_own_globals():
    values = [1.0, 2.0, 5.0]
    got = _in_threads([lambda v=v: assigns_a_global(v, meet) for v in values])
    assert got == [v * 3.0 + offset for v in values]
    # each call's assignment reached the module when it returned: one of them is last
    assert sys.modules[__name__].last_assigned in [v * 3.0 for v in values]


def one() -> float:
    return 1.0


def test_a_call_sees_the_globals_as_they_are_when_it_starts():
    global offset
    try:
        offset = 1.5
        assert assigns_a_global(2.0, one) == 7.5 and last_assigned == 6.0
        offset = -1.0
        assert assigns_a_global(1.0, one) == 2.0 and last_assigned == 3.0
    finally:
        offset = 0.5


def test_grad_of_a_function_assigning_a_global_writes_it_back():
    global last_assigned
    last_assigned = 0.0
    x = np.float64(2.0)
    assert grad(assigns_a_global)(x, one) == 3.0
    assert last_assigned == 6.0


def test_a_lazy_variable_of_the_function_assigns_the_modules_global():
    """Evaluated by itself (no call loaded its globals), it reads and assigns a global
    it assigns in the module (was: in the shared frame, never written back)."""
    global last_assigned
    last_assigned = -7.0
    assert assigns_a_global.lazy().eval(1.0, one) == 3.0 + offset
    assert last_assigned == 3.0
