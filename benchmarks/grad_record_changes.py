"""conv47's changes switched off and on in one process, calls alternated: what each loss
of ``grad_mlp.py`` gains from the recorder's short path (``Tape.record_plain``) and the
two-operand tie check of ``maximum``/``minimum``'s rule.

    OPENBLAS_NUM_THREADS=1 python benchmarks/grad_record_changes.py [--batch 512]
                                                                    [--repeat 150]

"off": no operand kind takes the short path (``recording.PLAIN_OPERANDS`` empty) and the
rule counts every operand's hits in int8 (the form before conv47); "on": as shipped.
``--batch 8`` gives batch 1 for the Conv1D losses (the fixed cost: mostly Python).
Printed per loss: the median process CPU ms of ``value_and_grad`` per call each way and
on / off.  State the machine's load when quoting.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np
from grad_mlp import LOSSES, problem

import phylanx
from phylanx.autodiff import recording
from phylanx.autodiff.rule_helpers import arr_with, is_wanted, masked, selective
from phylanx.primitives.rules import VJP


@selective
def counted_extremum_vjp(ct, out, *operands, wanted=None):
    """``maximum``/``minimum``'s rule before conv47: every operand's hits, an int8 count."""
    result = np.asarray(out)
    hits = [arr_with(v, result) == result for v in operands]
    ties = hits[0].astype(np.int8)
    for hit in hits[1:]:
        ties += hit
    ct = np.asarray(ct)
    with np.errstate(divide="ignore", invalid="ignore"):
        shared = ct / ties if ties.max(initial=0) > 1 else ct
        return tuple(masked(hit, shared) if is_wanted(wanted, i) else None
                     for i, hit in enumerate(hits))


def switch(on: bool, shipped: tuple) -> None:
    plain, rule = shipped
    recording.PLAIN_OPERANDS = plain if on else frozenset()
    # the table's own dict: the plans look rules up when they are built, per function
    VJP._rules["maximum"] = VJP._rules["minimum"] = rule if on else counted_extremum_vjp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--repeat", type=int, default=150)
    parser.add_argument("--models", default="conv1d,conv1d-causal,conv1d-strided,"
                                            "conv1d-fresh,mlp")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    shipped = (recording.PLAIN_OPERANDS, VJP.get("maximum"))
    for model in args.models.split(","):
        arrays, what = problem(model, args.batch, 256, "float32")
        calls = {on: phylanx.value_and_grad(LOSSES[model], (0, 1, 2, 3)) for on in (1, 0)}
        for on, fn in calls.items():
            switch(bool(on), shipped)
            for _ in range(3):
                fn(*arrays)
        cpu: dict[int, list[float]] = {1: [], 0: []}
        for i in range(args.repeat):
            for on in ((1, 0) if i % 2 else (0, 1)):
                switch(bool(on), shipped)
                start = time.process_time()
                calls[on](*arrays)
                cpu[on].append((time.process_time() - start) * 1e3)
        switch(True, shipped)
        on, off = float(np.median(cpu[1])), float(np.median(cpu[0]))
        print(f"{what}: on {on:.3f} ms, off {off:.3f} ms CPU; on / off {on / off:.3f}")


if __name__ == "__main__":
    main()
