"""Issue 26 item 7: ``phylanx report`` escapes every value of a trace it writes into the
page, and the trace validator rejects fields of the wrong type with a located message.

A real trace (the project's own tracer) gets script and attribute-breaking strings in
every field; the page must hold none of them unescaped.  Chromium is not installed
here, so the check is static: the payloads' raw text is absent and the parsed page has
no element or attribute the payloads would add.
"""
from __future__ import annotations

import copy
import json
from html.parser import HTMLParser

import pytest

from phylanx.instrumentation import report
from phylanx.instrumentation.validate import problems

from .helpers import SCRIPT, cli

PAYLOADS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>',
            "'><svg onload=alert(1)>", '</script><script>alert(2)</script><!--']


class Elements(HTMLParser):
    """Tags and attribute names of a page: what an injection would have to add."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}
        self.attrs: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.attrs.update(name for name, _ in attrs)


def elements(page: str) -> Elements:
    parsed = Elements()
    parsed.feed(page)
    return parsed


@pytest.fixture(scope="module")
def real_trace(tmp_path_factory):
    d = tmp_path_factory.mktemp("escaping")
    (d / "script.py").write_text(SCRIPT)
    done = cli("trace", "-o", str(d / "trace.json"), str(d / "script.py"))
    assert done.returncode == 0, done.stderr
    trace = json.loads((d / "trace.json").read_text())
    o = trace["otherData"]
    assert o["counters"] and o["trees"] and o["sources"], "the trace must fill every section"
    return trace


def assert_clean(page: str, clean: Elements) -> None:
    for bad in PAYLOADS + ["<img", "<svg onload", "</script><script>"]:
        assert bad not in page
    found = elements(page)
    assert found.tags.get("script") == clean.tags.get("script")
    assert "img" not in found.tags and "onerror" not in found.attrs
    assert "onload" not in found.attrs


def inject_text_fields(trace: dict, payload: str) -> dict:
    """``payload`` in every field that is text: names, sources, hosts, messages."""
    t = copy.deepcopy(trace)
    o = t["otherData"]
    o["phylanx"] = payload
    o["failed"] = o["stopped"] = payload
    o["hosts"] = {k: payload for k in o.get("hosts", {})}
    for row in o["counters"]:
        row["node"] = row["name"] = row["primitive"] = payload
    for tree in o["trees"]:
        tree["label"] = payload
        stack = [tree]
        while stack:
            node = stack.pop()
            node["id"] = node["label"] = node["short"] = node["primitive"] = payload
            stack.extend(node["children"])
    for source in o["sources"]:
        source["name"] = source["file"] = payload
        source["python"] = payload + "\n" + payload
        source["physl"] = [[payload, p[1]] for p in source["physl"]]
    for e in t["traceEvents"]:
        e["name"] = payload
        if "cat" in e:
            e["cat"] = payload
        if e.get("ph") == "M":
            e["args"] = {"name": payload}
    return t


def inject_typed_fields(trace: dict, payload: str) -> dict:
    """``payload`` where a number belongs: ranks, counts, lines, clock offsets."""
    t = copy.deepcopy(trace)
    o = t["otherData"]
    o["ranks"] = [0, 1]
    o["missing_ranks"] = [payload]
    o["clock"]["offsets_ns"] = {"0": 0, payload: payload}
    for row in o["counters"]:
        for key in ("rank", "count", "evaluations", "eval_direct", "line"):
            row[key] = payload
    return t


@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_text_field_is_escaped(real_trace, payload, tmp_path):
    clean = elements(report.render(real_trace))
    trace = inject_text_fields(real_trace, payload)
    assert problems(trace) == []
    (tmp_path / "t.json").write_text(json.dumps(trace))
    done = cli("report", str(tmp_path / "t.json"), "-o", str(tmp_path / "r.html"))
    assert done.returncode == 0, done.stderr
    assert_clean((tmp_path / "r.html").read_text(), clean)
    # the file name is a value too
    assert_clean(report.render(trace, path=payload), clean)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_typed_fields_are_escaped_even_unchecked(real_trace, payload):
    clean = elements(report.render(real_trace))
    assert_clean(report.render(inject_typed_fields(real_trace, payload)), clean)


def test_the_validator_rejects_wrong_types_with_located_messages(real_trace, tmp_path):
    trace = inject_typed_fields(real_trace, PAYLOADS[1])
    found = problems(trace, limit=100)
    for where in ("otherData.missing_ranks[0]", "otherData.clock.offsets_ns[",
                  "otherData.counters[0].rank", "otherData.counters[0].count",
                  "otherData.counters[0].evaluations", "otherData.counters[0].eval_direct",
                  "otherData.counters[0].line"):
        assert any(p.startswith(where) for p in found), (where, found)
    (tmp_path / "t.json").write_text(json.dumps(trace))
    done = cli("report", str(tmp_path / "t.json"), "-o", str(tmp_path / "r.html"))
    assert done.returncode == 1
    assert "otherData." in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "r.html").exists()


def test_the_real_trace_passes_the_type_checks(real_trace):
    assert problems(real_trace, limit=100) == []
