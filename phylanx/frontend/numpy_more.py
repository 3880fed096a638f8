"""NumPy calls whose arguments need rearranging for their primitive: ``np.add.at``,
``np.fill_diagonal``, ``np.meshgrid``, ``np.unique`` and ``np.einsum``.

* ``np.add.at(a, i, v)`` (and ``np.subtract.at`` ..., through ``ufunc_at``) and
  ``np.fill_diagonal(a, v)`` change ``a`` in place and return None in NumPy; their
  primitives change it in place too (like ``store``) and return it, so the call becomes
  ``block(add_at(a, i, v), nil)``: the value is None, as in Python.
* ``np.meshgrid(x, y, indexing="ij")`` passes its vectors as one list
  (``meshgrid(list(x, y), indexing="ij")``): a variadic primitive takes no keywords.
* ``np.unique(ar, return_index, ...)``: the PhySL ``unique`` keeps the original's second
  positional argument (``axis``), so NumPy's arguments are bound by name and passed as
  keywords.
* ``np.einsum(..., optimize=...)``: ``optimize`` only changes the speed and is dropped.

Mixed into :class:`.numpy_calls.NumpyMixin` (the ``np_<dotted name>`` method of a NumPy
function is its rule there).
"""
from __future__ import annotations

from ..language import ast as past
from ..primitives.matrixops.numpy_search import AT_UFUNCS as _AT_UFUNCS


class NumpyMoreMixin:
    """Rules for NumPy functions whose arguments do not map one to one."""

    def _returns_none(self, prim: str, dotted: str, node):
        call = self.keyword_call(prim, dotted, self.arguments(node), node)
        return self.call("block", [call, self.lit(None, node)], node)

    def np_add_at(self, node):
        return self._returns_none("add_at", "add.at", node)

    def ufunc_at(self, dotted: str, node):
        """``np.subtract.at(a, i, b)``, ``np.maximum.at`` ...: ``ufunc_at(a, i, b, "subtract")``
        (None if ``dotted`` is no such call)."""
        ufunc = dotted[:-3] if dotted.endswith(".at") else None
        if ufunc not in _AT_UFUNCS or ufunc == "add":
            return None
        args = [*self.arguments(node), self.lit(ufunc, node)]
        call = self.keyword_call("ufunc_at", dotted, args, node)
        return self.call("block", [call, self.lit(None, node)], node)

    def np_fill_diagonal(self, node):
        return self._returns_none("fill_diagonal", "fill_diagonal", node)

    def np_meshgrid(self, node):
        args = self.arguments(node)
        vectors = [a for a in args if not isinstance(a, past.KeywordArg)]
        keywords = [a for a in args if isinstance(a, past.KeywordArg)]
        return self.call("meshgrid", [self.call("list", vectors, node), *keywords], node)

    def np_unique(self, node):
        names = ("ar", "return_index", "return_inverse", "return_counts", "axis", "equal_nan")
        if len(node.args) > len(names):
            raise self.error(node, f"np.unique() takes at most {len(names)} arguments")
        bound = dict(zip(names, node.args))
        for k in node.keywords:
            if k.arg not in names or k.arg in bound:
                raise self.error(k, f"unexpected or repeated keyword '{k.arg}' (expected: "
                                    f"{', '.join(names)})")
            bound[k.arg] = k.value
        if "ar" not in bound:
            raise self.error(node, "np.unique() needs the array 'ar'")
        # evaluated in the order written, as Python does
        rest = [past.KeywordArg(k, self.expr(v), self.loc(v)) for k, v in bound.items()
                if k != "ar"]
        return self.call("unique", [self.expr(bound["ar"]), *rest], node)

    def np_einsum(self, node):
        args = self.arguments(node, skip_keywords=("optimize",))
        return self.keyword_call("einsum", "einsum", args, node)
