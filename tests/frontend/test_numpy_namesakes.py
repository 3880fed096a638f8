"""A NumPy name reaches a primitive only where it means the same (issue 26's class of bug).

``np.block`` compiled to PhySL's ``block`` (a sequence: it returned the nested list),
``np.emath.sqrt(-1)`` to ``sqrt`` (nan instead of 1j), ``np.polynomial.polynomial.polyval``
to ``polyval`` (coefficients in the other order), ``np.ma.sum`` to ``sum`` (masks ignored),
``np.broadcast`` to the collective: each a silent wrong answer.  Now ``np.block`` is
NumPy's and the others are located errors.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxSyntaxError
from phylanx.frontend import tables


def _decorated(body: str, params: str = "x, y"):
    src = f"def f({params}):\n    return {body}\n"
    ns: dict = {"np": np}
    exec(src, ns)
    return Phylanx(source=src)(ns["f"])


@pytest.mark.parametrize("body", [
    "np.block([[x, y], [y, x]])",
    "np.block([x, y])",
    "np.block([[x], [y]])",
    "np.block([[np.outer(x, y), np.outer(y, x)]])",
    "np.block(x)",
])
def test_np_block_is_numpys(body):
    x, y = np.arange(3.0), np.arange(3.0) + 10
    f = _decorated(body)
    got, want = f(x, y), f.python(x, y)
    assert isinstance(got, np.ndarray)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_np_block_refuses_what_numpy_refuses():
    f = _decorated("np.block([[x, y], [y]])")
    x, y = np.ones((2, 2)), np.ones((2, 3))
    with pytest.raises(ValueError):
        f.python(x, y)
    with pytest.raises(ValueError):
        f(x, y)


def _submodule_functions():
    for prefix, module in (("emath.", np.emath), ("lib.scimath.", np.lib.scimath),
                           ("ma.", np.ma), ("polynomial.polynomial.", np.polynomial.polynomial),
                           ("char.", np.char), ("fft.", np.fft)):
        for name in sorted(dir(module)):
            if not name.startswith("_") and callable(getattr(module, name)):
                yield prefix + name


SUBMODULE_FUNCTIONS = [d for d in _submodule_functions() if d not in tables.NUMPY_RENAMES]


@pytest.mark.parametrize("dotted", SUBMODULE_FUNCTIONS + [
    "broadcast", "linalg.trace", "linalg.outer", "linalg.cross", "linalg.tensordot"])
def test_a_namesake_with_another_meaning_is_refused(dotted):
    """np.<sub>.<name> is not np.<name>: refused at translation, naming what was written."""
    f = _decorated(f"np.{dotted}(x)", "x")
    with pytest.raises(PhylanxSyntaxError, match=rf"np\.{dotted.replace('.', '[.]')} is not"):
        f(np.array([-1.0, 4.0]))


@pytest.mark.parametrize("body, arg", [
    ("np.linalg.norm(x)", np.array([3.0, 4.0])),
    ("np.linalg.svd(x)[1]", np.eye(3) * 2.0),
    ("np.linalg.pinv(x)", np.eye(2) * 4.0),
    ("np.fromfunction(lambda i, j: i + j, (2, 3))", None),
])
def test_numpy_names_that_mean_the_same_still_work(body, arg):
    f = _decorated(body, "x")
    np.testing.assert_allclose(f(arg), f.python(arg))
