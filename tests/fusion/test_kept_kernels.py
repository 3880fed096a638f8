"""The guard of the kernel directory kept from run to run (tests/kernel_dirs.py):
a generated module that imports anything but numba, NumPy and math could make numba load
machine code of an older phylanx, so the fixture refuses such a directory."""
from __future__ import annotations

import pytest

from ..kernel_dirs import assert_self_contained

KERNEL = "import math\nimport numpy as np\nfrom numba import njit, prange\n"


def test_self_contained_kernels_pass(tmp_path):
    (tmp_path / "phylanx_fused_a.py").write_text(KERNEL + "import numba\n")
    (tmp_path / ".phylanx_fused_b.tmp-1234.py").write_text("from phylanx import x\n")
    assert_self_contained(tmp_path)            # a hidden temp file is not a module


@pytest.mark.parametrize("line", ["from phylanx.fusion import codegen",
                                  "import phylanx.fusion.codegen as c",
                                  "from . import helpers",
                                  "def k():\n    from scipy import linalg"])
def test_a_kernel_importing_other_code_is_refused(tmp_path, line):
    (tmp_path / "phylanx_fused_c.py").write_text(KERNEL + line + "\n")
    with pytest.raises(AssertionError, match="phylanx_fused_c.py imports"):
        assert_self_contained(tmp_path)
