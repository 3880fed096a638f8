"""The timeline of data-parallel steps: when each gradient exists and when each of its
collectives starts and completes (``record_timeline``; read with :func:`timeline`).

While recording, the step of each ``fit`` is the traced one (compiled, or cached
once per model, apart from the untraced one), which wraps each gradient statement in ``timer``
(a computing statement: timing it changes nothing), appending ``("computed <name>",
start, end)``.  The collectives are *not* wrapped: ``async(timer(all_reduce(...)))``
is no bare collective, and with several localities ``async`` evaluates such a body
where it stands, waiting for the collective to complete (``control_flow.async_``),
so the traced step serialised every all_reduce with the backward pass it was meant to
show overlapping.  Their spans come from the distributed layer's timeline hook
instead (``runtime.hooks.recorder``, which ``Collectives`` tells of each collective
it starts and whose future completes it): a :class:`~phylanx.instrumentation.timeline.Recorder`
that keeps only the all_reduce spans, ``("reduce <name>", start, end)``, and wraps no
node (the step runs as untraced but for the gradient timers).  Times are
``time.perf_counter`` seconds.  Recording is a rank's own affair: ranks that record and
ranks that do not train together (``fit``'s agreement compares the untraced step).
"""
from __future__ import annotations

import threading
import time
from typing import Any

#: (label, start, end) of gradient statements ("computed <name>") and collectives
#: ("reduce <name>"), when recording (see :func:`record_timeline`)
TIMELINE: list[tuple[str, float, float]] = []
_recording: list[Any] = []        # the recorder of collectives, while recording


def record_timeline(on: bool = True) -> None:
    """Record the timeline of the data-parallel steps of every ``fit`` from now on
    (their gradients and collectives); ``False`` stops.  Raises RuntimeError
    if a timeline (``phylanx trace``) is being recorded already."""
    TIMELINE.clear()
    while _recording:
        _recording.pop().stop()
    if on:
        _recording.append(_collective_spans().start())


def recording() -> bool:
    return bool(_recording)


def timeline(timeout: float = 5.0) -> list[tuple[str, float, float]]:
    """A copy of :data:`TIMELINE` once every collective started while recording has
    reported its completion (a future's waiter may run before the callback that ends
    its span), or after ``timeout`` seconds, whichever comes first."""
    if _recording:
        _recording[0].settled(timeout)
    return list(TIMELINE)


def trace(label: Any, elapsed: Any) -> None:
    """The ``timer`` callback of a gradient statement (passed to the step as an input)."""
    end = time.perf_counter()
    TIMELINE.append((str(label), end - float(elapsed), end))


def _collective_spans() -> Any:
    from ..instrumentation.timeline import Recorder

    class CollectiveSpans(Recorder):
        """Only the all_reduce spans, appended to TIMELINE; no node or task recorded."""

        def __init__(self) -> None:
            super().__init__(threshold_us=0.0)     # (no node is timed: add_tree)
            self.in_flight = 0
            self.settle = threading.Condition()

        def add_tree(self, root: Any) -> None:
            pass                        # no node wrapped: the step runs as compiled

        def on_eval(self, node: Any, start_ns: int, end_ns: int, thread_id: int) -> None:
            pass

        def ran(self, future: Any, task: Any, t0: int) -> None:
            pass

        def collective(self, kind: str, name: str, value: Any, future: Any) -> None:
            with self.settle:
                self.in_flight += 1
            super().collective(kind, name, value, future)

            def ended(_: Any) -> None:  # (after the span's own callback: added later)
                with self.settle:
                    self.in_flight -= 1
                    self.settle.notify_all()
            future.add_done_callback(ended)

        def span(self, name: str, cat: str, t0: int, t1: int, track: Any = None,
                 args: dict | None = None, flow_in: int | None = None,
                 flow_out: int | None = None) -> None:
            if cat == "collective" and args and args.get("kind") == "all_reduce":
                TIMELINE.append(("reduce " + str(args["name"]), t0 / 1e9, t1 / 1e9))

        def settled(self, timeout: float) -> None:
            with self.settle:
                self.settle.wait_for(lambda: self.in_flight <= 0, timeout)

    return CollectiveSpans()
