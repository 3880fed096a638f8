"""What decorated code prints and formats is what its Python original prints and formats.

``print`` (with ``sep=``/``end=``), ``str()`` and f-string fields of arrays, lists made
inside the function, dicts, booleans and None; ``round`` of scalars with digits.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx

from .helpers import check


@Phylanx
def show_values(x, d):
    made = list(range(3))
    print(x, made, d, None, True, 1.5, "text")
    print("a", "b", sep="-", end="|\n")
    print(x, d, sep="")
    print("no newline", end="")
    print()
    print("flushed", flush=True)
    return 0


@pytest.mark.parametrize("x", [np.arange(3.0), np.array([[1, 2], [3, 4]]), np.float64(0.1), 7])
def test_print_shows_what_python_prints(capsys, x):
    show_values.python(x, {"key": [1, 2.5]})
    want = capsys.readouterr().out
    show_values(x, {"key": [1, 2.5]})
    assert capsys.readouterr().out == want


@Phylanx
def as_text(x):
    made = [x, x]
    table = {"k": x, "pairs": made}
    return (str(x), str(made), str(table), str(True), str(None), str(), str(np.float32(0.1)),  # noqa: UP018
            f"{made}", f"{table}", f"{x}", f"{x!s}", f"{list(range(2))}|{str(x):>6}")


@pytest.mark.parametrize("x", [3, 2.5, np.arange(3.0), "word"])
def test_str_and_fstring_fields_are_python_str(x):
    check(as_text, x)


@Phylanx
def rounded(x, values):
    return round(x, 1), round(x, 2), round(x), round(-x, 1), round(values[0], 1)


@pytest.mark.parametrize("x", [3.55, 2.675, 0.125, 1.005, 2.5, 7.0])
def test_round_with_digits_rounds_python_and_numpy_floats_like_python(x):
    # a Python float rounds its exact binary value, an np.float64 the NumPy way
    check(rounded, x, np.array([x]))
