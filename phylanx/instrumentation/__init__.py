"""What users see of an evaluation: counters (CSV), the tree (Newick, DOT, pictures),
timelines (trace-event files) and reports.

The runtime reports to instrumentation only through ``phylanx.runtime.hooks``
and the per-node counters of ``phylanx.runtime.measure``.  Modules: ``counters``
and ``topology`` (the original's formats), ``timeline`` (the recorder),
``trace_file`` / ``validate`` (the file), ``tracing`` (``phylanx.trace``),
``tree_data`` / ``tree_picture`` (pictures), ``report`` / ``plots`` (HTML, PNG).
"""
from .counters import counter_csv, enable_measurements
from .topology import dot_tree, newick_tree
from .tracing import trace

__all__ = ["counter_csv", "dot_tree", "enable_measurements", "newick_tree", "trace"]
