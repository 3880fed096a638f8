"""The Keras-facing API (reference §1.8, compat addendum B.4-B.6): ``variable``,
lazy calls, decorated functions as arguments, ``phylanx.plugins.keras``,
``phylanx.util`` helpers and the ``RuntimeError`` base of every PhylanxError."""
import numpy as np
import pytest

import phylanx
from phylanx import Phylanx, util
from phylanx import execution_tree as et
from phylanx.ops import fmap, fold_left, relu


@Phylanx
def add1(x):
    return x + 1


@Phylanx
def add(x, y=0):
    return x + y


@Phylanx
def mapped(f, x):
    return fmap(f, x)


@Phylanx
def folded(f, x):
    return fold_left(f, 0, x)


@Phylanx
def call_it(f, x):
    return f(x)


# -- construction ---------------------------------------------------------------
def test_constructor_forms():
    arr = et.variable(np.array([1.0, 2.0]), name="w")
    assert arr.name == "w" and str(arr) == "w"
    assert repr(arr) == repr(np.array([1.0, 2.0]))   # repr evaluates
    np.testing.assert_array_equal(arr.eval(), [1.0, 2.0])
    copy = et.variable(arr)                             # shares expression, name, dtype
    assert copy.name == "w" and copy.value is arr.value
    shaped = et.variable((None, 3))                      # a placeholder with a declared shape
    assert shaped._keras_shape == (None, 3) and shaped.eval() is None
    shaped.value.assign(np.ones((2, 3)))
    assert shaped.eval().shape == (2, 3)
    assert et.variable("text").eval() == "text" and et.variable("text").dtype.kind == "S"
    assert et.variable(3).eval() == 3 and et.variable(3).dtype == np.int64
    assert et.variable(None).dtype == object
    assert et.variable(np.zeros(2)).name.startswith("Variable_")


def test_dtype_is_reported_and_settable_and_only_changes_eval():
    f32 = et.variable(np.array([1.5], dtype=np.float32))
    assert f32.dtype == np.float32
    v = et.variable(np.array([1.7, -2.2]))
    v.dtype = "int32"
    out = v.eval()
    assert out.dtype == np.int32 and out.tolist() == [1, -2]
    v.dtype = "float64"
    np.testing.assert_array_equal(v.eval(), [1.7, -2.2])   # the stored data was kept
    b = et.variable(np.array(2.0), dtype="bool")
    assert b.eval() is True
    with pytest.raises(TypeError, match="unsupported dtype: c"):
        et.variable(np.array(1.0), dtype="complex128").eval()


def test_cast_gives_a_new_variable_and_leaves_the_old_one():
    v = et.variable(np.array([1.7, -2.2]))
    c = v.cast("int32")
    assert c.dtype == np.int32 and c.eval().tolist() == [1, -2]
    assert v.dtype == np.float64
    np.testing.assert_array_equal(v.eval(), [1.7, -2.2])
    assert (c * 2).eval().tolist() == [2, -4]  # lazy arithmetic in the cast's dtype
    assert et.variable(np.array([0, 2])).cast("bool").eval().tolist() == [False, True]
    with pytest.raises(phylanx.PhylanxError, match="unsupported dtype"):
        v.cast("complex128")


def test_arithmetic_is_lazy_and_takes_the_left_dtype():
    a = et.variable(np.array([1.0, 2.0]))
    b = et.variable(np.array([3.0, 4.0]))
    expr = (a + b) * 2 - 1
    np.testing.assert_array_equal(expr.eval(), [7.0, 11.0])
    np.testing.assert_array_equal((10 - a).eval(), [9.0, 8.0])
    np.testing.assert_array_equal((2 * a).eval(), [2.0, 4.0])
    np.testing.assert_array_equal((-a).eval(), [-1.0, -2.0])
    np.testing.assert_array_equal((a / 2).eval(), [0.5, 1.0])
    # the original: the result converts by the left variable's dtype (int truncates)
    ints = et.variable(np.array([1, 2]))
    assert (ints + 0.5).eval().tolist() == [1, 2]
    # building evaluates nothing: an expression that fails only fails at eval()
    calls = []
    probe = et.variable(et.primitive("probe", lambda: calls.append(1) or np.array([1.0])))
    lazy = -(probe * 2 + a)
    assert calls == []
    np.testing.assert_array_equal(lazy.eval(), [-3.0, -4.0])
    assert calls == [1]


def test_updates_rebind_the_expression_and_recompute():
    v = et.variable(np.array([10.0]))
    before = v * 1
    w = v.update_add(np.array([1.0]))
    np.testing.assert_array_equal(v.eval(), [11.0])
    assert w.value is v.value                            # a wrapper of the same expression
    v.update_sub(np.array([3.0]))
    np.testing.assert_array_equal(v.eval(), [8.0])
    np.testing.assert_array_equal(before.eval(), [10.0])   # built before: unchanged
    v.update_moving_average(np.array([0.0]), 0.75)
    np.testing.assert_allclose(v.eval(), [8.0 - 0.25 * 8.0])
    v._keras_shape = (7,)
    v += 1
    assert v._keras_shape == (1,)                        # an update clears a declared shape


def test_items_and_iteration():
    m = et.variable(np.array([[1, 2], [3, 4]]))
    row = m[1]
    assert isinstance(row, et.variable)
    np.testing.assert_array_equal(row.eval(), [3, 4])
    assert [r.eval().tolist() for r in m] == [[1, 2], [3, 4]]
    with pytest.raises(IndexError):
        m[2]
    with pytest.raises(StopIteration):
        m[5]
    with pytest.raises(IndexError):
        et.variable((None, 2))[0]
    m[0] = np.array([9, 9])
    assert m.eval().tolist() == [[9, 9], [3, 4]]
    assert len(m) == 2 and m._keras_shape == (2, 2)


def test_variables_are_accepted_wherever_an_array_is():
    v = et.variable(np.array([-1.0, 2.0]))
    np.testing.assert_array_equal(add1(v), [0.0, 3.0])
    np.testing.assert_array_equal(add(v, y=v), [-2.0, 4.0])
    np.testing.assert_array_equal(relu(v), [0.0, 2.0])
    np.testing.assert_array_equal(add1(v + 1), [1.0, 4.0])   # a lazy expression too
    state = et.compiler_state("vars")
    assert et.eval(state, "lambda(l, slice(l, 0))", [v]).tolist() == [-1.0, 2.0]


# -- lazy calls and functions as arguments ------------------------------------
def test_lazy_calls():
    bound = add.lazy(1)
    assert isinstance(bound, et.variable)
    assert bound.eval(2) == 3                       # extra arguments are appended
    assert add.lazy(1, y=5).eval() == 6
    fn = add1.lazy()
    assert isinstance(fn, et.variable) and fn.eval(3) == 4
    lazy_dec = Phylanx.lazy(add1)
    np.testing.assert_array_equal(lazy_dec(np.array([1.0])).eval(), [2.0])
    assert lazy_dec.tree() == add1.tree()
    with pytest.raises(phylanx.exceptions.InvalidDecoratorArgumentError):
        Phylanx.lazy(lambda x: x)


def test_decorated_functions_as_arguments():
    x = np.array([1.0, 2.0, 3.0])
    assert list(mapped(add1, x)) == [2.0, 3.0, 4.0]
    assert list(mapped(Phylanx.lazy(add1), x)) == [2.0, 3.0, 4.0]
    assert folded(add, x) == 6.0
    np.testing.assert_array_equal(call_it(add1.lazy(), x), x + 1)
    assert call_it(lambda v: v * 3, 2) == 6


# -- helpers ----------------------------------------------------------------------
def test_in_top_k():
    from phylanx.plugins.keras import in_top_k
    predictions = np.array([[0.1, 0.5, 0.4], [0.7, 0.2, 0.1], [0.2, 0.3, 0.5]])
    targets = np.array([2, 1, 2])
    assert in_top_k(predictions, targets, 1).tolist() == [False, False, True]
    assert in_top_k(predictions, targets, 2).tolist() == [True, True, True]


def test_util_helpers():
    import socket
    assert util.hostname() == socket.gethostname()
    assert phylanx.evaluate("hostname()") == socket.gethostname()
    phylanx.evaluate('debug("x=", 1, 2)')
    assert util.debug_output().endswith("x=12\n")        # no separators, as the original
    from phylanx.language import parse
    program = parse("define(f, x, x + 1)\nf(2)")
    exprs = util.unserialize(util.serialize(program))
    assert exprs == list(program.body)
    assert util.unserialize_expr(util.serialize(program.body[1])) == program.body[1]
    assert any("fmap(" in p for patterns in util.phylist().values() for p in patterns)
    assert util.phyhelpex("fmap")


def test_every_phylanx_error_is_a_runtime_error():
    from phylanx import errors
    for cls in (errors.PhylanxError, errors.PhylanxSyntaxError, errors.PhylanxTypeError,
                errors.PhylanxIndexError, errors.PhylanxKeyError, errors.PhylanxValueError):
        assert issubclass(cls, RuntimeError)
    assert issubclass(errors.PhylanxTypeError, TypeError)
    assert issubclass(errors.PhylanxIndexError, IndexError)
    assert issubclass(errors.PhylanxKeyError, KeyError)
    with pytest.raises(RuntimeError, match="dot"):
        phylanx.evaluate("dot([1, 2], [1, 2, 3])")
    with pytest.raises(RuntimeError):
        @Phylanx
        def bad(x):
            class A:
                pass
            return x


def test_numpy_converts_a_variable_to_its_value():
    v = et.variable(np.array([[1.0, 2.0], [3.0, 4.0]])) * 2
    got = np.asarray(v)
    assert got.dtype == np.float64 and got.tolist() == [[2.0, 4.0], [6.0, 8.0]]
    assert np.sum(et.variable(np.arange(3))) == 3


def test_numpys_copy_protocol():
    """np.array(v) is a copy (changing it leaves the variable alone), np.asarray(v) the
    value itself, copy=False refuses a conversion that needs a copy (NumPy 2)."""
    v = et.variable(np.array([1.0, 2.0]))
    copied = np.array(v)
    copied[0] = 99.0
    assert v.eval().tolist() == [1.0, 2.0]
    assert np.asarray(v) is v.eval()
    assert np.array(v, copy=False) is v.eval()
    with pytest.raises(ValueError):
        np.array(v, dtype=np.float32, copy=False)
    assert np.array(v, dtype=np.float32).dtype == np.float32


def test_variable_lazy_wraps_the_same_expression_and_binds_calls():
    v = et.variable(np.array([1.0, 2.0]))
    lazy = v.lazy()
    assert isinstance(lazy, et.variable) and lazy.value is v.value
    total = lazy * 3.0 + lazy
    v += np.array([1.0, 1.0])          # rebinds v only: lazy keeps the old expression
    np.testing.assert_array_equal(total.eval(), np.array([4.0, 8.0]))

    @Phylanx
    def weighted(x, w, b):
        return x * w + b

    fn = et.variable(weighted.lazy())
    bound = fn.lazy(np.array([1.0, 2.0]), 10.0)   # partial: eval appends the rest
    np.testing.assert_array_equal(bound.eval(0.5), np.array([10.5, 20.5]))
    np.testing.assert_array_equal((bound.lazy(1.0) - 1.0).eval(), np.array([10.0, 20.0]))
    with pytest.raises(TypeError, match="not a function"):
        v.lazy(1.0).eval()
