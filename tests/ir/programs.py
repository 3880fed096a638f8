"""Random straight-line array programs with their NumPy values (shared by the IR tests).

``draw_program(data)`` builds a PhySL function ``define(g, x, y, z, block(...))`` one
statement at a time: each statement applies a random operation (element-wise,
reduction, product, transpose, element read, creation) to earlier values, and is kept
only when NumPy can evaluate it on the drawn arguments, so every program runs.  The
NumPy value of every statement comes along as the oracle.
"""
from __future__ import annotations

import warnings

import numpy as np
from hypothesis import strategies as st

#: (PhySL template, NumPy function, operand count)
UNARY = [("exp({0})", np.exp), ("sqrt(absolute({0}))", lambda a: np.sqrt(np.abs(a))),
         ("-{0}", np.negative), ("tanh({0})", np.tanh), ("transpose({0})", np.transpose),
         ("{0} * 2.0", lambda a: a * 2.0), ("{0} + 1", lambda a: a + 1),
         ("power({0}, 2)", lambda a: np.power(a, 2))]
BINARY = [("{0} + {1}", np.add), ("{0} - {1}", np.subtract), ("{0} * {1}", np.multiply),
          ("{0} / {1}", np.true_divide), ("maximum({0}, {1})", np.maximum),
          ("{0} < {1}", np.less), ("dot({0}, {1})", np.dot), ("matmul({0}, {1})", np.matmul)]
REDUCE = [("sum({0})", lambda a, k: np.sum(a)),
          ("sum({0}, __arg(axis, {k}))", lambda a, k: np.sum(a, axis=k)),
          ("sum({0}, {k}, true)", lambda a, k: np.sum(a, axis=k, keepdims=True)),
          ("mean({0}, {k})", lambda a, k: np.mean(a, axis=k)),
          ("amax({0}, {k})", lambda a, k: np.max(a, axis=k)),
          ("argmin({0}, {k})", lambda a, k: np.argmin(a, axis=k)),
          ("__subscript({0}, {k})", lambda a, k: a[k]),
          ("__subscript({0}, -1)", lambda a, k: a[-1]),
          ("__subscript({0}, list({k}, nil))", lambda a, k: a[k:]),
          ("__subscript({0}, list(nil, nil, 2))", lambda a, k: a[::2]),
          ("__subscript({0}, list(nil, -1), {k})", lambda a, k: a[:-1, k]),
          ("__subscript({0}, list(nil, nil), list({k}, 3))", lambda a, k: a[:, k:3])]


def _dtype(data) -> np.dtype:
    return np.dtype(data.draw(st.sampled_from(["float32", "float64"]), label="dtype"))


def draw_arguments(data):
    m, n, k = (data.draw(st.integers(1, 4), label=d) for d in "mnk")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed"))
    x = rng.uniform(0.5, 2.0, (m, n)).astype(_dtype(data))
    y = rng.uniform(0.5, 2.0, (n,)).astype(_dtype(data))
    z = rng.uniform(0.5, 2.0, (n, k)).astype(_dtype(data))
    return x, y, z


def draw_program(data, statements: int = 6):
    """(PhySL text of g, its arguments, NumPy value of each statement ``vK``)."""
    args = draw_arguments(data)
    names = ["x", "y", "z"]
    values = list(args)
    body, oracle = [], []
    for i in range(statements):
        kind = data.draw(st.sampled_from(["unary", "binary", "reduce", "create"]))
        pick = lambda: data.draw(st.integers(0, len(names) - 1))  # noqa: E731
        if kind == "unary":
            text, fn = data.draw(st.sampled_from(UNARY))
            j = pick()
            expr, operands = text.format(names[j]), (values[j],)
        elif kind == "binary":
            text, fn = data.draw(st.sampled_from(BINARY))
            j, k = pick(), pick()
            expr, operands = text.format(names[j], names[k]), (values[j], values[k])
        elif kind == "reduce":
            text, f = data.draw(st.sampled_from(REDUCE))
            j = pick()
            axis = data.draw(st.integers(0, 1))
            expr, operands = text.format(names[j], k=axis), (values[j],)
            fn = (lambda g, a: lambda v: g(v, a))(f, axis)
        else:
            rows, cols = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
            expr, operands = f"full(tuple({rows}, {cols}), 1.5)", ()
            fn = (lambda r, c: lambda: np.full((r, c), 1.5))(rows, cols)
        try:
            # phylanx raises where NumPy would warn: a floating-point error, or a
            # warning such as the mean of an empty slice (which errstate does not catch)
            with np.errstate(all="raise"), warnings.catch_warnings():
                warnings.simplefilter("error", RuntimeWarning)
                value = fn(*operands)
        except (ValueError, IndexError, TypeError, np.exceptions.AxisError,
                FloatingPointError, RuntimeWarning):
            continue     # NumPy refuses the statement (-(a < b): a boolean negative)
        if np.ndim(value) == 0 and not isinstance(value, np.ndarray):
            value = np.asarray(value)[()]
        name = f"v{i}"
        body.append(f"define({name}, {expr})")
        names.append(name)
        values.append(value)
        oracle.append((name, value))
    body.append(names[-1])
    text = f"define(g, x, y, z, block({', '.join(body)}))"
    return text, args, oracle


_COUNT = iter(range(10**9))


def run_physl(text: str, name: str, *args, pipeline: str = "ast"):
    """Compile ``text`` (defining ``name``) in a fresh state under ``pipeline`` and call
    ``name(*args)``."""
    from phylanx import config
    from phylanx import execution_tree as et
    state = et.compiler_state(f"ir{next(_COUNT)}", "<ir-test>")
    config.set("pipeline", pipeline)
    try:
        et.compile(state, "<ir-test>", name, text)
    finally:
        config.reset("pipeline")
    return et.eval(state, name, *args)


def function_named(program, name: str):
    """The IR Function of ``define(name, ...)`` in a lowered program."""
    for eqn in program.eqns:
        if eqn.prim == "function" and eqn.outs[0].name == name:
            return eqn.param("fn")
    raise LookupError(name)


#: whether the variables of draw_control_program are integers (they may index)
_INDEXED = [True]


def _scalar(data, names: list[str], depth: int = 0) -> str:
    """A random integer expression over ``names``."""
    if depth > 1 or data.draw(st.booleans()):
        return data.draw(st.sampled_from(names + ["1", "2", "3"]))
    op = data.draw(st.sampled_from(["+", "-", "*"]))
    return f"({_scalar(data, names, depth + 1)} {op} {_scalar(data, names, depth + 1)})"


def _statements(data, names: list[str], depth: int) -> list[str]:
    out = []
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(["store", "define", "write", "if", "while", "for"]
                                         if depth < 2 else ["store", "define", "write"]))
        target = data.draw(st.sampled_from(names))
        if kind == "store":
            out.append(f"store({target}, {_scalar(data, names)} % 1000)")
        elif kind == "define":
            new = f"d{depth}_{len(out)}"
            out.append(f"define({new}, {_scalar(data, names)})")
        elif kind == "write":
            index = data.draw(st.sampled_from([f"{target} % 4", "0", "3"] if _INDEXED[0]
                                              else ["0", "3"]))
            out.append(f"store(__subscript(arr, {index}), {_scalar(data, names)})")
        elif kind == "if":
            cond = f"{_scalar(data, names)} > {data.draw(st.integers(-3, 3))}"
            then = _statements(data, names, depth + 1)
            other = _statements(data, names, depth + 1) if data.draw(st.booleans()) else None
            rest = "" if other is None else f", block({', '.join(other)})"
            out.append(f"if({cond}, block({', '.join(then)}){rest})")
        elif kind == "while":
            counter = f"w{depth}"
            body = _statements(data, names, depth + 1)
            out.append(f"define({counter}, 0)")
            out.append(f"while({counter} < {data.draw(st.integers(0, 3))}, "
                       f"block({', '.join(body)}, store({counter}, {counter} + 1)))")
        else:
            var = f"i{depth}"
            body = _statements(data, names + [var], depth + 1)
            out.append(f"for_each(lambda({var}, block({', '.join(body)})), "
                       f"range({data.draw(st.integers(0, 3))}))")
    return out


def draw_control_program(data, integers: bool = True) -> str:
    """A random PhySL function ``h(a, b)`` of integer variables with stores, new
    definitions, element writes into an array, ``if``, ``while`` and ``for_each`` nested
    two deep; its value is every variable and the array."""
    names = ["a", "b", "c"]
    _INDEXED[0] = integers
    body = ["define(c, 0)", "define(arr, constant(0.0, list(4)))",
            *_statements(data, names, 0), "list(a, b, c, arr)"]
    return f"define(h, a, b, block({', '.join(body)}))"
