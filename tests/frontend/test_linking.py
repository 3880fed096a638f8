"""The linker (unique names per compiler state) belongs to the frontend."""
from __future__ import annotations

import gc
import weakref

from phylanx import Phylanx, execution_tree
from phylanx.frontend import linking


def helper(x):
    return x + 1


def _decorated_in(state):
    @Phylanx(compiler_state=state)
    def f(x):
        return helper(x) * 2
    return f


def test_the_linker_is_not_stored_on_the_compiler_state():
    state = execution_tree.compiler_state("linking")
    f = _decorated_in(state)
    assert f(1) == 4
    assert not any(isinstance(v, linking.Linker) for v in vars(state).values())
    assert f.linker is linking.linker_of(state, type(f)) and f.linker.state is state


def test_a_state_and_its_linker_are_freed_with_their_functions():
    state = execution_tree.compiler_state("freed")
    f = _decorated_in(state)
    assert f(2) == 6
    state_ref, linker_ref = weakref.ref(state), weakref.ref(f.linker)
    del state, f
    gc.collect()
    assert state_ref() is None and linker_ref() is None


def test_a_new_linker_does_not_reuse_names_the_state_defines():
    state = execution_tree.compiler_state("reuse")
    f = _decorated_in(state)
    assert f(1) == 4 and f.state_name == "f"
    g = f   # keep the compiled tree alive through its Function, drop the decorator
    function = g._function
    del f, g
    gc.collect()
    again = _decorated_in(state)   # a fresh linker for the same state
    assert again.state_name != "f" and again(3) == 8
    assert execution_tree.invoke(function, (1,), {}) == 4   # the first 'f' is intact


def test_a_function_of_another_compiler_state_can_be_called():
    # the original shared one state among all functions, so such a call worked there
    mine = execution_tree.compiler_state("mine")

    @Phylanx(compiler_state=mine)
    def twice(x):
        return x * 2

    @Phylanx
    def uses_twice(x):
        return twice(x) + 1

    @Phylanx(compiler_state=execution_tree.compiler_state("other"))
    def uses_both(x):
        return twice(x) + uses_twice(x)

    assert uses_twice(3) == 7 and uses_both(3) == 13 and twice(4) == 8
    assert twice.state is mine
