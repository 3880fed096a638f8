"""phylanx/_blas_env.py: OpenBLAS's idle spin shortened when phylanx loads first."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

CHECK = ("import phylanx, numpy, os, threadpoolctl; "
         "print(os.environ['OPENBLAS_THREAD_TIMEOUT'])")


@pytest.mark.parametrize(("given", "expected"), [(None, "18"), ("7", "7")])
def test_the_default_is_set_and_a_users_value_kept(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if given is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = given
    out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == expected
