"""variable.lazy() and the original's arithmetic on lazy values: nothing is computed
until eval, and each eval recomputes from the operands."""
import numpy as np

from phylanx import Phylanx, execution_tree


@Phylanx
def scale(x, k):
    return x * k


x = execution_tree.variable(np.array([1.0, 2.0]))
lazy_x = x.lazy()
total = lazy_x + lazy_x * 3.0
assert np.array_equal(total.eval(), np.array([4.0, 8.0]))

call = scale.lazy(np.array([1.0, 2.0]), 5.0)   # a bound call, evaluated on demand
assert np.array_equal((call.lazy() + 1.0).eval(), np.array([6.0, 11.0]))
fn = execution_tree.variable(scale.lazy())
assert np.array_equal(fn.lazy(np.array([2.0]), 2.0).eval(), np.array([4.0]))
