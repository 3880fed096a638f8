"""The cost model of distributed programs: what a collective costs (latency and
bandwidth), the bytes each primitive moves per tiling, the compute per element, and
from these the predicted time of LRA, k-means and the power iteration on 1..N
localities (issue 28 item 7; docs/distributed.md, "Cost model").

A collective over ``p`` localities moving ``b`` bytes per rank costs, in the usual
alpha-beta form (recursive doubling for the latency, a ring for the bandwidth)::

    all_reduce(b, p) = ceil(log2 p) * latency + 2 (p - 1) / p * b * seconds_per_byte
    all_gather(b, p) = ceil(log2 p) * latency +   (p - 1)     * b * seconds_per_byte

(``b``: what each rank contributes; an all_gather delivers ``p b`` to every rank).
phylanx sums partial results (``x.T @ r``, reductions over the split axis) with an
all_gather and adds them in rank order (the same bits on every rank), so its
reductions move ``(p - 1) b``, not the ``2 b`` of MPI's ring all-reduce.

Compute is counted in multiply-adds (BLAS, one thread) and element passes
(element-wise kernels, memory-bound), each divided among the localities; phylanx's
own cost per iteration (``overhead_s``, measured on a tiny input: :data:`OVERHEAD_S`)
is not divided.  With more localities than cores (``Machine.cores``)
the ranks share the cores: compute takes ``p / cores`` times longer.  Constants come
from measurements (``benchmarks/distributed.py --simulate`` measures them in the run;
``SHARED_2CORE`` and ``CLUSTER`` are documented in docs/distributed.md).  Pure
arithmetic: nothing here communicates.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

FLOAT64 = 8


@dataclass(frozen=True)
class Machine:
    """The constants of the model, in seconds."""

    latency_s: float            # one step of a small collective
    seconds_per_byte: float     # inverse bandwidth of a large collective, per byte
    madd_s: float               # one multiply-add of a matrix-vector product, one thread
    element_s: float            # one element of one element-wise pass, one thread
    cores: int | None = None    # cores the localities share; None: one core each

    def share(self, localities: int) -> float:
        """How much slower compute runs when ``localities`` ranks share the cores."""
        return 1.0 if self.cores is None else max(1.0, localities / self.cores)

    def describe(self) -> str:
        return (f"latency {self.latency_s * 1e6:.0f} us, bandwidth "
                f"{1e-9 / self.seconds_per_byte:.2f} GB/s, {self.madd_s * 1e9:.2f} ns per "
                f"multiply-add, {self.element_s * 1e9:.2f} ns per element pass, "
                + ("one core per locality" if self.cores is None else f"{self.cores} cores"))


#: 2 ranks on this project's 2-core machine, 2026-12-06, LOADED (load average 26):
#: phylanx all_reduce of 8 B (1.85 ms) and 4 MiB (90 ms) from
#: ``benchmarks/distributed_allreduce.py``; compute: one thread's CPU seconds per
#: multiply-add (a 20,000 x 100 matrix-vector product) and per element (a subtraction
#: of 8M doubles), ``benchmarks/distributed.py``'s calibration the same day
SHARED_2CORE = Machine(latency_s=1.85e-3, seconds_per_byte=2.1e-8, madd_s=0.73e-9,
                       element_s=1.25e-9, cores=2)
#: a cluster of one-locality nodes on a 100 Gb/s network (an assumption: 2 us latency
#: per step, 10 GB/s), each node computing like one core of this machine
CLUSTER = Machine(latency_s=2e-6, seconds_per_byte=1 / 10e9, madd_s=0.73e-9,
                  element_s=1.25e-9, cores=None)
#: phylanx's seconds per iteration besides the kernels: each program on a tiny tiled
#: input, one locality, CPU seconds (``benchmarks/distributed.py``'s calibration,
#: 2026-12-06); the runtime's cost of evaluating and dispatching the iteration's nodes
OVERHEAD_S = {"lra": 0.32e-3, "kmeans": 3.0e-3, "power": 0.057e-3}


def _steps(localities: int) -> int:
    return math.ceil(math.log2(localities)) if localities > 1 else 0


def all_reduce_s(nbytes: float, localities: int, m: Machine) -> float:
    if localities <= 1:
        return 0.0
    return (_steps(localities) * m.latency_s
            + 2 * (localities - 1) / localities * nbytes * m.seconds_per_byte)


def all_gather_s(nbytes: float, localities: int, m: Machine) -> float:
    """``nbytes``: what each rank contributes."""
    if localities <= 1:
        return 0.0
    return (_steps(localities) * m.latency_s
            + (localities - 1) * nbytes * m.seconds_per_byte)


# -- bytes per primitive per tiling -----------------------------------------------------
#: case -> (the collective it needs, what it is); docs/distributed.md has the table
CASES = {
    "elementwise": (None, "element-wise, operands tiled alike or plain (sliced locally)"),
    "matvec_rows": (None, "x @ w, x row-tiled, w plain: row-tiled result"),
    "reduce_untiled_axis": (None, "sum/mean/argmin along an axis that is not split"),
    "product_tiled_axis": ("all_gather", "x.T @ r, x and r row-tiled: the partial "
                           "products, summed in rank order (shape[1] x r's columns)"),
    "reduce_tiled_axis": ("all_gather", "sum/mean over the split axis: the partial "
                          "sums (the other axes' size)"),
    "mask_rows": ("all_gather", "x[m], m a tiled 1-d mask: the mask (one byte per row)"),
    "mask_rows_aligned": ("all_gather", "x[m], m a 1-d mask tiled like x's rows: each "
                          "rank's count of selected rows (8 bytes)"),
    "gather": ("all_gather", "a primitive without a rule: every rank's tile"),
}


def bytes_moved(case: str, shape: tuple[int, ...], localities: int,
                itemsize: int = FLOAT64, columns: int = 1) -> int:
    """Bytes one locality contributes to the collectives of ``case`` (a key of
    :data:`CASES`) on a tiled operand of global ``shape`` split evenly along its first
    axis; ``columns``: the other operand's columns (``product_tiled_axis``).  An
    all_gather delivers ``localities`` such contributions to every rank."""
    if case not in CASES:
        raise KeyError(f"no bytes formula for '{case}'")
    p = localities
    if p <= 1 or CASES[case][0] is None:
        return 0
    if case == "product_tiled_axis":
        return math.prod(shape[1:]) * columns * itemsize
    if case == "reduce_tiled_axis":
        return math.prod(shape[1:]) * itemsize
    if case == "mask_rows":
        return -(-shape[0] // p)                          # this rank's rows, one byte each
    if case == "mask_rows_aligned":
        return 8                                          # one int64 count
    return -(-shape[0] // p) * math.prod(shape[1:]) * itemsize   # gather: the tile


# -- the workloads -----------------------------------------------------------------------
# Each gives the seconds of one iteration on ``p`` localities: compute divided among
# them (slowed by sharing cores), the collectives it makes, and ``overhead``: the
# runtime's own cost of one iteration (0 for the hand-written programs).

def _lra(size: dict, p: int, m: Machine, variant: str, overhead: float) -> float:
    """x @ w and x.T @ e (2 n d multiply-adds), about 6 element passes over n (neg,
    exp, add, divide, subtract, the step); the gradient's partial sums: phylanx
    all-gathers them (``product_tiled_axis``), by hand one all_reduce of d doubles."""
    n, d = size["n"], size["d"]
    compute = (2 * n * d * m.madd_s + 6 * n * m.element_s) / p * m.share(p)
    if variant == "phylanx":
        comm = all_gather_s(bytes_moved("product_tiled_axis", (n, d), p), p, m)
    else:
        comm = all_reduce_s(d * FLOAT64, p, m)
    return compute + overhead * m.share(p) + comm


#: k-means kernels in element passes per row and cluster (NumPy, one thread, measured
#: against a subtraction: 1M x 16 points, k = 8): the broadcast difference, square and
#: row sum 4 per coordinate; storing a column of ``distances`` (strided) 10; argmin
#: over the clusters 2.5; the mask and the selection ``points[labels == j]`` 12
KMEANS_PASSES = {"distance": 4.0, "store_column": 10.0, "argmin": 2.5, "select": 12.0}


def _kmeans(size: dict, p: int, m: Machine, variant: str, overhead: float) -> float:
    """Distances (``distance`` passes per coordinate and cluster), their columns
    stored, argmin, then per cluster the selection and its mean (:data:`KMEANS_PASSES`),
    all of it on this rank's rows.  By hand one all_reduce of k (d + 1) sums and counts.
    phylanx: ``distances`` is allocated with the points' row tiling
    (``compiler/rewrite/fresh_rows.py``), so the column stores and the argmin stay on
    the rank's rows; per cluster ``points[labels == j]`` all-gathers the counts
    (``mask_rows_aligned``) and the mean d partial sums (``reduce_tiled_axis``)."""
    n, d, k = size["n"], size["d"], size["k"]
    c = KMEANS_PASSES
    share = m.share(p)
    own_rows = n / p * (c["distance"] * k * d + c["select"] * k + 2 * d
                        + (c["store_column"] + c["argmin"]) * k)
    if variant == "phylanx":
        comm = k * (all_gather_s(bytes_moved("mask_rows_aligned", (n,), p), p, m)
                    + all_gather_s(bytes_moved("reduce_tiled_axis", (n, d), p), p, m))
        return own_rows * m.element_s * share + comm + overhead * share
    return own_rows * m.element_s * share + all_reduce_s(k * (d + 1) * FLOAT64, p, m)


def _power(size: dict, p: int, m: Machine, variant: str, overhead: float) -> float:
    """The local columns times v (n^2 / p multiply-adds), an all_reduce of the
    n-vector (the program calls ``all_reduce``: MPI's), the normalisation (3 n element
    passes, on every rank)."""
    n = size["n"]
    compute = (n * n / p * m.madd_s + 3 * n * m.element_s) * m.share(p)
    return compute + overhead * m.share(p) + all_reduce_s(n * FLOAT64, p, m)


WORKLOADS = {"lra": _lra, "kmeans": _kmeans, "power": _power}
#: the issue's sizes (issue 28 item 5)
FULL_SIZES = {"lra": {"n": 200_000, "d": 100, "iterations": 50},
              "kmeans": {"n": 1_000_000, "d": 16, "k": 8, "iterations": 5},
              "power": {"n": 4000, "iterations": 50}}


def predict(workload: str, size: dict, localities: int, machine: Machine,
            variant: str = "phylanx", overhead_s: float | None = None) -> float:
    """Predicted seconds of ``workload`` (a key of :data:`WORKLOADS`) of ``size``
    (with its ``iterations``) on ``localities`` ranks; ``variant``: "phylanx" (as the
    runtime does it) or "mpi4py" (the hand-written SPMD program).  ``overhead_s``:
    phylanx's seconds per iteration besides the kernels (measured on a tiny input),
    by default :data:`OVERHEAD_S`."""
    if localities < 1:
        raise ValueError(f"localities must be at least 1, got {localities}")
    if variant not in ("phylanx", "mpi4py"):
        raise ValueError(f"variant must be 'phylanx' or 'mpi4py', got {variant!r}")
    if variant == "mpi4py":
        overhead = 0.0
    elif overhead_s is None:
        overhead = OVERHEAD_S[workload]
    else:
        overhead = overhead_s
    return size["iterations"] * WORKLOADS[workload](size, localities, machine, variant,
                                                    overhead)


def fit_collective(points: list[tuple[int, float]]) -> tuple[float, float]:
    """(latency, seconds per byte) of 2-rank all_reduce times ``[(bytes, seconds)]``:
    the latency is the smallest message's time, the inverse bandwidth the slope
    between the smallest and the largest (on 2 ranks all_reduce_s is latency +
    bytes * seconds_per_byte)."""
    points = sorted(points)
    (b0, t0), (b1, t1) = points[0], points[-1]
    return t0, max((t1 - t0) / (b1 - b0), 1e-15)


# -- model-parallel Conv1D training (``fit(distributed="model")``) ----------------------
FLOAT32 = 4
#: how activations pass between a Conv1D stack's layers on ``p`` ranks
CONV_FLOWS = {
    "tiled": "split by batch, activations stay this rank's batch tile (since stop 47): "
             "per layer one all_reduce of the kernel and bias gradients concatenated",
    "gathered": "split by batch, every layer's output and input gradient all-gathered "
                "(until stop 47): those, and per layer an all_reduce of the kernel "
                "gradient and one of the bias gradient",
    "filters": "split by filters, weights split: per layer an all_gather of the output "
               "channels and, but for the first layer, an all_reduce of the input "
               "gradient (each rank's filters' share)",
}


def conv1d_stack_s(batch: int, length: int, layers: list[tuple[int, int, int]],
                   localities: int, m: Machine, conv_madd_s: float, overhead_s: float,
                   flow: str = "tiled") -> float:
    """Seconds of one training step of a stack of Conv1D ``layers`` (``(width, channels,
    filters)`` each; valid padding, stride 1) over a global batch of ``batch``
    sequences of ``length`` steps, on ``localities`` ranks, float32.

    Compute: ``3 B L_out K C F`` multiply-adds per layer (forward, input and kernel
    gradients) at ``conv_madd_s`` (a blocked product's rate, far below
    ``Machine.madd_s``, which is a matrix-vector product's), divided among the ranks;
    ``overhead_s`` (phylanx's own cost per step, the layers after the stack) is not.
    Communication per ``flow`` (:data:`CONV_FLOWS`), each collective at the
    alpha-beta cost of :func:`all_reduce_s` / :func:`all_gather_s`."""
    if flow not in CONV_FLOWS:
        raise ValueError(f"flow must be one of {sorted(CONV_FLOWS)}, got {flow!r}")
    p = localities
    compute = comm = 0.0
    steps = length
    for i, (width, channels, filters) in enumerate(layers):
        steps = steps - width + 1
        compute += 3 * batch * steps * width * channels * filters * conv_madd_s
        outputs = batch * steps * filters * FLOAT32 / p        # one rank's share
        inputs = batch * (steps + width - 1) * channels * FLOAT32 / p
        if flow == "tiled":
            comm += all_reduce_s((width * channels * filters + filters) * FLOAT32, p, m)
        if flow == "gathered":
            comm += all_reduce_s(width * channels * filters * FLOAT32, p, m)
            comm += all_reduce_s(filters * FLOAT32, p, m)
        if flow == "gathered":
            comm += all_gather_s(outputs, p, m) + (all_gather_s(inputs, p, m) if i else 0.0)
        if flow == "filters":
            comm += all_gather_s(outputs, p, m) + (all_reduce_s(inputs * p, p, m) if i else 0.0)
    return compute / p * m.share(p) + overhead_s + comm
