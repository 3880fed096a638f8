"""The IR's layout facts are the layouts the runtime produces (issue 28 item 2), for any
number of ranks.

Every case is a decorated NumPy function of tiled (and plain) arguments: element-wise
operations with scalars, broadcast plain arrays and other tilings; products in every
spelling and tiling; reductions over each axis, with and without keepdims; transposes;
chains of them.  For each, the facts ``f.ir(*args)`` propagates to the result (shape,
dtype, kind and every rank's box) must equal the facts of the value the call returns.
Run as a program (``SEED CASES``: a seeded sweep, the same draws on every rank) it
prints 'OK <rank>' at the end; ``tests/ir/test_layout_facts.py`` imports the cases and
draws them with hypothesis in one process.
"""
import sys

import numpy as np

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.ir.specialise import facts_of_value, signature_of


@Phylanx
def scaled(x):
    return x * 2.0 + 1


@Phylanx
def minus_row(x, v):
    return np.tanh(x) - v


@Phylanx
def with_other(x, y):
    return np.maximum(x, y) * y


@Phylanx
def matmul(x, w):
    return x @ w


@Phylanx
def dot(x, w):
    return np.dot(x, w)


@Phylanx
def gram(x, y):
    return x.T @ y


@Phylanx
def sum0(x):
    return np.sum(x, axis=0)


@Phylanx
def sum1(x):
    return np.sum(x, axis=1)


@Phylanx
def mean_keep(x):
    return np.mean(x, axis=1, keepdims=True)


@Phylanx
def total(x):
    return np.sum(x)


@Phylanx
def transposed(x):
    return np.transpose(x) + 0.5


@Phylanx
def chain(x, w):
    return np.max(np.exp(x @ w) * 2.0, axis=1)


#: name -> (function, the operands besides x: "w" a plain (m, 2) matrix, "v" a plain
#: (m,) vector, "y" x's values tiled the other way)
CASES = {"scaled": (scaled, ()), "minus_row": (minus_row, ("v",)),
         "with_other": (with_other, ("y",)), "matmul": (matmul, ("w",)),
         "dot": (dot, ("w",)), "gram": (gram, ("y",)), "sum0": (sum0, ()),
         "sum1": (sum1, ()), "mean_keep": (mean_keep, ()), "total": (total, ()),
         "transposed": (transposed, ()), "chain": (chain, ("w",))}
TILINGS = ("row", "column", "sym", "uneven")


def tiled(whole, tiling, name):
    """``whole`` tiled by ``tiling``; "uneven": rows split unevenly, rank 0's tile empty
    (collective)."""
    if tiling != "uneven":
        return dist.tiled(whole, tiling, name=name)
    r, n = dist.find_here(), dist.num_localities()
    rows = whole.shape[0]
    cuts = [0, 0] + [round(rows * k / (n - 1)) for k in range(1, n)] if n > 1 else [0, rows]
    spans = [["rows", cuts[r], cuts[r + 1]], ["columns", 0, whole.shape[1]]]
    return dist.annotate(whole[cuts[r]:cuts[r + 1]].copy(), name, ["tile", *spans])


def operands(case, shape, tiling, other, seed):
    """The arguments of ``case``: x tiled by ``tiling``, y by ``other`` (collective)."""
    rng = np.random.default_rng(seed)
    whole = rng.normal(size=shape)
    x = tiled(whole, tiling, f"x{seed}")
    more = {"w": lambda: rng.normal(size=(shape[1], 2)),
            "v": lambda: rng.normal(size=shape[1]),
            "y": lambda: tiled(whole + 1.0, other, f"y{seed}")}
    return [x] + [more[k]() for k in CASES[case][1]]


def check(case, shape, tiling, other, seed):
    """The propagated facts of the result equal the facts of the value it returns."""
    fn = CASES[case][0]
    args = operands(case, shape, tiling, other, seed)
    propagated = fn.ir_function(signature_of(args)).results[0].facts
    got = fn(*args)
    actual = facts_of_value(got)
    assert propagated == actual, (case, shape, tiling, other, dist.find_here(),
                                  propagated, actual)
    return propagated


if __name__ == "__main__":
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(seed)
    tiled_results = 0
    for i in range(count):
        for case in CASES:
            n = dist.num_localities()     # (a tiling splits no axis shorter than n)
            shape = (int(rng.integers(n, n + 5)), int(rng.integers(n, n + 3)))
            tiling, other = rng.choice(TILINGS), rng.choice(TILINGS)
            facts = check(case, shape, str(tiling), str(other), seed * 1000 + i)
            tiled_results += facts.kind == "darray"
    assert tiled_results, "no case gave a tiled result"
    sys.stdout.write(f"OK {dist.find_here()}\n")   # one write: lines of ranks not joined
    sys.stdout.flush()
