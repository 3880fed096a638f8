"""Arithmetic primitives (§3.3.3): operators, element-wise math, cumulative sums and tests.

The package name is the category of every primitive declared in it (see ``registry.py``).
"""
