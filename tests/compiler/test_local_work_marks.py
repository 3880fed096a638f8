"""Local work is marked in the compiled plan, once per compile (issue 28 item 2).

``compiler/dependencies.mark_local_work`` fills every node's ``choice.local_reads`` (the
scheduler's side table) when the program is compiled, before it runs: the variables
the node's subtree reads when every primitive in it is pure by the registry's word
(no ordered, i.e. communicating, primitive, no side effect, no call of a function
value), else None.  Checked against a walk of each subtree with the registry's word,
for programs with collectives, prints, stores, helper calls and plain arithmetic;
``distributed/local_work.py`` reads the mark and no longer discovers it at run time.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.compiler.dependencies import primitive_is_pure


def helper(a):
    return a * 2.0


@Phylanx
def arithmetic(x, a):
    g = x.T @ a
    s = np.sum(a @ a)
    return g * s - np.tanh(a)


@Phylanx
def with_effects(x, a):
    print(np.sum(x))
    t = np.sum(x, axis=0)
    x[0, 0] = 1.0
    return t + np.mean(a)


@Phylanx
def with_helper(x, a):
    return helper(x) + a @ a


def _expected(node):
    """The subtree's variable reads if every primitive in it is pure, else None."""
    reads = []
    for n in node.walk():
        if n.is_const:
            continue
        if n.primitive == "access-variable":
            if n.variable is None:
                return None
            reads.append(n.variable)
        elif n.primitive not in ("literal", "array") and not primitive_is_pure(n.primitive):
            return None
    return reads


@pytest.mark.parametrize("fn", [arithmetic, with_effects, with_helper],
                         ids=lambda f: f.__name__)
def test_every_node_is_marked_at_compile_time_as_a_walk_of_its_subtree_says(fn):
    fn(np.ones((3, 3)), np.ones((3, 3)))            # translated and compiled
    roots = fn.state.snippets
    marked = local = 0
    for root in roots:
        for node in root.walk():
            want = _expected(node)
            got = node.choice.local_reads
            if want is None:
                assert got is None, (node, got)
            else:
                assert got is not None and sorted(map(id, got)) == sorted(map(id, want)), \
                    (node, got, want)
                local += not node.is_const
            marked += 1
    assert marked and local       # (both kinds occur: the check is not vacuous)


def test_the_marks_are_there_before_the_first_run():
    @Phylanx
    def fresh(x):
        y = x + 1.0
        return np.sum(y * y)
    fresh._ensure_compiled()                        # compiled, never run
    # (this function's body only: the state's snippets are shared with every function
    # decorated before it in the process, whose np.sum of a constant reads no variable)
    reads = [n.choice.local_reads for n in fresh._function.body.walk()
             if n.primitive == "sum"]
    assert reads and all(r is not None and len(r) >= 1 for r in reads), reads
