"""The VJP table: one vector-Jacobian-product rule per differentiable primitive, by name.

``phylanx.primitives.rules.RuleTable`` is the project's table of per-primitive rules; until
it exists in this checkout, :class:`RuleTable` below is a minimal class with the same API
(``register``/``defrule``/``get``/``missing``), so the two can be swapped at merge time.

A VJP rule receives the output cotangent, the primitive's output and its evaluated
arguments, and returns one cotangent per argument (``None`` where no gradient flows)::

    @VJP.register("sin")
    def sin_vjp(ct, out, x, dtype=None):
        return (ct * np.cos(x),)

The engine then sums cotangents over broadcast axes and casts them to each operand's
dtype, so rules may return cotangents of the broadcast (output) shape.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

try:  # the shared table class, once the rules branch is merged
    from ..primitives.rules import RuleTable  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the checkout
    from ..primitives import registry

    class RuleTable:  # type: ignore[no-redef]
        """Rules attached to primitives by name; names are checked against the registry."""

        def __init__(self, kind: str) -> None:
            self.kind = kind
            self._rules: dict[str, Callable[..., Any]] = {}

        def defrule(self, name: str, rule: Callable[..., Any]) -> Callable[..., Any]:
            spec = registry.lookup(name)
            if spec is None:
                raise ValueError(f"{self.kind} rule for unknown primitive {name!r}")
            if spec.name in self._rules:
                raise ValueError(f"{self.kind} rule for {name!r} defined twice")
            self._rules[spec.name] = rule
            return rule

        def register(self, *names: str) -> Callable[[Callable], Callable]:
            def attach(rule: Callable[..., Any]) -> Callable[..., Any]:
                for name in names:
                    self.defrule(name, rule)
                return rule
            return attach

        def get(self, name: str) -> Callable[..., Any] | None:
            spec = registry.lookup(name)
            return self._rules.get(spec.name if spec is not None else name)

        def __contains__(self, name: str) -> bool:
            return self.get(name) is not None

        def names(self) -> list[str]:
            return sorted(self._rules)

        def missing(self, candidates: Iterable[str] | None = None) -> list[str]:
            """Primitives flagged ``differentiable`` (or the given names) without a rule."""
            if candidates is None:
                candidates = [s.name for s in registry.all_specs() if s.differentiable]
            return sorted(n for n in candidates if self.get(n) is None)


#: the table of VJP rules read by the backward pass
VJP = RuleTable("vjp")
