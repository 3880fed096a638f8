"""Every primitive whose name is also a NumPy (or numpy.linalg / numpy.random) function is
reachable from decorated Python as ``np.<name>(...)``: translation must not reject it.
(A PhySL primitive that only shares NumPy's name, with no NumPy oracle, such as
``broadcast``, the collective, is refused instead: tests/frontend/test_numpy_namesakes.py.)"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx.frontend.tables import NUMPY_WITHOUT_ORACLE
from phylanx.primitives.registry import all_specs

from .harness import decorated_numpy_module


def numpy_named_primitives() -> list[str]:
    out = []
    for spec in all_specs():
        if spec.name.startswith("_") or spec.special or spec.lazy:
            continue
        if spec.oracle is None and spec.name not in NUMPY_WITHOUT_ORACLE:
            continue   # a namesake: not NumPy's function
        for prefix, module in (("", np), ("linalg.", np.linalg), ("random.", np.random)):
            if prefix == "linalg." and hasattr(np, spec.name):
                continue   # np.linalg.trace is not np.trace (other axes): refused
            if callable(getattr(module, spec.name, None)):
                out.append(prefix + spec.name)
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
