"""The ``grad``/``value_and_grad`` API: argnums, values, PhySL functions, and the errors."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx
from phylanx.autodiff import PhylanxGradientError, grad, value_and_grad

from .helpers import assert_grad_close, numeric_grad

RNG = np.random.default_rng(11)


@Phylanx
def weighted(x, w, b):
    return np.sum(np.tanh(x @ w + b) ** 2)


def test_argnums_tuple_and_value():
    x, w, b = RNG.standard_normal((3, 4)), RNG.standard_normal(4), 0.3
    value, grads = value_and_grad(weighted, argnums=(0, 1, 2))(x, w, b)
    assert value == weighted(x, w, b)
    assert isinstance(grads, tuple) and len(grads) == 3
    for i, g in enumerate(grads):
        assert_grad_close(g, numeric_grad(weighted.python, [x, w, b], i))
    assert isinstance(grads[2], np.float64)          # a scalar argument: a scalar gradient


def test_grad_of_int_argnum_is_not_a_tuple():
    x, w = RNG.standard_normal((3, 4)), RNG.standard_normal(4)
    g = phylanx.grad(weighted, 1)(x, w, 0.0)
    assert isinstance(g, np.ndarray) and g.shape == (4,)


def test_inputs_are_not_changed_by_an_in_place_update():
    @Phylanx
    def cube(x):
        x += 1
        return np.sum(x ** 3)

    x = np.array([1.0, 2.0, 3.0])
    g = grad(cube)(x)
    np.testing.assert_array_equal(x, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(g, 3 * (x + 1.0) ** 2)


@Phylanx
def weighted_sum(x, g):
    return np.sum(x * g)


@Phylanx
def weighted_sum_closure(x):
    return np.sum(x * WEIGHTS)


WEIGHTS = RNG.standard_normal((3, 5))


@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.float32),
                                    (np.float32, np.float64), (np.float64, np.float32)])
def test_gradient_that_is_an_operand_is_an_array_of_its_own(dtypes):
    # d/dx sum(x * g) = g: the rule passes g itself down (no product by ones), the
    # user still gets a writable array that is not g, in the dtype of x
    x = RNG.standard_normal((3, 5)).astype(dtypes[0])
    g = RNG.standard_normal((3, 5)).astype(dtypes[1])
    dx, dg = value_and_grad(weighted_sum, argnums=(0, 1))(x, g)[1]
    for got, want, of in ((dx, g, x), (dg, x, g)):
        np.testing.assert_allclose(got, want, rtol=1e-6)
        assert got.flags.writeable and not np.shares_memory(got, want)
        assert got.dtype == of.dtype
    before = g.copy()
    grad(weighted_sum)(x, g)[...] = 7.0
    np.testing.assert_array_equal(g, before)
    d = grad(weighted_sum_closure)(np.ones((3, 5)))
    d[...] = 0.0                       # the closure's array is untouched
    assert np.all(WEIGHTS != 0.0) and not np.shares_memory(d, WEIGHTS)


def test_float32_gradient_stays_float32():
    @Phylanx
    def sq(x):
        return np.sum(x * x)

    g = grad(sq)(np.ones(3, dtype=np.float32))
    assert g.dtype == np.float32


def test_physl_lambda_from_evaluate_and_define():
    state = phylanx.execution_tree.compiler_state()
    f = phylanx.execution_tree.eval(state, "lambda(x, y, sum(x * x * y))")
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    gx, gy = grad(f, (0, 1))(x, y)
    assert_grad_close(gx, 2 * x * y)
    assert_grad_close(gy, x * x)
    phylanx.execution_tree.compile(state, "<test>", "h", "define(h, x, exp(x) * 2.0)")
    h = phylanx.execution_tree.code_for(state, "<test>", "h")
    assert np.isclose(grad(h)(0.5), 2 * np.exp(0.5))


def test_output_that_does_not_depend_on_the_input_has_zero_gradient():
    @Phylanx
    def constant(x):
        return 3.0

    assert grad(constant)(np.ones(2)).tolist() == [0.0, 0.0]


def test_non_scalar_output_is_an_error():
    @Phylanx
    def vector(x):
        return x * 2.0

    with pytest.raises(phylanx.PhylanxValueError, match="scalar"):
        grad(vector)(np.ones(3))


def test_bad_argnums():
    with pytest.raises(phylanx.PhylanxTypeError, match="argnums"):
        grad(weighted, argnums="x")
    with pytest.raises(phylanx.PhylanxValueError, match="out of range"):
        grad(weighted, argnums=5)(np.ones((2, 2)), np.ones(2), 0.0)


def test_non_function_is_an_error():
    # a plain Python function or lambda is translated on the fly (test_api_jax.py)
    with pytest.raises(phylanx.PhylanxTypeError, match="@Phylanx"):
        grad(np.sum)


def test_non_differentiable_primitive_on_the_path_is_a_located_error():
    @Phylanx
    def centred(x):
        y = x - np.median(x * 3.0)          # median has no VJP rule yet
        return np.sum(y * x)

    with pytest.raises(PhylanxGradientError, match="'median'") as info:
        grad(centred)(np.array([0.25, 1.5]))
    assert info.value.loc is not None and info.value.loc.line > 0
    assert "np.median" in str(info.value)             # the excerpt of the user's line


def test_non_differentiable_primitive_off_the_path_is_fine():
    @Phylanx
    def branch_on_floor(x):
        k = np.floor(np.sum(x))        # used only in a comparison: no gradient flows
        if k > 0:
            return np.sum(x * x)
        return np.sum(x)

    np.testing.assert_allclose(grad(branch_on_floor)(np.array([0.7, 0.9])), [1.4, 1.8])


def test_function_values_called_by_kernels_are_never_silently_ignored():
    @Phylanx
    def mapped(x, w):
        ys = map(lambda v: v * w, x)   # the primitive __pymap calls the lambda's twin
        return np.sum(ys)

    # the lambda's results are tracked items of the list map returns: exact for w
    x = RNG.standard_normal(3)
    assert_grad_close(grad(mapped, 1)(x, 2.0),
                      numeric_grad(lambda x, w: np.sum(list(map(lambda v: v * w, x))),
                                   [x, 2.0], 1))
    # map hands the lambda rows of x, which the tape does not see: no rule, an error
    with pytest.raises(PhylanxGradientError, match="__pymap"):
        grad(mapped, 0)(x, 2.0)
    state = phylanx.execution_tree.compiler_state()
    folded = phylanx.execution_tree.eval(
        state, "lambda(x, w, fold_left(lambda(a, b, a + b * w), 0.0, x))")
    with pytest.raises(PhylanxGradientError, match="fold_left"):
        grad(folded, 0)(x, 2.0)        # the result is the lambda's own (was zeros)


def test_value_and_grad_value_equals_the_call():
    @Phylanx
    def loss(w):
        return np.mean((np.arange(4.0) * w - 1.0) ** 2)

    value, g = value_and_grad(loss)(0.3)
    assert value == loss(0.3)
    assert np.isclose(g, numeric_grad(loss.python, [0.3]))


def test_normal_calls_are_not_recorded_after_grad():
    calls = weighted(np.ones((2, 2)), np.ones(2), 0.0)
    grad(weighted)(np.ones((2, 2)), np.ones(2), 0.0)
    assert weighted(np.ones((2, 2)), np.ones(2), 0.0) == calls
    from phylanx.autodiff.recording import active_tape
    assert active_tape() is None


def test_list_of_parameters_gives_a_list_of_gradients():
    @Phylanx
    def two_layer(params, x):
        w1, w2 = params
        return np.sum(np.tanh(x @ w1) @ w2)

    w1, w2, x = RNG.standard_normal((3, 4)), RNG.standard_normal(4), RNG.standard_normal((2, 3))
    g1, g2 = grad(two_layer)([w1, w2], x)
    assert_grad_close(g1, numeric_grad(lambda a: two_layer.python([a, w2], x), [w1]))
    assert_grad_close(g2, numeric_grad(lambda b: two_layer.python([w1, b], x), [w2]))
    assert isinstance(grad(two_layer)((w1, w2), x), tuple)


@pytest.mark.parametrize(("x", "want"), [(1.5, 1.0), (-1.5, 0.0)])
def test_scalar_identity_and_selection_of_a_literal(x, want):
    @Phylanx
    def identity(v):
        return v

    @Phylanx
    def clamp(v):
        return max(v, 0.0)

    assert grad(identity)(x) == 1.0
    assert grad(clamp)(x) == want


def test_in_place_change_of_an_alias_of_the_input():
    @Phylanx
    def alias(x):
        y = x
        y += 1.0
        return np.sum(x * y)

    x = np.array([0.5, 2.0])
    np.testing.assert_allclose(grad(alias)(x), 2 * (x + 1.0))
    assert x.tolist() == [0.5, 2.0]      # the function ran on x's memory: restored


@Phylanx
def _zero_d_used_before_its_change(w):
    t = np.array(w[0] * 1.0)
    u = t * w[1]            # its rule needs t as it was before the change
    t *= w[1]               # a 0-d array changes in place, as NumPy's (ip46)
    t -= w[0]
    return u * t            # w0 w1 (w0 w1 - w0)


def test_a_0d_array_changed_in_place_keeps_its_old_value_on_the_tape():
    w0, w1 = 1.5, 3.0
    got = grad(_zero_d_used_before_its_change)(np.array([w0, w1]))
    np.testing.assert_allclose(got, [2 * w0 * w1 ** 2 - 2 * w0 * w1,
                                     2 * w0 ** 2 * w1 - w0 ** 2], rtol=1e-14)


@Phylanx
def _zero_d_argument_doubled(x):
    y = x
    x *= 2.0                # the 0-d argument changes in place: y sees it (NumPy's)
    return y * x            # 4 x**2


def test_a_0d_argument_changed_in_place_is_differentiated_as_called():
    """A 0-d array argument stays an array under ``grad`` (it was made a NumPy scalar,
    rebound by ``x *= 2.0``: value 4.5 and gradient 6.0 where the call gives 9.0)."""
    x = np.array(1.5)
    value, gradient = value_and_grad(_zero_d_argument_doubled)(x)
    assert value == _zero_d_argument_doubled.python(np.array(1.5)) == 9.0
    assert gradient == 12.0 and np.shape(gradient) == ()
    assert x == 1.5                     # the caller's array: restored


@Phylanx
def _bump_both(x, y):
    x += 1.0
    return np.sum(x * y)


def test_the_callers_arrays_are_never_changed_nor_returned():
    # an argument alone is computed on in place of a copy (api._as_input): what the
    # function changes is restored, and no gradient is the caller's memory
    x, y = np.array([0.5, 2.0]), np.array([3.0, -1.0])
    gx, gy = grad(_bump_both, argnums=(0, 1))(x, y)
    assert x.tolist() == [0.5, 2.0] and y.tolist() == [3.0, -1.0]
    np.testing.assert_allclose(gx, y)
    np.testing.assert_allclose(gy, x + 1.0)
    gy2 = grad(_scaled_sum, argnums=1)(x, y)      # d/dy sum(x * y) = x itself
    np.testing.assert_allclose(gy2, x)
    assert not np.may_share_memory(gy2, x) and gy2.flags.writeable
    # the same array twice: each argument its own copy, as two arrays would be
    a = np.array([1.0, 2.0])
    ga, gb = grad(_bump_both, argnums=(0, 1))(a, a)
    assert a.tolist() == [1.0, 2.0]
    np.testing.assert_allclose(ga, a)
    np.testing.assert_allclose(gb, a + 1.0)
    # a read-only argument is copied, so the function may still change its own value
    ro = np.array([0.5, 2.0])
    ro.flags.writeable = False
    np.testing.assert_allclose(grad(_bump_both)(ro, y), y)


def test_lists_built_repeated_and_copied():
    @Phylanx
    def listy(x):
        items = [x * 2.0] * 3
        more = items.copy()
        more.append(np.sin(x))
        return np.sum(np.array(more))

    x = np.array([0.1, 0.4])
    np.testing.assert_allclose(grad(listy)(x), 6.0 + np.cos(x))


@Phylanx
def _scaled_sum(x, y):
    return np.sum(x * y)


@Phylanx
def _squared_sum_of_pair(x, y):
    return np.sum((x + y) ** 2)


@Phylanx
def _squared_sum_of_list(params):
    return np.sum((params[0] + params[1]) ** 2)


def test_gradients_of_two_arguments_are_separate_arrays():
    # add's rule hands the same cotangent to both operands: two leaves must still get
    # arrays of their own, or an in-place update of one (gradient clipping per parameter,
    # g *= scale) silently changes the other (JAX's are separate, immutable arrays)
    x, y = RNG.standard_normal(4), RNG.standard_normal(4)
    want = 2 * (x + y)
    for gx, gy in (grad(_squared_sum_of_pair, argnums=(0, 1))(x, y),
                   grad(_squared_sum_of_list)([x, y])):
        assert not np.may_share_memory(gx, gy)
        gx *= 0.5                              # an in-place update of one gradient
        np.testing.assert_allclose(gy, want)
        np.testing.assert_allclose(gx, want * 0.5)
