"""Distributed primitives of the original's ``core`` category: ``annotate_d``."""
