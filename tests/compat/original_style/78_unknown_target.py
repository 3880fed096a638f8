"""An unknown target is NotImplementedError("Unknown target")."""
from phylanx import Phylanx

try:
    @Phylanx(target="CUDA")
    def f(x):
        return x
except NotImplementedError as e:
    assert "Unknown target" in str(e)
else:
    raise AssertionError("an unknown target was accepted")
