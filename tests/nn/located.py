"""The check the nn tests share for bad input: a located PhylanxError at the caller's line."""
from __future__ import annotations

import pytest

from phylanx.errors import PhylanxError


def raises_in(file: str, fn, *words) -> None:
    """``fn()`` raises a PhylanxError whose message holds every one of ``words`` and whose
    location is in ``file`` (the test's own: the user's line, not phylanx's)."""
    with pytest.raises(PhylanxError) as info:
        fn()
    message = str(info.value)
    assert all(w in message for w in words), message
    assert info.value.loc is not None and info.value.loc.file == file, info.value.loc
