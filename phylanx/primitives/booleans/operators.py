"""Comparison and logical operators (infix ``== != < <= > >= && ||``, prefix ``!``).

Comparisons follow NumPy broadcasting and return bool (or, with a third
argument ``true``, 1/0 in the operands' numeric type, as the original).
``&&`` and ``||`` short-circuit on scalars (so ``i < n && x[i] > 0`` is safe)
and work element-wise on arrays.
"""
from __future__ import annotations

import operator

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import truth, type_name
from ..registry import primitive


def _compare(name, infix, op, oracle, example, result):
    def impl(a, b, numeric=False):
        r = op(a, b)
        if numeric is not False and truth(numeric):
            dtype = np.result_type(np.asarray(a).dtype, np.asarray(b).dtype)
            r = np.asarray(r).astype(dtype)
            return r[()] if r.ndim == 0 else r
        return r

    impl.__name__ = name
    impl.__doc__ = (f"Element-wise ``{infix}`` with broadcasting -> bool; with a third "
                    "argument ``true`` the result is 1/0 in the operands' type.")
    primitive(
        name, f"_1 {infix} _2", f"{name}(_1, _2)", f"{name}(_1, _2, _3)",
        oracle=oracle, samples="binary", elementwise=True,
        distributable=True, infix=infix, example=example, result=result,
        flags={"binary": op},
    )(impl)
    return impl


eq = _compare("__eq", "==", operator.eq, np.equal, "[1, 2] == 2", "[false, true]")
ne = _compare("__ne", "!=", operator.ne, np.not_equal, "[1, 2] != 2", "[true, false]")
lt = _compare("__lt", "<", operator.lt, np.less, "[1, 2] < 2", "[true, false]")
le = _compare("__le", "<=", operator.le, np.less_equal, "[1, 2] <= 1", "[true, false]")
gt = _compare("__gt", ">", operator.gt, np.greater, "[1, 2] > 1", "[false, true]")
ge = _compare("__ge", ">=", operator.ge, np.greater_equal, "[1, 2] >= 2", "[false, true]")


def _is_array(v) -> bool:
    return isinstance(v, np.ndarray) and v.ndim > 0


def _logical(name, infix, short_value, combine, oracle, example, result):
    """Build a short-circuiting two-operand logical operator (a lazy primitive)."""

    def build(node, children):
        def run(frame):
            if len(children) != 2:
                # the original's pattern takes more, its evaluation exactly two (A.3.7)
                raise PhylanxValueError(f"the logical primitive {name} requires exactly two "
                                        f"operands, got {len(children)}; nest them: "
                                        f"{name}(a, {name}(b, c))")
            acc = None
            first = children[0].choice.call(frame)
            if first is None:
                # nil only with nil (false for both operators); never short-circuits
                if children[1].choice.call(frame) is not None:
                    raise _incomparable(name, "nil with a value")
                return np.bool_(False)
            for child in children:
                v = first if child is children[0] else child.choice.call(frame)
                _check_operand(v, name)
                if acc is None:
                    if not _is_array(v):
                        if truth(v) == short_value:
                            return _scalar(v, short_value)
                        acc = _scalar(v, not short_value)
                        continue
                    acc = np.asarray(v, dtype=bool)
                elif _is_array(v) or _is_array(acc):
                    acc = combine(acc, v)
                elif truth(v) == short_value:
                    return _scalar(v, short_value)
                else:
                    acc = _scalar(v, not short_value)
            return acc
        return run

    build.__name__ = name
    word, decider, python = (("AND", "false", "and") if not short_value
                             else ("OR", "true", "or"))
    build.__doc__ = (f"Logical {word} of exactly two operands (infix ``{infix}``).\n\n"
                     "Element-wise on arrays (NumPy broadcasting); a scalar operand that "
                     f"decides the result ({decider}) stops the evaluation of the rest, like "
                     f"Python's ``{python}``.  Operands are numbers and numeric arrays; "
                     "``nil`` only with ``nil`` (the result is false), as in the original.")
    primitive(name, f"_1 {infix} __2", f"{name}(_1, __2)", lazy=True,
              oracle=lambda a, b: combine(a, b),
              elementwise=True,
              infix=infix, example=example, result=result)(build)
    return build


def _incomparable(name: str, what: str) -> PhylanxTypeError:
    return PhylanxTypeError(f"the operands of {name} can't be compared: {what} (numbers and "
                            "arrays only, or nil with nil)")


def _check_operand(v, name: str) -> None:
    """The original's operands (A.3.7): numbers and numeric arrays; nil only with nil."""
    if v is None:
        raise _incomparable(name, "a value with nil")
    if isinstance(v, (bool, int, float, complex, np.bool_, np.number)):
        return
    if isinstance(v, np.ndarray) and v.dtype.kind in "biufc":
        return
    raise _incomparable(name, f"a {type_name(v)}")


def _scalar(v, value: bool):
    """The result for a deciding scalar operand ``v`` of truth ``value``: a Python bool
    stays itself (Python's ``a < b and c < d`` is a Python bool), else ``np.bool_``."""
    return v if type(v) is bool else np.bool_(value)


and_ = _logical("__and", "&&", False, np.logical_and, np.logical_and,
                "[true, false] && true", "[true, false]")
or_ = _logical("__or", "||", True, np.logical_or, np.logical_or,
               "[true, false] || false", "[true, false]")


@primitive("__not", "!_1", "__not(_1)", oracle=np.logical_not,
           samples="unary", elementwise=True, distributable=True, infix="!",
           example="!([1, 0])", result="[false, true]")
def not_(a):
    """Logical negation, element-wise on arrays (prefix ``!``)."""
    if isinstance(a, np.ndarray):
        return np.logical_not(a)
    return np.bool_(not truth(a))
