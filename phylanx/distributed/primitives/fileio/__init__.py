"""Distributed primitives of the original's ``fileio`` category: ``file_read_csv_d``."""
