"""VJP rules compute in the operands' float dtype, and route cotangents by masks exactly.

* Every rule of the table, on the inputs of ``cases.py`` cast to float32 with a float32
  cotangent, returns float32 cotangents for its float32 operands: a float64 temporary (a
  NumPy float64 constant, a helper array made with the default dtype) doubles the memory
  traffic of a float32 model's backward pass and was cast back by the tape afterwards.
* :func:`phylanx.autodiff.rule_helpers.masked`, the branch-free ``np.where(mask, values,
  0)`` of relu, ``clip`` and ``where``, equals ``np.where`` bit for bit (infinities, NaNs,
  signed zeros, broadcasting, every float width); relu's rule and maximum(x, 0)'s agree
  on an infinite cotangent (relu multiplied by the mask and gave NaN).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from phylanx.autodiff import VJP
from phylanx.autodiff.rule_helpers import masked
from phylanx.primitives import registry

from .cases import CASES

#: rules whose primitive itself computes in float64 whatever the operands' dtype
COMPUTES_IN_FLOAT64 = {"float_power": "np.float_power always computes in float64"}

CASE_IDS = [(name, k) for name in sorted(CASES) if name not in COMPUTES_IN_FLOAT64
            for k in range(len(CASES[name]))]


def _float32(value):
    if type(value) is list:
        return [_float32(v) for v in value]
    if isinstance(value, np.ndarray) and value.dtype == np.float64:
        return value.astype(np.float32)
    if type(value) in (float, np.float64):
        return np.float32(value)
    return value


def _cotangent(out, name):
    if type(out) in (list, tuple):
        cts = [_cotangent(o, name) for o in out]
        if name == "categorical_crossentropy":
            cts[1] = None              # only the loss (the first result) has a gradient
        return cts
    ct = np.random.default_rng(3).standard_normal(np.shape(out)).astype(np.float32)
    return ct if ct.ndim else np.float32(ct)


def _is_float32(operand) -> bool:
    if type(operand) is list:
        return any(_is_float32(v) for v in operand)
    return getattr(operand, "dtype", None) == np.float32


def _float64_parts(grad, operand) -> list:
    """Descriptions of the parts of ``grad``, the cotangent of a float32 ``operand``
    (items of a list either), that are not float32.  Python numbers pass: NumPy treats
    them as weak (a float32 array times 0.0 stays float32)."""
    if not _is_float32(operand) or grad is None or type(grad) in (int, float):
        return []
    if isinstance(grad, (list, tuple)):
        items = operand if type(operand) is list else [operand] * len(grad)
        return [p for g, o in zip(grad, items) for p in _float64_parts(g, o)]
    dtype = getattr(grad, "dtype", None)
    return [] if dtype == np.float32 else [f"{dtype} of shape {np.shape(grad)}"]


@pytest.mark.parametrize(("name", "k"), CASE_IDS, ids=[f"{n}-{k}" for n, k in CASE_IDS])
def test_rule_keeps_float32(name, k):
    args = [_float32(a) for a in CASES[name][k]]
    out = registry.lookup(name).impl(*args)
    grads = VJP.get(name)(_cotangent(out, name), out, *args)
    wrong = [f"operand {i}: {part}" for i, (g, a) in enumerate(zip(grads, args))
             for part in _float64_parts(g, a)]
    assert not wrong, f"{name} case {k} upcast float32 cotangents: {wrong}"


_FLOATS = st.sampled_from([np.float16, np.float32, np.float64])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), dtype=_FLOATS)
def test_masked_is_np_where_bit_for_bit(data, dtype):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3,
                                                         max_side=5))
    mask_shape, value_shape = shapes.input_shapes
    values = data.draw(hnp.arrays(dtype, value_shape, elements=st.floats(
        allow_nan=True, allow_infinity=True, width=np.dtype(dtype).itemsize * 8)))
    mask = data.draw(hnp.arrays(np.bool_, mask_shape))
    if data.draw(st.booleans()) and values.ndim:     # a strided view, as rules pass
        values = values[..., ::-1]
    got = masked(mask, values)
    want = np.where(mask, values, dtype(0))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


def test_masked_of_a_broadcast_cotangent_and_complex_values():
    ct = np.broadcast_to(np.float32(2.5), (3, 4))     # a sum's cotangent: strides 0
    mask = np.arange(12).reshape(3, 4) % 3 == 0
    np.testing.assert_array_equal(masked(mask, ct), np.where(mask, ct, np.float32(0)))
    z = np.array([1 + 2j, np.inf, -3j])
    np.testing.assert_array_equal(masked([True, False, True], z), [1 + 2j, 0, -3j])


def test_relu_and_maximum_route_an_infinite_cotangent_alike():
    """relu(x) and maximum(x, 0) are two spellings of one function: their rules agree
    bit for bit, an infinite cotangent where x < 0 included (0, as a select gives and
    PyTorch's relu; relu's rule multiplied by the mask and gave NaN there)."""
    x = np.array([-2.0, -0.5, 0.5, 3.0, -1.0], np.float32)
    ct = np.array([np.inf, -np.inf, 1.5, np.inf, np.nan], np.float32)
    relu = VJP.get("relu")(ct, registry.lookup("relu").impl(x), x)[0]
    maximum = VJP.get("maximum")(ct, registry.lookup("maximum").impl(x, 0.0), x, 0.0)[0]
    assert relu.dtype == maximum.dtype == np.float32
    assert relu.tobytes() == maximum.tobytes()
    np.testing.assert_array_equal(relu, [0, 0, 1.5, np.inf, 0])


def test_dropouts_products_keep_a_float32_cotangent():
    """Dropout is ``x * keep * (1 / (1 - rate))`` with a boolean ``keep`` and a Python
    float: their cotangents of ``x`` stay float32 (the boolean and the Python number
    were made float64 arrays, which made the cotangent float64)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    keep = rng.random((4, 6)) >= 0.3
    ct = rng.standard_normal((4, 6)).astype(np.float32)
    rule = VJP.get("__mul")
    by_mask = rule(ct, x * keep, x, keep, wanted=(True, False))[0]
    by_scale = rule(ct, x * (1 / 0.7), x, 1 / 0.7, wanted=(True, False))[0]
    assert by_mask.dtype == by_scale.dtype == np.float32
    np.testing.assert_array_equal(by_mask, np.where(keep, ct, 0))
    np.testing.assert_allclose(by_scale, ct * np.float32(1 / 0.7), rtol=1e-7)


@pytest.mark.parametrize("divisor", [2, 2.5, np.array([1, 2, 3, 4], np.int8)],
                         ids=["int", "float", "int8s"])
def test_dividing_a_float32_array_by_a_number_keeps_float32(divisor):
    """``x / 2.0`` (a Python number, weak in NumPy's promotion) and ``x / n`` (a small
    integer array, int8: float32 with int64 is float64): the forward is float32, so are
    both cotangents."""
    x = np.arange(1, 9, dtype=np.float32).reshape(2, 4)
    ct = np.ones((2, 4), np.float32)
    out = x / divisor
    assert out.dtype == np.float32
    grads = VJP.get("__div")(ct, out, x, divisor)
    assert grads[0].dtype == np.float32
    assert np.asarray(grads[1]).dtype == np.float32
    np.testing.assert_allclose(grads[0], ct / divisor, rtol=1e-7)


_F32 = np.random.default_rng(29)


def _f32(*shape):
    return _F32.standard_normal(shape).astype(np.float32)


def _spd32(n):
    b = _f32(n, n)
    return b @ b.T + np.float32(n) * np.eye(n, dtype=np.float32)


#: (primitive, operands, which results get a cotangent): the zero cotangents and
#: identities each rule builds for the results left without one
PARTIAL = [
    ("eigh", (_spd32(3),), (True, False)),
    ("eigh", (_spd32(3),), (False, True)),
    ("svd", (_f32(4, 3), False), (False, True, False)),
    ("svd", (_f32(4, 3), False), (True, False, False)),
    ("qr", (_f32(4, 3),), (False, True)),
    ("qr", (_f32(4, 3),), (True, False)),
    ("lstsq", (_f32(5, 3), _f32(5)), (False, True, False, False)),
    ("lstsq", (_f32(5, 3), _f32(5)), (False, False, False, True)),
    ("pinv", (_f32(3, 4),), None),
    ("__npnorm", (_f32(4), 0), None),
]


@pytest.mark.parametrize(("name", "operands", "given"), PARTIAL,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(PARTIAL)])
def test_decomposition_and_norm_rules_build_their_helpers_in_float32(name, operands, given):
    """Guard (passes on the old code too, whose wrapper cast float64 results back): the
    decomposition and norm rules, with a cotangent for some results only (the others'
    zeros built by the rule), answer float32 for float32 operands, now by building
    their identities and zeros in the operand's dtype."""
    out = registry.lookup(name).impl(*operands)
    if given is None:
        ct = _cotangent(out, name)
    else:
        ct = [_cotangent(o, name) if g else None for o, g in zip(out, given)]
    grads = VJP.get(name)(ct, out, *operands)
    for grad, operand in zip(grads, operands):
        if isinstance(operand, np.ndarray):
            assert np.asarray(grad).dtype == np.float32, (name, given)
