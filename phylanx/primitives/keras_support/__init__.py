"""Keras-support primitives (§3.3.11): activations, losses, convolution, pooling, tensor helpers.

The package name is the category of every primitive declared in it (see ``registry.py``).
"""
