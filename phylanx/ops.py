"""Every PhySL primitive as a Python name: ``from phylanx.ops import relu, fmap``.

Inside ``@Phylanx`` a bare primitive name with no Python binding is already the
primitive (the original's rule); this module gives the primitives that NumPy has
no spelling for — the keras_support kernels, ``fmap``, ``fold_left``, ``hstack``
with the original's rules ... — a Python name too: ``ops.relu(x)`` or an imported
``relu(x)`` is translated to a call of the primitive.  Called from plain Python,
the same object evaluates the primitive once on its arguments, so a helper works
the same decorated or not::

    from phylanx.ops import relu, softmax
    relu(np.array([-1.0, 2.0]))          # array([0., 2.])

Special forms (``define``, ``lambda`` ...) and control forms (``if``, ``while``
...) have no Python value: write Python instead.
"""
from __future__ import annotations

import threading
from typing import Any

from .primitives.registry import lookup


class Primitive:
    """The Python handle of one PhySL primitive (recognised by the frontend)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        spec = lookup(self.name)
        if spec.special or spec.lazy:
            from .errors import PhylanxTypeError
            raise PhylanxTypeError(f"'{self.name}' is a control or special form: it can only "
                                   "be used in PhySL code, not called from Python")
        from .values import from_python  # variables become their values, as in calls
        values = [from_python(a) for a in (*args, *kwargs.values())]
        return _caller(self.name, len(args), tuple(kwargs))(*values)

    def __repr__(self) -> str:
        return f"<PhySL primitive {self.name}>"

    def __reduce__(self):   # pickles by name (remote calls)
        return (Primitive, (self.name,))


_lock = threading.Lock()
_callers: dict[tuple, Any] = {}


def _caller(name: str, nargs: int, keywords: tuple[str, ...]) -> Any:
    """A compiled PhySL function ``lambda(a0.., k0.., name(a0.., __arg(kw, k0)..))``."""
    key = (name, nargs, keywords)
    fn = _callers.get(key)
    if fn is None:
        from . import evaluate
        params = [f"a{i}" for i in range(nargs)] + [f"k{i}" for i in range(len(keywords))]
        call_args = params[:nargs] + [f"__arg({kw}, k{i})" for i, kw in enumerate(keywords)]
        body = f"{name}({', '.join(call_args)})"
        code = f"lambda({', '.join([*params, body])})"
        with _lock:
            fn = _callers.setdefault(key, evaluate(code))
    return fn


def __getattr__(name: str) -> Primitive:
    spec = lookup(name)
    if spec is None or spec.internal:    # internal: written only by Phylanx itself
        raise AttributeError(f"phylanx.ops has no primitive {name!r} (see `phylanx primitives`)")
    return Primitive(name)


def __dir__() -> list[str]:
    from .primitives.registry import all_names
    return [name for name in all_names() if not lookup(name).internal]
