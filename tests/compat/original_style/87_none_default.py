"""A None default is nil; comparing it with None works."""
from phylanx import Phylanx


@Phylanx
def maybe(x, y=None):
    if y == None:  # noqa: E711 - the original's spelling (no 'is' then)
        return x
    else:
        return x + y


assert maybe(1) == 1 and maybe(1, 2) == 3 and maybe(1, None) == 1
