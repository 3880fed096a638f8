"""Gradients through containers, registry-wide (issue 26 item 1: tuples gave zeros).

Every differentiable primitive with a case (``cases.py``) whose operand is a list of
float values (the joins, stacks, ``__array``, ``__pysum``, list ``+`` ...) is run end to
end through ``phylanx.grad`` with that operand built in every form a program may give:
a list, a tuple, a tuple held in a variable, a tuple taken out of another container, a
tuple passed to a function, and a tuple returned by a function.  The gradient of
``<w, primitive(...)>`` with respect to every float item must equal central differences
of the primitive's NumPy implementation.  The set of primitives is derived from the
registry and the cases, not listed here.  Every case of every differentiable primitive
also runs with its operands taken out of a dict inside a tuple a function returned.

Then Python programs (tuples inline, held, nested, passed, returned and unpacked, dicts,
containers changed after they were built, tuple/dict arguments) against central
differences of the undecorated function, the errors for containers returned by
primitives without a rule, and ``phylanx.nn``'s generated reverse pass.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.autodiff import VJP, PhylanxGradientError, grad
from phylanx.autodiff.tape import is_float_value
from phylanx.primitives import registry

from .cases import CASES, RECORDER_ONLY
from .helpers import assert_grad_close, numeric_grad

FORMS = ("list", "tuple", "variable", "nested", "argument", "returned")


def _holds_float(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_holds_float(v) for v in value)
    return is_float_value(value)


def _sequence_cases() -> list[tuple[str, int]]:
    """(primitive, case) of every differentiable primitive's case with an operand that
    is a list holding a float value."""
    found = []
    for spec in registry.all_specs():
        if not spec.differentiable or spec.name in RECORDER_ONLY or VJP.get(spec.name) is None:
            continue
        for k, args in enumerate(CASES.get(spec.name, ())):
            if any(isinstance(a, list) and _holds_float(a) for a in args):
                found.append((spec.name, k))
    return sorted(found)


SEQUENCE_CASES = _sequence_cases()


def test_the_derived_set_is_not_empty():
    names = {n for n, _ in SEQUENCE_CASES}
    assert len(names) >= 10 and "concatenate" in names, sorted(names)


class _Program:
    """PhySL text of ``sum(<w, name(args)>)`` with each list operand built in ``form``;
    the parameters are the float items (``p0``...), the other operands (``o0``...) and
    the weights (``w0``...)."""

    def __init__(self, name: str, args: list, form: str, out) -> None:
        self.items: list = []      # values of p0, p1, ...
        self.others: list = []     # values of o0, o1, ...
        self.weights: list = []    # values of w0, w1, ...
        self.defines: list[str] = []
        self.form = form
        operands = [self._operand(a, top=True) for a in args]
        call = f"{name}({', '.join(operands)})"
        if form == "argument":     # the containers reach the primitive as parameters
            inner = [f"s{i}" for i in range(len(operands))]
            self.defines.append(f"define(g, {', '.join(inner) or 'nil'}, "
                                f"{name}({', '.join(inner)}))")
            call = f"g({', '.join(operands)})"
        objective = self._objective("r", out)
        params = [f"p{i}" for i in range(len(self.items))] + \
            [f"o{i}" for i in range(len(self.others))] + [f"w{i}" for i in range(len(self.weights))]
        body = f"block({', '.join(self.defines + [f'define(r, {call})', objective])})"
        self.text = f"lambda({', '.join(params)}, {body})"

    def _leaf(self, value) -> str:
        if is_float_value(value):
            self.items.append(value)
            return f"p{len(self.items) - 1}"
        self.others.append(value)
        return f"o{len(self.others) - 1}"

    def _operand(self, value, top: bool = False) -> str:
        if not (isinstance(value, list) and _holds_float(value)):
            return self._leaf(value)
        kind = "list" if self.form == "list" else "tuple"
        first = len(self.items)
        text = f"{kind}({', '.join(self._operand(v) for v in value)})"
        if not top:
            return text
        if self.form == "variable":
            self.defines.append(f"define(v{len(self.defines)}, {text})")
            return f"v{len(self.defines) - 1}"
        if self.form == "nested":
            return f"__subscript(list(1.0, {text}), 1)"
        if self.form == "returned":    # built by a function from its parameters
            n = len(self.defines)
            names = [f"p{i}" for i in range(first, len(self.items))]
            local = text
            for i, p in reversed(list(enumerate(names))):
                local = local.replace(p, f"a{i}_")   # p10 before p1: reversed order
            self.defines.append(f"define(h{n}, {', '.join(f'a{i}_' for i in range(len(names)))}, "
                                f"tuple({local}, 0))")
            return f"__subscript(h{n}({', '.join(names)}), 0)"
        return text

    def _objective(self, ref: str, out) -> str:
        if isinstance(out, (list, tuple)):
            parts = [self._objective(f"__subscript({ref}, {i})", o) for i, o in enumerate(out)]
            return " + ".join(parts) if parts else "0.0"
        self.weights.append(np.random.default_rng(len(self.weights)).standard_normal(
            np.shape(out)))
        return f"sum({ref} * w{len(self.weights) - 1})"


def _weighted(out, weights: list) -> float:
    """``<w, out>`` in the order :meth:`_Program._objective` numbers the weights."""
    if isinstance(out, (list, tuple)):
        total, rest = 0.0, weights
        for o in out:
            total += _weighted(o, rest)
            rest = rest[_count(o):]
        return total
    return float(np.sum(np.asarray(out) * weights[0]))


def _count(out) -> int:
    return sum(_count(o) for o in out) if isinstance(out, (list, tuple)) else 1


def _rebuild(args: list, items: list) -> list:
    """``args`` with their float list items replaced by ``items`` in order."""
    it = iter(items)

    def put(value):
        if isinstance(value, list) and _holds_float(value):
            return [put(v) for v in value]
        return next(it) if is_float_value(value) else value
    return [put(a) if isinstance(a, list) else a for a in args]


def _numeric(impl, args: list, weights: list, items: list, eps=1e-6,
             rebuild=_rebuild) -> list:
    grads = []
    for j, base in enumerate(items):
        base = np.asarray(base, dtype=np.float64)
        g = np.zeros(base.shape)
        for idx in np.ndindex(base.shape):
            values = []
            for step in (eps, -eps):
                moved = base.copy()
                moved[idx] += step
                point = list(items)
                point[j] = moved if moved.ndim else np.float64(moved[()])
                values.append(_weighted(impl(*rebuild(args, point)), weights))
            g[idx] = (values[0] - values[1]) / (2 * eps)
        grads.append(g)
    return grads


_NUMERIC: dict = {}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("name", "k"), SEQUENCE_CASES,
                         ids=[f"{n}-{k}" for n, k in SEQUENCE_CASES])
def test_gradient_through_every_container_form(name, k, form):
    args = list(CASES[name][k])
    impl = registry.lookup(name).impl
    out = impl(*args)
    program = _Program(name, args, form, out)
    f = phylanx.execution_tree.eval(phylanx.execution_tree.compiler_state(), program.text)
    call_args = program.items + program.others + program.weights
    want_value = _weighted(out, program.weights)
    got_value = f(*call_args)
    np.testing.assert_allclose(got_value, want_value, rtol=1e-9, atol=1e-12,
                               err_msg=program.text)
    if (name, k) not in _NUMERIC:
        _NUMERIC[(name, k)] = _numeric(impl, args, program.weights, program.items)
    got = grad(f, tuple(range(len(program.items))))(*call_args)
    for j, (g, w) in enumerate(zip(got, _NUMERIC[(name, k)])):
        assert np.shape(g) == np.shape(program.items[j]), (program.text, j)
        try:
            assert_grad_close(g, w)
        except AssertionError as e:
            raise AssertionError(f"{name} case {k}, {form}, item {j}: {program.text}") from e


# -- every operand of every differentiable primitive taken out of a container -------
#: primitives whose rule differentiates only their first result (as in test_rules.py)
FIRST_RESULT_ONLY = {"categorical_crossentropy"}
ALL_CASES = [(spec.name, k) for spec in registry.all_specs()
             if spec.differentiable and spec.name not in RECORDER_ONLY
             for k in range(len(CASES.get(spec.name, ())))]


class _Packed(_Program):
    """``sum(<w, name(args)>)`` where every operand holding a float is an item of a dict
    inside a tuple that a function returns, taken out again (nested, returned, keyed)."""

    def __init__(self, name: str, args: list, out, first_only: bool = False) -> None:
        self.items, self.others, self.weights, self.defines = [], [], [], []
        self.form = "tuple"                # list operands become tuples too
        pairs, operands = [], []
        for a in args:
            if _holds_float(a):
                pairs.append(f'list("k{len(pairs)}", {self._operand(a)})')
                operands.append(f'__subscript(pack, "k{len(pairs) - 1}")')
            else:
                operands.append(self._leaf(a))
        floats = [f"p{i}" for i in range(len(self.items))]
        self.defines.append(f"define(h, {', '.join(floats)}, "
                            f"tuple(dict(list({', '.join(pairs)})), 0))")
        self.defines.append(f"define(pack, __subscript(h({', '.join(floats)}), 0))")
        objective = self._objective("r", out)
        params = floats + [f"o{i}" for i in range(len(self.others))] + \
            [f"w{i}" for i in range(len(self.weights))]
        call = f"{name}({', '.join(operands)})"
        if first_only:   # the scalar form of categorical_crossentropy is the loss alone
            call = f"__subscript({call}, 0)"
        body = f"block({', '.join(self.defines + [f'define(r, {call})', objective])})"
        self.text = f"lambda({', '.join(params)}, {body})"


def _rebuild_all(args: list, items: list) -> list:
    """``args`` with every float value (top level or in lists) replaced by ``items``."""
    it = iter(items)

    def put(value):
        if isinstance(value, list) and _holds_float(value):
            return [put(v) for v in value]
        return next(it) if is_float_value(value) else value
    return [put(a) for a in args]


@pytest.mark.parametrize(("name", "k"), ALL_CASES, ids=[f"{n}-{k}" for n, k in ALL_CASES])
def test_every_primitive_with_operands_taken_from_containers(name, k):
    args = list(CASES[name][k])
    primitive = registry.lookup(name).impl
    first_only = name in FIRST_RESULT_ONLY and type(primitive(*args)) in (list, tuple)
    impl = (lambda *a: primitive(*a)[0]) if first_only else primitive
    out = impl(*args)
    program = _Packed(name, args, out, first_only)
    f = phylanx.execution_tree.eval(phylanx.execution_tree.compiler_state(), program.text)
    call_args = program.items + program.others + program.weights
    np.testing.assert_allclose(f(*call_args), _weighted(out, program.weights), rtol=1e-9,
                               atol=1e-12, err_msg=program.text)
    key = ("all", name, k)
    if key not in _NUMERIC:
        _NUMERIC[key] = _numeric(impl, args, program.weights,
                                 program.items, rebuild=_rebuild_all)
    got = grad(f, tuple(range(len(program.items))))(*call_args)
    for j, (g, w) in enumerate(zip(got, _NUMERIC[key])):
        try:
            assert np.shape(g) == np.shape(program.items[j])
            assert_grad_close(g, w)
        except AssertionError as e:
            raise AssertionError(f"{name} case {k}, item {j}: {program.text}") from e


# -- the same from Python, against central differences of the undecorated function --
@phylanx.Phylanx
def _pair(a, b):
    return (a * b, a + b)


@phylanx.Phylanx
def _joined(t):
    return np.concatenate(t)


@phylanx.Phylanx
def concat_tuple(x, y):
    return np.sum(np.concatenate((x, y)) ** 2)


@phylanx.Phylanx
def stack_held(x, y):
    t = (x, y)
    return np.sum(np.sin(np.stack(t, axis=1)))


@phylanx.Phylanx
def vstack_nested(x, y):
    pair = ((x, y), 2)
    return np.sum(np.vstack(pair[0]) ** 3)


@phylanx.Phylanx
def hstack_scalar(x, y):
    return np.sum(np.hstack((x, y[0], 2.0)) ** 2)


@phylanx.Phylanx
def column_stack_tuple(x, y):
    return np.sum(np.column_stack((x, y)) @ np.array([1.0, -2.0]))


@phylanx.Phylanx
def dstack_tuple(x, y):
    return np.sum(np.dstack((x, y)) ** 2)


@phylanx.Phylanx
def array_of_tuple(x, y):
    return np.sum(np.array((x, y)) ** 2)


@phylanx.Phylanx
def asarray_of_tuple(x, y):
    return np.sum(np.asarray((x, y)) * np.asarray((y, x)))


@phylanx.Phylanx
def builtin_sum_of_tuple(x, y):
    return np.sum(sum((x, y * 2.0)) ** 2)


@phylanx.Phylanx
def tuple_concatenation(x, y):
    return np.sum(np.concatenate((x,) + (y, x)) ** 2)


@phylanx.Phylanx
def returned_and_unpacked(x, y):
    a, b = _pair(x, y)
    return np.sum(a * b)


@phylanx.Phylanx
def tuple_to_a_helper(x, y):
    return np.sum(_joined((x, y)) ** 2)


@phylanx.Phylanx
def dict_of_arrays(x, y):
    d = {"a": x, "b": y}
    return np.sum(np.stack((d["a"], d["b"] * 2.0)) ** 2)


@phylanx.Phylanx
def item_changed_after(x, y):
    z = x * 1.0
    t = [z, y]
    z *= 3.0                      # the list sees the change (was: the old value's gradient)
    return np.sum(np.concatenate(t) ** 2)


@phylanx.Phylanx
def item_stored(x, y):
    t = [x, x]
    t[1] = y * 2.0
    return np.sum(np.stack(tuple(t)) ** 2)


@phylanx.Phylanx
def dict_changed(x, y):
    d = {"a": x, "b": y}
    d.update({"a": y * 2.0})
    v = d.setdefault("c", x * 3.0)
    return np.sum(np.stack(tuple(d.values())) ** 2) + np.sum(v)


PYTHON_CASES = [concat_tuple, stack_held, vstack_nested, hstack_scalar, column_stack_tuple,
                dstack_tuple, array_of_tuple, asarray_of_tuple, builtin_sum_of_tuple,
                tuple_concatenation, returned_and_unpacked, tuple_to_a_helper, dict_of_arrays,
                item_changed_after, item_stored, dict_changed]


@pytest.mark.parametrize("f", PYTHON_CASES, ids=[f.__name__ for f in PYTHON_CASES])
def test_python_containers_against_the_undecorated_function(f):
    rng = np.random.default_rng(26)
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    assert np.isclose(f(x, y), f.python(x, y), rtol=1e-12)
    got = grad(f, (0, 1))(x, y)
    for i, g in enumerate(got):
        assert_grad_close(g, numeric_grad(f.python, [x, y], i))


@phylanx.Phylanx
def _of_a_tuple_argument(t, z):
    u = t + (z,)                  # the function receives the tuple as a tuple
    return np.sum(np.concatenate(u) ** 2)


@phylanx.Phylanx
def _of_a_dict_argument(d):
    return np.sum(d["a"] * d["b"])


def test_containers_as_differentiated_arguments():
    rng = np.random.default_rng(3)
    x, y, z = rng.standard_normal((3, 4))
    (gx, gy), gz = grad(_of_a_tuple_argument, (0, 1))((x, y), z)
    for g, v in ((gx, x), (gy, y), (gz, z)):
        np.testing.assert_allclose(g, 2 * v, rtol=1e-12)
    g = grad(_of_a_dict_argument)({"a": x, "b": y})
    assert set(g) == {"a", "b"}
    np.testing.assert_allclose(g["a"], y, rtol=1e-12)
    np.testing.assert_allclose(g["b"], x, rtol=1e-12)


@phylanx.Phylanx
def _through_meshgrid(x):
    a, b = np.meshgrid(x, x + 1.0)
    return np.sum(a * b)


@phylanx.Phylanx
def _split_then_appended(x, y):
    parts = np.split(x, 3)
    parts.append(y)
    return np.sum(np.concatenate(parts) ** 2)


@phylanx.Phylanx
def _through_divmod(x):
    q, r = np.divmod(x * 3.0, 2.0)
    return np.sum(r * r)


@pytest.mark.parametrize(("f", "primitive"), [(_through_meshgrid, "meshgrid"),
                                              (_through_divmod, "__divmod")])
def test_items_of_a_container_without_a_rule_are_an_error(f, primitive):
    """A container a primitive without a VJP rule returns: its items' gradient is a
    located error naming the primitive (was zeros).  (svd and qr were the examples
    until issue 29 gave them rules, eig until dl30.)"""
    x = np.arange(3.0) + 0.5
    with pytest.raises(PhylanxGradientError, match=primitive) as info:
        grad(f)(x)
    assert info.value.loc is not None


def test_items_of_a_split_appended_to_get_their_gradients():
    # (split was the example of a container without a rule until issue 29 gave it one)
    x, y = np.arange(3.0) + 0.5, np.arange(3.0) + 1.5
    gx, gy = grad(_split_then_appended, (0, 1))(x, y)
    np.testing.assert_allclose(gx, 2 * x)
    np.testing.assert_allclose(gy, 2 * y)


def test_generated_backward_pass_reaches_items_of_nested_list_operands():
    """``phylanx.nn``'s symbolic reverse pass (autodiff/symbolic.py): a variable inside a list
    inside an operand gets its cotangent too (was: only one level of items)."""
    from phylanx.autodiff.symbolic import Graph, gradients
    from phylanx.nn.model_parallel import _compile

    g = Graph(prefix="c")
    x = g.input("x", (2,), active=True)
    a = g.input("a", (), active=True)
    b = g.input("b", (), active=True)
    joined = g.op("hstack", [x, [a, b]], shape=(4,))   # the original's nested hstack
    loss = g.op("sum", g.op("__mul", joined, joined, shape=(4,)), shape=())
    grads = gradients(g, loss, [x, a, b])
    assert all(v is not None for v in grads)
    xv, av, bv = np.array([0.5, -1.5]), 0.25, 2.0
    got = _compile("nested_list_grad", g, [x, a, b], grads)(xv, av, bv)
    for value, want in zip(got, (2 * xv, 2 * av, 2 * bv)):
        np.testing.assert_allclose(np.asarray(value), want, rtol=1e-12)


@phylanx.Phylanx
def _layers(params, x):
    h = x
    for p in params:                 # a list of [w, b] pairs (ragged: no array of it)
        w, b = p
        h = np.tanh(h @ w + b)
    return np.sum(h ** 2)


@pytest.mark.parametrize("kind", [list, tuple])
def test_loop_over_a_ragged_container_of_parameters(kind):
    rng = np.random.default_rng(5)
    w1, b1, w2, b2 = (rng.standard_normal(s) for s in ((3, 4), (4,), (4, 2), (2,)))
    x = rng.standard_normal((5, 3))
    params = kind([kind([w1, b1]), kind([w2, b2])])
    got = grad(_layers)(params, x)
    assert type(got) is kind and all(type(g) is kind for g in got)
    flat = [w1, b1, w2, b2]

    def loss(*values):
        return _layers.python(kind([kind(values[:2]), kind(values[2:])]), x)

    for i, g in enumerate([got[0][0], got[0][1], got[1][0], got[1][1]]):
        assert_grad_close(g, numeric_grad(loss, flat, i))


def test_fit_shapes_container_cotangents_item_by_item():
    from phylanx.autodiff.tape import fit
    a, b = np.ones((2, 3)), np.float32(1.0)
    got = fit((np.ones(3), None), (a, b))          # a tuple's cotangent is a list
    assert type(got) is list and got[1] is None
    np.testing.assert_array_equal(got[0], np.ones((2, 3)))   # fitted to the item
    got = fit({"k": np.float64(2.0)}, {"k": b, "n": 3})
    assert set(got) == {"k"} and got["k"].dtype == np.float32
    # an array read as its rows (np.hstack(m)) may get its rows' cotangents, None: zeros
    np.testing.assert_array_equal(fit([None, np.ones(3)], a), [[0, 0, 0], [1, 1, 1]])
    with pytest.raises(TypeError):
        fit([np.ones(3)], a)                       # one row for two: a rule's mistake
    with pytest.raises(TypeError):
        fit([np.ones(3)], {"k": a})
