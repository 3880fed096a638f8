"""performance=True: after a call, __perfdata__ holds (counters CSV, newick, dot)."""
import numpy as np

from phylanx import Phylanx


@Phylanx(performance=True)
def work(x):
    return np.sum(x * x)


assert work(np.arange(4.0)) == 14.0
counters, newick, dot = work.__perfdata__
assert counters.splitlines()[0].startswith("primitive_instance,display_name,count,time")
assert newick and dot
