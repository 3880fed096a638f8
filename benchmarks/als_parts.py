"""W3's (ALS') two costly parts, phylanx's forms against NumPy's, at W3's size.

    python benchmarks/als_parts.py [--repeat 7]

Prints median milliseconds per call:

* the normal equations' product ``mask @ (y[:, :, None] * y[:, None, :]).reshape(n, k*k)``
  (2000 x 2000 by 2000 x 1600): NumPy, and ``__matmul_outer_rows`` (each pair of equal
  columns once; ``compiler/rewrite/outer.py``);
* the stacked ``solve`` of 2000 40 x 40 systems: ``np.linalg.solve``; phylanx's
  ``solve`` the way it starts (singularity check beside NumPy's solve) and once its
  compiled elimination is in place (``kernels/fixed.py: LU_SOLVE``); and that compiled
  solve right after a 2000 x 2000 product, in a fresh process each with OpenBLAS's idle
  threads spinning ``2**28`` cycles (OpenBLAS's default) and ``2**18`` (phylanx's,
  ``phylanx/_blas_env.py``).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

AFTER_PRODUCT = r"""
import sys, time, numpy as np
sys.path.insert(0, {here!r})
from phylanx import config
from phylanx.primitives.matrixops.numpy_products import solve
from phylanx.fusion import hot
from workloads.common import median_ms
config.set("fusion_background", False)
rng = np.random.default_rng(0)
m = rng.uniform(size=(2000, 2000)); a = rng.normal(size=(2000, 40, 40)) + 8 * np.eye(40)
b = rng.normal(size=(2000, 40, 1))
for _ in range(30):
    solve(a, b)
times = []
for _ in range({repeat}):
    m @ m[:, :40]
    t = time.perf_counter(); solve(a, b); times.append(time.perf_counter() - t)
print(f"{{float(np.median(times)) * 1e3:.1f}}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import numpy as np
    from workloads.common import median_ms

    from phylanx import config
    from phylanx.primitives.matrixops import outer_products
    from phylanx.primitives.matrixops.numpy_products import solve
    rng = np.random.default_rng(3)
    mask = (rng.uniform(size=(2000, 2000)) < 0.3).astype(float)
    y = rng.uniform(size=(2000, 40))

    def numpy_product():
        return mask @ (y[:, :, None] * y[:, None, :]).reshape(2000, 1600)

    def fast_product():
        return outer_products.matmul_outer_rows(None, mask, y, [2000, 1600])
    scale = np.abs(numpy_product()).max()
    assert np.abs(fast_product() - numpy_product()).max() <= 1e-12 * scale
    print(f"ALS parts, 2000 x 2000 ratings, 40 factors, float64; {os.cpu_count()} cores")
    print(f"  normal equations' product: NumPy {median_ms(numpy_product, args.repeat):.1f} ms,"
          f" equal columns once {median_ms(fast_product, args.repeat):.1f} ms")

    a = rng.normal(size=(2000, 40, 40)) + 8 * np.eye(40)
    b = rng.normal(size=(2000, 40, 1))
    numpy_solve = median_ms(lambda: np.linalg.solve(a, b), args.repeat)
    config.set("fusion_rows", False)
    checked = median_ms(lambda: solve(a, b), args.repeat)
    config.reset("fusion_rows")
    config.set("fusion_background", False)
    for _ in range(30):                          # until the compiled elimination is in
        solve(a, b)
    assert np.abs(solve(a, b) - np.linalg.solve(a, b)).max() <= 1e-10 * np.abs(b).max()
    compiled = median_ms(lambda: solve(a, b), args.repeat)
    print(f"  stacked solve: np.linalg.solve {numpy_solve:.1f} ms; phylanx check beside "
          f"NumPy's solve {checked:.1f} ms, compiled elimination {compiled:.1f} ms")
    code = AFTER_PRODUCT.format(here=here, repeat=args.repeat)
    for label, value in (("2**28 (OpenBLAS's default)", "28"), ("2**18 (phylanx's)", "18")):
        env = dict(os.environ, OPENBLAS_THREAD_TIMEOUT=value)
        done = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                              capture_output=True, text=True)
        print(f"  compiled solve right after a product, idle BLAS threads spin {label}: "
              f"{done.stdout.strip()} ms")


if __name__ == "__main__":
    main()
