"""phylanx/_blas_env.py: OpenBLAS's idle spin shortened when phylanx loads first."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

# what OpenBLAS can read: the variable as it is when NumPy (which loads OpenBLAS) is
# first imported, here through `import phylanx`
CHECK = """
import importlib.abc, os, sys

class AtNumpy(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "numpy" and "seen" not in globals():
            globals()["seen"] = os.environ.get("OPENBLAS_THREAD_TIMEOUT", "unset")
        return None

sys.meta_path.insert(0, AtNumpy())
import phylanx
print(seen)
"""


@pytest.mark.parametrize(("given", "expected"), [(None, "18"), ("7", "7")])
def test_set_before_numpy_loads_and_a_users_value_kept(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if given is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = given
    out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == expected
