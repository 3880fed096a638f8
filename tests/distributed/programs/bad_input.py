"""A bad input on one rank ends the job fast: ``bad_input.py CASE BAD``.

Issue 28, "Bad input", and the guide's rule 3: a rank-dependent bad argument (an
axis out of range, a plain operand of another shape, an index past the end, a bad
batch) on rank ``BAD`` alone, at some point of a program, must end the job within
seconds with one located message (the line marked ``# fails: CASE``, or for a rank
that leaves, the line the others wait at), never hang in a collective until its
timeout (``var`` waited 60 s: the failing rank asked the others how the evaluation
ended while they waited in its all_gather, which it never called).  ``BAD``: a rank,
or several (``0,1``: each failing rank is told the others wait; one message).  -1:
no rank is bad, every case runs to its end and checks its answer against NumPy
(``test_bad_input_mpi.py`` times that clean run as the reference).

CASE: ``sum`` (a reduction over the split axis: a collective), ``amax`` (over the
whole axis: no message), ``var``, ``std``, ``xtr`` (``x.T @ r``, ``r`` plain: the
partial products are summed), ``dot`` (``dot_d`` of row tiles and a plain
matrix), ``fetch`` (an element-wise operation of differently tiled
arrays with a plain operand), ``index`` (a global index past the end), ``fallback``
(a primitive without a rule: gathered), ``started`` (a reduction whose collective a
statement starts and a later one waits for, ``runtime/started.py``), ``for`` and
``while`` (in a loop, at its third iteration), ``fit`` (data-parallel ``fit``, the
labels of another length on one rank), ``raise`` and ``exit`` (a Python exception, a
``sys.exit(3)`` between two phylanx calls).  Prints ``OK <rank>`` when it returns.
"""
import sys

import numpy as np

from phylanx import Phylanx
from phylanx import distributed as dist

case, bad = sys.argv[1], {int(r) for r in sys.argv[2].split(",")}
rank = dist.find_here()
odd = rank in bad
A = np.arange(24.0).reshape(6, 4)
x = dist.tiled(A, "row", name="x")


def agree(got, want):
    got = got.gather() if hasattr(got, "gather") else got
    np.testing.assert_allclose(np.asarray(got), want, err_msg=case)


def along(x, a):
    return np.sum(x, axis=a)        # fails: sum


def widest(x, a):
    return np.amax(x, axis=a)       # fails: amax


def variance(x, a):
    return np.var(x, axis=a)        # fails: var


def spread(x, a):
    return np.std(x, axis=a)        # fails: std


def xtr(x, r):
    return x.T @ r                  # fails: xtr


def dotted(x, y):
    return dot_d(x, y)              # fails: dot  # noqa: F821 - a PhySL primitive


def mixed(x, z, w):
    return x + z * w                # fails: fetch


def pick(x, i):
    return x[i]                     # fails: index


def flipped(x, a):
    return np.flip(x, axis=a)       # fails: fallback


def started(x, a, w):
    s = np.sum(x, axis=a)           # fails: started
    z = w * 2.0
    q = z + 1.0
    return s + q


def looped(x, a):
    acc = np.zeros(4)
    for i in range(4):
        ax = 0
        if i == 2:
            ax = a
        acc = acc + np.sum(x, axis=ax)  # fails: for
    return acc


def repeated(x, a):
    acc = np.zeros(4)
    i = 0
    while i < 4:
        ax = 0
        if i == 2:
            ax = a
        acc = acc + np.sum(x, axis=ax)  # fails: while
        i = i + 1
    return acc


def fit():
    from phylanx import nn
    rng = np.random.default_rng(1)
    data = rng.normal(size=(16, 3)).astype(np.float32)
    labels = rng.integers(0, 2, 17 if odd else 16)
    nn.set_seed(7)
    nn.clear_session()
    m = nn.Sequential([nn.Input((3,)), nn.Dense(2, activation="softmax")])
    m.compile(optimizer=nn.SGD(0.1), loss="sparse_categorical_crossentropy")
    history = m.fit(data, labels, batch_size=8, epochs=1, verbose=0,  # fails: fit
                    distributed="data")
    assert np.isfinite(history.history["loss"]).all()


axis = 5 if odd else 0
if case in ("sum", "var", "std", "started"):
    fn = {"sum": along, "var": variance, "std": spread, "started": started}[case]
    args = (x, axis) + ((np.ones(4),) if case == "started" else ())
    want = {"sum": np.sum, "var": np.var, "std": np.std, "started": np.sum}[case](A, axis=0)
    agree(Phylanx(fn)(*args), want + (3.0 if case == "started" else 0.0))
elif case == "amax":
    agree(Phylanx(widest)(x, 5 if odd else 1), A.max(axis=1))
elif case == "xtr":
    r = np.ones((7 if odd else 6, 2))
    agree(Phylanx(xtr)(x, r), A.T @ np.ones((6, 2)))
elif case == "dot":
    w = np.ones((5 if odd else 4, 3))
    agree(Phylanx(dotted)(x, w), A @ np.ones((4, 3)))
elif case == "fetch":
    z = dist.tiled(A, "column", name="z")
    w = np.ones(5 if odd else 4)
    agree(Phylanx(mixed)(x, z, w), A + A)
elif case == "index":
    agree(Phylanx(pick)(x, 9 if odd else 4), A[4])
elif case == "fallback":
    agree(Phylanx(flipped)(x, axis), np.flip(A, axis=0))
elif case in ("for", "while"):
    fn = looped if case == "for" else repeated
    agree(Phylanx(fn)(x, axis), 4 * A.sum(axis=0))
elif case == "fit":
    fit()
elif case in ("raise", "exit"):
    f = Phylanx(along)
    agree(f(x, 0), A.sum(axis=0))
    if odd and case == "raise":
        raise ValueError(f"bad input on rank {rank}")   # fails: raise
    if odd:
        sys.exit(3)
    agree(f(x, 0), A.sum(axis=0))       # (the others wait in its sum when one exits)
else:
    raise SystemExit(f"unknown case {case!r}")
print(f"OK {rank}", flush=True)
