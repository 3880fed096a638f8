"""Pictures of the execution tree: SVG and PNG, nodes coloured by time.

Each node is a box labelled with its primitive, its source line, its count and
its time, filled from white (no time) to red (the largest time in the tree),
by inclusive time (``by="time"``) or exclusive time (``by="self"``).  Nodes run
asynchronously (``eval_direct`` 0: spawned as tasks) get a dashed border, inline
ones a solid border, undecided ones a thin grey border.

Layout: graphviz's ``dot`` when it is on PATH (``engine="dot"``), else a layered
tree layout of our own written as SVG directly (``engine="python"``: leaves side
by side, each parent centred over its children).  PNG comes from ``dot``, else
from matplotlib drawing the same layout; with neither, :class:`PictureUnavailable`
says what to install.
"""
from __future__ import annotations

import shutil
import subprocess
from html import escape

from .. import atomic
from . import tree_data

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN = 150, 58, 14, 34, 20
LEGEND_H = 26


class PictureUnavailable(RuntimeError):
    """No tool to draw this format on this machine."""


def has_dot() -> bool:
    return shutil.which("dot") is not None


def _key(by: str) -> str:
    if by not in ("time", "self"):
        raise ValueError(f"colour by 'time' (inclusive) or 'self' (exclusive), not {by!r}")
    return "time_ns" if by == "time" else "self_ns"


def colour(fraction: float) -> str:
    """White (0) through orange to red (1)."""
    f = min(1.0, max(0.0, fraction))
    if f < 0.5:
        a, b, t = (255, 255, 255), (253, 174, 97), f * 2
    else:
        a, b, t = (253, 174, 97), (215, 48, 39), (f - 0.5) * 2
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b))


def fmt_ns(ns: int) -> str:
    if ns >= 1_000_000_000:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1_000_000:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1_000:
        return f"{ns / 1e3:.1f} us"
    return f"{ns} ns"


def label_lines(node: dict, by: str = "time") -> list[str]:
    key = _key(by)
    where = f"line {node['line']}" if node["line"] > 0 else "no line"
    return [node.get("short") or node["primitive"],
            f"{where}, count {node['count']}", fmt_ns(node[key])]


def border(node: dict) -> tuple[str, str, float]:
    """(stroke colour, dash pattern or "", width) by how the node ran."""
    if node["eval_direct"] == 0:
        return "#1f4e9c", "5,3", 2.0     # asynchronous: a task
    if node["eval_direct"] == 1:
        return "#333333", "", 1.6        # inline
    return "#999999", "", 1.0            # undecided


# -- graphviz -----------------------------------------------------------------------
def dot_source(tree: dict, by: str = "time", title: str = "") -> str:
    key = _key(by)
    top = max(1, tree_data.totals(tree)[key])
    lines = [f'digraph "{_dq(title or tree["label"])}" {{',
             '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
             "  edge [arrowhead=none, color=\"#888888\"];"]
    ids: dict[int, str] = {}
    for i, node in enumerate(tree_data.walk(tree)):
        ids[id(node)] = f"n{i}"
        stroke, dash, width = border(node)
        style = "rounded,filled" + (",dashed" if dash else "")
        label = "\\n".join(_dq(x) for x in label_lines(node, by))
        lines.append(f'  n{i} [label="{label}", fillcolor="{colour(node[key] / top)}", '
                     f'color="{stroke}", penwidth={width}, style="{style}", '
                     f'tooltip="{_dq(node["id"])}"];')
    for node in tree_data.walk(tree):
        for child in node["children"]:
            lines.append(f"  {ids[id(node)]} -> {ids[id(child)]};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dq(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace('"', '\\"')


def _run_dot(source: str, fmt: str) -> bytes:
    done = subprocess.run(["dot", f"-T{fmt}"], input=source.encode(), capture_output=True,
                          timeout=60)
    if done.returncode != 0:
        raise PictureUnavailable(f"dot failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


# -- our own layout -----------------------------------------------------------------
def layout(tree: dict) -> dict[int, tuple[float, float]]:
    """Centre of every node's box: leaves left to right, parents over their children."""
    pos: dict[int, tuple[float, float]] = {}
    next_x = [MARGIN + BOX_W / 2]

    def place(node: dict, depth: int) -> float:
        y = MARGIN + LEGEND_H + depth * (BOX_H + GAP_Y) + BOX_H / 2
        kids = node["children"]
        if not kids:
            x = next_x[0]
            next_x[0] += BOX_W + GAP_X
        else:
            xs = [place(k, depth + 1) for k in kids]
            x = (xs[0] + xs[-1]) / 2
        pos[id(node)] = (x, y)
        return x
    # deep trees recurse deeply: an explicit stack would obscure this; trees are pruned
    place(tree, 0)
    return pos


def python_svg(tree: dict, by: str = "time", title: str = "") -> str:
    key = _key(by)
    top = max(1, tree_data.totals(tree)[key])
    pos = layout(tree)
    width = max(x for x, _ in pos.values()) + BOX_W / 2 + MARGIN
    height = max(y for _, y in pos.values()) + BOX_H / 2 + MARGIN
    width = max(width, 520)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
           f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
           'font-family="Helvetica, Arial, sans-serif" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{MARGIN}" y="{MARGIN + 4}" font-size="12">'
           f'{escape(title or tree["label"])}: colour = '
           f'{"inclusive" if by == "time" else "exclusive"} time; dashed border = '
           'asynchronous (task), solid = inline, grey = undecided</text>']
    for node in tree_data.walk(tree):
        x, y = pos[id(node)]
        for child in node["children"]:
            cx, cy = pos[id(child)]
            y0, y1, mid = y + BOX_H / 2, cy - BOX_H / 2, GAP_Y / 2
            out.append(f'<path d="M{x:.1f},{y0:.1f} C{x:.1f},{y0 + mid:.1f} {cx:.1f},'
                       f'{y1 - mid:.1f} {cx:.1f},{y1:.1f}" fill="none" stroke="#888888"/>')
    for node in tree_data.walk(tree):
        x, y = pos[id(node)]
        stroke, dash, w = border(node)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<g class="node" data-id="{escape(node["id"])}" '
                   f'data-line="{escape(str(node["line"]))}">'
                   f'<title>{escape(node["id"])}</title>'
                   f'<rect x="{x - BOX_W / 2:.1f}" y="{y - BOX_H / 2:.1f}" width="{BOX_W}" '
                   f'height="{BOX_H}" rx="6" fill="{colour(node[key] / top)}" stroke="{stroke}" '
                   f'stroke-width="{w}"{dash_attr}/>')
        for i, text in enumerate(label_lines(node, by)):
            weight = ' font-weight="bold"' if i == 0 else ""
            out.append(f'<text x="{x:.1f}" y="{y - BOX_H / 2 + 17 + 15 * i:.1f}" '
                       f'text-anchor="middle"{weight}>{escape(_clip(text))}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _clip(text: str, n: int = 24) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def python_png(tree: dict, path: str, by: str = "time", title: str = "") -> None:
    """The pure-Python layout drawn by matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import FancyBboxPatch
    except ImportError:
        raise PictureUnavailable("a PNG of the tree needs graphviz's dot or matplotlib "
                                 "(pip install 'phylanx[plots]'); write an .svg instead") \
            from None
    key = _key(by)
    top = max(1, tree_data.totals(tree)[key])
    pos = layout(tree)
    width = max(x for x, _ in pos.values()) + BOX_W / 2 + MARGIN
    height = max(y for _, y in pos.values()) + BOX_H / 2 + MARGIN
    fig = plt.figure(figsize=(max(width, 520) / 100, height / 100), dpi=100)
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(0, max(width, 520))
    ax.set_ylim(height, 0)
    ax.axis("off")
    ax.text(MARGIN, MARGIN + 4, f"{title or tree['label']}: colour = "
            f"{'inclusive' if by == 'time' else 'exclusive'} time; dashed = asynchronous",
            fontsize=9)
    for node in tree_data.walk(tree):
        x, y = pos[id(node)]
        for child in node["children"]:
            cx, cy = pos[id(child)]
            ax.plot([x, cx], [y + BOX_H / 2, cy - BOX_H / 2], color="#888888", lw=0.8)
    for node in tree_data.walk(tree):
        x, y = pos[id(node)]
        stroke, dash, w = border(node)
        ax.add_patch(FancyBboxPatch((x - BOX_W / 2, y - BOX_H / 2), BOX_W, BOX_H,
                                    boxstyle="round,pad=0,rounding_size=6",
                                    facecolor=colour(node[key] / top), edgecolor=stroke,
                                    linewidth=w, linestyle="--" if dash else "-"))
        ax.text(x, y, "\n".join(_clip(t) for t in label_lines(node, by)), ha="center",
                va="center", fontsize=7.5)
    with atomic.replacing(path) as tmp:   # same suffix: matplotlib picks PNG by it
        fig.savefig(tmp, dpi=100)
    plt.close(fig)


# -- the entry points ---------------------------------------------------------------
def svg(tree: dict, by: str = "time", title: str = "", engine: str | None = None) -> str:
    engine = engine or ("dot" if has_dot() else "python")
    if engine == "dot":
        return _run_dot(dot_source(tree, by, title), "svg").decode()
    return python_svg(tree, by, title)


def write(tree: dict, path: str, by: str = "time", title: str = "",
          engine: str | None = None) -> str:
    """Write ``path`` (.svg or .png); returns the engine used ("dot" or "python")."""
    engine = engine or ("dot" if has_dot() else "python")
    if path.lower().endswith(".png"):
        if engine == "dot":
            data = _run_dot(dot_source(tree, by, title), "png")
            atomic.write_bytes(path, data)
        else:
            python_png(tree, path, by, title)
        return engine
    if not path.lower().endswith(".svg"):
        raise ValueError(f"{path}: a tree picture is an .svg or a .png file")
    atomic.write_text(path, svg(tree, by, title, engine))
    return engine
