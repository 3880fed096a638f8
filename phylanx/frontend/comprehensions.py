"""Comprehensions -> PhySL: list, set and dict comprehensions and generator expressions.

A comprehension is a map over its iterable: ``__pymap(lambda(i, element), iterable)``,
``filter`` for its ``if`` clauses and ``__flatten1`` for nested ``for`` clauses.  Each
iteration is then a call with its own ``i``.  Python instead gives the whole
comprehension one scope whose variables every iteration rebinds, which a closure made
in it can see: ``[lambda: i for i in range(3)]`` called gives ``[2, 2, 2]``.  So a
comprehension that makes a closure (holds a ``lambda``) runs in one scope of its own,
a wrapper called where it stands, whose variables each iteration stores into; without
a closure nobody can tell the two apart, and the plain map is kept (it is cheaper).
Generator expressions are evaluated eagerly, as list comprehensions; one whose closure
reads its variables is refused, because Python's lazy generator lets a closure called
while the generator runs see the current value, which no eager form gives.
"""
from __future__ import annotations

import ast

from .scopes import Scope


def makes_closure(node) -> bool:
    """Whether a comprehension holds a ``lambda`` (outside its first iterable, which is
    evaluated in the enclosing scope)."""
    first = {id(n) for n in ast.walk(node.generators[0].iter)}
    return any(isinstance(n, ast.Lambda) and id(n) not in first for n in ast.walk(node))


def reading_closure(node):
    """The first ``lambda`` of a comprehension that reads one of its variables, or None."""
    targets = {n.id for g in node.generators for n in ast.walk(g.target)
               if isinstance(n, ast.Name)}
    first = {id(n) for n in ast.walk(node.generators[0].iter)}
    for lam in ast.walk(node):
        if not isinstance(lam, ast.Lambda) or id(lam) in first:
            continue
        a = lam.args
        own = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in targets
               and n.id not in own for n in ast.walk(lam.body)):
            return lam
    return None


class ComprehensionMixin:
    """Comprehension rules; mixed into :class:`~.translator.FunctionTranslator`."""

    def x_ListComp(self, node):
        return self.comprehension(lambda: self.expr(node.elt), node.generators, node)

    def x_GeneratorExp(self, node):
        lam = reading_closure(node)
        if lam is not None:
            raise self.error(lam, "a lambda that reads the variable of a generator expression "
                                  "is not supported: the generator is evaluated eagerly here, "
                                  "so the lambda could see a later value than in Python; use a "
                                  "list comprehension [...] or bind the value with a default "
                                  "(lambda i=i: ...)")
        return self.x_ListComp(node)

    def x_SetComp(self, node):
        items = self.comprehension(lambda: self.expr(node.elt), node.generators, node)
        return self.call("__pyset", [self.lit("set", node), items], node)

    def x_DictComp(self, node):
        pair = lambda: self.call("list", [self.expr(node.key), self.expr(node.value)], node)  # noqa: E731
        return self.call("dict", [self.comprehension(pair, node.generators, node)], node)

    def comprehension(self, element, generators, node):
        """The list of ``element()`` over the ``for`` and ``if`` clauses ``generators``."""
        if makes_closure(node):
            return self.scoped_comprehension(element, generators, node)
        return self.mapped(element, generators, node)

    def mapped(self, element, generators, node):
        gen = self.generator(generators[0])
        iterable = self.expr(gen.iter)

        def lambda_of(body_builder):
            with self.lambda_scope(gen.target) as (param, prologue):
                body = body_builder()
                body = self.call("block", [*prologue, body], gen) if prologue else body
                return self.call("lambda", [self.ident(param, gen.target), body], gen)

        for cond in gen.ifs:
            test = lambda_of(lambda c=cond: self.expr(c))
            iterable = self.call("filter", [test, iterable], cond)
        if len(generators) > 1:
            inner = lambda_of(lambda: self.mapped(element, generators[1:], node))
            return self.call("__flatten1", [self.call("__pymap", [inner, iterable], gen)], node)
        return self.call("__pymap", [lambda_of(element), iterable], node)

    def generator(self, gen):
        if gen.is_async:
            raise self.error(gen, "async comprehensions are not supported")
        return gen

    def scoped_comprehension(self, element, generators, node):
        """``apply(lambda(it, block(define(i, None)..., items)), list(iterable))``: the
        comprehension's variables live in the wrapper's frame, one per evaluation."""
        first = self.expr(self.generator(generators[0]).iter)   # in the enclosing scope
        names = sorted({n.id for g in generators for n in ast.walk(g.target)
                        if isinstance(n, ast.Name)})
        outer = self.scope
        self.scope = Scope("lambda", outer)
        try:
            it = self.temp(node)
            self.scope.declared.add(it)
            pre = [self.define(n, self.lit(None, node), node) for n in names]
            items = self.rebinding(element, generators, self.ident(it, node), node)
        finally:
            self.scope = outer
        wrapper = self.call("lambda", [self.ident(it, node), self.call("block", [*pre, items],
                                                                        node)], node)
        return self.call("apply", [wrapper, self.call("list", [first], node)], node)

    def rebinding(self, element, generators, iterable, node):
        """One ``for`` clause whose iterations store into the comprehension's variables;
        its ``if`` clauses and inner clauses run per item, in Python's order."""
        gen = self.generator(generators[0])
        outer = self.scope
        self.scope = Scope("lambda", outer)
        try:
            param = self.temp(gen)
            self.scope.declared.add(param)
            body = self.assign(gen.target, self.ident(param, gen.target), gen)
            if len(generators) > 1:
                inner = self.rebinding(element, generators[1:],
                                       self.expr(self.generator(generators[1]).iter), node)
            else:
                inner = self.call("list", [element()], node)
            for cond in reversed(gen.ifs):
                inner = self.call("if", [self.expr(cond), inner, self.call("list", [], cond)],
                                  cond)
        finally:
            self.scope = outer
        fn = self.call("lambda", [self.ident(param, gen.target),
                                  self.call("block", [*body, inner], gen)], gen)
        return self.call("__flatten1", [self.call("__pymap", [fn, iterable], gen)], node)
