"""A PhySL text that stops too early is the parser's "Incomplete parse" error, a
RuntimeError (the original's exceptions reached Python as RuntimeError)."""
from phylanx import execution_tree

cs = execution_tree.compiler_state("26_incomplete")
for text in ("block(1, 2", "define(f, x, x +", '"unterminated'):
    try:
        execution_tree.eval(cs, text)
    except RuntimeError as e:
        assert "Incomplete parse" in str(e), str(e)
    else:
        raise AssertionError("no error for " + text)
