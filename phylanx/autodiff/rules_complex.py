"""Complex intermediate values: which VJP rules are right for them, JAX's convention.

The arguments ``grad`` differentiates and the result are real, but a value in between may
be complex (``np.linalg.eigvals`` of a non-symmetric matrix, ``x * (1 + 2j)``).  JAX's
convention for such values is the *transpose* of the derivative, without conjugation:
a holomorphic ``f`` sends the cotangent ``c`` to ``c f'(z)``; ``real`` sends ``c`` to
``c + 0j``, ``imag`` to ``-1j c``, ``conj`` to ``conj(c)``, ``|z|`` to ``c conj(z) / |z|``;
a complex cotangent reaching a real value keeps its real part (``unbroadcast``).  A
rule is marked ``complex_ready`` here when it computes exactly that for complex
operands: the holomorphic element-wise functions and arithmetic (their rules are
``ct * f'(z)``), the linear ones (sums, products, reshapes, indexing: no conjugate
anywhere), and the non-holomorphic ``real``, ``imag``, ``conj``, ``absolute`` (their rules
in :mod:`.rules_arithmetic`).  ``eig``/``eigvals`` are ready for the eigenvalues' cotangents
(:mod:`.rules_decompositions`).

Any other rule reached by a complex value (a comparison-based one such as ``maximum``,
``norm`` of a complex vector, ``power``'s branch of ``log``) was written for real
values: the tape records such an application as a located error
(``tape.COMPLEX_VALUES``), never a silently wrong gradient (until ad46 ``abs(x * 1j)``
gave ``sign`` where JAX's convention needs the conjugate, ``conj`` passed the cotangent
unchanged, and a complex Python number times a tracked scalar was not recorded at all:
zero gradients).  ``tests/autodiff/test_complex_values.py`` checks against JAX.
"""
from __future__ import annotations

from . import (  # noqa: F401 (the rules marked here are registered by these)
    rules_arithmetic,
    rules_decompositions,
    rules_linalg,
    rules_reductions,
    rules_shape,
    rules_structure,
)
from .table import VJP

#: rules right for complex operands under JAX's convention (module doc)
COMPLEX_READY = (
    "__add", "__sub", "__minus", "__pos", "__mul", "__div",
    "exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh", "sqrt", "square", "expm1",
    "log1p",
    "sum", "mean", "dot", "matmul", "transpose", "reshape", "squeeze", "expand_dims",
    "astype", "__view", "__asndarray", "__subscript", "__copy",
    "real", "__real", "imag", "__imag", "conj", "__pyconj", "absolute", "__pyabs",
    "eig", "eigvals",
)
for _name in COMPLEX_READY:
    VJP.get(_name).complex_ready = True


def complex_ready(name: str) -> bool:
    """Whether the rule of ``name`` is right for complex values (module doc)."""
    return bool(getattr(VJP.get(name), "complex_ready", False))
