"""A run-time error of a primitive reaches Python as a RuntimeError subclass
carrying the location."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def bad_dot(a, b):
    return np.dot(a, b)


try:
    bad_dot(np.ones(3), np.ones(4))
except Exception as e:
    assert isinstance(e, (RuntimeError, ValueError)), type(e)
    assert "88_runtime_error_is_runtime_error.py" in str(e)
else:
    raise AssertionError("mismatched shapes were accepted")
