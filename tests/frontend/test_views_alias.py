"""Views alias in decorated code as in NumPy: NumPy decides which spellings give a view.

Each spelling is run undecorated first: if its result shares memory with the input, the
decorated function must see a write through it in the input (or, for NumPy's read-only
views such as ``broadcast_to`` and ``diagonal``, refuse the write with a ``ValueError``);
if it is a copy, the input must stay as it was.  A registry-wide test does the same for
every primitive whose NumPy oracle returns a view of an argument.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxError
from phylanx.primitives.registry import all_specs

from ..primitives.families import samples_for
from ..primitives.harness import as_phylanx_arguments, quiet_numpy

SPELLINGS = [
    "a.ravel()", "np.ravel(a)", "a.reshape(6)", "a.reshape(3, 2)", "np.reshape(a, (3, 2))",
    "a.T", "np.transpose(a)", "a.transpose()", "np.swapaxes(a, 0, 1)", "a.swapaxes(0, 1)",
    "np.moveaxis(a, 0, 1)", "a[0]", "a[:, 1:]", "a[::2]", "a[..., 0]", "a[None]",
    "a[:, np.newaxis]", "np.squeeze(a[None])", "a[None].squeeze()", "np.expand_dims(a, 0)",
    "np.atleast_2d(a)", "a.view()", "np.asarray(a)", "a.real",
    "np.real(a)", "c.real", "c.imag", "np.real(c)", "np.imag(c)", "np.diagonal(a)",
    "a.diagonal()", "np.broadcast_to(a[0], (2, 3))", "np.split(a, 3, axis=1)[0]",
    "np.hsplit(a, 3)[1]", "np.vsplit(a, 2)[0]", "np.flip(a)", "np.fliplr(a)", "np.flipud(a)",
    "a.flatten()", "a.copy()", "np.array(a)", "np.copy(a)", "a.astype(np.float32)",
    "np.ravel(a.T)", "a.T.ravel()", "np.ascontiguousarray(a)", "a + 0.0", "np.rot90(a)",
]


def _inputs():
    return np.arange(6.0).reshape(2, 3), np.array([1 + 2j, 3 - 1j])


def _functions(spelling: str):
    source = ("import numpy as np\n\ndef f(a, c):\n"
              f"    r = {spelling}\n    r[(0,) * r.ndim] = 99.0\n    return a, c\n")
    namespace: dict = {}
    exec(compile(source, "<views>", "exec"), namespace)
    return namespace["f"], Phylanx(source=source)(namespace["f"])


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_write_through_a_view_changes_what_numpy_changes(spelling):
    python, decorated = _functions(spelling)
    try:
        want = python(*_inputs())
    except ValueError:                        # NumPy's read-only views
        with pytest.raises(PhylanxError) as info:
            decorated(*_inputs())
        assert isinstance(info.value, ValueError), repr(info.value)
        return
    got = decorated(*_inputs())
    for g, w, name in zip(got, want, "ac"):
        np.testing.assert_array_equal(g, w, err_msg=f"{spelling}: {name} after the write")


def test_the_spellings_cover_views_and_copies():
    kinds = set()
    for spelling in SPELLINGS:
        a, c = _inputs()
        r = eval(spelling, {"np": np, "a": a, "c": c})
        kinds.add((np.shares_memory(r, a) or np.shares_memory(r, c), r.flags.writeable))
    assert kinds == {(True, True), (True, False), (False, True)}


#: primitives that copy where their NumPy oracle gives a view, each with the reason
COPIES_ON_PURPOSE = {
    "real": "PhySL's real copies, as the original (Python's x.real and np.real are __real)",
}


def _view_cases():
    cases = []
    for spec in all_specs():
        if spec.oracle is None or spec.lazy or spec.special or spec.higher_order:
            continue
        try:
            samples = samples_for(spec)
        except KeyError:
            continue
        for i, args in enumerate(samples):
            values = as_phylanx_arguments(args)
            arrays = [v for v in values if isinstance(v, np.ndarray)]
            try:
                with quiet_numpy():
                    result = spec.oracle(*values)
            except Exception:  # noqa: BLE001 - the oracle test checks the errors
                continue
            # a 0-d result is a NumPy scalar in PhySL's value model (documented)
            if isinstance(result, np.ndarray) and result.ndim and any(
                    np.shares_memory(result, a) for a in arrays):
                cases.append(pytest.param(spec, args, result.flags.writeable,
                                          id=f"{spec.name}-{i}"))
    return cases


VIEW_CASES = _view_cases()


@pytest.mark.parametrize("spec, args, writeable", VIEW_CASES)
def test_a_primitive_gives_a_view_where_numpy_does(spec, args, writeable):
    values = as_phylanx_arguments(args)
    with quiet_numpy():
        result = spec.impl(*values)
    arrays = [v for v in values if isinstance(v, np.ndarray)]
    if spec.name in COPIES_ON_PURPOSE:   # the documented exception holds, no more
        assert not any(np.shares_memory(result, a) for a in arrays), spec.name
        return
    assert isinstance(result, np.ndarray) and any(np.shares_memory(result, a) for a in arrays), (
        f"{spec.name}: NumPy returns a view of its argument, phylanx a copy")
    assert result.flags.writeable == writeable


def test_the_registry_has_view_primitives():
    names = {p.values[0].name for p in VIEW_CASES}
    assert {"ravel", "transpose", "__real", "broadcast_to", "__view"} <= names
