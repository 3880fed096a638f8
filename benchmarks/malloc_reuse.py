"""What the ``malloc_reuse`` setting buys: W4's and W5's steps timed in fresh processes
with it off (glibc's defaults) and on (runtime/malloc_reuse.py), NumPy's hand-written
steps beside them in the same processes.

    python benchmarks/malloc_reuse.py [--repeat 15] [--rounds 2]

Each (workload, peer, setting) runs alone in a fresh process: the setting is applied
once per process, when the task pool starts, and glibc's own thresholds follow the
largest block freed so far, so a peer run earlier in the same process would change what
the next one meets.  Prints the median milliseconds per step and the ratio on/off, per
round.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys, numpy as np
sys.path.insert(0, {bench!r})
from workloads import w4_mlp, w5_conv
from workloads.common import median_ms
import phylanx.runtime.executors as ex
ex.get_executor()
from phylanx.runtime import malloc_reuse
case = {{"W5": w5_conv.cases(False)[0], "W4": w4_mlp.cases(False)[0]}}[sys.argv[1]]
run = case.setups[sys.argv[2]]()
for _ in range(3):
    run()
print(json.dumps({{"applied": malloc_reuse.apply(), "ms": median_ms(run, {repeat})}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    bench = os.path.dirname(os.path.abspath(__file__))
    code = CHILD.format(bench=bench, repeat=args.repeat)
    print("W5: conv1d fwd+bwd 32x1024, 64->64, k=5, float32; W4: MLP 784-512-512-10 step, "
          f"batch 256, float32; median ms of {args.repeat} calls; {os.cpu_count()} cores")
    for r in range(args.rounds):
        print(f"round {r + 1}")
        for workload in ("W5", "W4"):
            for peer in ("numpy", "phylanx"):
                got = {}
                for setting in ("0", "1"):
                    env = {k: v for k, v in os.environ.items()
                           if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
                    env["PHYLANX_MALLOC_REUSE"] = setting
                    done = subprocess.run([sys.executable, "-c", code, workload, peer],
                                          env=env, check=True, capture_output=True, text=True)
                    got[setting] = json.loads(done.stdout.strip().splitlines()[-1])
                    assert got[setting]["applied"] == (setting == "1")
                off, on = got["0"]["ms"], got["1"]["ms"]
                print(f"  {workload} {peer:8s} off {off:7.1f} ms  on {on:7.1f} ms  "
                      f"on/off {on / off:.2f}")


if __name__ == "__main__":
    main()
