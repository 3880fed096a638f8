"""PhySL fmap, filter and fold_left/fold_right over lists and ranges."""
from phylanx import execution_tree

cs = execution_tree.compiler_state("92_folds")
assert execution_tree.eval(cs, "fmap(lambda(x, x * x), list(1, 2, 3))") == [1, 4, 9]
assert execution_tree.eval(cs, "filter(lambda(x, x > 1), list(1, 2, 3))") == [2, 3]
assert execution_tree.eval(cs, "fold_left(lambda(a, x, a - x), 10, list(1, 2, 3))") == 4
assert execution_tree.eval(cs, "fold_right(lambda(x, a, x - a), 0, list(1, 2, 3))") == 2
assert execution_tree.eval(cs, "fold_left(lambda(a, x, a + x), 0, range(5))") == 10
