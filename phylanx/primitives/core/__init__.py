"""Core primitives (§3.3.1): output, strings, timing, localities; the special forms' declarations.

The package name is the category of every primitive declared in it (see ``registry.py``).
"""
