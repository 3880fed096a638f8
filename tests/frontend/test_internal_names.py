"""Primitives Phylanx writes for itself (``internal=True`` in the registry: the
frontend's lowering, the compiler's rewrites such as ``__rows_gram``) are not names a
decorated function can call: a bare name with no Python binding is a primitive only if
it is not internal, otherwise it is Python's NameError, located (issue 27 loose end of
the bare-name rule, frontend/resolve.py).  PhySL text keeps reaching them, and so do the
programs the compiler rewrites into them.  The oracle is the undecorated function."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx, ops
from phylanx.frontend import resolve
from phylanx.primitives import registry

INTERNAL = sorted(s.name for s in registry.all_specs() if getattr(s, "internal", False))


def calls_rows_gram(x):
    return __rows_gram(x, x, x)        # noqa: F821 - not defined in Python either


def reads_inplace(x):
    f = __inplace                      # noqa: F821
    return f(x, x)


def calls_pymethod(x):
    return __pymethod(x, "sum")        # noqa: F821


def calls_through_ops(x):
    return ops.__label_counts(x, 3)


@pytest.mark.parametrize("fn", [calls_rows_gram, reads_inplace, calls_pymethod])
def test_an_internal_name_is_pythons_located_name_error(fn):
    x = np.ones((2, 2))
    with pytest.raises(NameError):
        fn(x)                          # the undecorated function's error
    with pytest.raises(NameError, match="is not defined.*internal") as err:
        Phylanx(fn)(x)
    assert isinstance(err.value, phylanx.PhylanxError)
    assert err.value.loc is not None
    assert err.value.loc.line == fn.__code__.co_firstlineno + 1    # the name's line


def test_phylanx_ops_has_no_internal_primitive():
    for name in ("__rows_gram", "__inplace", "__label_counts"):
        assert not hasattr(ops, name)
        assert name not in dir(ops)
    with pytest.raises(phylanx.PhylanxError, match="no primitive '__label_counts'") as err:
        Phylanx(calls_through_ops)(np.array([0, 1]))
    assert err.value.loc is not None and err.value.loc.line > 0


def __rows_concat(g, x, products):     # a do-nothing stand-in named like an internal one
    pass


def calls_stand_in(x):
    return __rows_concat(x, x, x)


def test_a_stand_in_named_like_an_internal_primitive_is_the_python_function():
    x = np.ones(3)
    assert calls_stand_in(x) is None
    assert Phylanx(calls_stand_in)(x) is None


def test_every_internal_primitive_is_refused_and_the_originals_operators_are_not():
    namespace: dict = {}
    exec("def bare():\n    pass\n", namespace)   # globals binding none of the names
    resolver = resolve.Resolver(namespace["bare"])
    assert INTERNAL                                  # the registry declares some
    for name in INTERNAL:
        assert resolver.lookup(name) is None and not resolve.callable_by_name(name), name
    for name in ("__add", "__minus", "fmap", "hstack"):
        assert resolver.lookup(name) is not None, name


def test_physl_text_and_the_compilers_rewrites_still_reach_them():
    # guard (passes before the change too): PhySL names them, as the compiler does
    got = phylanx.evaluate("block(define(xs, list(1)), __list_append(xs, 2), xs)")
    assert list(got) == [1, 2]

    def kmeans_step(points, centres):
        # the W2 step the rows rewrite turns into __rows_* primitives
        d = (points * points).sum(axis=1)[:, None] - 2.0 * (points @ centres.T) + \
            (centres * centres).sum(axis=1)[None, :]
        return np.argmin(d, axis=1)
    rng = np.random.default_rng(5)
    points, centres = rng.normal(size=(40, 3)), rng.normal(size=(4, 3))
    np.testing.assert_array_equal(Phylanx(kmeans_step)(points, centres),
                                  kmeans_step(points, centres))


def test_an_internal_primitive_is_an_extension():
    # guard: a name of the original is never internal (the registry refuses it)
    with pytest.raises(ValueError, match="never internal"):
        registry.primitive("__test_internal_not_extension", internal=True)(lambda: None)
