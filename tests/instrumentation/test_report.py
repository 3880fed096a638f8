"""The HTML report (structure always; in a headless browser when chromium is installed),
the Gantt PNG and the scaling plot."""
from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from .helpers import SCRIPT, cli

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(n)), None)


class Structure(HTMLParser):
    """Collects ids, tags, external references and the inline data of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.tags: dict[str, int] = {}
        self.external: list[str] = []
        self.open: list[str] = []
        self.data_block = ""
        self._in_data = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if "id" in a:
            self.ids.add(a["id"])
        for key in ("src", "href"):
            if a.get(key) and not a[key].startswith("#"):
                self.external.append(a[key])
        self._in_data = a.get("id") == "phylanx-data"

    def handle_data(self, data):
        if self._in_data:
            self.data_block += data

    def handle_endtag(self, tag):
        self._in_data = False


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    d = tmp_path_factory.mktemp("report")
    (d / "script.py").write_text(SCRIPT)
    done = cli("trace", "-o", str(d / "trace.json"), str(d / "script.py"))
    assert done.returncode == 0, done.stderr
    done = cli("report", str(d / "trace.json"), "-o", str(d / "report.html"))
    assert done.returncode == 0, done.stderr
    return d / "report.html"


def test_the_page_is_self_contained_and_has_every_section(report):
    page = Structure()
    page.feed(report.read_text())
    assert {"summary", "timeline", "gantt", "counters", "trees", "sources",
            "phylanx-data", "tree-time", "tree-self"} <= page.ids
    assert page.external == []                      # no CDN, no network
    assert page.tags.get("svg", 0) >= 2 and page.tags.get("script") == 2
    data = json.loads(page.data_block)
    tracks = data["gantt"]["tracks"]
    assert tracks and all(t["label"].startswith("locality 0 / ") for t in tracks)
    assert {"node", "task"} <= set(data["gantt"]["cats"])
    text = report.read_text()
    assert "def work" in text and "for_each" in text     # Python beside PhySL
    assert text.count('class="ln" data-line="') > 10


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium/chrome to render the page")
def test_the_page_renders_in_a_headless_browser_without_errors(report, tmp_path):
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
         "--v=0", f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=3000",
         "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    assert not [c for c in console if "Error" in c or "Uncaught" in c], console
    # the script ran: it sized the canvas from the number of tracks
    assert 'id="gantt" width="' in done.stdout and "height:" in done.stdout


def test_gantt_png_and_scaling_plot(report, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    trace = report.parent / "trace.json"
    done = cli("report", str(trace), "--gantt-png", str(tmp_path / "g.png"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
    results = tmp_path / "results.json"
    results.write_text(json.dumps([{"name": "lra", "n": n, "seconds": 2.0 / n ** 0.8}
                                   for n in (1, 2, 4)]))
    done = cli("report", "--scaling", str(results), "-o", str(tmp_path / "s.png"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"
    results.write_text('{"series": 3}')
    done = cli("report", "--scaling", str(results), "-o", str(tmp_path / "s2.png"))
    assert done.returncode == 1 and "not scaling results" in done.stderr
