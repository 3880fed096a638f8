"""Statistics primitives (§3.3.8): reductions, percentiles, histograms.

The package name is the category of every primitive declared in it (see ``registry.py``).
"""
