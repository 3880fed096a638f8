"""The single table of primitives: ``PrimitiveSpec`` and the ``@primitive`` decorator.

A primitive is declared exactly once, next to its implementation, in a module of
the package of its category (``primitives/statistics/reductions.py`` declares
category ``statistics``: the category is the declaring package, never an argument)::

    @primitive(
        "sum", "sum(_1, __arg(_2_axis, nil), __arg(_3_keepdims, nil), ...)",
        oracle=np.sum, samples="reduction",
        example="sum([[1, 2], [3, 4]], 0)", result="[4, 6]",
    )
    def sum_(a, axis=None, keepdims=None, initial=None, dtype=None):
        '''Sum of the elements, optionally along an axis.'''

The compiler (argument binding), the docs (``phylanx primitives --markdown``), the
tests (parametrised over :func:`all_specs`) and the rule tables of later layers
(``rules.py``: VJP, distribution, fusion) read this table.  Nothing is registered
anywhere else.

Two calling conventions of ``impl``:

* eager (default): ``impl(*values)`` receives evaluated argument values, bound
  positionally to the signature (omitted optional arguments take the Python
  default of ``impl``, which must equal the pattern's default).
* ``lazy=True``: ``impl(node, children)`` is a *builder* called at compile time;
  it returns a ``run(frame) -> value`` closure that evaluates children itself
  (``child.run(frame)``): control flow, short-circuit logic, parallel forms.

``special=True`` declares a compiler form (``define``, ``lambda``, ``store`` ...):
the decorated function carries only the documentation and ``impl`` is None; the
compiler builds the node from the call's syntax with its own builder
(``phylanx/compiler/special_forms.py``).  The registry never imports the compiler.

The table is complete once ``phylanx.primitives`` is imported, which importing this
module always does first (the package's ``__init__`` imports every category), so
lookups need no lock: Python's import lock makes other threads wait for the package.
"""
from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

CATEGORIES = (
    "core", "arithmetics", "booleans", "controls", "listops", "matrixops",
    "statistics", "solvers", "fileio", "keras_support", "algorithms", "frontend_support",
    "dist_matrixops", "dist_keras_support",
)

#: dtype-suffix variants (§2.4): ``__add__int`` computes in int64, and so on
DTYPE_SUFFIXES = {"__bool": "bool", "__int": "int64", "__float": "float64"}

_PLACEHOLDER = re.compile(r"^(__?)(\d+)(?:_(\w+))?$")


@dataclass(frozen=True)
class Param:
    """One slot of a signature."""

    index: int                  # 0-based position
    name: str | None            # keyword name (``axis`` for ``_2_axis``), None if positional only
    required: bool
    variadic: bool = False
    default_text: str | None = None   # PhySL text of the pattern default, if any


@dataclass(frozen=True)
class Signature:
    params: tuple[Param, ...]

    @property
    def min_args(self) -> int:
        return sum(1 for p in self.params if p.required and not p.variadic)

    @property
    def max_args(self) -> int | None:
        if any(p.variadic for p in self.params):
            return None
        return len(self.params)

    @property
    def keywords(self) -> dict[str, int]:
        return {p.name: p.index for p in self.params if p.name and not p.variadic}

    def arity_text(self) -> str:
        lo, hi = self.min_args, self.max_args
        if hi is None:
            return f"at least {lo}"
        if lo == hi:
            return str(lo)
        return ", ".join(str(n) for n in range(lo, hi)) + f" or {hi}"


@dataclass
class PrimitiveSpec:
    """Everything known about one primitive (see the module docstring)."""

    name: str
    patterns: tuple[str, ...]
    impl: Callable[..., Any] | None   # None for special forms (built by the compiler)
    category: str
    doc: str
    signature: Signature
    oracle: Callable[..., Any] | None = None
    no_oracle: str | None = None
    samples: Any = None
    example: str | None = None
    result: str | None = None
    elementwise: bool = False
    lazy: bool = False
    special: bool = False
    differentiable: bool = False
    # why the derivative is zero wherever it exists (a piecewise-constant function:
    # floor, sign ...): its float result carries no gradient, as in JAX, so a gradient
    # through it is zeros, not an error.  Exclusive with ``differentiable``
    zero_gradient: str | None = None
    distributable: bool = False
    # given a tiled DistributedArray operand as it is: the distributed primitives, and
    # those that only hold or pass values (list, print ...).  Any other primitive given
    # one uses its DISTRIBUTION rule or raises a located error (runtime/nodes.py)
    takes_tiled: bool = False
    supports_dtype: bool = False
    side_effects: bool = False  # order matters: random, I/O, in-place changes, collectives
    higher_order: bool = False  # calls function values it is given (unknown code)
    extension: bool = False      # not a name of the original (our addition)
    # written only by Phylanx itself (the frontend's lowering, the compiler's rewrites:
    # ``__inplace``, ``__rows_gram`` ...), never a name a user's function calls: the
    # frontend refuses it there with a located error; PhySL text reaches it as before
    internal: bool = False
    infix: str | None = None     # PhySL operator text, for operator primitives
    aliases: tuple[str, ...] = ()
    flags: dict[str, Any] = field(default_factory=dict)
    module: str = ""             # the declaring module

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0] if self.doc.strip() else ""


_REGISTRY: dict[str, PrimitiveSpec] = {}


def _split_top(text: str) -> list[str]:
    """Split ``text`` at top-level commas."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def parse_pattern(pattern: str) -> Signature:
    """Parse a call pattern such as ``f(_1, __arg(_2_axis, nil), __3)``."""
    pattern = pattern.strip()
    open_at = pattern.find("(")
    if open_at < 0 or not pattern.endswith(")"):
        raise ValueError(f"not a call pattern: {pattern!r}")
    params: list[Param] = []
    for i, part in enumerate(_split_top(pattern[open_at + 1:-1])):
        default = None
        optional = False
        if part.startswith("__arg("):
            inner = _split_top(part[len("__arg("):-1])
            part, default, optional = inner[0], inner[1], True
        m = _PLACEHOLDER.match(part)
        if m:
            variadic = m.group(1) == "__"
            name = m.group(3)
            if name is not None and name.endswith("_") and name.rstrip("_") == "":
                name = None
        else:  # a bare identifier such as ``low`` or ``x`` names a required argument
            variadic, name = False, part
        params.append(Param(i, name, required=not optional and not variadic,
                            variadic=variadic, default_text=default))
    return Signature(tuple(params))


def merge_signatures(sigs: list[Signature]) -> Signature:
    """One signature covering overloads by arity (``argmax(_1) ; argmax(_1, _2)``)."""
    if len(sigs) == 1:
        return sigs[0]
    longest = max(sigs, key=lambda s: (s.max_args is None, len(s.params)))
    lo = min(s.min_args for s in sigs)
    params = tuple(
        Param(p.index, p.name, required=p.required and p.index < lo,
              variadic=p.variadic, default_text=p.default_text)
        for p in longest.params
    )
    return Signature(params)


def category_of(module: str, name: str) -> str:
    """The category of a primitive declared in ``module``: its package under primitives/."""
    parts = module.split(".")
    if parts[:2] == ["phylanx", "primitives"] and len(parts) > 3 and parts[2] in CATEGORIES:
        return parts[2]
    # the distributed primitives sit above the compiler (they call the MPI layer)
    if parts[:3] == ["phylanx", "distributed", "primitives"] and len(parts) > 4 \
            and parts[3] in CATEGORIES:
        return parts[3]
    raise ValueError(
        f"primitive {name!r} is declared in {module}, outside a category package "
        f"(phylanx[.distributed].primitives.<category>.<module>, category one of "
        f"{', '.join(CATEGORIES)})")


def primitive(name: str, *patterns: str, **options: Any) -> Callable:
    """Declare a primitive; see the module docstring.  Returns the function unchanged.

    The category is the package the function is defined in (``__module__``).
    """
    def register(impl: Callable) -> Callable:
        if name in _REGISTRY:
            raise ValueError(f"primitive {name!r} declared twice")
        if options.get("internal") and not options.get("extension"):
            raise ValueError(f"primitive {name!r}: a name of the original is never internal")
        category = category_of(impl.__module__, name)
        call_patterns = [p for p in patterns if re.match(r"^\s*[A-Za-z_]\w*\s*\(", p)]
        sigs = [parse_pattern(p) for p in call_patterns] or [Signature(())]
        spec = PrimitiveSpec(
            name=name, patterns=tuple(patterns),
            impl=None if options.get("special") else impl, category=category,
            doc=inspect.getdoc(impl) or "", signature=merge_signatures(sigs),
            module=impl.__module__, **options,
        )
        if spec.differentiable and spec.zero_gradient:
            raise ValueError(f"primitive {name!r} is declared both differentiable and with "
                             "a zero gradient")
        _REGISTRY[name] = spec
        for alias in spec.aliases:
            _REGISTRY.setdefault(alias, spec)
        if spec.flags.get("ordered"):
            # communicates: every rank must run it in program order, so the runtime never
            # spawns it beside its siblings nor overlaps it in a block.  Registered here,
            # with the declaration (a loader that did it once lost it in a refactoring:
            # distributed primitives then ran concurrently, ranks out of step)
            from ..runtime.nodes import ORDERED
            ORDERED.update((name, *spec.aliases))
        if spec.flags.get("takes_futures"):
            # its kernel is given ``async`` values as they are (a builder that only holds
            # them); any other's operands are waited for before it runs (runtime/nodes.py)
            from ..runtime.nodes import TAKES_FUTURES
            TAKES_FUTURES.update((name, *spec.aliases))
        impl.spec = spec  # type: ignore[attr-defined]
        return impl

    return register


def lookup(name: str) -> PrimitiveSpec | None:
    """The spec of ``name`` (including ``name__int``-style dtype variants), or None."""
    spec = _REGISTRY.get(name)
    if spec is not None:
        return spec
    for suffix in DTYPE_SUFFIXES:
        if name.endswith(suffix):
            base = _REGISTRY.get(name[: -len(suffix)])
            if base is not None and base.supports_dtype:
                return base
    return None


def dtype_suffix(name: str) -> str | None:
    """``"int64"`` for ``"__add__int"``, None for plain names."""
    for suffix, dtype in DTYPE_SUFFIXES.items():
        if name.endswith(suffix) and name[: -len(suffix)] in _REGISTRY:
            return dtype
    return None


def all_specs() -> list[PrimitiveSpec]:
    """Every declared primitive once (aliases excluded), sorted by category and name."""
    seen: dict[int, PrimitiveSpec] = {}
    for spec in _REGISTRY.values():
        seen.setdefault(id(spec), spec)
    return sorted(seen.values(), key=lambda s: (CATEGORIES.index(s.category), s.name))


def all_names() -> list[str]:
    """Every callable PhySL name, including aliases and dtype variants."""
    names = set(_REGISTRY)
    for spec in all_specs():
        if spec.supports_dtype:
            names.update(spec.name + s for s in DTYPE_SUFFIXES)
    return sorted(names)

