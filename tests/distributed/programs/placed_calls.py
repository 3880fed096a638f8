"""``f{L#n}(...)`` of a function the same program defines, evaluated again and again
(issue 26 item 12).  The target locality may get the call before it ran the
``define`` (it failed with "a nil is not a function"), or while it is already at
another evaluation of the program (it ran that evaluation's function: a wrong
answer).  Ranks lag behind each other by turns.  Prints 'OK <rank>' at the end."""
import sys
import time

import phylanx
from phylanx import distributed as dist

r, n = dist.find_here(), dist.num_localities()
right = (r + 1) % n
iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 30

for i in range(iterations):
    if i % n == r:
        time.sleep(0.02)        # this rank lags this time
    got = phylanx.evaluate(f"""block(
    define(f, x, list(x * {i}, find_here())),
    f{{L#{right}}}(2))""")
    assert list(got) == [2 * i, right], (i, got)
    # a function defined twice: the target runs the definition the caller sees
    got = phylanx.evaluate(f"""block(
    define(g, x, x + {i}),
    define(a, g{{L#{right}}}(1)),
    define(g, x, x * {i}),
    list(a, g{{L#{right}}}(3)))""")
    assert list(got) == [1 + i, 3 * i], (i, got)
print(f"OK {r}", flush=True)
