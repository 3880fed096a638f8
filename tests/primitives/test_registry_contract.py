"""The declaration contract of every primitive (docs/writing-primitives.md), over ``all_specs()``.

Per primitive: a docstring with a one-line summary; parseable patterns naming the
primitive; an ``impl`` whose signature matches the pattern (positions, keyword
names, Python defaults equal to the pattern's literal defaults); an example that
runs through PhySL and equals its declared result; an oracle or a reason for
having none; a known category that agrees with the original's (§3.3); and, for
``supports_dtype``, working ``name__bool/__int/__float`` variants.
"""
from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import phylanx
from phylanx.primitives.original_names import (
    DEFINED_NOT_REGISTERED,
    ORIGINAL_CATEGORY,
    SUPPORTS_DTYPE,
)
from phylanx.primitives.registry import (
    CATEGORIES,
    DTYPE_SUFFIXES,
    all_names,
    all_specs,
    category_of,
    lookup,
    parse_pattern,
)

from .families import FAMILIES, samples_for
from .harness import as_phylanx_arguments, assert_same, call_primitive, quiet_numpy
from .samples import explicit_samples

SPECS = all_specs()
ids = [s.name for s in SPECS]
# Primitives whose impl is a compiler builder, not a function of the argument values.
EAGER = [s for s in SPECS if not (s.lazy or s.special)]

#: primitives without an example, and why
NO_EXAMPLE = {"__arg": "keyword marker, only meaningful inside a call"}

_CALL_PATTERN = re.compile(r"^\s*([A-Za-z_][\w]*)\s*\(")


def test_registry_is_populated():
    assert len(SPECS) > 50 and len(EAGER) > 40


# -- documentation -----------------------------------------------------------------------

@pytest.mark.parametrize("spec", SPECS, ids=ids)
def test_docstring_has_one_line_summary(spec):
    lines = spec.doc.strip().splitlines()
    assert lines and lines[0].strip(), f"{spec.name}: the impl has no docstring"
    assert len(lines) == 1 or not lines[1].strip(), (
        f"{spec.name}: the summary must be one line followed by a blank line "
        f"(it is shown alone in listings), got {lines[:2]}")


# -- signature ---------------------------------------------------------------------------

@pytest.mark.parametrize("spec", SPECS, ids=ids)
def test_patterns_parse_and_name_the_primitive(spec):
    assert spec.patterns, f"{spec.name}: no pattern"
    callable_names = {spec.name, *spec.aliases}
    call_patterns = [p for p in spec.patterns if _CALL_PATTERN.match(p)]
    assert call_patterns, f"{spec.name}: no call pattern (only infix forms)"
    for pattern in call_patterns:
        assert _CALL_PATTERN.match(pattern).group(1) in callable_names, (
            f"{spec.name}: pattern {pattern!r} is for another name")
        parse_pattern(pattern)
    for pattern in spec.patterns:
        if pattern not in call_patterns:
            assert spec.infix and spec.infix in pattern, (
                f"{spec.name}: infix pattern {pattern!r} without a matching infix= operator")
    indices = [p.index for p in spec.signature.params]
    assert indices == list(range(len(indices)))


def _literal(text: str):
    """The Python value of a pattern default, or ``_EXPRESSION`` for non-literals."""
    text = text.strip()
    if text == "nil":
        return None
    if text in ("true", "false"):
        return text == "true"
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?", text):
        return float(text)
    m = re.fullmatch(r"list\((.*)\)", text)
    if m:
        from phylanx.primitives.registry import _split_top
        items = [_literal(t) for t in _split_top(m.group(1))]
        if not any(i is _EXPRESSION for i in items):
            return tuple(items)
    return _EXPRESSION


_EXPRESSION = object()


def _same_default(actual, expected) -> bool:
    if isinstance(expected, tuple):
        return (isinstance(actual, (tuple, list)) and len(actual) == len(expected)
                and all(_same_default(a, e) for a, e in zip(actual, expected)))
    if isinstance(expected, bool) or expected is None:
        return actual is expected
    if isinstance(expected, (int, float)):
        # same number and same kind: 1 and 1.0 select different result dtypes
        return (not isinstance(actual, bool) and isinstance(actual, type(expected))
                and actual == expected)
    return actual == expected


def _impl_parameters(spec):
    params = list(inspect.signature(spec.impl).parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    has_varargs = any(p.kind is p.VAR_POSITIONAL for p in params)
    return positional, has_varargs


@pytest.mark.parametrize("spec", EAGER, ids=[s.name for s in EAGER])
def test_impl_signature_matches_pattern(spec):
    positional, has_varargs = _impl_parameters(spec)
    sig = spec.signature
    if any(p.variadic for p in sig.params):
        assert has_varargs, f"{spec.name}: the pattern is variadic, the impl has no *args"
    elif sig.max_args is not None:
        assert len(positional) >= sig.max_args or has_varargs, (
            f"{spec.name}: the pattern takes up to {sig.max_args} arguments, the impl "
            f"{len(positional)}")
    required = [p for p in positional if p.default is p.empty]
    assert len(required) <= sig.min_args, (
        f"{spec.name}: the impl requires {len(required)} arguments, the pattern only "
        f"{sig.min_args}: {[p.name for p in required]}")
    for slot in sig.params:
        if slot.variadic or slot.index >= len(positional):
            continue
        param = positional[slot.index]
        if slot.name is not None:
            assert param.name == slot.name, (
                f"{spec.name}: slot {slot.index + 1} is keyword '{slot.name}' in the pattern "
                f"but the impl parameter is named '{param.name}'")
        if not slot.required:
            assert param.default is not param.empty, (
                f"{spec.name}: optional slot {slot.index + 1} has no Python default in the impl")
        if slot.default_text is None:
            continue
        expected = _literal(slot.default_text)
        if expected is _EXPRESSION:
            expected = None   # computed inside the impl (find_here() ...)
        assert _same_default(param.default, expected), (
            f"{spec.name}: the default of '{param.name}' is {param.default!r}, the pattern "
            f"says {slot.default_text} (expected {expected!r})")


def test_literal_parser():
    assert _literal("nil") is None and _literal("false") is False
    assert _literal('"valid"') == "valid" and _literal("0.") == 0.0 and _literal("-1") == -1
    assert _literal("list(list(1,1),list(1,1))") == ((1, 1), (1, 1))
    assert _literal("find_here()") is _EXPRESSION
    assert not _same_default(1, 1.0) and not _same_default(0, False)
    assert _same_default([1, 1], (1, 1)) and _same_default(0.0, 0.0)


# -- example ---------------------------------------------------------------------------

@pytest.mark.parametrize("spec", SPECS, ids=ids)
def test_example_runs_and_equals_result(spec):
    if spec.name in NO_EXAMPLE:
        assert not spec.example
        return
    assert spec.example, f"{spec.name}: no example"
    with quiet_numpy():
        value = phylanx.evaluate(spec.example)
        if spec.result is None:
            return
        expected = phylanx.evaluate(spec.result)
    assert_same(value, expected, dtype="kind", where=f"{spec.name} example {spec.example}")


# -- oracle, category, flags -------------------------------------------------------------

@pytest.mark.parametrize("spec", SPECS, ids=ids)
def test_oracle_or_reason(spec):
    assert (spec.oracle is None) != (spec.no_oracle is None), (
        f"{spec.name}: declare exactly one of oracle= and no_oracle=\"reason\"")
    if spec.no_oracle is not None:
        assert spec.no_oracle.strip(), f"{spec.name}: empty no_oracle reason"
        return
    explicit = explicit_samples().get(spec.name)
    assert (spec.samples is None) != (explicit is None), (
        f"{spec.name}: an oracle needs exactly one of samples=\"<family>\" in the declaration "
        "and a list in tests/primitives/samples.py")
    if explicit is None:
        assert isinstance(spec.samples, str), (
            f"{spec.name}: samples= names a family; lists go to tests/primitives/samples.py")
        assert spec.samples in FAMILIES, f"{spec.name}: unknown family {spec.samples!r}"
    else:
        assert samples_for(spec), f"{spec.name}: empty samples"
        assert all(isinstance(s, tuple) for s in explicit), (
            f"{spec.name}: samples must be argument tuples")


def test_explicit_samples_belong_to_primitives_with_an_oracle():
    for name in explicit_samples():
        spec = lookup(name)
        assert spec is not None, f"samples.py: {name!r} is not a primitive"
        assert spec.oracle is not None, f"samples.py: {name!r} has no oracle to compare with"


@pytest.mark.parametrize("spec", SPECS, ids=ids)
def test_category_and_extension_flag(spec):
    assert spec.category in CATEGORIES
    original = ORIGINAL_CATEGORY.get(spec.name, DEFINED_NOT_REGISTERED.get(spec.name))
    if spec.name == "__arg":
        return  # the original's compiler marker (§3.3.2), filed under core here
    if spec.extension:
        assert original is None, f"{spec.name} is a name of the original: not an extension"
        return
    assert original is not None, (
        f"{spec.name} is not a name of the original (§3.3): declare it extension=True")
    assert spec.category == original, (
        f"{spec.name}: category {spec.category!r}, the original's is {original!r}")
    assert spec.supports_dtype == (spec.name in SUPPORTS_DTYPE), (
        f"{spec.name}: supports_dtype should be {spec.name in SUPPORTS_DTYPE} (§2.4)")


@pytest.mark.parametrize("spec", SPECS, ids=ids)
def test_category_is_the_declaring_package(spec):
    parts = spec.module.split(".")
    # phylanx.primitives.<category>.<module> or phylanx.distributed.primitives.<category>...
    prefix = ["phylanx", "distributed", "primitives"] if parts[1] == "distributed" \
        else ["phylanx", "primitives"]
    assert parts[:len(prefix)] == prefix, spec.module
    assert parts[len(prefix)] == spec.category, (
        f"{spec.name}: declared in {spec.module}, category {spec.category!r}")
    if spec.special:
        assert spec.impl is None, f"{spec.name}: a special form's builder is the compiler's"
    else:
        assert spec.impl.__module__ == spec.module


def test_every_special_form_has_one_builder_in_the_compiler():
    from phylanx.compiler.special_forms import SPECIAL_FORMS, missing_builders

    assert missing_builders() == ([], [])
    assert {s.name for s in SPECS if s.special} == set(SPECIAL_FORMS) and SPECIAL_FORMS


def test_declarations_outside_a_category_package_are_refused():
    assert category_of("phylanx.primitives.matrixops.shape", "f") == "matrixops"
    for module in ("phylanx.primitives.dtypes", "phylanx.compiler.x",
                   "phylanx.primitives.nonsense.x", "tests.primitives.x"):
        with pytest.raises(ValueError, match="outside a category package"):
            category_of(module, "f")


# -- dtype variants ----------------------------------------------------------------------

DTYPE_SPECS = [s for s in SPECS if s.supports_dtype]
_KIND = {"bool": "b", "int64": "i", "float64": "f"}


def _variant_input(spec):
    """Arguments on which the plain primitive works: the first non-empty oracle sample."""
    with quiet_numpy():
        for args in samples_for(spec) if spec.oracle else []:
            if any(getattr(a, "size", 1) == 0 for a in args):
                continue
            try:
                call_primitive(spec.name, *args)
            except phylanx.PhylanxError:
                continue
            return args
    return None


def _arrays_in(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _arrays_in(v)
    elif isinstance(value, (np.ndarray, np.generic)):
        yield np.asarray(value)


def _cast_for_variant(spec, args: tuple, dtype: str) -> tuple:
    """The arguments as the variant computes with them: numeric ones cast to ``dtype``
    (only the positions in ``flags["dtype_args"]`` when the primitive declares them)."""
    which = spec.flags.get("dtype_args", range(len(args)))
    out = []
    for i, a in enumerate(as_phylanx_arguments(args)):
        if i in which and isinstance(a, (np.ndarray, np.generic)) and a.dtype.kind in "biuf":
            a = np.asarray(a).astype(dtype)[()]
        out.append(a)
    return tuple(out)


@pytest.mark.parametrize("spec", DTYPE_SPECS, ids=[s.name for s in DTYPE_SPECS])
@pytest.mark.parametrize("suffix", list(DTYPE_SUFFIXES))
def test_dtype_variant_runs(spec, suffix):
    variant = spec.name + suffix
    dtype = DTYPE_SUFFIXES[suffix]
    assert variant in all_names() and lookup(variant) is spec
    args = _variant_input(spec)
    with quiet_numpy():
        if args is not None:
            try:  # where NumPy refuses to compute in this dtype (bool - bool), so may phylanx
                spec.oracle(*_cast_for_variant(spec, args, dtype))
            except Exception:  # noqa: BLE001 - any refusal of the oracle
                with pytest.raises(phylanx.PhylanxError):
                    call_primitive(variant, *args)
                return
            value = call_primitive(variant, *args)
        elif spec.example and f"{spec.name}(" in spec.example:
            value = phylanx.evaluate(spec.example.replace(f"{spec.name}(", f"{variant}(", 1))
        else:
            pytest.fail(f"{spec.name}: no oracle sample or example call to run {variant} on")
    arrays = list(_arrays_in(value))
    assert arrays, f"{variant} returned {value!r}, not numbers"
    kind = _KIND[dtype]
    for a in arrays:
        assert a.dtype.kind == kind, f"{variant}: result dtype {a.dtype}, expected kind {kind}"


def test_variant_input_found_for_operators():
    # the harness must find an input for the plain operators, or the variants go untested
    spec = lookup("__add")
    assert _variant_input(spec) is not None
    assert as_phylanx_arguments((np.zeros(()),))[0].shape == ()


def test_missing_builders_reports_both_directions(monkeypatch):
    from phylanx.compiler import special_forms

    table = dict(special_forms.SPECIAL_FORMS)
    del table["store"]
    table["no_such_form"] = table["define"]
    monkeypatch.setattr(special_forms, "SPECIAL_FORMS", table)
    assert special_forms.missing_builders() == (["store"], ["no_such_form"])
