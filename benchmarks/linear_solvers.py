"""The original's solvers against their SciPy/NumPy peers, alternated in one run: what the
checks cost (solve49: the condition estimate of ``linear_solver_*``, the equilibration and
the true-residual check of ``iterative_solver_*``).

    python benchmarks/linear_solvers.py [--calls 30]

Pairs, each on a well-conditioned system of order n: ``linear_solver_lu`` against
``np.linalg.solve``, ``linear_solver_cholesky`` against ``scipy.linalg.cho_solve`` of
``cho_factor``, ``iterative_solver_conjugate_gradient`` against ``scipy.sparse.linalg.cg``
(the same tolerance).  Printed: the median process CPU microseconds of each (phylanx
called as a compiled function, so without compilation) and phylanx / peer.  State the
machine's load when quoting.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import scipy.linalg
import scipy.sparse.linalg

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from workloads.common import median_cpu_us  # noqa: E402

import phylanx  # noqa: E402

timed = median_cpu_us   # (median CPU microseconds of fn(), calls times)


def pairs(n: int, rng):
    m = rng.standard_normal((n, n))
    a = m @ m.T + n * np.eye(n)
    b = rng.standard_normal(n)

    def compiled(name):
        function = phylanx.evaluate(f"lambda(a, b, {name}(a, b))")
        return lambda: function(a, b)
    return [
        ("linear_solver_lu", compiled("linear_solver_lu"), lambda: np.linalg.solve(a, b)),
        ("linear_solver_cholesky", compiled("linear_solver_cholesky"),
         lambda: scipy.linalg.cho_solve(scipy.linalg.cho_factor(a), b)),
        ("conjugate_gradient", compiled("iterative_solver_conjugate_gradient"),
         lambda: scipy.sparse.linalg.cg(a, b, rtol=1e-10, atol=0.0)[0]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    rng = np.random.default_rng(0)
    for n in (10, 100, 500):
        for name, ours, peer in pairs(n, rng):
            np.testing.assert_allclose(ours(), peer(), rtol=1e-6)
            rounds = [(timed(ours, args.calls), timed(peer, args.calls)) for _ in range(3)]
            o, p = np.median([r[0] for r in rounds]), np.median([r[1] for r in rounds])
            print(f"  n {n:4d} {name:24s} phylanx {o:9.1f} us, peer {p:9.1f} us, "
                  f"ratio {o / p:.2f}")


if __name__ == "__main__":
    main()
