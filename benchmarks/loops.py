"""Compiled loops (phylanx/fusion/loops.py) on small-step iterative programs.

    python benchmarks/loops.py [--repeat 9]

Each program is plain NumPy, run as written, through ``@Phylanx`` with compiled loops
off (``fusion_loops`` False: the tree, row passes as usual) and on (after the calls that
make it compile, check and time it: ``workloads.common.settled``), and, where installed,
as ``jax.jit`` of a ``fori_loop`` (float64).  Prints the median milliseconds per call
(min-max) and each ratio to NumPy; every result is checked against NumPy first.

* W1 small: logistic regression 569 x 30, 750 iterations (the workload of run.py);
* power iteration: 300 x 300 matrix, 400 iterations, normalised each step;
* heavy-ball least squares: 200 x 40, 1000 iterations (gradient, momentum, step);
* a hinge-loss linear SVM: 400 x 12, 300 epochs (``x.shape[0]`` hoisted out of the loop).
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np
from workloads.common import jax_x64, optional, settled
from workloads.w1_lra import data, lra


def power(a, v, iterations):
    for _ in range(iterations):
        v = a @ v
        v = v / np.sqrt(np.sum(v * v))
    return v


def heavy_ball(a, b, lr, iterations):
    w = np.zeros(a.shape[1])
    m = np.zeros(a.shape[1])
    for _ in range(iterations):
        g = a.T @ (a @ w - b)
        m = 0.9 * m + g
        w = w - lr * m
    return w


def svm(x, y, lam, lr, epochs):
    w = np.zeros(x.shape[1])
    b = 0.0
    for _ in range(epochs):
        margin = y * (x @ w + b)
        active = (margin < 1.0) * 1.0
        gw = lam * w - (x.T @ (active * y)) / x.shape[0]
        gb = -np.mean(active * y)
        w = w - lr * gw
        b = b - lr * gb
    return w


def jax_versions():
    jax = jax_x64()
    if jax is None:
        return None
    jnp, lax = jax.numpy, jax.lax

    @jax.jit
    def j_lra(x, y, alpha, iterations):
        def body(_, w):
            return w - alpha * (x.T @ (jax.nn.sigmoid(x @ w) - y))
        return lax.fori_loop(0, iterations, body, jnp.zeros(x.shape[1]))

    @jax.jit
    def j_power(a, v, iterations):
        def body(_, v):
            v = a @ v
            return v / jnp.sqrt(jnp.sum(v * v))
        return lax.fori_loop(0, iterations, body, v)

    @jax.jit
    def j_heavy(a, b, lr, iterations):
        def body(_, wm):
            w, m = wm
            m = 0.9 * m + a.T @ (a @ w - b)
            return w - lr * m, m
        z = jnp.zeros(a.shape[1])
        return lax.fori_loop(0, iterations, body, (z, z))[0]
    @jax.jit
    def j_svm(x, y, lam, lr, epochs):
        def body(_, wb):
            w, b = wb
            active = (y * (x @ w + b) < 1.0) * 1.0
            gw = lam * w - (x.T @ (active * y)) / x.shape[0]
            return w - lr * gw, b + lr * jnp.mean(active * y)
        return lax.fori_loop(0, epochs, body, (jnp.zeros(x.shape[1]), 0.0))[0]
    return {lra: j_lra, power: j_power, heavy_ball: j_heavy, svm: j_svm}


def timed(fn, repeat: int) -> tuple[float, float, float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(1e3 * (time.perf_counter() - t0))
    return float(np.median(times)), min(times), max(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    import phylanx
    from phylanx import Phylanx, config

    rng = np.random.default_rng(1)
    x, y, _ = data(569, 30, sklearn_ok=True)
    a = rng.normal(size=(300, 300))
    a = a + a.T
    ls_a = rng.normal(size=(200, 40))
    ls_b = rng.normal(size=200)
    svm_x = rng.normal(size=(400, 12))
    svm_y = np.sign(svm_x @ rng.normal(size=12) + 0.1)
    programs = [("W1 small: logistic regression 569x30, 750 it.", lra, (x, y, 1e-3, 750)),
                ("power iteration 300x300, 400 it.", power, (a, np.ones(300), 400)),
                ("heavy-ball least squares 200x40, 1000 it.", heavy_ball,
                 (ls_a, ls_b, 1e-4, 1000)),
                ("hinge-loss SVM 400x12, 300 epochs (x.shape[0] hoisted)", svm,
                 (svm_x, svm_y, 0.01, 0.1, 300))]
    jax_fns = jax_versions() if optional("jax") is not None else None
    load = os.getloadavg()
    print(f"# python benchmarks/loops.py --repeat {args.repeat}")
    print(f"{os.cpu_count()} cores, load {load[0]:.2f}; phylanx {phylanx.__version__}, "
          f"numpy {np.__version__}; median ms per call (min-max), ratio to NumPy")
    for title, fn, fargs in programs:
        want = fn(*fargs)
        rows = [("numpy", lambda fn=fn, fargs=fargs: fn(*fargs))]
        for setting in (False, True):
            config.set("fusion_loops", setting)
            decorated = Phylanx(fn)
            def run(d=decorated, fargs=fargs):
                return d(*fargs)
            run = settled(run) if setting else run
            got = run()
            scale = float(np.max(np.abs(want)))
            assert np.allclose(got, want, rtol=1e-9, atol=1e-9 * scale), title
            rows.append((f"phylanx, loops {'on' if setting else 'off'}", run))
        config.reset("fusion_loops")
        if jax_fns is not None:
            jf = jax_fns[fn]
            jargs = fargs
            jf(*jargs).block_until_ready()
            got = np.asarray(jf(*jargs))
            assert np.allclose(got, want, rtol=1e-7, atol=1e-7 * float(np.max(np.abs(want))))
            rows.append(("jax", lambda jf=jf, jargs=jargs: jf(*jargs).block_until_ready()))
        results = {}
        for _ in range(2):   # interleaved: each peer runs half its repetitions, twice
            for name, run in rows:
                results.setdefault(name, []).extend(
                    [timed(run, max(1, args.repeat // 2))])
        print(title)
        base = None
        for name, _ in rows:
            parts = results[name]
            med = float(np.median([p[0] for p in parts]))
            low, high = min(p[1] for p in parts), max(p[2] for p in parts)
            base = base or med
            print(f"  {name:20s} {med:8.2f} ms ({low:.2f}-{high:.2f})  {med / base:.2f}x")


if __name__ == "__main__":
    main()
