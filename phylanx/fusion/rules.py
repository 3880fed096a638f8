"""How each element-wise primitive fuses: the rules of the ``FUSION`` table.

A rule is a :class:`FuseRule` holding the primitive's *scalar* code for the generated
kernel (``{0}``, ``{1}`` ... stand for its operands, already evaluated into locals), the
operand kinds it is sure of (``b`` bool, ``i`` signed int, ``f`` float) and the values
its non-data parameters (``dtype=nil`` ...) must have.  A primitive whose NumPy semantics
the generator cannot reproduce element by element has a rule too, with ``code=None`` and
the reason: it stays unfused, and the table says why instead of being silent.

The generator casts every intermediate to the dtype NumPy gives it (recorded on the
first, NumPy, evaluation), so promotion (weak Python scalars included), integer
wrap-around and float32 rounding follow NumPy; the kinds below only exclude what a cast
cannot repair (``~True`` is ``-2`` in Python code, ``int ** -1`` raises in NumPy ...).

``phylanx primitives --coverage`` counts both; ``FUSED`` lists the ones that fuse.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..primitives.rules import FUSION


@dataclass(frozen=True)
class FuseRule:
    """One primitive's part of a fused kernel (see the module docstring)."""

    code: str | None                  # scalar code with {0}, {1} ...; None: never fused
    kinds: str = "bif"                # operand dtype kinds the code is right for
    result_kinds: str = "bif"         # result dtype kinds the code is right for
    arity: tuple[int, int | None] = (1, 1)   # data operands (min, max); max None: n-ary
    params: dict[int, tuple] = field(default_factory=dict)  # slot -> allowed literals
    fold: bool = False                # n operands: left fold of the binary code
    reason: str = ""                  # why not fused (code None)

    @property
    def fuses(self) -> bool:
        return self.code is not None


_FUSED: list[str] = []


def _rule(names: str, code: str | None, **kw) -> None:
    rule = FuseRule(code, **kw)
    for name in names.split():
        FUSION.defrule(name, rule)
        if code is not None:
            _FUSED.append(name)


def _never(names: str, reason: str) -> None:
    _rule(names, None, reason=reason)


_DTYPE_NIL = {1: (None,)}             # ``name(x, dtype=nil)``: fused only without dtype

# -- operators ------------------------------------------------------------------------
_rule("__add", "({0} + {1})", arity=(2, None), fold=True)
_rule("__sub", "({0} - {1})", arity=(2, None), fold=True)
_rule("__mul", "({0} * {1})", arity=(2, None), fold=True)
_rule("__div", "({0} / {1})", arity=(2, None), fold=True)
_rule("__minus", "(-{0})", kinds="if")
_rule("__pos", "(+{0})", kinds="if")
# a float result only: NumPy raises for int ** negative int, Python code would not
_rule("power", "_power({0}, {1})", arity=(2, 2), result_kinds="f")
for _name, _op in (("__eq", "=="), ("__ne", "!="), ("__lt", "<"), ("__le", "<="),
                   ("__gt", ">"), ("__ge", ">=")):
    _rule(_name, f"({{0}} {_op} {{1}})", arity=(2, 2))
_rule("__bitand", "({0} & {1})", kinds="bi", arity=(2, 2))
_rule("__bitor", "({0} | {1})", kinds="bi", arity=(2, 2))
_rule("__bitxor", "({0} ^ {1})", kinds="bi", arity=(2, 2))
_rule("__invert", "(~{0})", kinds="i")          # ~True is -2 in compiled code, False in NumPy

_never("__and __or", "lazy: a deciding scalar operand stops the evaluation of the other "
       "(short-circuit), which a kernel that evaluates every operand first cannot keep")
_never("__mod __floordiv", "NumPy's remainder/floor_divide edge cases (zero divisor, "
       "signed zeros, infinities) are not reproduced element by element")
_never("__lshift __rshift", "shifts by the bit width or more are defined in NumPy but "
       "undefined in LLVM")
_never("__npround", "round-half-even with a decimals count: NumPy's scaling is not "
       "reproduced exactly")

# -- logic ----------------------------------------------------------------------------
_rule("logical_and", "(({0} != 0) and ({1} != 0))", arity=(2, 2))
_rule("logical_or", "(({0} != 0) or ({1} != 0))", arity=(2, 2))
_rule("logical_xor __xor", "(({0} != 0) != ({1} != 0))", arity=(2, 2))
_rule("logical_not __not", "({0} == 0)")
_rule("maximum", "_maximum({0}, {1})", arity=(2, 2))
_rule("minimum", "_minimum({0}, {1})", arity=(2, 2))
_rule("fmax", "_fmax({0}, {1})", arity=(2, 2))
_rule("fmin", "_fmin({0}, {1})", arity=(2, 2))
_rule("isnan", "({0} != {0})")
_rule("isinf", "math.isinf({0})", kinds="f")
_rule("isfinite", "math.isfinite({0})", kinds="f")
_rule("isposinf", "({0} == np.inf)", kinds="f")
_rule("isneginf", "({0} == -np.inf)", kinds="f")
_never("isclose", "five operands with a tolerance formula; not worth a kernel yet")

# -- element-wise math: name(x, dtype=nil) ------------------------------------------
for _name in ("sqrt exp log log10 log2 sin cos tan arcsin arccos arctan sinh cosh tanh "
              "arcsinh arccosh arctanh floor ceil trunc rint exp2 cbrt").split():
    _rule(_name, f"np.{_name}({{0}})", kinds="if", params=_DTYPE_NIL)
for _name in "log1p expm1 deg2rad rad2deg".split():
    _rule(_name, f"np.{_name}({{0}})", kinds="if", params=_DTYPE_NIL)
_rule("absolute", "abs({0})", kinds="if", params=_DTYPE_NIL)
_rule("square", "({0} * {0})", kinds="if", params=_DTYPE_NIL)
_rule("sign", "_sign({0})", kinds="if", params=_DTYPE_NIL)
# NumPy's reciprocal of an int is an integer (1 // x): floats only
_rule("reciprocal", "(1.0 / {0})", kinds="f", params=_DTYPE_NIL)
_rule("invsqrt", "(1.0 / np.sqrt({0}))", kinds="if", params=_DTYPE_NIL)
_rule("invcbrt", "(1.0 / np.cbrt({0}))", kinds="if", params=_DTYPE_NIL)
_rule("exp10", "(10.0 ** {0})", kinds="if", params=_DTYPE_NIL)
_rule("erf", "math.erf({0})", kinds="if", params=_DTYPE_NIL)
_rule("erfc", "math.erfc({0})", kinds="if", params=_DTYPE_NIL)
# complex dtypes never reach a kernel, so these are the real-valued identities
_rule("conj real", "({0})", kinds="if", params=_DTYPE_NIL)
_rule("imag", "(0)", kinds="if", params=_DTYPE_NIL)
_rule("arctan2", "np.arctan2({0}, {1})", kinds="if", arity=(2, 2))
_rule("hypot", "np.hypot({0}, {1})", kinds="if", arity=(2, 2))
_never("nan_to_num", "its replacement values depend on the dtype's limits; not fused yet")

# -- activations (keras_support) ------------------------------------------------------
_rule("sigmoid", "(1.0 / (1.0 + np.exp(-{0})))", kinds="if")
_rule("softsign", "({0} / (1.0 + abs({0})))", kinds="if")
_rule("hard_sigmoid", "_clip01(0.2 * {0} + 0.5)", kinds="if")
_rule("softplus", "_softplus({0})", kinds="if")
# relu with its defaults (alpha 0, no cap, threshold 0): x for x >= 0, else 0 * x
_rule("relu", "_relu({0})", kinds="if", params={1: (0.0, 0), 2: (None,), 3: (0.0, 0)})
_rule("elu", "_elu({0}, {1})", kinds="if", arity=(2, 2))
_never("binary_crossentropy", "a loss with clipping and a from_logits switch; not fused yet")

#: the primitives that fuse (rule with code)
FUSED = frozenset(_FUSED)
