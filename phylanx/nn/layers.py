"""Every layer class, by its Keras name (``from phylanx.nn.layers import Dense``)."""
from __future__ import annotations

from .layers_attention import (
    Add,
    LayerNormalization,
    MultiHeadAttention,
    TokenAndPositionEmbedding,
)
from .layers_bidirectional import Bidirectional
from .layers_conv import (
    AveragePooling1D,
    Conv1D,
    GlobalAveragePooling1D,
    GlobalMaxPooling1D,
    MaxPooling1D,
)
from .layers_core import Activation, Dense, Dropout, Flatten, Layer
from .layers_extra import BatchNormalization, Embedding, Masking
from .layers_image import AveragePooling2D, Conv2D, MaxPooling2D, Permute, Reshape
from .layers_merge import Average, Concatenate, Maximum, Minimum, Multiply, Subtract
from .layers_recurrent import GRU, LSTM, SimpleRNN
from .model import Input

__all__ = [
    "GRU", "LSTM", "Activation", "Add", "Average", "AveragePooling1D", "AveragePooling2D",
    "BatchNormalization", "Bidirectional", "Concatenate", "Conv1D", "Conv2D", "Dense", "Dropout",
    "Embedding", "Flatten", "GlobalAveragePooling1D", "GlobalMaxPooling1D",
    "LayerNormalization", "Masking", "MaxPooling1D", "MaxPooling2D", "Maximum", "Minimum",
    "MultiHeadAttention", "Multiply", "Permute", "Reshape", "SimpleRNN", "Subtract",
    "TokenAndPositionEmbedding",
]
# re-exported, not layer classes (so not in __all__, which saving reads as the classes):
# keras.layers.Input is keras.Input
_ = Layer, Input
