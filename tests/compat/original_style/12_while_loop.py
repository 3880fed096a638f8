"""A while loop (Collatz steps)."""
from phylanx import Phylanx


@Phylanx
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n / 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


assert collatz_steps(27) == 111
