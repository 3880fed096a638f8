"""Distributed matrix operations and collectives (category ``dist_matrixops``)."""
