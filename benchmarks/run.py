"""One command for the performance comparison of issue 11: phylanx against its peers.

    python benchmarks/run.py [--quick] [--only W1,W3] [--repeat N]
                             [--peers numpy,phylanx,...] [--out DIR]

Workloads (``benchmarks/workloads/``): W1 logistic regression, W2 k-means, W3 weighted
ALS, W4 MLP training step, W5 conv1d forward + backward, W6 per-node/per-task overhead.
Peers: NumPy (default threads, and one thread via threadpoolctl), phylanx, numexpr, Dask
(threaded), JAX (jit, CPU), PyTorch (CPU), each where installed (``pip install -e
.[bench]``; torch separately, see docs/performance.md) and where the workload is
expressible.

Method: every peer's result is first checked against NumPy's (max |diff| relative to
the magnitude of NumPy's result); only agreeing peers are timed.  The timed calls are
interleaved (one call of every peer per repetition, the order rotating), so load on a
shared machine hits all peers alike; the median is reported with min-max, and every
ratio is to NumPy's median from the same run.  A peer that errors or disagrees is shown
as such in the table, one that is not installed is listed as skipped.  Writes
``<out>/<date>.json``, ``.md`` and ``.png`` (default out: benchmarks/results).
"""
from __future__ import annotations

import argparse
import gc
import importlib
import statistics
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))                 # workloads/, overhead.py, nn_step.py
sys.path.insert(1, str(HERE.parent))          # phylanx from this checkout

# phylanx before NumPy: its _blas_env.py sets OpenBLAS's idle spin while NumPy has not
# loaded OpenBLAS yet; every peer of the run shares that process setting (the .md says so)
import phylanx  # noqa: E402,F401,I001
import report  # noqa: E402
from workloads.common import max_rel_err  # noqa: E402

PEERS = ["numpy", "numpy-1t", "phylanx", "numexpr", "dask", "jax", "torch"]
#: what each peer needs installed, and how to get it
NEEDS = {"numpy-1t": ("threadpoolctl", "pip install threadpoolctl"),
         "numexpr": ("numexpr", "pip install numexpr"),
         "dask": ("dask", "pip install 'dask[array]'"),
         "jax": ("jax", "pip install jax jaxlib"),
         "torch": ("torch", "pip install torch==2.13.0 --index-url "
                            "https://download.pytorch.org/whl/cpu")}
WORKLOADS = {"W1": "w1_lra", "W2": "w2_kmeans", "W3": "w3_als", "W4": "w4_mlp",
             "W5": "w5_conv"}


def installed(peer: str) -> str | None:
    """None if the peer can run, else why not."""
    if peer not in NEEDS:
        return None
    module, how = NEEDS[peer]
    try:
        importlib.import_module(module)
    except ImportError:
        return f"not installed ({how})"
    return None


def one_thread(setup):
    """The NumPy setup, its runner called under a one-thread BLAS/OpenMP limit."""
    def wrapped():
        from threadpoolctl import ThreadpoolController
        controller, run = ThreadpoolController(), setup()

        def limited():
            # entering/leaving the limit costs tens of microseconds: inside the timing,
            # negligible against the millisecond-scale workloads
            with controller.limit(limits=1):
                return run()
        return limited
    return wrapped


def short(exc: BaseException) -> str:
    # the first line only: phylanx errors go on with the whole located source line
    first = (str(exc).strip().splitlines() or [""])[0]
    text = " ".join(f"{type(exc).__name__}: {first}".split())
    return text[:140] + ("..." if len(text) > 140 else "")


def run_case(case, peers: list[str], repeat: int, log) -> dict:
    """Set up, check and time every peer of one case; a dict per peer."""
    out: dict[str, dict] = {}
    runners, setup_s = {}, {}
    for peer in peers:
        base = "numpy" if peer == "numpy-1t" else peer
        why = installed(peer)
        if why:
            out[peer] = {"status": f"skipped: {why}"}
            continue
        if base not in case.setups:
            reason = case.why_missing.get(peer, "not expressible in this peer")
            out[peer] = {"status": f"n/a: {reason}"}
            continue
        setup = one_thread(case.setups["numpy"]) if peer == "numpy-1t" else case.setups[base]
        try:
            t0 = time.perf_counter()
            runners[peer] = setup()
            setup_s[peer] = time.perf_counter() - t0
        except Exception as exc:   # a peer's failure is a result, not a crash of the run
            out[peer] = {"status": f"error: {short(exc)}"}
            log(f"    {peer}: setup failed\n{traceback.format_exc(limit=3)}")
    compare = case.compare or (lambda r: r)
    try:
        reference = compare(report.snapshot(case.setups["numpy"]()()))
    except Exception as exc:
        for peer in runners:
            out[peer] = {"status": f"error: NumPy reference failed: {short(exc)}"}
        return out
    timed = []
    for peer, run in runners.items():
        try:
            t0 = time.perf_counter()
            got = compare(report.snapshot(run()))   # first call: also compiles/jits
            first = time.perf_counter() - t0
        except Exception as exc:
            out[peer] = {"status": f"error: {short(exc)}"}
            log(f"    {peer}: failed\n{traceback.format_exc(limit=4)}")
            continue
        err = max_rel_err(got, reference)
        out[peer] = {"status": "ok", "max_rel_err": err, "first_call_s": first, "times_s": [],
                     "setup_s": setup_s.get(peer)}
        if not err <= case.tol:
            out[peer]["status"] = f"disagrees (max rel err {err:.2g} > {case.tol:g})"
        else:
            timed.append(peer)
    for rep in range(repeat):
        shift = rep % max(1, len(timed))
        for peer in timed[shift:] + timed[:shift]:   # round-robin, rotating the order
            if out[peer]["status"] != "ok":
                continue
            gc.collect()
            try:
                t0 = time.perf_counter()
                runners[peer]()
                out[peer]["times_s"].append(time.perf_counter() - t0)
            except Exception as exc:
                out[peer]["status"] = f"error (repetition {rep + 1}): {short(exc)}"
    base = out.get("numpy", {})
    base_med = statistics.median(base["times_s"]) if base.get("times_s") else None
    for r in out.values():
        if r.get("status") == "ok" and r["times_s"]:
            t = r["times_s"]
            r.update(median_s=statistics.median(t), min_s=min(t), max_s=max(t))
            r["ratio_to_numpy"] = r["median_s"] / base_med if base_med else None
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, 3 repetitions")
    ap.add_argument("--only", help="comma-separated workloads, e.g. W1,W3 (default all)")
    ap.add_argument("--repeat", type=int, help="timed repetitions per peer "
                                               "(default 7, --quick 3)")
    ap.add_argument("--peers", default=",".join(PEERS), help="comma-separated peers")
    ap.add_argument("--out", default=str(HERE / "results"), help="output directory")
    args = ap.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else 7)
    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    unknown = set(peers) - set(PEERS)
    if unknown:
        ap.error(f"unknown peers {sorted(unknown)}; known: {','.join(PEERS)}")
    if "numpy" not in peers:
        peers.insert(0, "numpy")                     # the reference of every check and ratio
    only = [w.strip().upper() for w in (args.only or "W1,W2,W3,W4,W5,W6").split(",")]

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    meta = report.machine(args, repeat, peers)
    log(f"{meta['cpu']}, {meta['cores']} cores, load {meta['load_start']}; "
        f"{'quick' if args.quick else 'full'} run, {repeat} repetitions")
    for peer in peers:
        why = installed(peer)
        if why:
            log(f"skipping {peer}: {why}")
    cases = []
    for w in only:
        if w not in WORKLOADS:
            continue
        module = importlib.import_module(f"workloads.{WORKLOADS[w]}")
        for case in module.cases(args.quick):
            log(f"{case.name} ...")
            t0 = time.perf_counter()
            res = run_case(case, peers, repeat, log)
            cases.append({"workload": case.workload, "name": case.name, "peers": res})
            log(report.case_line(res) + f"  [{time.perf_counter() - t0:.0f} s]")
    overhead = None
    if "W6" in only and "phylanx" in peers:
        from workloads import w6_overhead
        log("W6 overhead ...")
        overhead = w6_overhead.measure(repeat, args.quick)
    meta["load_end"] = report.load()
    results = {"meta": meta, "cases": cases, "overhead": overhead}
    results["targets"] = report.targets(results)
    paths = report.write(results, Path(args.out))
    print(Path(paths[1]).read_text())
    log("wrote " + ", ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
