"""Whole algorithms as single primitives (§3.3.12): lra, als, kmeans.

The package name is the category of every primitive declared in it (see ``registry.py``).
"""
