"""Compiled loops dispatch explicitly (phylanx/fusion/loops.py, issue 27 item 3): the
kernel runs only on operands whose kinds, layouts and shapes it takes
(``loop_types.shapes_hold``), and nothing runs the tree's loop after the kernel (or a
hoisted invariant) raised.  The oracle is the undecorated function (NumPy)."""
from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import Phylanx
from phylanx.errors import PhylanxError
from phylanx.fusion import loop_types, loops

from .test_loops import CALLS, compiled, compiled_loops, kernel_calls, lra, same  # noqa: F401

pytest.importorskip("numba")

RNG = np.random.default_rng(27)


def warmed(fn, *args):
    """``fn`` decorated, called until its compiled loop is kept for ``args``' types."""
    f = Phylanx(fn)
    for _ in range(CALLS):
        same(f(*args), fn(*args))
    assert kernel_calls(f) >= 3
    return f


@pytest.fixture
def tree_runs(monkeypatch):
    """How many times a compiled loop ran the tree's loop instead (any path)."""
    counted = []
    for cls in (loops.CompiledLoop, loops.CompiledWhile):
        original = cls.__dict__["interpret"]

        def counting(self, frame, items, _original=original):
            counted.append(self)
            return _original(self, frame, items)
        monkeypatch.setattr(cls, "interpret", counting)
    return counted


@pytest.mark.usefixtures("compiled")
def test_a_failing_kernel_is_a_located_error_and_the_tree_does_not_run(tree_runs):
    x = RNG.normal(size=(30, 4))
    y = (RNG.random(30) > 0.5).astype(float)
    f = warmed(lra, x, y, 0.1, 5)
    (loop,) = compiled_loops(f)
    entries = [e for e in loop.entries.values() if isinstance(e, loops._Entry)]
    calls = []

    def broken(*args):
        calls.append(args)
        raise ValueError("kernel bug")
    for entry in entries:
        entry.kernel = broken
    tree_runs.clear()
    with pytest.raises(PhylanxError, match="compiled loop failed: kernel bug") as err:
        f(x, y, 0.1, 5)
    assert len(calls) == 1 and tree_runs == []          # no second implementation
    assert err.value.loc is not None and err.value.loc.line > 0
    # the kernel is not used again: the tree's loop from now on
    same(f(x, y, 0.1, 5), lra(x, y, 0.1, 5))
    assert len(calls) == 1


@pytest.mark.usefixtures("compiled")
def test_a_shape_the_kernel_does_not_take_never_reaches_it(tree_runs):
    x = RNG.normal(size=(20, 3))
    y = np.ones(20)
    f = warmed(lra, x, y, 0.1, 3)
    (loop,) = compiled_loops(f)
    seen = []
    for entry in (e for e in loop.entries.values() if isinstance(e, loops._Entry)):
        kernel = entry.kernel
        entry.kernel = lambda *a, _k=kernel: seen.append(a) or _k(*a)
    tree_runs.clear()
    with pytest.raises(PhylanxError) as err:
        f(x, np.ones(19), 0.1, 3)                       # pred - y: 20 against 19
    assert seen == [] and len(tree_runs) == 1
    assert err.value.loc is not None and err.value.loc.line > 0


def shifted(x, a, b, n):
    for _ in range(n):
        x = x + (a @ b) * 0.5  # reads nothing the loop binds: hoisted
    return x


@pytest.mark.usefixtures("compiled")
def test_a_failing_invariant_is_raised_once_without_the_tree(tree_runs):
    x, a, b = np.zeros(3), RNG.normal(size=(3, 2)), RNG.normal(size=2)
    f = warmed(shifted, x, a, b, 4)
    (loop,) = compiled_loops(f)
    assert loop.plan.invariants
    tree_runs.clear()
    with pytest.raises(PhylanxError) as err:
        f(x, a, RNG.normal(size=5), 4)                  # a @ b: 2 against 5
    with pytest.raises(ValueError):
        shifted(x, a, RNG.normal(size=5), 4)
    assert tree_runs == []
    assert err.value.loc is not None and err.value.loc.line > 0


def _step(inplace: bool) -> tuple:
    """The typing term of ``w = w - a * (x.T @ (x @ w - y))`` (``w -= ...`` if
    ``inplace``), as ``loop_plan`` writes it."""
    def apply(op, *terms):
        return ("apply", op, {}, op.__name__, [], *terms)
    residual = apply(operator.sub, ("dot", 1, ("var", "x"), ("var", "w")), ("var", "y"))
    made = apply(operator.sub, ("var", "w"), apply(
        operator.mul, ("var", "a"), ("dot", 2, ("transpose", ("var", "x")), residual)))
    return ("inplace", 3, ("var", "w"), made) if inplace else made


def _numpy_runs(x, y, w, inplace: bool) -> bool:
    try:
        for _ in range(4):        # shapes settle within ndim + 2 iterations
            if inplace:
                w -= 0.5 * (x.T @ (x @ w - y))
            else:
                w = w - 0.5 * (x.T @ (x @ w - y))
    except ValueError:
        return False
    return True


_dims = st.lists(st.integers(1, 3), min_size=1, max_size=2).map(tuple)


@settings(max_examples=150, deadline=None)
@given(x=st.tuples(st.integers(1, 3), st.integers(1, 3)), y=_dims, w=_dims,
       inplace=st.booleans())
def test_shapes_hold_exactly_when_numpy_runs_the_loop(x, y, w, inplace):
    """The law ``shapes_hold`` relies on: yes for the inputs' shapes exactly when NumPy
    runs every iteration of the loop without a shape error."""
    want = _numpy_runs(np.ones(x), np.ones(y), np.ones(w), inplace)
    shapes = {"x": x, "y": y, "w": w, "a": ()}
    assert loop_types.shapes_hold([("w", _step(inplace))], shapes) == want


def test_a_loop_left_to_the_tree_renders_its_source_once(monkeypatch):
    """Until its compile is due, a loop runs as the tree and weighs the time spent against
    the compile cost of its source: that source is the plan's, rendered once, not again
    by every call (four regular-expression passes over the kernel's text per call, more
    than a small loop's whole run)."""
    from phylanx import config
    from phylanx.fusion import loop_plan

    renders = []
    original = loop_plan.LoopPlan.render

    def counting(self, casts=frozenset()):
        renders.append(self)
        return original(self, casts)
    monkeypatch.setattr(loop_plan.LoopPlan, "render", counting)
    names = ("fusion_loops", "fusion_compile_cost_ms")
    for name, value in zip(names, (True, 1e9)):      # never due: the tree every call
        config.set(name, value)
    monkeypatch.setattr(loops, "MAX_NS_PER_NODE", 10**12)
    try:
        def steps(x, n):
            v = x * 1.0
            for _ in range(n):
                v = v + 0.5
            return v
        f = Phylanx(steps)
        x = RNG.normal(size=3)
        for _ in range(6):
            same(f(x, 4), steps(x, 4))
        assert len(compiled_loops(f)) == 1
    finally:
        for name in names:
            config.reset(name)
    # one render for the signature's kernel, one for the weighed source
    assert 1 <= len(renders) <= 2


@pytest.fixture
def lockstep(request, monkeypatch):
    """Several localities (``hot.in_lockstep``), and timings under which one process
    would never compile: every call "big steps", compiling never due, and in the
    background."""
    from phylanx import config
    request.getfixturevalue("compiled")
    from phylanx.fusion import hot
    monkeypatch.setattr(hot, "_ranks", [True], raising=False)
    monkeypatch.setattr(hot, "KEEP_SLOWER", False)
    monkeypatch.setattr(loops, "MAX_NS_PER_NODE", 0)
    for name, value in (("fusion_compile_cost_ms", 1e9), ("fusion_background", True)):
        config.set(name, value)


def test_with_several_ranks_a_loop_compiles_by_its_counted_work(lockstep, monkeypatch):
    from phylanx import config
    x = RNG.normal(size=(20, 3))
    y = (RNG.random(20) > 0.5).astype(float)
    f = Phylanx(lra)
    same(f(x, y, 0.1, 30), lra(x, y, 0.1, 30))
    (loop,) = compiled_loops(f)
    (work,) = loop.entries.values()                 # node evaluations, not time
    assert work == loop.nodes * 30
    monkeypatch.setattr(loops, "LOCKSTEP_WORK", 3 * work)
    config.set("fusion_loops", False)   # after compiling: the program keeps its setting
    for _ in range(2):
        same(f(x, y, 0.1, 30), lra(x, y, 0.1, 30))
    # compiled in the calling thread by the third call, checked by the fourth and kept
    # without timed runs, run by the fifth
    (entry,) = loop.entries.values()
    assert type(entry) is loops._Entry and not entry.checked
    same(f(x, y, 0.1, 30), lra(x, y, 0.1, 30))
    assert entry.checked and entry.kept and entry.timed == [[], []] and entry.calls == 0
    same(f(x, y, 0.1, 30), lra(x, y, 0.1, 30))
    assert entry.calls == 1
    # inputs past LOCKSTEP_MAX_ELEMENTS stay the tree's (the size for the timing rule)
    monkeypatch.setattr(loops, "LOCKSTEP_MAX_ELEMENTS", x.size)
    x2 = RNG.normal(size=(40, 3))
    for _ in range(3):
        same(f(x2, y[:10].repeat(4), 0.1, 30), lra(x2, y[:10].repeat(4), 0.1, 30))
    assert entry.calls == 1 and not any(type(e) is loops._Entry and e is not entry
                                        for e in loop.entries.values())


@pytest.mark.parametrize("failure", [OSError("disk full"), ValueError("no typing rule")])
def test_with_several_ranks_a_compile_failure_of_this_process_is_located(
        lockstep, monkeypatch, failure):
    """A failure of the kernel's source (the same on every rank: numba's version is
    compared at start-up) leaves the tree on every rank alike, with a warning; one of this
    process's own (an OSError: maybe this rank alone) is a located error here."""
    from phylanx.kernels import compiling
    from phylanx.kernels.compiling import FusionWarning

    def failing(*args, **kw):
        raise failure
    monkeypatch.setattr(compiling, "compile_kernel", failing)
    monkeypatch.setattr(loops, "LOCKSTEP_WORK", 1)
    x = RNG.normal(size=(20, 3))
    y = (RNG.random(20) > 0.5).astype(float)
    f = Phylanx(lra)
    if isinstance(failure, OSError):
        with pytest.raises(PhylanxError, match="could not compile the loop here "
                           r"\(OSError: disk full\)") as err:
            f(x, y, 0.1, 5)
        assert err.value.loc is not None and err.value.loc.line > 0
    else:
        with pytest.warns(FusionWarning, match="could not compile the loop"):
            same(f(x, y, 0.1, 5), lra(x, y, 0.1, 5))
    same(f(x, y, 0.1, 5), lra(x, y, 0.1, 5))          # the tree from now on
    (loop,) = compiled_loops(f)
    assert list(loop.entries.values()) == [loops._REJECTED]
