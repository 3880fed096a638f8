"""Distributed Keras-style primitives (category ``dist_keras_support``): ``conv1d_d``."""
