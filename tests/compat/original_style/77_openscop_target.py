"""target="OpenSCoP": the kernel only has __src__ (OpenSCoP text) and cannot be called."""
# compat-gap: the OpenSCoP backend (polyhedral text of loop nests) is not built
from phylanx import Phylanx


@Phylanx(target="OpenSCoP")
def matmul_nest(a, b, c, n):
    for i in range(n):
        for j in range(n):
            for k in range(n):
                c[i, j] += a[i, k] * b[k, j]
    return c


assert "<OpenScop>" in matmul_nest.__src__
