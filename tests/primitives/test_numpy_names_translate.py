"""Every primitive whose name is also a NumPy (or numpy.linalg / numpy.random) function, and
means the same (``numpy_calls.numpy_namesake``: ``np.broadcast`` is no collective,
``np.linalg.trace`` no ``trace``; tests/frontend/test_numpy_namesakes.py), is reachable
from decorated Python as ``np.<name>(...)``: translation must not reject it."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx.frontend.numpy_calls import numpy_namesake
from phylanx.frontend.tables import NUMPY_RENAMES
from phylanx.primitives.registry import all_specs

from .harness import decorated_numpy_module


def numpy_named_primitives() -> list[str]:
    out = []
    for spec in all_specs():
        if spec.name.startswith("_") or spec.special or spec.lazy:
            continue
        for prefix, module in (("", np), ("linalg.", np.linalg), ("random.", np.random)):
            dotted = prefix + spec.name
            # (np.random's functions are translated as calls on the random stream)
            same = prefix == "random." or \
                (NUMPY_RENAMES.get(dotted) or numpy_namesake(dotted)) is not None
            if callable(getattr(module, spec.name, None)) and same:
                out.append(dotted)
    return sorted(set(out))


NAMES = numpy_named_primitives()


@pytest.fixture(scope="module")
def translated(tmp_path_factory):
    calls = [(f"f_{name.replace('.', '_')}", name, 2) for name in NAMES]
    return decorated_numpy_module(tmp_path_factory.mktemp("names"), "numpy_names", calls)


def test_there_are_many_numpy_names():
    assert len(NAMES) > 120


@pytest.mark.parametrize("name", NAMES)
def test_numpy_name_translates(translated, name):
    source = getattr(translated, f"f_{name.replace('.', '_')}").get_physl_source()
    body = source.split(",", 2)[2]   # after "define(f_name, a0,"
    assert "a0" in body and "a1" in body, source  # both arguments reach the translation
