"""The original truncated the leaky part of relu for a 0-d integer input:
relu(-3, 0.5) was -1.0 (a vector gave -1.5)."""
# compat-difference: relu of a 0-d int is not truncated (relu(-3, 0.5) is -1.5)
from phylanx import Phylanx


@Phylanx
def leaky(x):
    return relu(x, 0.5)  # noqa: F821


assert leaky(-3) == -1.0
