"""Boolean primitives (§3.3.4): comparison and logical operators and functions.

The package name is the category of every primitive declared in it (see ``registry.py``).
"""
