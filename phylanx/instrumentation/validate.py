"""Checking and loading trace files: the trace-event schema as we write it.

``problems(trace)`` lists what is wrong with a trace (required keys per phase,
durations >= 0, flow ids paired, the types of our ``otherData``: trace_schema);
``load(path)`` reads a file
and raises :class:`TraceFileError` with one line naming the file and the fault
(not JSON, cut short, not a phylanx trace, malformed events).
"""
from __future__ import annotations

import json
from collections import Counter
from typing import Any

from .trace_file import FORMAT
from .trace_schema import other_data_problems

#: phase -> keys every event of that phase must have
REQUIRED: dict[str, tuple[str, ...]] = {
    "X": ("name", "ts", "dur", "pid", "tid"),
    "M": ("name", "pid", "args"),
    "s": ("id", "name", "ts", "pid", "tid"),
    "f": ("id", "name", "ts", "pid", "tid", "bp"),
}


class TraceFileError(Exception):
    """A trace file phylanx cannot use; the message is one line naming the file."""


def problems(trace: Any, flows_paired: bool = True, limit: int = 10) -> list[str]:
    """What is wrong with ``trace`` (an empty list if nothing)."""
    out: list[str] = []
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        return ["no 'traceEvents' list: not a trace-event file"]
    other = trace.get("otherData")
    if not isinstance(other, dict) or other.get("format") != FORMAT:
        out.append(f"not a phylanx trace (otherData.format is not {FORMAT!r})")
    else:
        out += other_data_problems(other)[:limit]
    starts: Counter = Counter()
    ends: Counter = Counter()
    for i, e in enumerate(trace["traceEvents"]):
        if not isinstance(e, dict) or "ph" not in e:
            out.append(f"event {i} is not an object with a 'ph' phase")
            continue
        ph = e["ph"]
        need = REQUIRED.get(ph)
        if need is None:
            out.append(f"event {i} has an unknown phase {ph!r}")
            continue
        missing = [k for k in need if k not in e]
        if missing:
            out.append(f"event {i} ({ph}) lacks {', '.join(missing)}")
        elif ph == "X" and not (_number(e["dur"]) and e["dur"] >= 0 and _number(e["ts"])):
            out.append(f"event {i} (X {e['name']!r}) has a bad ts/dur")
        elif ph == "s":
            starts[e["id"]] += 1
        elif ph == "f":
            ends[e["id"]] += 1
            if e["bp"] != "e":
                out.append(f"event {i} (f) binds to {e['bp']!r}, not 'e'")
        if len(out) >= limit:
            return out
    if flows_paired:
        unpaired = [i for i in set(starts) | set(ends) if starts[i] != 1 or ends[i] != 1]
        if unpaired:
            out.append(f"{len(unpaired)} flow id(s) not paired one 's' to one 'f' "
                       f"(e.g. {sorted(unpaired, key=str)[0]})")
    return out


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def load(path: str, flows_paired: bool = False) -> dict:
    """Read and check a phylanx trace file (TraceFileError if it is not one)."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as e:
        raise TraceFileError(f"{path}: cannot read it ({e.strerror})") from None
    except UnicodeDecodeError:
        raise TraceFileError(f"{path}: not a trace file (not text)") from None
    if not text.strip():
        raise TraceFileError(f"{path}: the file is empty")
    try:
        trace = json.loads(text)
    except json.JSONDecodeError as e:
        # a JSON object that does not end like one was cut (a full disk, a killed writer)
        body = text.strip()
        cut = body.startswith("{") and not body.endswith("}") or e.pos >= len(body) - 1
        what = "cut short (truncated JSON)" if cut else f"not JSON ({e.msg})"
        raise TraceFileError(f"{path}: {what} at line {e.lineno}, column {e.colno}") \
            from None
    found = problems(trace, flows_paired, limit=1)
    if found:
        raise TraceFileError(f"{path}: {found[0]}")
    return trace
