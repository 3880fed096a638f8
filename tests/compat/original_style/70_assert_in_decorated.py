"""assert inside a decorated function: a failing assert is an error with its message."""
from phylanx import Phylanx


@Phylanx
def checked(x):
    assert x > 0, "x must be positive"
    return x * 2


assert checked(2) == 4
try:
    checked(-1)
except AssertionError as e:
    assert "x must be positive" in str(e)
else:
    raise AssertionError("a failing assert passed")
