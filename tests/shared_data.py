"""Where the project's shared data sets are: ``../shared/data`` beside the checkout
(as CI lays it out), else the development machine's ``/work/shared/data``.

Tests read them from there and never copy them into the repository.
"""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_CANDIDATES = (ROOT.parent / "shared" / "data", Path("/work/shared/data"))


def shared_file(name: str) -> Path:
    """The path of data set ``name``; skips the test (saying why) if it is nowhere."""
    for folder in _CANDIDATES:
        if (folder / name).is_file():
            return folder / name
    pytest.skip(f"shared data set {name} is not available (looked in "
                f"{', '.join(str(c) for c in _CANDIDATES)})")
