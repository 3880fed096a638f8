"""Matrix primitives (§3.3.7): creation, shape, slicing, stacking, sorting,
random numbers, linear algebra.

The package name is the category of every primitive declared in it (see ``registry.py``).
"""
