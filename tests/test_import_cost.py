"""``import phylanx`` stays cheap: optional and heavy libraries load on first use.

SciPy alone costs more than the rest of phylanx; h5py, scikit-learn and dask are
optional.  A fresh interpreter imports phylanx and reports which of them got loaded.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import phylanx

ROOT = Path(__file__).resolve().parent.parent
LAZY = ("scipy", "h5py", "sklearn", "dask", "numba")   # numba: kernels/ on first compile

_PROBE = f"""
import json, sys
import phylanx
print(json.dumps([m for m in {LAZY!r} if m in sys.modules]))
"""


def test_import_phylanx_loads_no_optional_library():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env=env, check=True, timeout=60)
    assert json.loads(out.stdout) == [], f"import phylanx imported {out.stdout.strip()}"


def test_the_probe_can_fail():
    # the same probe after an import of scipy reports it (the test above could fail)
    probe = _PROBE.replace("import phylanx", "import phylanx, scipy.special")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=env, check=True, timeout=60)
    assert json.loads(out.stdout) == ["scipy"]


def test_primitives_using_scipy_work_after_the_lazy_import():
    np.testing.assert_allclose(phylanx.evaluate("erf(1.0)"), 0.8427007929497149)
    assert phylanx.evaluate("sigmoid([0.0])")[0] == 0.5
    x = phylanx.evaluate("linear_solver_lu([[2.0, 0.0], [0.0, 4.0]], [2.0, 4.0])")
    np.testing.assert_allclose(x, [1.0, 1.0])
