"""The functions of phylanx a call runs, counted with ``sys.setprofile``: the tests that
bound the Python frames of a hot path (a product, a small reduction, a loop's update)."""
from __future__ import annotations

import os
import sys

import phylanx

_ROOT = os.path.dirname(phylanx.__file__)


def python_calls(fn, *args):
    """``(fn(*args), the names of phylanx's functions called while it ran)``, ``fn``
    itself included; NumPy's own Python dispatchers are NumPy's cost, not counted."""
    called: list[str] = []

    def profile(frame, event, _arg):
        if event == "call" and frame.f_code.co_filename.startswith(_ROOT):
            called.append(frame.f_code.co_name)
    sys.setprofile(profile)
    try:
        result = fn(*args)
    finally:
        sys.setprofile(None)
    return result, called
