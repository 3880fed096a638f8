"""The kernel directory of the tests that compile numba kernels at once, kept from run to
run: a kernel compiled by an earlier run (or by the other pytest-xdist worker) is loaded
from numba's disk cache, as a user's second process loads it, instead of compiled again
(tests/fusion/conftest.py ``kernel_dir``, tests/kernels/conftest.py ``cache``).

Loading cannot give a stale kernel: a generated module is named by the hash of its whole
source (``kernels/compiling.py``), numba keys its cache by its own version and the CPU,
and :func:`assert_self_contained` refuses the directory if a kept module imports
anything but numba, NumPy and math (numba would not notice a change in code a cached
kernel calls from another module).  ``PHYLANX_TEST_KERNELS=fresh`` compiles every
kernel anew, in a directory of the run's own.
"""
from __future__ import annotations

import ast
import os
from pathlib import Path

#: what a generated kernel module may import for its disk cache to stay exact
KERNEL_IMPORTS = {"numpy", "numba", "math"}


def kept_kernel_dir(tmp_path_factory) -> str:
    """``$XDG_CACHE_HOME/phylanx/fusion-tests`` (``~/.cache/...``), checked; a directory
    of this run's own with ``PHYLANX_TEST_KERNELS=fresh`` or a read-only home."""
    if os.environ.get("PHYLANX_TEST_KERNELS", "") == "fresh":
        return str(tmp_path_factory.mktemp("fusion-kernels"))
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    path = base / "phylanx" / "fusion-tests"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError:                     # a read-only home: this run's own directory
        return str(tmp_path_factory.mktemp("fusion-kernels"))
    assert_self_contained(path)
    return str(path)



def assert_self_contained(path: Path) -> None:
    """Every generated module kept in ``path`` imports only :data:`KERNEL_IMPORTS`:
    numba does not notice a change in code a cached kernel calls from another module, so
    such an import would let a run test the machine code of an older phylanx."""
    for module in path.glob("phylanx_fused_*.py"):     # not a hidden temp file
        for node in ast.walk(ast.parse(module.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or "."] if isinstance(node, ast.ImportFrom) else [])
            outside = [n for n in names if n.split(".")[0] not in KERNEL_IMPORTS]
            if outside or getattr(node, "level", 0):
                raise AssertionError(
                    f"{module} imports {outside or names}: a kernel kept from run to run "
                    f"may import only {sorted(KERNEL_IMPORTS)} (PHYLANX_TEST_KERNELS="
                    "fresh compiles anew)")
