"""VJP rule of ``einsum``: the cotangent of one operand is another ``einsum``.

``out = einsum("s1,s2,...->so", x1, x2, ...)`` is linear in each operand, so the
cotangent of ``xi`` is ``einsum("so,s1,..(without si)..->si", ct, others...)``.  Three
spellings need more than relabelling, and each is turned into a plain einsum first:

* ``...`` (broadcast axes) is written out as letters of its own, right-aligned as NumPy
  broadcasts them; an operand whose axis was broadcast from length 1 gets the summed
  cotangent (the engine's ``unbroadcast`` does that from the full-shape cotangent);
* a label repeated in ``si`` (``"ii->i"``, a diagonal): the cotangent is written on that
  diagonal, by giving each repetition a label of its own tied to the first by an
  identity matrix operand;
* a label of ``si`` found nowhere else (summed over, ``"ij->i"``): a ones vector operand
  carries it, so the cotangent is spread over that axis.

A cotangent's einsum is planned (BLAS products) by the forward's rule,
``numpy_products.einsum_operands``: in NumPy's own loop the two cotangents of a Conv1D-sized
pointwise convolution took 5-7x their planned time.
"""
from __future__ import annotations

import string

import numpy as np

from ..errors import PhylanxValueError
from ..primitives.matrixops.numpy_products import einsum_operands
from .rule_helpers import arr
from .table import VJP


def _parse(subscripts: str, operands: list[np.ndarray]) -> tuple[list[str], str]:
    """Input labels per operand and the output labels, with ``...`` written out as
    letters and an implicit output (no ``->``) made explicit as NumPy defines it."""
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise PhylanxValueError(f"einsum subscripts {subscripts!r} name {len(terms)} "
                                f"operand(s), got {len(operands)}")
    if not arrow:      # implicit: broadcast axes first, then labels used once, sorted
        labels = "".join(terms).replace(".", "")
        output = ("..." if "..." in inputs else "") + "".join(
            sorted(c for c in set(labels) if labels.count(c) == 1))
    free = iter(c for c in string.ascii_letters if c not in text)
    ellipsis_rank = max((op.ndim - (len(t) - 3) for t, op in zip(terms, operands)
                         if "..." in t), default=0)
    broadcast = "".join(next(free) for _ in range(ellipsis_rank))
    def expand(term: str, ndim: int) -> str:
        if "..." not in term:
            return term
        rank = ndim - (len(term) - 3)
        return term.replace("...", broadcast[ellipsis_rank - rank:])
    terms = [expand(t, op.ndim) for t, op in zip(terms, operands)]
    return terms, expand(output, ellipsis_rank + len(output) - 3)


def _sizes(terms: list[str], operands: list[np.ndarray]) -> dict[str, int]:
    """The length of every label (the broadcast one where an operand has length 1)."""
    sizes: dict[str, int] = {}
    for term, op in zip(terms, operands):
        for label, n in zip(term, op.shape):
            sizes[label] = max(sizes.get(label, 1), n)
    return sizes


def cotangent_einsums(subscripts: str, operands: list) -> tuple[list, dict, str, list]:
    """Per operand, the einsum giving its cotangent: ``(subscripts, factors)`` where a
    factor is ``"ct"`` (the output's cotangent, at the output's full shape), an operand's
    position (that operand at its full shape) or a constant array (an identity tying a
    repeated label, a ones vector spreading a label summed in this operand only).
    Also the operands' labels, the label lengths and the output's labels."""
    values = [arr(op) for op in operands]
    terms, output = _parse(subscripts, values)
    sizes = _sizes(terms, values)
    dtype = np.result_type(*values, np.float16)
    plans = []
    for i, term in enumerate(terms):
        spec = [output] + [t for j, t in enumerate(terms) if j != i]
        factors: list = ["ct"] + [j for j in range(len(terms)) if j != i]
        seen = "".join(spec)
        unused = iter(c for c in string.ascii_letters
                      if c not in seen and c not in "".join(terms) + output)
        target = ""
        for label in term:
            if label in target:             # a repeated label: a diagonal
                own = next(unused)
                spec.append(label + own)
                factors.append(np.eye(sizes[label], dtype=dtype))
                target += own
            else:
                if label not in seen:       # summed over in this operand only
                    spec.append(label)
                    factors.append(np.ones(sizes[label], dtype))
                    seen += label
                target += label
        plans.append((",".join(spec) + "->" + target, factors))
    return terms, sizes, output, plans


@VJP.register("einsum")
def einsum_vjp(ct, out, subscripts, *operands):
    terms, sizes, output, plans = cotangent_einsums(subscripts, list(operands))
    # operands at their full (broadcast) shapes, so that einsum sees matching lengths
    full = [np.broadcast_to(arr(v), [sizes[c] for c in t]) for t, v in zip(terms, operands)]
    ct = np.broadcast_to(np.asarray(ct), [sizes[c] for c in output])
    grads = []
    for spec, keys in plans:
        dtype = np.result_type(ct, *full)     # the helper factors: float32 stays float32
        factors = [k.astype(dtype, copy=False) if isinstance(k, np.ndarray)
                   else ct if isinstance(k, str) else full[k] for k in keys]
        factors, planned = einsum_operands(spec, factors)
        grads.append(np.einsum(spec, *factors, optimize=planned))
    return (None, *grads)
