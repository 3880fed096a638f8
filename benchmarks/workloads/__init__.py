"""Workloads of ``benchmarks/run.py``: each module's ``cases(quick)`` returns :class:`Case` s.

Every workload is written once as a plain NumPy function; the phylanx column runs
``Phylanx(f)`` of that same function object (W4 uses phylanx.nn, see w4_mlp.py).  The
peers (jax, torch, dask, numexpr) are written the way their users would write them.
"""
