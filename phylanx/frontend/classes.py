"""Python classes in decorated code: ``isinstance``, ``issubclass``, ``type(x)``, comparisons
of classes (``type(x) is int``, ``type(x) in (int, float)``, ``x.dtype == np.float32``) and
``cls.__name__`` (mixed into the expression translator).

As an argument a class name is the dtype it names (``np.zeros(3, np.float32)``,
``dtype=float``), as the PhySL primitives take it; where a *class* is meant (the second
argument of ``isinstance``, an operand of ``is``/``==``/``in`` next to a class, the value
assigned in ``t = int``) it is the class itself, named for the run time as
``__pyclass("builtins.int")`` (the dtype arguments take classes too).  Whether a value
is an instance is decided at run time from the value (``primitives/frontend_support/
pytypes.py``), so ``isinstance(x, np.ndarray)`` is what it is undecorated.
"""
from __future__ import annotations

import ast
import builtins

import numpy as np

#: comparisons whose operands may be classes
_CLASS_OPS = (ast.Is, ast.IsNot, ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def _numpy_attribute(dotted: str):
    obj = np
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
    return obj


class ClassMixin:
    """Class expressions; mixed into :class:`~.expressions.ExpressionMixin`."""

    def class_name(self, node) -> str | None:
        """``"builtins.int"``/``"numpy.ndarray"`` if ``node`` names a built-in or NumPy
        class (not a variable of the function), else None."""
        if isinstance(node, ast.Name):
            if self.is_local(node.id) or node.id in self.global_names() or \
                    node.id == self.fn_name:
                return None
            res = self.resolver.lookup(node.id)
            value = None if res is None else res.value
            if not isinstance(value, type):
                return None
            if getattr(builtins, value.__name__, None) is value:
                return f"builtins.{value.__name__}"
            if getattr(np, value.__name__, None) is value:
                return f"numpy.{value.__name__}"
            return None
        if isinstance(node, ast.Attribute):
            qual = self.qualified(node)
            if qual is not None and qual[0] == "numpy" and qual[1] and \
                    isinstance(_numpy_attribute(qual[1]), type):
                return f"numpy.{qual[1]}"
        return None

    def class_like(self, node) -> bool:
        """A class written as such: a class name, ``type(...)``, or a tuple of them."""
        if self.class_name(node) is not None or _is_type_call(node, self):
            return True
        return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and bool(node.elts) and \
            all(self.class_like(e) for e in node.elts)

    def class_value(self, node, construct: ast.AST | None = None):
        """``node`` translated where a class is meant: class names are the classes.  Any
        other class (a user's, ``numbers.Number``) is a located error naming the
        ``construct`` as written."""
        name = self.class_name(node)
        if name is not None:
            return self.call("__pyclass", [self.lit(name, node)], node)
        if isinstance(node, ast.Tuple):
            return self.call("tuple", [self.class_value(e, construct) for e in node.elts],
                             node)
        if isinstance(node, (ast.List, ast.Set)) and self.class_like(node):
            return self.call("list", [self.class_value(e, construct) for e in node.elts], node)
        if construct is not None and self.foreign_class(node):
            raise self.error(node, f"{ast.unparse(construct)}: only built-in and NumPy "
                                   "classes can be tested inside a Phylanx function (values "
                                   "of other classes cannot be passed to it)")
        return self.expr(node)

    def foreign_class(self, node) -> bool:
        """A name or module attribute that is a class other than the built-in and NumPy
        ones (or names one in a module: ``numbers.Number``)."""
        if isinstance(node, ast.Name) and not (self.is_local(node.id) or
                                               node.id in self.global_names()):
            res = self.resolver.lookup(node.id)
            return res is not None and isinstance(res.value, type)
        return isinstance(node, ast.Attribute) and self.qualified(node) is not None

    def class_comparison(self, node):
        """``a is int``, ``type(x) == np.ndarray``, ``type(x) in (int, float)``: the class
        operands are classes; the other operand is checked not to be a dtype name (a class
        passed as an argument is one), which would compare false without a word.  None if
        ``node`` is no comparison of classes."""
        if len(node.ops) != 1 or not isinstance(node.ops[0], _CLASS_OPS):
            return None
        left, right = node.left, node.comparators[0]
        if not (self.class_like(left) or self.class_like(right)):
            return None
        operands = [self.class_value(n, node) if self.class_like(n) else
                    self.call("__asclass", [self.expr(n)], n) for n in (left, right)]
        return self.compare(node.ops[0], *operands, node)

    def class_call(self, name: str, node):
        """``isinstance(x, C)``, ``issubclass(A, C)``, ``type(x)``; None for other names."""
        if name not in ("isinstance", "issubclass", "type"):
            return None
        wanted = 1 if name == "type" else 2
        if len(node.args) != wanted or node.keywords or \
                any(isinstance(a, ast.Starred) for a in node.args):
            form = "type(x) of one value" if name == "type" else f"{name}(x, classes)"
            raise self.error(node, f"only {form} is supported inside a Phylanx function")
        if name == "type":
            return self.call("__pytype", [self.expr(node.args[0])], node)
        if name == "isinstance":
            return self.call("__pyisinstance", [self.expr(node.args[0]),
                                                self.class_value(node.args[1], node)], node)
        return self.call("__pyissubclass", [self.class_value(node.args[0], node),
                                            self.class_value(node.args[1], node)], node)

    def name_attribute(self, node):
        """``cls.__name__`` (``type(x).__name__``, ``np.ndarray.__name__``, ``f.__name__``)."""
        name = self.class_name(node.value)
        if name is not None:
            return self.lit(name.rsplit(".", 1)[-1] if not name.startswith("numpy.") else
                            _numpy_attribute(name[len("numpy."):]).__name__, node)
        return self.call("__pyname", [self.expr(node.value)], node)


def _is_type_call(node, tr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == "type" and len(node.args) == 1 and not node.keywords and \
        not tr.is_local("type") and "type" not in tr.global_names() and \
        getattr(tr.resolver.lookup("type"), "value", None) is type
