"""startatlineone and debug=True are accepted; debug prints the PhySL at decoration."""
import contextlib
import io

from phylanx import Phylanx

buffer = io.StringIO()
with contextlib.redirect_stdout(buffer):
    @Phylanx(debug=True, startatlineone=True)
    def inc(x):
        return x + 1

assert "define(inc" in buffer.getvalue()
assert inc(1) == 2
