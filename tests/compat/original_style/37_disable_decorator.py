"""disable_decorator=True: calls go straight to the Python function."""
from phylanx import Phylanx

calls = []


@Phylanx(disable_decorator=True)
def logged(x):
    calls.append(x)
    return x + 1


assert logged(1) == 2 and calls == [1]
