"""if/elif/else in tail position with returns in each branch."""
from phylanx import Phylanx


@Phylanx
def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    else:
        return 0


assert [sign(3.5), sign(-2), sign(0)] == [1, -1, 0]
