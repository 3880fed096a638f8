"""global x inside a decorated function (define_global), then assigned."""
from phylanx import Phylanx

counter = 0


@Phylanx
def bump(k):
    global counter
    counter = counter + k
    return counter


assert bump(2) == 2 and bump(3) == 5
