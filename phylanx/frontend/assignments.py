"""Assignment statements -> PhySL: ``=``, ``a, b = ...``, ``+=`` and the like.

A name's first assignment in a scope is ``define``, later ones ``store``;
``global`` names are stored into their Python slot.  Tuple targets unpack with a
length check (``__check_unpack``) and one starred target, as Python does.
Augmented assignment changes arrays and lists in place (``__inplace``), so other
names of the same object see the change, and evaluates a subscript's container
and indices once.
"""
from __future__ import annotations

import ast

from ..language import ast as past


class AssignmentMixin:
    """Assignment rules; mixed into :class:`~.translator.FunctionTranslator`."""

    def s_Assign(self, node):
        target = node.targets[0]
        if (len(node.targets) == 1 and isinstance(target, (ast.Tuple, ast.List))
                and isinstance(node.value, (ast.Tuple, ast.List))
                and len(target.elts) == len(node.value.elts)
                and all(isinstance(t, ast.Name) for t in target.elts)):
            return self.parallel_assign(target.elts, node.value.elts, node)
        # t = int: the class itself (type(x) is t holds), which dtype arguments take too
        value = self.class_value(node.value) if self.class_like(node.value) else \
            self.expr(node.value)
        if len(node.targets) == 1:
            return self.assign(node.targets[0], value, node)
        tmp = self.temp(node)
        out = [self.define(tmp, value, node)]
        for t in node.targets:
            out.extend(self.assign(t, self.ident(tmp, node), node))
        return out

    def parallel_assign(self, names, values, node) -> list:
        """``a, b = x, y`` without building a list; temporaries only when a target is read."""
        targets = {t.id for t in names}
        read = {n.id for v in values for n in ast.walk(v) if isinstance(n, ast.Name)}
        exprs = [self.expr(v) for v in values]
        if not targets & read:
            return [self.assign_name(t.id, e, t) for t, e in zip(names, exprs)]
        temps = [self.temp(v) for v in values]
        out = [self.define(tmp, e, v) for tmp, e, v in zip(temps, exprs, values)]
        out += [self.assign_name(t.id, self.ident(tmp, t), t) for t, tmp in zip(names, temps)]
        return out

    def s_AnnAssign(self, node):
        if node.value is None:
            return None
        return self.assign(node.target, self.expr(node.value), node)

    def s_AugAssign(self, node):
        prim = self.binary_primitive(node)
        t = node.target
        if isinstance(t, ast.Name):
            current = self.x_Name(ast.copy_location(ast.Name(t.id, ast.Load()), t))
            value = self.call(prim, [current, self.expr(node.value)], node)
            if t.id not in self.function_scope().accumulators:
                # arrays and lists change in place, as in Python (other names see the change)
                value = self.call("__inplace", [current, value], node)
            return self.assign(t, value, node)
        if isinstance(t, ast.Subscript):
            # the container and the indices are evaluated once, as in Python; an element that
            # is an array (a row, or an array kept in a list) changes in place
            out: list = []
            parts = [self.pinned(e, t, out) for e in [self.expr(t.value), *self.indices(t.slice)]]
            current = self.call("__subscript", parts, t)
            value = self.call(prim, [current, self.expr(node.value)], node)
            out.append(self.call("store", [self.call("__subscript", parts, t),
                                           self.call("__inplace", [current, value], node)], node))
            return out
        raise self.error(t, "augmented assignment needs a name or a subscript target")

    def binary_primitive(self, node) -> str:
        from .tables import BINARY_OPS
        prim = BINARY_OPS[type(node.op)]
        self.need_primitive(prim, node, "this operator")
        return prim

    def assign(self, target, value, node, pairs=False) -> list:
        if isinstance(target, ast.Name):
            return [self.assign_name(target.id, value, target)]
        if isinstance(target, ast.Subscript):
            sliced = self.call("__subscript",
                               [self.expr(target.value), *self.indices(target.slice)], target)
            return [self.call("store", [sliced, value], node)]
        if isinstance(target, (ast.Tuple, ast.List)):
            star = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)),
                        None)
            n = len(target.elts)
            if isinstance(value, past.Identifier):
                out, src = [], value
            else:
                tmp = self.temp(target)
                out = [self.define(tmp, value, target)]
                src = self.ident(tmp, target)
            if not pairs:
                out.append(self.call("__check_unpack",
                                     [src, self.lit(n if star is None else -n, target)], target))
            for i, elt in enumerate(target.elts):
                if star is not None and i == star:
                    stop = i - n + 1
                    rng = [self.lit(i, elt), self.lit(stop if stop < 0 else None, elt)]
                    out.extend(self.assign(elt.value, self.call(
                        "__pylist", [self.call("__subscript", [src, self.call("list", rng, elt)],
                                               elt)], elt), node))
                    continue
                index = i if star is None or i < star else i - n
                item = self.call("__subscript", [src, self.lit(index, elt)], elt)
                out.extend(self.assign(elt, item, node))
            return out
        raise self.error(target, f"cannot assign to {type(target).__name__}")

    def assign_name(self, name: str, value, node):
        s = self.scope
        if name in self.global_names():
            return self.call("store", [self.ident(self.external_global(name, node), node), value],
                             node)
        if s.kind == "function":
            if name in s.nonlocals or name in s.declared:
                return self.call("store", [self.ident(name, node), value], node)
            return self.define(name, value, node)
        if self.declared_anywhere(name):
            return self.call("store", [self.ident(name, node), value], node)
        return self.define(name, value, node)
