"""Keyword arguments go to parameters with defaults; an unknown keyword is an error."""
from phylanx import Phylanx


@Phylanx
def power_of(x, exponent=2):
    return x ** exponent


assert power_of(3) == 9 and power_of(3, exponent=3) == 27
try:
    power_of(3, base=2)
except (TypeError, RuntimeError):
    pass
else:
    raise AssertionError("an unknown keyword was accepted")
