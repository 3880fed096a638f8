"""File primitives (§3.3.10): CSV, serialised values, HDF5.

The package name is the category of every primitive declared in it (see ``registry.py``).
"""
