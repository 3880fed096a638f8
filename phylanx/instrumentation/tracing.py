"""``phylanx.trace(path)``: record part of a program as a trace-event file.

    with phylanx.trace("out.json"):
        result = my_decorated_function(x)

On several localities (MPI ranks) every rank must enter and leave the block
together: entering aligns the clocks (``clock_sync``), leaving gathers the ranks'
traces on rank 0, which writes the merged file.  If the block raises, each rank
writes what it recorded (rank 0 to ``path``, rank r to ``path.rank<r>``), a line
"trace written up to the failure: PATH" goes to stderr, and the error propagates.
"""
from __future__ import annotations

import os
import sys
from typing import Any

from . import physl_view, trace_file
from .timeline import DEFAULT_MAX_SIZE, Recorder


class trace:  # noqa: N801 - used like a function: ``with phylanx.trace(path):``
    """Record a timeline into ``path`` while the block runs (see the module docstring).

    ``threshold_us``: shortest inline evaluation recorded (default: the
    ``trace_threshold_us`` setting, 50); ``max_size``: bytes after which recording
    stops; ``functions``: ``@Phylanx`` functions whose Python and PhySL sources go in
    the file (by default, the compiled ones among the caller's globals).
    """

    def __init__(self, path: str, threshold_us: float | None = None,
                 max_size: int = DEFAULT_MAX_SIZE, functions: tuple = (),
                 sources: list[dict] | None = None) -> None:
        self.path = path
        self.threshold_us, self.max_size = threshold_us, max_size
        self.functions = list(functions)
        self.sources = list(sources or [])
        self.namespace: dict | None = None
        self.recorder: Recorder | None = None
        self.comm: Any = None
        self.offset_ns = 0
        self.ref_ns: int | None = None
        self.rtt_ns = 0
        self.written: str | None = None

    def __enter__(self) -> trace:
        self.namespace = sys._getframe(1).f_globals
        return self.start()

    def __exit__(self, kind, error, tb) -> bool:
        self.finish(error)
        return False

    # -- the parts, for the CLI ------------------------------------------------------
    def start(self) -> trace:
        from ..runtime.locality import here
        locality = here()
        rank, size = locality.id(), locality.count()
        self.recorder = rec = Recorder(self.threshold_us, self.max_size, rank, size)
        rec.start()
        if size > 1:
            from ..distributed.mpi import comm_world
            from .clock_sync import synchronize
            self.comm = comm_world().Dup()
            self.offset_ns, self.ref_ns, self.rtt_ns = synchronize(self.comm, rec.start_ns)
        return self

    def finish(self, error: BaseException | None = None) -> str | None:
        """Stop, build and write; returns the path written (None on ranks > 0)."""
        rec = self.recorder
        if rec is None:
            return None
        rec.stop()
        failed = None if error is None else _describe(error)
        sources = self.sources + [s for s in map(physl_view.decorated_source,
                                                 self._functions()) if s]
        extra = {"failed": failed, "sources": sources,
                 "clock": {"offsets_ns": {str(rec.rank): self.offset_ns},
                           "rtt_ns": {str(rec.rank): self.rtt_ns},
                           "method": "ping-pong with rank 0, shortest round trip"}}
        local = trace_file.build(rec, self.offset_ns, self.ref_ns, extra)
        path = self.path
        if rec.size > 1:
            # each rank's part goes to disk first: if another rank fails while we
            # gather, the launcher (``phylanx trace -n``) merges the parts it finds
            part = f"{self.path}.rank{rec.rank}"
            trace_file.write(local, part)
            if failed is not None:
                if rec.rank != 0:
                    path = part
                else:
                    os.remove(part)      # rank 0's goes to ``path`` itself
            else:
                gathered = self.comm.gather(local, root=0)
                os.remove(part)
                if rec.rank != 0:
                    return None
                local = trace_file.merge(gathered)
        trace_file.write(trace_file.pair_flows(local), path)
        self.written = path
        if failed is not None:
            print(f"trace written up to the failure: {path}", file=sys.stderr)
        return path

    def _functions(self) -> list[Any]:
        found = list(self.functions)
        if self.namespace is not None:
            found += [f for f in physl_view.find_decorated(self.namespace)
                      if all(f is not g for g in found)]
        return found


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
