"""PNG plots with matplotlib: the Gantt chart of a trace, and a scaling plot.

matplotlib is optional (``pip install 'phylanx[plots]'``); without it these raise
:class:`~.tree_picture.PictureUnavailable` with that advice.

Scaling results (``phylanx report --scaling results.json``) are JSON of the form::

    {"title": "LRA on 1..4 localities", "x": "localities", "y": "seconds",
     "series": [{"name": "lra", "points": [[1, 2.0], [2, 1.1], [4, 0.6]]}]}

(or a list of ``{"name", "n", "seconds"}`` records, grouped by name).  The plot
shows time against ``x`` on log-log axes with the ideal (linear) speed-up dashed.
"""
from __future__ import annotations

import json
from typing import Any

from .. import atomic
from .trace_view import spans_by_track
from .tree_picture import PictureUnavailable

CATEGORY_COLOURS = {"node": "#f28e2b", "task": "#4e79a7", "collective": "#e15759",
                    "remote": "#59a14f", "wait": "#b07aa1"}


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PictureUnavailable("PNG plots need matplotlib: pip install 'phylanx[plots]'") \
            from None
    return plt


def gantt_png(trace: dict, path: str, max_spans: int = 20_000) -> None:
    """One row per locality and thread, one bar per span, coloured by kind."""
    plt = _pyplot()
    tracks = spans_by_track(trace)
    rows = list(tracks)
    fig_h = 1.2 + 0.38 * max(1, len(rows))
    fig, ax = plt.subplots(figsize=(12, fig_h), dpi=100)
    drawn = 0
    for i, key in enumerate(rows):
        track = tracks[key]
        depth_of = track["depths"]
        for e, depth in zip(track["spans"], depth_of):
            if drawn >= max_spans:
                break
            h = 0.8 / (1 + min(depth, 3) * 0.5)
            ax.broken_barh([(e["ts"] / 1000.0, max(e["dur"] / 1000.0, 1e-4))],
                           (i - h / 2, h), facecolors=CATEGORY_COLOURS.get(e.get("cat"),
                                                                            "#bab0ac"),
                           edgecolor="none", alpha=0.85)
            drawn += 1
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([tracks[k]["label"] for k in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("time (ms)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in CATEGORY_COLOURS.values()]
    ax.legend(handles, list(CATEGORY_COLOURS), loc="upper right", fontsize=8, ncol=4)
    ax.set_title("phylanx timeline" + (" (cut short)" if trace["otherData"].get("failed")
                                       or trace["otherData"].get("stopped") else ""))
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    with atomic.replacing(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)


def read_scaling(path: str) -> dict[str, Any]:
    """The scaling results of ``path`` in the form above (ValueError if they are not)."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if isinstance(data, list):
        series: dict[str, list] = {}
        for r in data:
            series.setdefault(r["name"], []).append([r["n"], r["seconds"]])
        data = {"series": [{"name": k, "points": v} for k, v in series.items()]}
    if not isinstance(data, dict) or not isinstance(data.get("series"), list) \
            or not all(s.get("points") for s in data["series"]):
        raise ValueError("expected {'series': [{'name': ..., 'points': [[n, seconds], ...]}]}")
    return data


def scaling_png(results: dict, path: str) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.4), dpi=100)
    for s in results["series"]:
        pts = sorted((float(n), float(t)) for n, t in s["points"])
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        line = ax.plot(xs, ys, marker="o", label=s["name"])[0]
        ax.plot(xs, [ys[0] * xs[0] / x for x in xs], linestyle="--", alpha=0.5,
                color=line.get_color())
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(results.get("x", "localities"))
    ax.set_ylabel(results.get("y", "seconds"))
    ax.set_title(results.get("title", "scaling (dashed: ideal)"))
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    with atomic.replacing(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)
