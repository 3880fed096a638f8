"""Distributed primitives of the original's ``matrixops`` category: ``shape_d``,
``slice_row_d``, ``slice_column_d``."""
