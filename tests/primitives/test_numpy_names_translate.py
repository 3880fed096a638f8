"""Every primitive whose name is also a NumPy (or numpy.linalg / numpy.random) function is
reachable from decorated Python as ``np.<name>(...)``: translation must not reject it."""
from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from phylanx.primitives.registry import all_specs


def numpy_named_primitives() -> list[str]:
    out = []
    for spec in all_specs():
        if spec.name.startswith("_") or spec.special or spec.lazy:
            continue
        for prefix, module in (("", np), ("linalg.", np.linalg), ("random.", np.random)):
            if callable(getattr(module, spec.name, None)):
                out.append(prefix + spec.name)
    return sorted(set(out))


NAMES = numpy_named_primitives()


@pytest.fixture(scope="module")
def translated(tmp_path_factory):
    lines = ["import numpy as np", "from phylanx import Phylanx", ""]
    for name in NAMES:
        lines += ["@Phylanx", f"def f_{name.replace('.', '_')}(x, y):",
                  f"    return np.{name}(x, y)", ""]
    path = tmp_path_factory.mktemp("names") / "numpy_names.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("numpy_names", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["numpy_names"] = module
    spec.loader.exec_module(module)
    return module


def test_there_are_many_numpy_names():
    assert len(NAMES) > 120


@pytest.mark.parametrize("name", NAMES)
def test_numpy_name_translates(translated, name):
    source = getattr(translated, f"f_{name.replace('.', '_')}").get_physl_source()
    body = source.split(",", 2)[2]   # after "define(f_name, x,"
    assert "x" in body and "y" in body, source  # both arguments reach the translation
