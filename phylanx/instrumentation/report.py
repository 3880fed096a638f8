"""``phylanx report``: one self-contained HTML page of a trace file.

Sections: a summary (localities, threads, clock offsets, whether the recording
was cut short), the Gantt chart per locality and thread (a canvas drawn by inline
JavaScript: zoom with the wheel, pan by dragging, hover for details), the
counters table (sortable by any column), the execution trees (inline SVG, our
own layout so the page needs nothing installed, coloured by inclusive or
exclusive time) and the Python source beside the generated PhySL, linked by line
(hovering a line or a tree node highlights its counterparts).  No network: the
CSS, script and data are inlined.
"""
from __future__ import annotations

import json
from html import escape as _escape

from .. import atomic
from . import tree_data, tree_picture
from .report_assets import CSS, JS
from .trace_view import spans_by_track


def h(value) -> str:
    """``value`` as text safe in HTML content and in a quoted attribute: every value the
    page shows goes through here (a trace may come from anywhere)."""
    return _escape(str(value), quote=True)


def script_json(value) -> str:
    """``value`` as JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` is
    left, so no ``</script>`` or ``<!--`` in a string can end or change the element."""
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


#: spans drawn per track at most (the page must stay light); the longest are kept
MAX_SPANS_PER_TRACK = 20_000


def gantt_data(trace: dict) -> dict:
    tracks = spans_by_track(trace)
    names: dict[str, int] = {}
    cats: dict[str, int] = {}
    out, start, end = [], None, 0.0
    for track in tracks.values():
        items = list(zip(track["spans"], track["depths"]))
        if len(items) > MAX_SPANS_PER_TRACK:
            items = sorted(items, key=lambda p: -p[0]["dur"])[:MAX_SPANS_PER_TRACK]
            items.sort(key=lambda p: p[0]["ts"])
        spans = []
        for e, depth in items:
            n = names.setdefault(e["name"], len(names))
            c = cats.setdefault(e.get("cat", "?"), len(cats))
            spans.append([round(e["ts"], 3), round(e["dur"], 3), n, c, depth])
            start = e["ts"] if start is None else min(start, e["ts"])
            end = max(end, e["ts"] + e["dur"])
        out.append({"label": track["label"], "spans": spans})
    return {"tracks": out, "names": list(names), "cats": list(cats),
            "start": start or 0.0, "end": end}


def _summary(trace: dict, path: str, n_tracks: int) -> str:
    o = trace["otherData"]
    ranks = o.get("ranks", [0])
    offsets = o.get("clock", {}).get("offsets_ns", {})
    hosts = o.get("hosts", {})
    where = ", ".join(f"{h(r)} on {h(hosts.get(str(r), '?'))}" for r in ranks)
    parts = [f"<b>{h(path)}</b>: {len(ranks)} localit{'y' if len(ranks) == 1 else 'ies'} "
             f"({where}), "
             f"{n_tracks} tracks, recorded for {o.get('duration_us', 0) / 1000:.2f} ms, "
             f"inline evaluations shorter than {o.get('threshold_us', 0):g} us left out."]
    if len(ranks) > 1:
        parts.append("Clock offsets against rank 0 (ns): "
                     + ", ".join(f"rank {h(k)}: {h(v)}" for k, v in sorted(offsets.items())))
    if o.get("failed"):
        parts.append(f'<span class="warn">The program failed: {h(o["failed"])} '
                     "(the trace stops there).</span>")
    if o.get("stopped"):
        parts.append(f'<span class="warn">{h(o["stopped"])}</span>')
    if o.get("missing_ranks"):
        parts.append(f'<span class="warn">No trace from rank(s) '
                     f'{", ".join(map(h, o["missing_ranks"]))}.</span>')
    return "<p>" + "<br>".join(parts) + "</p>"


def _counters(trace: dict) -> str:
    rows = trace["otherData"].get("counters", [])
    if not rows:
        return "<p>No node was recorded (all were shorter than the threshold).</p>"
    head = ('<tr><th class="l">node</th><th data-num="1">rank</th><th data-num="1">line</th>'
            '<th data-num="1">recorded</th><th data-num="1">evaluations</th>'
            '<th data-num="1" class="sorted" data-dir="down">time (ms)</th>'
            '<th data-num="1">self (ms)</th><th data-num="1">eval_direct</th></tr>')
    body = []
    for r in rows:
        ev = "" if r.get("evaluations") is None else r["evaluations"]
        body.append(
            f'<tr data-line="{h(r["line"])}"><td class="l" title="{h(r["node"])}">'
            f'{h(r["name"])}</td><td>{h(r["rank"])}</td><td>{h(r["line"])}</td>'
            f'<td>{h(r["count"])}</td><td data-v="{h(ev if ev != "" else -1)}">{h(ev)}</td>'
            f'<td data-v="{h(r["time_ns"])}">{r["time_ns"] / 1e6:.3f}</td>'
            f'<td data-v="{h(r["self_ns"])}">{r["self_ns"] / 1e6:.3f}</td>'
            f'<td>{h(r["eval_direct"])}</td></tr>')
    return ('<p>Per node: spans recorded (at least the threshold long), exact evaluations '
            'when counters were on, inclusive and exclusive time of the recorded spans. '
            'Click a column to sort.</p><div class="scroll"><table id="counters"><thead>'
            + head + "</thead><tbody>" + "\n".join(body) + "</tbody></table></div>")


def _trees(trace: dict) -> str:
    trees = sorted(trace["otherData"].get("trees", []), key=lambda t: -t["time_ns"])[:3]
    if not trees:
        return "<p>No tree: nothing was recorded.</p>"
    out = ['<p><button data-show="tree-time">inclusive time</button>'
           '<button data-show="tree-self">exclusive time</button> '
           "Dashed border: run asynchronously (a task); solid: inline; grey: undecided.</p>"]
    for by in ("time", "self"):
        pics = "".join(tree_picture.python_svg(t, by, t["label"]) for t in trees)
        hidden = "" if by == "time" else ' style="display:none"'
        out.append(f'<div class="tree" id="tree-{by}"{hidden}>{pics}</div>')
    return "".join(out)


def _sources(trace: dict) -> str:
    sources = trace["otherData"].get("sources") or []
    if not sources:
        return ("<p>No source recorded (trace a script with @Phylanx functions, or pass "
                "<code>functions=</code> to <code>phylanx.trace</code>).</p>")
    out = []
    for s in sources:
        first = int(s.get("first_line", 1))
        py = "".join(f'<span class="ln" data-line="{first + i}"><i>{first + i}</i>'
                     f"{h(line)}</span>"
                     for i, line in enumerate(s["python"].splitlines()))
        ph = "".join(f'<span class="ln" data-line="{h(line)}"><i>{h(line) if line > 0 else ""}'
                     f"</i>{h(text)}</span>" for text, line in s["physl"])
        lang = "PhySL file" if s.get("language") == "physl" else "Python"
        out.append(f"<h3>{h(s['name'])} <small>{h(s.get('file', ''))}</small></h3>"
                   f'<div class="src"><pre title="{lang}">{py}</pre>'
                   f'<pre title="generated PhySL (numbers: source lines)">{ph}</pre></div>')
    return "".join(out)


def render(trace: dict, path: str = "trace.json") -> str:
    """The report page of a loaded trace."""
    gantt = gantt_data(trace)
    data = script_json({"gantt": gantt})
    legend = "".join(f'<span style="background:{c}"></span>{k}' for k, c in
                     (("node", "#f28e2b"), ("task", "#4e79a7"), ("collective", "#e15759"),
                      ("remote", "#59a14f"), ("wait", "#b07aa1")))
    version = h(trace["otherData"].get("phylanx", ""))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>phylanx report: {h(path)}</title>
<style>{CSS}</style></head><body>
<header><h1>phylanx report</h1><div class="meta">phylanx {version}</div></header>
<section id="summary"><h2>Summary</h2>{_summary(trace, path, len(gantt['tracks']))}</section>
<section id="timeline"><h2>Timeline</h2><p class="legend">Wheel: zoom, drag: pan.
<button id="gantt-reset">reset</button>{legend}</p>
<div id="gantt-wrap"><canvas id="gantt"></canvas><div id="tip"></div></div></section>
<section id="counters-section"><h2>Counters</h2>{_counters(trace)}</section>
<section id="trees"><h2>Execution tree</h2>{_trees(trace)}</section>
<section id="sources"><h2>Python and PhySL</h2>{_sources(trace)}</section>
<script type="application/json" id="phylanx-data">{data}</script>
<script>{JS}</script>
</body></html>
"""


def write(trace: dict, out: str, path: str = "trace.json") -> None:
    """Write the page atomically: a reader never sees half of it."""
    atomic.write_text(out, render(trace, path))


__all__ = ["gantt_data", "h", "render", "script_json", "tree_data", "write"]
