"""PhylanxSession.init starts the runtime once; a second start is an error."""
from phylanx import Phylanx, PhylanxSession
from phylanx.exceptions import RuntimeAlreadyInitializedError

PhylanxSession.init(2)
assert PhylanxSession.is_initialized
try:
    PhylanxSession.init(1)
except RuntimeAlreadyInitializedError:
    pass
else:
    raise AssertionError("a second init was accepted")


@Phylanx
def one():
    return 1


assert one() == 1
