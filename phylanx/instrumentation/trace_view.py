"""Reading a loaded trace: its tracks (locality x thread) and the spans on each.

Shared by the report (``report``) and the Gantt PNG (``plots``).
"""
from __future__ import annotations


def track_names(trace: dict) -> tuple[dict[int, str], dict[tuple[int, int], str]]:
    procs: dict[int, str] = {}
    threads: dict[tuple[int, int], str] = {}
    for e in trace["traceEvents"]:
        if e["ph"] != "M":
            continue
        if e["name"] == "process_name":
            procs[e["pid"]] = e["args"].get("name", f"locality {e['pid']}")
        elif e["name"] == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"].get("name", f"thread {e['tid']}")
    return procs, threads


def spans_by_track(trace: dict) -> dict[tuple[int, int], dict]:
    """(pid, tid) -> {"label", "spans" (sorted by start), "depths" (nesting level)},
    in locality then thread order."""
    procs, threads = track_names(trace)
    tracks: dict[tuple[int, int], dict] = {}
    for e in trace["traceEvents"]:
        if e["ph"] == "X":
            key = (e["pid"], e["tid"])
            tracks.setdefault(key, {"spans": []})["spans"].append(e)
    out = {}
    for key in sorted(tracks):
        spans = sorted(tracks[key]["spans"], key=lambda e: (e["ts"], -e["dur"]))
        depths, stack = [], []
        for e in spans:
            while stack and stack[-1] <= e["ts"]:
                stack.pop()
            depths.append(len(stack))
            stack.append(e["ts"] + e["dur"])
        pid, tid = key
        proc = procs.get(pid, f"locality {pid}").split(" (")[0]
        out[key] = {"label": f"{proc} / {threads.get(key, f'thread {tid}')}",
                    "spans": spans, "depths": depths}
    return out
