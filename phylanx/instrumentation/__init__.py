"""What users see of an evaluation: counters (CSV), the tree (Newick, DOT).

The runtime reports to instrumentation only through ``phylanx.runtime.hooks``
and the per-node counters of ``phylanx.runtime.measure``.
"""
from .counters import counter_csv, enable_measurements
from .topology import dot_tree, newick_tree

__all__ = ["counter_csv", "dot_tree", "enable_measurements", "newick_tree"]
