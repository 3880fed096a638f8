"""The original computed switch(c, t, e) as c*t + (1-c)*e, so an inf in the branch
not taken gave NaN."""
# compat-difference: switch picks values (an inf in the unselected value stays out)
import numpy as np

from phylanx import Phylanx


@Phylanx
def pick(c, t, e):
    return switch(c, t, e)  # noqa: F821


got = pick(np.array([True, False]), np.array([1.0, np.inf]), np.array([2.0, 3.0]))
assert got[0] == 1.0 and np.isnan(got[1])
