"""``located``: errors raised by a node's own closure carry the node's location.

Shared by the compiler (lazy primitives) and the special-form builders, apart from
both so that neither imports the other.
"""
from __future__ import annotations

from ..errors import PhylanxError
from ..runtime.nodes import Node
from ..values import ControlSignal


def located(node: Node, run):
    """Wrap a lazy primitive's closure so errors it raises itself carry its location."""
    def run_located(frame):
        try:
            return run(frame)
        except PhylanxError as e:
            raise node.locate(e)
        except ControlSignal:
            raise
        except Exception as e:
            raise node.wrap(e) from e
    return run_located
