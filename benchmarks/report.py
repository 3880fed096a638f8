"""Reporting for ``benchmarks/run.py``: machine description, targets, JSON/Markdown/PNG.

The targets are issue 11's (item 5): measured and reported as met or missed, never
asserted.  Ratios are phylanx's median over the peer's median from the same run.
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
from workloads.common import as_arrays


def snapshot(result):
    """Copies of a result's arrays: later calls may update the same arrays in place."""
    return [a.copy() for a in as_arrays(result)]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def cpu_model() -> str:
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=5).stdout
        for line in text.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return platform.processor() or platform.machine()


def machine(args, repeat, peers) -> dict:
    versions = {}
    # only the requested peers' modules: importing torch and jax costs seconds
    wanted = {"numpy", "phylanx"} | {p.replace("numpy-1t", "threadpoolctl") for p in peers}
    for name in ("numpy", "phylanx", "numexpr", "dask", "jax", "torch", "threadpoolctl"):
        if name not in wanted:
            continue
        module = sys.modules.get(name)
        if module is None:
            try:
                module = __import__(name)
            except ImportError:
                continue
        versions[name] = getattr(module, "__version__", "?")
    return {"date": datetime.datetime.now().isoformat(timespec="seconds"),
            "cpu": cpu_model(), "cores": os.cpu_count(), "python": platform.python_version(),
            "versions": versions, "load_start": load(), "quick": args.quick,
            "repeat": repeat, "peers": peers, "argv": sys.argv[1:],
            "openblas_thread_timeout": os.environ.get("OPENBLAS_THREAD_TIMEOUT", "unset")}


def _fmt_s(s: float) -> str:
    return f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.3g} s"


def cell(r: dict) -> str:
    status = r.get("status", "")
    if status != "ok":
        return status
    if "median_s" not in r:
        return "ok (not timed)"
    ratio = r.get("ratio_to_numpy")
    ratio = f"**{ratio:.2f}x**" if ratio is not None else "?"
    return f"{ratio} {_fmt_s(r['median_s'])} ({_fmt_s(r['min_s'])} - {_fmt_s(r['max_s'])})"


def case_line(res: dict) -> str:
    return "   " + "; ".join(f"{p}: {cell(r).replace('**', '')}" for p, r in res.items())


def _ratio(case: dict, peer: str, to: str | None = None):
    p = case["peers"].get(peer, {})
    if "median_s" not in p:
        return None, f"phylanx: {p.get('status', 'not run')}"
    if to is None:
        return p["ratio_to_numpy"], None
    q = case["peers"].get(to, {})
    if "median_s" not in q:
        return None, f"{to}: {q.get('status', 'not run')}"
    return p["median_s"] / q["median_s"], None


def _fastest_other(case: dict):
    timed = {p: r["median_s"] for p, r in case["peers"].items()
             if p != "phylanx" and "median_s" in r}
    return min(timed, key=timed.get) if timed else None


def targets(results: dict) -> list[dict]:
    """Issue 11 item 5's targets, each with the measured figure and met/missed."""
    out = []

    def add(what, limit, value, why=None, unit="x"):
        status = ("not measured: " + why) if value is None else (
            "met" if value <= limit else "missed")
        out.append({"target": what, "limit": limit, "measured": value, "unit": unit,
                    "status": status})

    for case in results["cases"]:
        name, w = case["name"], case["workload"]
        if w == "W1":
            limit = 0.70 if name.startswith("W1 large") else 0.80
            add(f"{name.split(':')[0]}: phylanx <= {limit:.2f}x NumPy", limit,
                *_ratio(case, "phylanx"))
        elif w == "W2":
            add(f"{name}: phylanx <= 0.50x NumPy", 0.5, *_ratio(case, "phylanx"))
            add(f"{name}: phylanx <= 1.5x JAX", 1.5, *_ratio(case, "phylanx", "jax"))
        elif w == "W3":
            add(f"{name}: phylanx <= 1.0x NumPy", 1.0, *_ratio(case, "phylanx"))
        elif w in ("W4", "W5"):
            best = _fastest_other(case)
            value, why = _ratio(case, "phylanx", best) if best else (None, "no peer timed")
            add(f"{name}: phylanx <= 1.2x the fastest peer ({best})", 1.2, value, why)
    ov = results.get("overhead")
    if ov:
        add("W6: <= 0.24 us per inline node", 0.24, ov["us_per_inline_node"]["median"],
            unit=" us")
        add("W6: fib(20) <= 9.5x CPython", 9.5, ov["fib20_vs_cpython_x"]["median"])
    return out


def markdown(results: dict) -> str:
    m = results["meta"]
    lines = [f"# phylanx vs peers, {m['date']}", "",
             f"`python benchmarks/run.py {' '.join(m['argv'])}`: "
             f"{'**quick** (small sizes)' if m['quick'] else 'full sizes'}, "
             f"{m['repeat']} interleaved repetitions per peer.", "",
             f"Machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}; load average "
             f"(1/5/15 min) {m['load_start']} at the start, {m['load_end']} at the end.  "
             "Versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()) + ".  "
             f"OPENBLAS_THREAD_TIMEOUT {m.get('openblas_thread_timeout', 'unset')} for every "
             "peer (phylanx/_blas_env.py).", "",
             "Cells: **median time / NumPy's median** from the same run, the median time, "
             "(min-max).  Only results that agree with NumPy are timed.", ""]
    peers = [p for p in m["peers"] if any(p in c["peers"] for c in results["cases"])]
    if results["cases"]:
        lines += ["| workload | " + " | ".join(peers) + " |",
                  "|---" * (len(peers) + 1) + "|"]
        for c in results["cases"]:
            cells = [cell(c["peers"][p]) if p in c["peers"] else "" for p in peers]
            lines.append(f"| {c['name']} | " + " | ".join(cells) + " |")
        lines.append("")
        lines += ["Untimed set-up of each peer (s): conversion, jit compile, and for phylanx's "
                  "W1-W3 the calls on the full data until its compiled kernels settle "
                  "(`workloads/common.py: settled`).", "",
                  "| workload | " + " | ".join(peers) + " |", "|---" * (len(peers) + 1) + "|"]
        for c in results["cases"]:
            cells = [f"{c['peers'][p]['setup_s']:.2f}"
                     if c["peers"].get(p, {}).get("setup_s") is not None else ""
                     for p in peers]
            lines.append(f"| {c['name']} | " + " | ".join(cells) + " |")
        lines.append("")
    ov = results.get("overhead")
    if ov:
        lines += ["W6, overhead of the execution tree (`benchmarks/overhead.py`'s functions):",
                  "", "| measure | median | min-max |", "|---|---|---|"]
        for k, v in ov.items():
            lines.append(f"| {k} | {v['median']:.3g} | {v['min']:.3g}-{v['max']:.3g} |")
        lines.append("")
    if results["targets"]:
        lines += ["Targets (issue 11, item 5): measured, not asserted.", "",
                  "| target | measured | |", "|---|---|---|"]
        for t in results["targets"]:
            v = "" if t["measured"] is None else f"{t['measured']:.3g}{t['unit']}"
            lines.append(f"| {t['target']} | {v} | {t['status']} |")
        lines.append("")
    return "\n".join(lines)


def chart(results: dict, path: Path) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    cases = [c for c in results["cases"] if any("ratio_to_numpy" in r
                                                for r in c["peers"].values())]
    peers = [p for p in results["meta"]["peers"] if p != "numpy"]
    if not cases:
        return False
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(cases)), 5))
    width = 0.8 / max(1, len(peers))
    for i, peer in enumerate(peers):
        xs, ys = [], []
        for j, c in enumerate(cases):
            r = c["peers"].get(peer, {})
            if r.get("ratio_to_numpy"):
                xs.append(j + (i - (len(peers) - 1) / 2) * width)
                ys.append(r["ratio_to_numpy"])
        ax.bar(xs, ys, width, label=peer)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("median time / NumPy median (log; lower is faster)")
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([c["name"].split(",")[0].replace(": ", ":\n") for c in cases],
                       fontsize=7)
    m = results["meta"]
    ax.set_title(f"{m['date'][:10]} {'quick' if m['quick'] else 'full'}, {m['cpu']}, "
                 f"{m['cores']} cores, load {m['load_start']}", fontsize=8)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def write(results: dict, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    stem = datetime.date.today().isoformat() + ("-quick" if results["meta"]["quick"] else "")
    paths = [out / f"{stem}.json", out / f"{stem}.md"]
    paths[0].write_text(json.dumps(results, indent=1, default=_jsonable))
    paths[1].write_text(markdown(results))
    if chart(results, out / f"{stem}.png"):
        paths.append(out / f"{stem}.png")
    return paths


def _jsonable(v):
    if isinstance(v, np.generic):
        return v.item()
    return str(v)
