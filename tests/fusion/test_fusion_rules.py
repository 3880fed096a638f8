"""Every fusing rule (phylanx/primitives/rules.py FUSION) compiled into a fused chain
and compared with the primitive's NumPy implementation: one chain (one kernel) per
operand kind and arity.  The fixture ``eager`` (conftest.py) makes every chain hot."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.fusion.rules import FUSED
from phylanx.primitives.rules import FUSION

from .fusing import assert_like, data, evaluate, kernels_used

pytest.importorskip("numba")


# -- every rule ------------------------------------------------------------------------

def _rule_groups():
    """The fusing rules grouped by operand kind and arity: one chain (one kernel) per
    group, ``r1 + r2 + ...`` of every rule applied to the same operands."""
    groups: dict[tuple[str, int], list[str]] = {}
    for name in sorted(FUSED):
        rule = FUSION.get(name)
        kind = "f" if "f" in rule.kinds else "i"
        groups.setdefault((kind, rule.arity[0]), []).append(name)
    return groups


def _apply(name, args):
    return phylanx.primitives.registry.lookup(name).impl(*args)


@pytest.mark.parametrize("key,names", list(_rule_groups().items()),
                         ids=[f"{k}{n}" for k, n in _rule_groups()])
def test_every_fusing_rule_compiles_and_matches_numpy(eager, key, names):
    kind, n = key
    params = ", ".join("ab"[:n])
    # a chain of additions; out-of-domain values (arcsin(2) ...) give NaN in both
    terms = [f"{name}({params})" for name in names]
    body = terms[0]
    for term in terms[1:]:
        body = f"__add({body}, {term})"
    body = f"__mul({body}, 1)"              # at least two operations, even for one rule
    dtype = "float64" if kind == "f" else "int64"
    args = tuple(data((400,), dtype) * (2 if kind == "f" else 1) for _ in range(n))
    if "elu" in names:          # elu's alpha is a number
        args = (args[0], 0.7)
    with np.errstate(all="ignore"):
        expected = _apply(names[0], args)
        for name in names[1:]:
            expected = expected + _apply(name, args)
        expected = expected * 1
        results, regions = evaluate(f"lambda({params}, {body})", [args] * 5)
    assert len(regions) == 1
    assert kernels_used(regions) >= 3, (names, regions[0].kernels)
    assert_like(results[-1], expected)
