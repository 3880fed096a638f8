"""Tree pictures: our own SVG layout always, graphviz and matplotlib when present."""
from __future__ import annotations

import builtins
import shutil
import xml.etree.ElementTree as ET

import pytest

from phylanx import Phylanx
from phylanx import execution_tree as et
from phylanx.instrumentation import tree_data, tree_picture
from phylanx.runtime import measure


def _tree():
    state = et.compiler_state("pic", "<pic>")
    node = state.compile_text("block(define(f, n, if(n < 2, n, f(n - 1) + f(n - 2))), f(9))")
    measure.enable(node, reset=True)
    assert state.run(node) == 34
    tree = tree_data.from_node(node)
    measure.disable(node)
    return tree


def test_tree_data_has_counts_and_exclusive_times():
    tree = _tree()
    ifs = [n for n in tree_data.walk(tree) if n["primitive"] == "if"]
    assert ifs[0]["count"] == 109                       # fib(9): 109 calls
    for n in tree_data.walk(tree):
        assert 0 <= n["self_ns"] <= n["time_ns"]


def test_python_svg_is_xml_with_one_box_per_node_and_dashed_async_nodes():
    tree = _tree()
    some = next(n for n in tree_data.walk(tree) if n["primitive"] == "__add")
    some["eval_direct"] = 0                             # as if the policy made it a task
    svg = tree_picture.python_svg(tree, "time")
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    rects = root.findall(f".//{ns}g/{ns}rect")
    assert len(rects) == tree_data.size(tree)
    dashed = [r for r in rects if r.get("stroke-dasharray")]
    assert len(dashed) == 1
    fills = {r.get("fill") for r in rects}
    assert "#ffffff" in fills and len(fills) > 2        # coloured by time
    assert "line 1, count 109" in svg


def test_colours_run_from_white_to_red():
    assert tree_picture.colour(0) == "#ffffff"
    assert tree_picture.colour(1) == "#d73027"
    with pytest.raises(ValueError):
        tree_picture.python_svg(_tree(), "wall")


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is not installed")
def test_dot_engine_writes_svg_and_png(tmp_path):
    tree = _tree()
    assert tree_picture.write(tree, str(tmp_path / "t.svg"), engine="dot") == "dot"
    assert "<svg" in (tmp_path / "t.svg").read_text()
    tree_picture.write(tree, str(tmp_path / "t.png"), engine="dot")
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_python_engine_png_with_matplotlib(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    out = tmp_path / "t.png"
    assert tree_picture.write(_tree(), str(out), engine="python") == "python"
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_dot_and_matplotlib_png_says_what_to_install(tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    monkeypatch.setattr(tree_picture.shutil, "which", lambda name: None)
    with pytest.raises(tree_picture.PictureUnavailable, match="dot or matplotlib"):
        tree_picture.write(_tree(), str(tmp_path / "t.png"))
    assert tree_picture.write(_tree(), str(tmp_path / "t.svg")) == "python"   # SVG still
    assert not (tmp_path / "t.png").exists()


@Phylanx(performance=True)
def poly(x):
    return x * x + 2 * x + 1


def test_decorated_functions_draw_their_tree(tmp_path):
    assert poly(3) == 16
    csv_text, newick, dot = poly.__perfdata__        # the original's triple is kept
    assert csv_text.startswith("primitive_instance,") and newick.endswith(";")
    assert poly.tree_picture(str(tmp_path / "poly.svg"), by="self") in ("dot", "python")
    assert "<svg" in (tmp_path / "poly.svg").read_text()
