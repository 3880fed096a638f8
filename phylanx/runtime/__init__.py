"""Futures, executors, execution-tree nodes, the evaluation policy and localities."""
