"""Scalar loops: element reads and writes inside Python loops, ``@Phylanx`` against CPython.

    python benchmarks/scalar_loops.py [--repeat 9] [--no-translate]

Each program is plain Python/NumPy as a user writes it, run undecorated (CPython) and
decorated, alternating in one run; prints the median milliseconds per call of each, wall
and (in parentheses) CPU time of the process, and their ratios (decorated / CPython;
target <= 3, issue 27 item 5).  On a loaded machine the CPU ratio is the one to read:
a call longer than a scheduler time slice is preempted, which the wall time counts.
``--no-translate`` also times the decorated program with the setting ``scalar_loops`` off
(the tree), in the same alternation.  Results are checked equal to CPython's first.

* edit distance of two int arrays (120 x 100), ``min`` of three neighbours;
* longest common subsequence of two strings (120 x 100), ``max`` of two;
* 0/1 knapsack on Python lists (60 items, capacity 400), a descending ``range``;
* prefix sum of a float64 array (20,000 elements), ``+=`` on a scalar;
* a small matrix loop ``c[i, j] = a[i, j] + b[j]`` (100 x 100);
* fewest coins for an amount (2,000, seven coin values in a list), a float table with
  ``inf`` for "none", a condition with ``and`` over two reads;
* edit distance phrased with ``while`` loops and ``+=``, int32 inputs (120 x 100);
* Viterbi's best path score by scalar loops (``benchmarks/fresh_programs.py``).
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
from fresh_programs import viterbi_data, viterbi_scalar


def edit_distance(a, b):
    n = len(a)
    m = len(b)
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        d[i, 0] = i
    for j in range(m + 1):
        d[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[n, m]


def lcs(a, b):
    n = len(a)
    m = len(b)
    t = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                t[i, j] = t[i - 1, j - 1] + 1
            else:
                t[i, j] = max(t[i - 1, j], t[i, j - 1])
    return t[n, m]


def knapsack(weights, values, capacity):
    best = [0] * (capacity + 1)
    for k in range(len(weights)):
        w = weights[k]
        for c in range(capacity, w - 1, -1):
            cand = best[c - w] + values[k]
            if cand > best[c]:
                best[c] = cand
    return best[capacity]


def prefix_sum(x):
    out = np.empty_like(x)
    total = 0.0
    for i in range(len(x)):
        total += x[i]
        out[i] = total
    return out


def matrix_loop(a, b):
    n, m = a.shape
    c = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            c[i, j] = a[i, j] + b[j]
    return c


def fewest_coins(coins, amount):
    best = np.full(amount + 1, np.inf)
    best[0] = 0.0
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a and best[a - c] + 1.0 < best[a]:
                best[a] = best[a - c] + 1.0
    return best[amount]


def edit_distance_while(a, b):
    n = len(a)
    m = len(b)
    d = np.zeros((n + 1, m + 1))
    i = 0
    while i <= n:
        d[i, 0] = i
        i += 1
    j = 0
    while j <= m:
        d[0, j] = j
        j += 1
    i = 1
    while i <= n:
        j = 1
        while j <= m:
            if a[i - 1] == b[j - 1]:
                cost = 0.0
            else:
                cost = 1.0
            d[i, j] = min(d[i - 1, j] + 1.0, d[i, j - 1] + 1.0, d[i - 1, j - 1] + cost)
            j += 1
        i += 1
    return d[n, m]


def cases():
    rng = np.random.default_rng(0)
    letters = "ACGT"
    s1 = "".join(rng.choice(list(letters), 120))
    s2 = "".join(rng.choice(list(letters), 100))
    weights = [int(w) for w in rng.integers(1, 40, 60)]
    values = [int(v) for v in rng.integers(1, 100, 60)]
    return [
        ("edit distance 120x100", edit_distance,
         (rng.integers(0, 4, 120), rng.integers(0, 4, 100))),
        ("LCS strings 120x100", lcs, (s1, s2)),
        ("knapsack lists 60x400", knapsack, (weights, values, 400)),
        ("prefix sum 20000", prefix_sum, (rng.random(20000),)),
        ("matrix loop 100x100", matrix_loop, (rng.random((100, 100)), rng.random(100))),
        ("fewest coins 2000x7", fewest_coins, ([1, 5, 10, 25, 50, 97, 200], 2000)),
        ("edit distance while i32", edit_distance_while,
         (rng.integers(0, 4, 120).astype(np.int32), rng.integers(0, 4, 100).astype(np.int32))),
        ("Viterbi scalar", viterbi_scalar, viterbi_data(False)),
    ]


def timed(fn, args) -> tuple[float, float]:
    """(wall, CPU) milliseconds of one call: on a loaded machine the process is preempted
    during longer calls, so the wall time measures the others' load too."""
    cpu, wall = time.process_time(), time.perf_counter()
    fn(*args)
    return (time.perf_counter() - wall) * 1e3, (time.process_time() - cpu) * 1e3


def medians(samples: list) -> tuple[float, float]:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--only", help="comma-separated substrings of program names")
    parser.add_argument("--no-translate", action="store_true",
                        help="also time the tree (setting scalar_loops off)")
    args = parser.parse_args()

    from phylanx import Phylanx, config
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs; medians of "
          f"{args.repeat}, wall ms (CPU ms)")
    print(f"{'program':24s} {'CPython':>15s} {'phylanx':>15s} {'ratio':>11s}"
          + (f" {'tree':>17s} {'ratio':>11s}" if args.no_translate else ""))
    for name, fn, data in cases():
        if args.only and not any(w in name for w in args.only.split(",")):
            continue
        fast = Phylanx(fn)
        tree = None
        if args.no_translate:
            config.set("scalar_loops", False)
            try:
                tree = Phylanx(fn)
                tree(*data)   # compiled now, without the translation
            finally:
                config.reset("scalar_loops")
        expected, got = fn(*data), fast(*data)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))
        py, ph, tr = [], [], []
        for _ in range(args.repeat):
            py.append(timed(fn, data))
            ph.append(timed(fast, data))
            if tree is not None:
                tr.append(timed(tree, data))
        (pw, pc), (fw, fc) = medians(py), medians(ph)
        line = (f"{name:24s} {pw:7.2f} ({pc:5.2f}) {fw:7.2f} ({fc:5.2f}) "
                f"{fw / pw:5.2f} ({fc / pc:5.2f})")
        if tree is not None:
            tw, tc = medians(tr)
            line += f" {tw:8.1f} ({tc:6.1f}) {tw / pw:4.0f} ({tc / pc:4.0f})"
        print(line, flush=True)


if __name__ == "__main__":
    main()
