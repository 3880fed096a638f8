"""phylanx: NumPy-style Python and PhySL compiled to execution trees of primitives,
evaluated asynchronously with futures.

Quick start::

    import phylanx
    phylanx.evaluate("block(define(f, n, if(n < 2, n, f(n-1) + f(n-2))), f(20))")  # 6765

    from phylanx import Phylanx
    @Phylanx
    def axpy(a, x, y):
        return a * x + y
"""
from __future__ import annotations

from typing import Any

# _blas_env: before NumPy loads; _wiring: which layers fill the primitives' rule tables
from . import _blas_env, _wiring, config, execution_tree  # noqa: F401
from .errors import (
    PhylanxAssertionError,
    PhylanxCompileError,
    PhylanxError,
    PhylanxLinAlgError,
    PhylanxRuntimeError,
    PhylanxSyntaxError,
    PhylanxTypeError,
    PhylanxValueError,
)
from .execution_tree import parallel
from .session import PhylanxSession

__version__ = "0.1.0"


def major_version() -> int:
    return int(__version__.split(".")[0])


def minor_version() -> int:
    return int(__version__.split(".")[1])


def subminor_version() -> int:
    return int(__version__.split(".")[2])


def full_version() -> str:
    return __version__


full_version_as_string = full_version


def evaluate(code: str, *args: Any, **kwargs: Any) -> Any:
    """Run PhySL ``code`` in a fresh compiler state and return its value.

    If the code evaluates to a function, it is called with ``args``/``kwargs``::

        phylanx.evaluate("lambda(x, y, x * y)", 6, 7)   # 42
    """
    return execution_tree.eval(execution_tree.compiler_state("evaluate", "<evaluate>"),
                               code, *args, **kwargs)


def __getattr__(name: str) -> Any:
    # The frontend is imported on first use so that PhySL-only users do not pay for it.
    if name in ("Phylanx", "PhylanxDecorator"):
        from .frontend import decorator
        return getattr(decorator, name)
    if name == "trace":                      # the timeline recorder, imported on first use
        from .instrumentation.tracing import trace
        return trace
    if name in ("grad", "value_and_grad", "jacobian", "jacrev", "hessian", "hvp"):
        # autodiff, imported on first use
        from . import autodiff
        return getattr(autodiff, name)
    raise AttributeError(f"module 'phylanx' has no attribute {name!r}")


__all__ = [
    "Phylanx", "PhylanxAssertionError", "PhylanxCompileError", "PhylanxError",
    "PhylanxLinAlgError", "PhylanxRuntimeError", "PhylanxSession", "PhylanxSyntaxError",
    "PhylanxTypeError",
    "PhylanxValueError", "config", "evaluate", "execution_tree", "grad", "hessian", "hvp",
    "jacobian", "jacrev", "parallel", "trace", "value_and_grad",
]

from .distributed import bootstrap as _distributed_bootstrap  # noqa: E402,F401 - MPI locality when launched
from .distributed import primitives as _distributed_primitives  # noqa: E402,F401 - their PhySL names
