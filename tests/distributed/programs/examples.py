"""Runs the distributed examples of ``examples/`` one after the other in one job (one
launch per rank count keeps the test short), each saving its result in the directory
given as the first argument; the test compares them with single-process NumPy.
Prints 'OK <rank>' at the end."""
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
sys.path.insert(0, str(EXAMPLES))

import distributed_als  # noqa: E402
import distributed_kmeans  # noqa: E402
import distributed_lra  # noqa: E402

from phylanx import distributed as dist  # noqa: E402

out = Path(sys.argv[1])
RUNS = {
    "lra_rows": (distributed_lra, "--tiling rows --samples 2500 --features 12 "
                                  "--iterations 30 --alpha 1e-4"),
    "lra_columns": (distributed_lra, "--tiling columns --iterations 40"),   # breast cancer
    "kmeans": (distributed_kmeans, "--points 2500 --k 3 --dims 3 --iterations 6"),
    "als": (distributed_als, "--users 300 --items 20 --factors 3 --iterations 5"),
}
for name, (module, args) in RUNS.items():
    assert module.main([*args.split(), "--save", str(out / f"{name}.npz")]) == 0, name
dist.barrier().result()
print(f"OK {dist.find_here()}", flush=True)
