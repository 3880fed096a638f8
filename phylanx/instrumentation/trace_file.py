"""A recording as a Chrome/Perfetto trace-event file, and the merge of ranks' files.

One process track per locality (``pid`` = rank, named "locality N (host)"), one
thread track per thread that ran something (``tid`` numbered from 0 per locality,
named after the Python thread), and *virtual* tracks for work that belongs to no
thread (a collective of one name, the remote calls this rank made), numbered from
1000 and split into lanes where spans overlap.  Spans are complete events ("X"),
flows are "s"/"f" pairs (``bp: "e"``) with the same ``id``.  Times are
microseconds from rank 0's start, on rank 0's clock (``clock_sync``).

``otherData`` carries what the report needs: ``format`` ("phylanx-trace"),
``version``, ``localities``, ``ranks``, ``hosts``, ``clock`` (offsets against rank
0), ``threshold_us``, ``counters`` (one row per node), ``trees`` (``tree_data``
form), ``sources`` (Python beside PhySL), ``stopped`` and ``failed`` when the
recording was cut short.
"""
from __future__ import annotations

import itertools
import json
import os
import socket
from typing import Any

from .. import __version__, atomic
from ..runtime.nodes import Node
from . import tree_data
from .timeline import FLOW_IN, FLOW_OUT, NODE, SPAN, TASK, Recorder, node_of_task

FORMAT = "phylanx-trace"
VERSION = 1
VIRTUAL_BASE = 1000


def _us(t_ns: int, shift: int) -> float:
    return round((t_ns + shift) / 1000.0, 3)


def build(rec: Recorder, offset_ns: int = 0, ref_ns: int | None = None,
          extra: dict | None = None) -> dict:
    """The trace of one rank; ``offset_ns`` maps its clock to rank 0's, whose
    recording started at ``ref_ns`` (rank 0's clock)."""
    ref = rec.start_ns + offset_ns if ref_ns is None else ref_ns
    shift = offset_ns - ref
    pid = rec.rank
    rec.note_threads()
    threads: dict[int, int] = {}
    events: list[dict] = []
    virtual: dict[Any, list[dict]] = {}
    flows_on_virtual: list[tuple[Any, dict]] = []
    spans: dict[Node, list[int]] = {}      # node -> [count, inclusive, exclusive]
    per_thread: dict[int, list[tuple[int, int, Node | None]]] = {}
    # task -> spawn flows get their ids here, not while recording (a rank's own range:
    # merged files keep them apart)
    flow_ids = itertools.count((pid << 40) | 1)

    def tid_of(ident: Any) -> int:
        if ident not in threads:
            threads[ident] = len(threads)
        return threads[ident]

    # the main thread first: it is where a program starts
    import threading
    tid_of(threading.main_thread().ident)
    for ev in rec.events:
        kind = ev[0]
        if kind == NODE or kind == TASK:
            node, ident, t0, dur = ev[1], ev[2], ev[3], ev[4]
            if kind == TASK:
                node = node_of_task(node)   # tasks hold what names them, not the node
            if kind == NODE:
                name, cat = node.display_name, "node"
                args = {"node": node.full_name}
            else:
                name = "task " + node.display_name if node is not None else "task"
                flow = next(flow_ids)
                cat, args = "task", {"flow": flow}
                if node is not None:
                    args["node"] = node.full_name
            e = {"ph": "X", "name": name, "cat": cat, "pid": pid, "tid": tid_of(ident),
                 "ts": _us(t0, shift), "dur": round(dur / 1000.0, 3), "args": args}
            events.append(e)
            per_thread.setdefault(ident, []).append((t0, dur, node if kind == NODE else None))
            if kind == TASK:
                events.append({"ph": "s", "name": "spawn", "cat": "flow", "id": flow,
                               "pid": pid, "tid": tid_of(ev[5]), "ts": _us(ev[6], shift)})
                events.append({"ph": "f", "bp": "e", "name": "spawn", "cat": "flow",
                               "id": flow, "pid": pid, "tid": e["tid"], "ts": e["ts"]})
        elif kind == SPAN:
            _, name, cat, track, t0, dur, args = ev
            e = {"ph": "X", "name": name, "cat": cat, "pid": pid, "ts": _us(t0, shift),
                 "dur": round(dur / 1000.0, 3), "args": args or {}}
            if isinstance(track, tuple):
                virtual.setdefault(track, []).append(e)
            else:
                e["tid"] = tid_of(track)
            events.append(e)
        else:   # FLOW_OUT / FLOW_IN
            _, fid, track, t, name = ev
            e = {"ph": "s" if kind == FLOW_OUT else "f", "name": name, "cat": "flow",
                 "id": fid, "pid": pid, "ts": _us(t, shift)}
            if kind == FLOW_IN:
                e["bp"] = "e"
            if isinstance(track, tuple):
                flows_on_virtual.append((track, e))
            else:
                e["tid"] = tid_of(track)
            events.append(e)
    names = _thread_metadata(rec, threads, pid)
    names += _lay_out_virtual(virtual, flows_on_virtual, pid)
    host = socket.gethostname()
    meta = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
             "args": {"name": f"locality {pid} ({host})"}},
            {"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0,
             "args": {"sort_index": pid}}]
    stats = _node_stats(rec, spans, per_thread)
    other = {"format": FORMAT, "version": VERSION, "phylanx": __version__,
             "localities": rec.size, "ranks": [pid], "hosts": {str(pid): host},
             "pids": {str(pid): os.getpid()},
             "clock": {"offsets_ns": {str(pid): offset_ns}},
             "threshold_us": rec.threshold_ns / 1000.0,
             "duration_us": _us(rec.end_ns or rec.start_ns, shift),
             "counters": _counter_rows(stats, pid), "trees": _trees(rec, stats),
             "sources": [], "stopped": rec.stopped, "failed": None}
    if extra:
        other.update(extra)
    return {"traceEvents": meta + names + events, "displayTimeUnit": "ms", "otherData": other}


def _thread_metadata(rec: Recorder, threads: dict[int, int], pid: int) -> list[dict]:
    out = []
    for ident, tid in threads.items():
        name = rec.thread_names.get(ident, f"thread {tid}")
        out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                    "args": {"name": name}})
        out.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                    "args": {"sort_index": tid}})
    return out


def _lay_out_virtual(virtual: dict, flows: list, pid: int) -> list[dict]:
    """Give each virtual track's spans a tid, one lane per overlap (X events on one
    track must nest), and put each flow on the lane of the span around it."""
    meta, next_tid = [], VIRTUAL_BASE
    lanes_of: dict[Any, list[tuple[int, list[dict]]]] = {}
    for key in sorted(virtual, key=repr):
        lanes: list[tuple[int, list[dict]]] = []
        for e in sorted(virtual[key], key=lambda e: e["ts"]):
            free = [lane for lane in lanes if lane[1][-1]["ts"] + lane[1][-1]["dur"] <= e["ts"]]
            if free:
                tid, members = free[0]
            else:
                tid, members = next_tid, []
                next_tid += 1
                lanes.append((tid, members))
                label = key[0] if key[1] is None else f"{key[0]} {key[1]}"
                if len(lanes) > 1:
                    label += f" #{len(lanes)}"
                meta.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                             "args": {"name": label}})
                meta.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                             "args": {"sort_index": tid}})
            members.append(e)
            e["tid"] = tid
        lanes_of[key] = lanes
    for key, e in flows:
        lanes = lanes_of.get(key, [])
        e["tid"] = lanes[0][0] if lanes else VIRTUAL_BASE
        for tid, members in lanes:
            if any(m["ts"] <= e["ts"] <= m["ts"] + m["dur"] for m in members):
                e["tid"] = tid
                break
    return meta


def _node_stats(rec: Recorder, spans: dict, per_thread: dict) -> dict[Node, list[int]]:
    """Per node: [recorded evaluations, inclusive ns, exclusive ns] from the spans
    (exclusive: minus the recorded spans nested in them on the same thread)."""
    for items in per_thread.values():
        items.sort(key=lambda s: (s[0], -s[1]))
        stack: list[list] = []
        for t0, dur, node in items:
            while stack and stack[-1][0] <= t0:
                _close(stack.pop(), spans)
            if stack:
                stack[-1][2] += dur
            stack.append([t0 + dur, node, 0, dur])
        while stack:
            _close(stack.pop(), spans)
    return spans


def _close(entry: list, spans: dict) -> None:
    end, node, children, dur = entry
    if node is not None:
        s = spans.setdefault(node, [0, 0, 0])
        s[0] += 1
        s[1] += dur
        s[2] += max(0, dur - children)


def _counter_rows(stats: dict[Node, list[int]], rank: int) -> list[dict]:
    rows = []
    for node, (count, incl, excl) in stats.items():
        exact = node.choice.counted     # counted by measure.enable: exact
        rows.append({"rank": rank, "node": node.full_name, "name": node.display_name,
                     "primitive": node.primitive,
                     "line": node.loc.line if node.loc else -1,
                     "count": count, "time_ns": incl, "self_ns": excl,
                     "evaluations": node.count if exact else None,
                     "eval_direct": node.eval_direct})
    rows.sort(key=lambda r: -r["time_ns"])
    return rows


def _trees(rec: Recorder, stats: dict[Node, list[int]]) -> list[dict]:
    def stat(node: Node):
        s = stats.get(node)
        return (s[0], s[1], s[2]) if s else (0, 0, 0)
    out, seen = [], set()
    for root in rec.roots:
        if id(root) in seen:
            continue
        seen.add(id(root))
        # a program no recorded span ran in has no tree to show: the recorder reaches
        # every live program, and building each one's tree (to find it idle) cost
        # seconds in a process holding many
        if not any(node in stats for node in root.walk()):
            continue
        tree = tree_data.from_node(root, stat)
        if tree_data.active(tree):
            out.append(tree)
    return out[:20]


def write(trace: dict, path: str) -> None:
    """Write ``trace`` as JSON (one event per line: diffable, and easy to cut)."""
    with atomic.open_atomic(path, "w") as fh:
        fh.write('{"displayTimeUnit": "ms",\n"otherData": ')
        json.dump(trace["otherData"], fh, separators=(",", ":"))
        fh.write(',\n"traceEvents": [\n')
        events = trace["traceEvents"]
        for i, e in enumerate(events):
            fh.write(json.dumps(e, separators=(",", ":")))
            fh.write(",\n" if i + 1 < len(events) else "\n")
        fh.write("]}\n")


def merge(traces: list[dict], missing: list[int] | None = None) -> dict:
    """One trace of several ranks' traces (each already on rank 0's clock)."""
    traces = sorted(traces, key=lambda t: t["otherData"]["ranks"][0])
    first = traces[0]["otherData"]
    other = {**first, "ranks": [], "hosts": {}, "pids": {}, "counters": [],
             "clock": {**first.get("clock", {}), "offsets_ns": {}}}
    events = []
    for t in traces:
        o = t["otherData"]
        events.extend(t["traceEvents"])
        other["ranks"] += o["ranks"]
        for key in ("hosts", "pids"):
            other[key].update(o.get(key, {}))
        other["clock"]["offsets_ns"].update(o.get("clock", {}).get("offsets_ns", {}))
        for key in ("rtt_ns",):
            if key in o.get("clock", {}):
                other["clock"].setdefault(key, {}).update(o["clock"][key])
        other["counters"] += o.get("counters", [])
        other["stopped"] = other.get("stopped") or o.get("stopped")
        other["failed"] = other.get("failed") or o.get("failed")
        other["duration_us"] = max(other.get("duration_us") or 0, o.get("duration_us") or 0)
        if not other.get("sources") and o.get("sources"):
            other["sources"] = o["sources"]
    if missing:
        other["missing_ranks"] = missing
    return {"traceEvents": events, "displayTimeUnit": "ms", "otherData": other}


def pair_flows(trace: dict) -> dict:
    """Drop flow ends without their other end (a task still running at the stop, a
    rank missing from the merge, the size limit), counting them in ``otherData``."""
    starts: dict = {}
    ends: dict = {}
    for e in trace["traceEvents"]:
        if e["ph"] == "s":
            starts[e["id"]] = starts.get(e["id"], 0) + 1
        elif e["ph"] == "f":
            ends[e["id"]] = ends.get(e["id"], 0) + 1
    bad = {i for i in set(starts) | set(ends) if starts.get(i) != 1 or ends.get(i) != 1}
    if bad:
        trace["traceEvents"] = [e for e in trace["traceEvents"]
                                if e["ph"] not in ("s", "f") or e["id"] not in bad]
    trace["otherData"]["unpaired_flows"] = len(bad)
    return trace
