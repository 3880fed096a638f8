"""List primitives (§3.3.6): lists, dictionaries, car/cdr access.

The package name is the category of every primitive declared in it (see ``registry.py``).
"""
