"""Rewordings of loop programs that must not lose the compiled loop (issue 27 item 1).

``REWORDINGS`` lists ``(name, original, reworded, make_data)``: two plain NumPy functions
computing the same thing, written differently (a helper ``def``, float32 data, ``+=``,
``while`` with a counter and a compound condition), and ``make_data(quick)`` giving
their arguments.  ``benchmarks/loops_phrasing.py`` times each pair side by side;
``benchmarks/phrasing.py`` (W1/W2 rewordings) can import this list too.
"""
from __future__ import annotations

import numpy as np

from .w1_lra import data as lra_data
from .w1_lra import lra


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lra_helper(x, y, alpha, iterations):
    """W1 with the sigmoid in a module-level helper."""
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        pred = sigmoid(x @ w)
        w = w - alpha * (x.T @ (pred - y))
    return w


def lra_nested_helper(x, y, alpha, iterations):
    """W1 with the sigmoid and the step in nested helpers."""
    def sig(z):
        return 1.0 / (1.0 + np.exp(-z))

    def step(w, g):
        return w - alpha * g
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        w = step(w, x.T @ (sig(x @ w) - y))
    return w


def lra_while(x, y, alpha, iterations):
    """W1 as a ``while`` loop with a counter and ``-=``."""
    w = np.zeros(x.shape[1])
    i = 0
    while i < iterations:
        pred = 1.0 / (1.0 + np.exp(-(x @ w)))
        w -= alpha * (x.T @ (pred - y))
        i += 1
    return w


def cg_for(a, b, tol, maxit):
    """Conjugate gradient as a counted ``for`` loop (the original)."""
    x = np.zeros(b.shape[0])
    r = b - a @ x
    p = r
    rr = np.dot(r, r)
    for _ in range(maxit):
        ap = a @ p
        alpha = rr / np.dot(p, ap)
        x = x + alpha * p
        r = r - alpha * ap
        rr_new = np.dot(r, r)
        p = r + (rr_new / rr) * p
        rr = rr_new
    return x


def cg_while(a, b, tol, maxit):
    """The same with ``while i < maxit and rr > tol`` and ``+=``/``-=`` (the tolerance is
    below what the iterations reach: both run ``maxit`` iterations)."""
    x = np.zeros(b.shape[0])
    r = b - a @ x
    p = r.copy()
    rr = np.dot(r, r)
    i = 0
    while i < maxit and rr > tol:
        ap = a @ p
        alpha = rr / np.dot(p, ap)
        x += alpha * p
        r -= alpha * ap
        rr_new = np.dot(r, r)
        p = r + (rr_new / rr) * p
        rr = rr_new
        i += 1
    return x


def _lra_args(quick: bool, dtype=np.float64) -> tuple:
    x, y, _ = lra_data(569, 30, sklearn_ok=True)
    return x.astype(dtype), y.astype(dtype), 1e-3, 150 if quick else 750


def _cg_args(quick: bool) -> tuple:
    rng = np.random.default_rng(3)
    n = 200
    m = rng.normal(size=(n, n))
    # well conditioned but not too fast: maxit iterations stay above the tolerance
    a = m @ m.T / n + 0.1 * np.eye(n)
    return a, rng.normal(size=n), 1e-300, 20 if quick else 60


def _lra_float32(quick: bool) -> tuple:
    return _lra_args(quick, np.float32)


#: (name, original, reworded, make_data(quick) -> (original's args, reworded's args))
REWORDINGS = [
    ("W1 small: sigmoid in a module-level helper", lra, lra_helper,
     lambda quick: (_lra_args(quick),) * 2),
    ("W1 small: nested helpers for the sigmoid and the step", lra, lra_nested_helper,
     lambda quick: (_lra_args(quick),) * 2),
    ("W1 small: float32 data", lra, lra,
     lambda quick: (_lra_args(quick), _lra_float32(quick))),
    ("W1 small: while + counter + -=", lra, lra_while,
     lambda quick: (_lra_args(quick),) * 2),
    ("CG 200x200: while i < maxit and rr > tol, +=", cg_for, cg_while,
     lambda quick: (_cg_args(quick),) * 2),
]
