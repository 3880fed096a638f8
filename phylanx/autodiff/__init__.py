"""Reverse-mode automatic differentiation of execution trees (``grad``, ``value_and_grad``,
``jacobian``).

* :mod:`.api`: ``grad``, ``value_and_grad`` and ``jacobian`` (JAX-like) for ``@Phylanx``
  functions, PhySL function values and plain Python functions;
* :mod:`.recording`: recording twins of compiled functions, whose primitives append to a
  tape while they run (control flow is handled by recording only what runs);
* :mod:`.tape`: the tape, dependence tracking by identity, and the reverse pass;
* :mod:`.table`: the VJP table (``VJP``), one rule per differentiable primitive;
* ``rules_*``: the rules, by category.

See docs/autodiff.md.
"""
from __future__ import annotations

from . import (  # noqa: F401  (importing a rules module attaches its rules to VJP)
    rules_arithmetic,
    rules_collectives,
    rules_complex,
    rules_decompositions,
    rules_einsum,
    rules_interp_average,
    rules_keras,
    rules_linalg,
    rules_norms,
    rules_products,
    rules_rearrange,
    rules_recordable,
    rules_recordable_arrays,
    rules_recordable_contractions,
    rules_recordable_decompositions,
    rules_recordable_keras,
    rules_recordable_lists,
    rules_recordable_masked,
    rules_recordable_norms,
    rules_recordable_rearrange,
    rules_recordable_svd,
    rules_reductions,
    rules_shape,
    rules_structure,
)
from .api import grad, hessian, hvp, jacobian, jacrev, value_and_grad
from .table import VJP, RuleTable
from .tape import PhylanxGradientError

__all__ = ["VJP", "PhylanxGradientError", "RuleTable", "grad", "hessian", "hvp", "jacobian",
           "jacrev", "value_and_grad"]
