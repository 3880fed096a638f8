"""``phylanx report``: an HTML page, a Gantt PNG or a scaling plot from recorded data.

    phylanx report trace.json -o report.html          one self-contained page
    phylanx report trace.json --gantt-png gantt.png   the timeline as a PNG (matplotlib)
    phylanx report --scaling results.json -o scaling.png

A file that is not a phylanx trace (or is cut short) gives one line naming the file
and the fault, and exit status 1.
"""
from __future__ import annotations

import argparse
import json
import sys


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phylanx report", description="Report on a trace file (phylanx trace).",
        epilog="example: phylanx report trace.json -o report.html --gantt-png gantt.png")
    p.add_argument("trace", nargs="?", help="a trace file written by phylanx trace")
    p.add_argument("-o", "--output", help="the HTML page (or, with --scaling, the PNG)")
    p.add_argument("--gantt-png", metavar="FILE", help="also draw the timeline as a PNG")
    p.add_argument("--scaling", metavar="RESULTS",
                   help="plot benchmark results (JSON, see docs/instrumentation.md)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from ..instrumentation.tree_picture import PictureUnavailable
    if args.scaling:
        from ..instrumentation.plots import read_scaling, scaling_png
        try:
            results = read_scaling(args.scaling)
        except OSError as e:
            return _fail(f"{args.scaling}: cannot read it ({e.strerror})")
        except (ValueError, KeyError, TypeError) as e:
            return _fail(f"{args.scaling}: not scaling results ({e})")
        try:
            scaling_png(results, args.output or "scaling.png")
        except PictureUnavailable as e:
            return _fail(str(e))
        print(f"phylanx report: wrote {args.output or 'scaling.png'}", file=sys.stderr)
        return 0
    if not args.trace:
        return _fail("give a trace file (or --scaling RESULTS); see --help", 2)
    if not args.output and not args.gantt_png:
        args.output = "report.html"
    from ..instrumentation import report
    from ..instrumentation.validate import TraceFileError, load
    try:
        trace = load(args.trace)
    except TraceFileError as e:
        return _fail(str(e))
    except (KeyError, TypeError, ValueError, json.JSONDecodeError) as e:
        return _fail(f"{args.trace}: malformed trace ({e})")
    written = []
    if args.output:
        try:
            report.write(trace, args.output, args.trace)
        except (KeyError, TypeError, ValueError) as e:
            return _fail(f"{args.trace}: malformed trace ({type(e).__name__}: {e})")
        written.append(args.output)
    if args.gantt_png:
        from ..instrumentation.plots import gantt_png
        try:
            gantt_png(trace, args.gantt_png)
        except PictureUnavailable as e:
            return _fail(str(e))
        written.append(args.gantt_png)
    print(f"phylanx report: wrote {', '.join(written)}", file=sys.stderr)
    return 0


def _fail(message: str, status: int = 1) -> int:
    print(f"phylanx report: {message}", file=sys.stderr)
    return status
