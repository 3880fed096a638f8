"""The IR's layout facts are the layouts the runtime produces (issue 28 item 2), for any
number of ranks.

Every case is a decorated NumPy function of tiled (and plain) arguments: element-wise
operations with scalars, broadcast plain arrays and other tilings; products in every
spelling and tiling; reductions over each axis, with and without keepdims; transposes;
chains of them. For each, the facts ``f.ir(*args)`` propagates to the result (shape,
dtype, kind and every rank's box) must equal the facts of the value the call returns.
The ``comm`` fact the IR marks on each equation with a tiled operand is what the run
sends: run as a program, ``tiles.fetch``, ``tiles.all_gather`` and ``dot_d`` are counted
while each case runs (``dot_d`` and the gather fallback's ``gather_all`` as one,
whatever they do inside) and must be the facts' communicating equations exactly
(one-sided where an equation's ``comm`` is unknown: what is predicted must happen), and
so must the bytes every rank receives in them, summed, be the facts' ``moved``; on one
locality every fact says ``none``. Primitives without a rule (``GATHERING``: the gather
fallback) are checked for their communication only. Run as a program (``SEED CASES``: a
seeded sweep, the same draws on every rank) it prints 'OK <rank>' at the end;
``tests/ir/test_layout_facts.py`` imports the cases and draws them with hypothesis in
one process.
"""
import sys
import threading
import warnings
from collections import Counter

import numpy as np

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.distributed.errors import PhylanxPerformanceWarning
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
def spread(x):
    return np.std(x, axis=0)


@Phylanx
def spread16(x):
    return np.var(x)        # of float16 data (DTYPES): its parts travel in float32


@Phylanx
def mean16(x):
    return np.mean(x, axis=0)   # of float16 data: its sums travel in float32, as NumPy's


@Phylanx
def transposed(x):
    return np.transpose(x) + 0.5


@Phylanx
def chain(x, w):
    return np.max(np.exp(x @ w) * 2.0, axis=1)


@Phylanx
def cumulative(x):
    return np.cumprod(x, 1)


@Phylanx
def gathered_twice(x, y):
    return np.trace(x) + np.diff(y)


#: cases taking the gather fallback (no rule; their layouts are not propagated yet):
#: only their communication is checked
GATHERING = {"cumulative": (cumulative, ()), "gathered_twice": (gathered_twice, ("y",))}

#: name -> (function, the operands besides x: "w" a plain (m, 2) matrix, "v" a plain
#: (m,) vector, "y" x's values tiled the other way)
CASES = {"scaled": (scaled, ()), "minus_row": (minus_row, ("v",)),
         "with_other": (with_other, ("y",)), "matmul": (matmul, ("w",)),
         "dot": (dot, ("w",)), "gram": (gram, ("y",)), "sum0": (sum0, ()),
         "sum1": (sum1, ()), "mean_keep": (mean_keep, ()), "total": (total, ()),
         "spread": (spread, ()), "spread16": (spread16, ()),
         "mean16": (mean16, ()),
         "transposed": (transposed, ()), "chain": (chain, ("w",))}
TILINGS = ("row", "column", "sym", "uneven")
#: the dtype of x where it is not float64
DTYPES = {"spread16": np.float16, "mean16": np.float16}


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
    whole = rng.normal(size=shape).astype(DTYPES.get(case, np.float64))
    x = tiled(whole, tiling, f"x{seed}")
    more = {"w": lambda: rng.normal(size=(shape[1], 2)),
            "v": lambda: rng.normal(size=shape[1]),
            "y": lambda: tiled(whole + 1.0, other, f"y{seed}")}
    return [x] + [more[k]() for k in {**CASES, **GATHERING}[case][1]]


#: the collectives a case's call started, when counted (``count_collectives``)
_seen: list[str] = []
_read = [0]                 # and the bytes this rank received in them
_counting = [False]
_inside = threading.local()


def _bytes_read(kind, args):
    """The bytes this rank receives from the others in ``tiles.fetch(local, layout,
    wanted)`` or ``tiles.all_gather(value)``."""
    from phylanx.distributed import tiling
    here = dist.find_here()
    if kind == "all_gather":     # (partial results are arrays; other values: not ours)
        value = args[0]
        return (dist.num_localities() - 1) * value.nbytes if type(value) is np.ndarray else 0
    if kind == "gather":         # gather_all(arrays): the other ranks' tiles of each
        unique = {id(a): a for a in args[0]}.values()
        return sum(int(np.prod(tiling.box_shape(b))) * a.dtype.itemsize
                   for a in unique for r, b in enumerate(a.layout.boxes)
                   if r != here and not tiling.is_empty(b))
    if kind != "fetch":
        return 0
    local, layout, wanted = args[:3]
    total = 0
    for box in wanted:
        for owner, cells in enumerate(layout.owned):
            for cell in cells if owner != here else ():
                common = tiling.intersect(box, cell)
                if common is not None:
                    total += int(np.prod(tiling.box_shape(common))) * local.dtype.itemsize
    return total


def _counted(kind, fn):
    def run(*args, **kwargs):
        if getattr(_inside, "depth", 0):
            return fn(*args, **kwargs)
        _seen.append(kind)
        _read[0] += _bytes_read(kind, args)
        _inside.depth = 1 if kind in ("dot_d", "gather") else 0
        try:
            return fn(*args, **kwargs)
        finally:
            _inside.depth = 0
    return run


def count_collectives():
    """Count the collectives the calls start from now on (a program's own process)."""
    from phylanx.distributed import gather_fallback, tiles
    from phylanx.distributed.primitives.dist_matrixops import global_products
    gather_fallback.gather_all = _counted("gather", gather_fallback.gather_all)
    tiles.fetch = _counted("fetch", tiles.fetch)
    tiles.all_gather = _counted("all_gather", tiles.all_gather)
    global_products.dot_d = _counted("dot_d", global_products.dot_d)
    _counting[0] = True


def predicted(fn, args):
    """(the communicating ``comm`` facts of ``fn``'s equations, whether every equation
    with a tiled operand has one, their ``moved`` bytes summed or None if one is
    unknown)."""
    eqns = fn.ir_function(signature_of(args)).eqns
    tiled = [e for e in eqns if any(v.facts.kind == "darray" for v in e.ins
                                    if hasattr(v, "facts"))]
    comms = [e.param("comm") for e in tiled]
    sending = [e for e in tiled if e.param("comm") not in (None, "none")]
    moved = [e.param("moved") for e in sending]
    return (Counter(e.param("comm") for e in sending), None not in comms,
            None if None in moved else sum(moved))


def check_communication(fn, args, want, complete, moved, context):
    """``fn(*args)`` started the collectives of ``want``, moving ``moved`` bytes over
    all ranks (if known); returns its value."""
    del _seen[:]
    _read[0] = 0
    got = fn(*args)
    seen = Counter(_seen)
    if _counting[0] and dist.num_localities() > 1:
        total = dist.all_reduce(_read[0]).result()
        assert not complete or moved is None or total == moved, (*context, moved, total)
    context = (*context, dist.find_here(), want, seen)
    if dist.num_localities() == 1:     # (the collectives of one locality send nothing)
        assert not want and complete, context
    elif not _counting[0]:
        pass
    elif complete:
        assert seen == want, context
    else:
        assert not (want - seen), context
    return got


def check(case, shape, tiling, other, seed):
    """The propagated facts of the result equal the facts of the value it returns."""
    fn = CASES[case][0]
    args = operands(case, shape, tiling, other, seed)
    propagated = fn.ir_function(signature_of(args)).results[0].facts
    want, complete, moved = predicted(fn, args)
    got = check_communication(fn, args, want, complete, moved,
                              (case, shape, tiling, other))
    actual = facts_of_value(got)
    assert propagated == actual, (case, shape, tiling, other, dist.find_here(),
                                  propagated, actual)
    _communicated.update(want)
    return propagated


def check_gathering(case, shape, tiling, other, seed):
    """The communication of a ``GATHERING`` case is what its call does."""
    fn = GATHERING[case][0]
    args = operands(case, shape, tiling, other, seed)
    want, complete, moved = predicted(fn, args)
    with warnings.catch_warnings():     # (the fallback's performance warning)
        warnings.simplefilter("ignore", PhylanxPerformanceWarning)
        check_communication(fn, args, want, complete, moved, (case, shape, tiling, other))
    _communicated.update(want)


_communicated: Counter = Counter()


if __name__ == "__main__":
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(seed)
    count_collectives()
    tiled_results = 0
    for i in range(count):
        for case in CASES:
            n = dist.num_localities()     # (a tiling splits no axis shorter than n)
            shape = (int(rng.integers(n, n + 5)), int(rng.integers(n, n + 3)))
            tiling, other = rng.choice(TILINGS), rng.choice(TILINGS)
            facts = check(case, shape, str(tiling), str(other), seed * 1000 + i)
            tiled_results += facts.kind == "darray"
    assert tiled_results, "no case gave a tiled result"
    n = dist.num_localities()
    for case in GATHERING:
        check_gathering(case, (n + 2, n + 1), "row", "column", seed)
    for case in ("with_other", "gram"):    # (sure to fetch, and to gather partials)
        check(case, (n + 2, n + 1), "row", "column" if case == "with_other" else "row", seed)
    if n > 1:     # the sweep met the kinds of communication
        assert set(_communicated) >= {"fetch", "all_gather", "gather"}, _communicated
    if "-v" in sys.argv and dist.find_here() == 0:
        print(dict(_communicated))
    sys.stdout.write(f"OK {dist.find_here()}\n")   # one write: lines of ranks not joined
    sys.stdout.flush()
