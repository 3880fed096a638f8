"""fmap called by its bare PhySL name with a lambda of two arguments (zipped lists)."""
from phylanx import Phylanx


@Phylanx
def products(a, b):
    return fmap(lambda x, y: x * y, a, b)  # noqa: F821


assert products([1, 2, 3], [4, 5, 6]) == [4, 10, 18]
