"""What the VJP-rule changes of issue 29 item 4 save, each form against the one it replaced,
alternated call by call in one run.

    python benchmarks/vjp_rules.py [--rows 512] [--cols 256] [--calls 200]

* ``mask``: routing a float32 cotangent by a random boolean mask (relu's ``maximum(x,
  0)``, ``clip``, ``where``): ``np.where(mask, ct, 0)`` (a branch per element,
  mispredicted on a random mask) against ``rule_helpers.masked`` (the same bits, anded)
  and against ``ct * mask`` (no branch either, but NaN for an infinite cotangent);
* ``dropout``: the cotangent of ``x * keep`` for a boolean ``keep`` and a float32
  cotangent: with ``keep`` made float64 (``rule_helpers.arr``, before) against float32
  (``rule_helpers.arr_with``), the float64 result cast back as the ``vjp`` primitive does;
* ``maximum rule``: the whole ``maximum(x, 0.0)`` rule of ``rules_arithmetic``;
* ``relu rule`` (conv47): that rule on a Conv1D activation with ``mean``'s broadcast
  cotangent, the two-operand tie check against counting every operand's hits in int8;
* ``bias``: a bias's cotangent, the sum of a float32 ``(64, 124, 32)`` cotangent over its
  two leading axes (Conv1D's batch and positions): NumPy's ``sum`` against
  ``rules.sum_leading_axes`` (``ones @ rows``);
* ``amax rule`` (cg43): global max pooling's cotangent, over axis 1 of a Conv1D's
  float32 ``(64, 128, 32)`` activations: the float shares of every element (before)
  against the hit mask times the cotangent, the shares counted only when some
  reduction has ties.

Prints the median and minimum of the process CPU time per call in microseconds (less
disturbed than wall time on a shared machine) and the ratio of medians to the first form.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from phylanx.autodiff.rule_helpers import masked
from phylanx.autodiff.table import VJP
from phylanx.primitives.rules import sum_leading_axes


def alternate(forms: dict, calls: int) -> dict:
    names = list(forms)
    for fn in forms.values():
        fn()
    times = {n: [] for n in names}
    for i in range(calls):
        for n in names[i % len(names):] + names[:i % len(names)]:
            start = time.process_time()
            forms[n]()
            times[n].append((time.process_time() - start) * 1e6)
    return times


def show(title: str, times: dict) -> None:
    print(title)
    base = None
    for name, t in times.items():
        median = float(np.median(t))
        base = base or median
        print(f"  {name:<34} {median:8.0f} us (min {min(t):6.0f})  {median / base:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=512)
    parser.add_argument("--cols", type=int, default=256)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    shape = (args.rows, args.cols)
    x = rng.standard_normal(shape).astype(np.float32)
    ct = rng.standard_normal(shape).astype(np.float32)
    mask = x > 0
    print(f"{shape} float32; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    show("mask", alternate({
        "np.where(mask, ct, 0) (before)": lambda: np.where(mask, ct, np.float32(0)),
        "masked(mask, ct) (now)": lambda: masked(mask, ct),
        "ct * mask (NaN for inf)": lambda: ct * mask}, args.calls))
    show("dropout", alternate({
        "ct * float64 mask, cast back (before)":
            lambda: (ct * mask.astype(np.float64)).astype(np.float32),
        "ct * float32 mask (now)": lambda: ct * mask.astype(np.float32)}, args.calls))
    out = np.maximum(x, 0.0)
    rule = VJP.get("maximum")

    def before():       # the rule as it was: np.where per operand after the tie count
        hits = [x == out, np.asarray(0.0) == out]
        count = hits[0].astype(np.int8)
        count += hits[1]
        return np.where(hits[0], ct, np.float32(0)), count.max(initial=0) > 1
    show("maximum rule", alternate({
        "maximum(x, 0.0) rule, np.where (before)": before,
        "maximum(x, 0.0) rule (now)": lambda: rule(ct, out, x, 0.0, wanted=(True, False))},
        args.calls))
    conv_relu_rule(rng, rule, args.calls)
    bias_ct = rng.standard_normal((64, 124, 32)).astype(np.float32)
    show("bias", alternate({
        "sum(axis=(0, 1)) (before)": lambda: bias_ct.sum(axis=(0, 1)),
        "sum_leading_axes (now)": lambda: sum_leading_axes(bias_ct, 2)}, args.calls))
    conv_rules(rng, args.calls)


def conv_relu_rule(rng: np.random.Generator, rule, calls: int) -> None:
    """conv47: relu's rule on a Conv1D activation with ``mean``'s broadcast cotangent,
    the two-operand tie check (now) against counting every operand's hits (before)."""
    from phylanx.autodiff.rule_helpers import masked
    acts = rng.standard_normal((64, 124, 32)).astype(np.float32)
    out = np.maximum(acts, 0.0)
    ct = np.broadcast_to(rng.standard_normal((64, 1, 32)).astype(np.float32), acts.shape)

    def counted():          # the rule before conv47: hits of both, an int8 tie count
        hits = [acts == out, np.float32(0.0) == out]
        ties = hits[0].astype(np.int8)
        ties += hits[1]
        shared = ct / ties if ties.max(initial=0) > 1 else ct
        return masked(hits[0], shared)
    show("relu rule, (64, 124, 32), broadcast cotangent", alternate({
        "ties counted (before)": counted,
        "two-operand tie check (now)": lambda: rule(ct, out, acts, 0.0,
                                                    wanted=(True, False))}, calls))


def conv_rules(rng: np.random.Generator, calls: int) -> None:
    """cg43's ``amax`` rule (module doc) against the one it replaced."""
    from phylanx.autodiff.rule_helpers import reduced_axes
    acts = rng.standard_normal((64, 128, 32)).astype(np.float32)
    pooled = np.max(acts, axis=1)
    pooled_ct = rng.standard_normal(pooled.shape).astype(np.float32)

    def amax_before():          # the float shares of every element
        best = np.expand_dims(pooled, 1)
        hits = (acts == best).astype(acts.dtype)
        count = np.expand_dims(np.sum(hits, axis=reduced_axes(1, 3)), 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(count > 0, hits / count, 0.0)
        return np.expand_dims(pooled_ct, 1) * share
    show("amax rule (cg43)", alternate({
        "float shares (before)": amax_before,
        "hit mask times cotangent (now)": lambda: VJP.get("amax")(pooled_ct, pooled,
                                                                  acts, 1)}, calls))


if __name__ == "__main__":
    main()
