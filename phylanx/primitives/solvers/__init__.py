"""Solver primitives (§3.3.9): direct and iterative linear solvers.

The package name is the category of every primitive declared in it (see ``registry.py``).
"""
