"""Declarations of the control special forms ``return`` and ``for_each``.

Their builders live with the compiler (``phylanx/compiler/special_forms.py``): ``return``
needs the enclosing function's scope, and ``for_each`` with a literal one-argument
``lambda`` runs its body in the enclosing frame.  See ``core/special_forms.py`` for why
the declarations are here.  The functions below carry only documentation.
"""
from __future__ import annotations

from ..registry import primitive


@primitive("return", "return(__arg(_1_value, nil))", special=True,
           extension=True, example="block(define(f, x, block(if(x > 0, return(1)), 0)), f(5))",
           result="1", no_oracle="control flow")
def return_():
    """Leave the enclosing function with a value (early ``return`` of Python)."""


@primitive("for_each", "for_each(_1, _2)", special=True,
           example="block(define(s, 0), for_each(lambda(x, store(s, s + x)), [1, 2, 3]), s)",
           result="6", no_oracle="control flow")
def for_each():
    """Call ``f(item)`` for every element of an iterable; the value of the last call.

    With a literal one-argument ``lambda`` the body runs in the enclosing frame.
    """
