"""Shared by the programs that count collectives: a call and the collectives this rank
made during it (the timeline recorder's spans), by kind."""
from __future__ import annotations

import collections

from phylanx import distributed as dist
from phylanx.instrumentation.timeline import SPAN, Recorder


def collectives(fn, *args):
    """``fn(*args)``'s result and the collectives this rank made: Counter of kinds."""
    recorder = Recorder(rank=dist.find_here(), size=dist.num_localities()).start()
    try:
        result = fn(*args)
    finally:
        recorder.stop()
    return result, collections.Counter(e[6]["kind"] for e in recorder.events
                                       if e[0] == SPAN and e[2] == "collective")
