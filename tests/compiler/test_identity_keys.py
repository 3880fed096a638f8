"""Tables keyed by ``id()`` never take a new object for a dropped one made at its
address (issue 27): each test drops an object the table knew and makes objects of the
same kind until one has the dropped one's id (CPython reuses the memory at once: without
the fixes one did in every run); the table must not answer for the dropped one there.
A table that holds what it knows leaves no such object to make (None)."""
from __future__ import annotations

from phylanx.compiler import binding
from phylanx.compiler.rewrite.ir_terms import IrTerms, _unread_dropped
from phylanx.ir.core import Eqn, Function, Literal, Var
from phylanx.primitives.registry import PrimitiveSpec, Signature


def at_address(address: int, make, tries: int = 2_000):
    """An object made by ``make`` whose id is ``address`` (the others are dropped), or
    None."""
    for _ in range(tries):
        obj = make()
        if id(obj) == address:
            return obj
    return None


def _spec(impl) -> PrimitiveSpec:
    return PrimitiveSpec("made", (), impl, "core", "", Signature(()))


def test_a_spec_at_a_dropped_specs_address_gets_its_own_python_defaults():
    def one(a, b=1):
        return a + b

    def two(a, b=2):
        return a + b

    first = _spec(one)
    assert binding.python_defaults(first)[1] == 1
    address = id(first)
    del first
    second = at_address(address, lambda: _spec(two))
    assert second is None or binding.python_defaults(second)[1] == 2


def test_an_equation_at_a_dropped_absorbed_ones_address_is_not_dropped_for_it():
    # ir_terms knew a region's absorbed equations by id() alone (fixed at 4ac6d14): an
    # equation a round made and dropped after absorbing it left its id, and an unread
    # equation made later at that address was dropped from the program
    x = Var.new("x")
    region = Function((x,), (), (x,))
    terms = IrTerms(region)
    terms.open_region(region)

    def unread():
        return Eqn("__add", (), (x, Literal(1.0)), (Var.new(),))

    made = unread()
    terms.absorb([made])
    address = id(made)
    del made
    later = at_address(address, unread)
    if later is not None:
        assert _unread_dropped([later], region.results, terms.absorbed()) == [later]
    terms.close_region()
