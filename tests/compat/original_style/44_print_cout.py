"""print(...) inside a decorated function is cout: space-separated, to stdout."""
import contextlib
import io

from phylanx import Phylanx


@Phylanx
def shout(x):
    print("x is", x)
    return x


buffer = io.StringIO()
with contextlib.redirect_stdout(buffer):
    shout(3)
assert buffer.getvalue() == "x is 3\n"
