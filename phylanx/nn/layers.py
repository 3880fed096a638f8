"""Every layer class, by its Keras name (``from phylanx.nn.layers import Dense``)."""
from __future__ import annotations

from .layers_conv import (
    AveragePooling1D,
    Conv1D,
    GlobalAveragePooling1D,
    GlobalMaxPooling1D,
    MaxPooling1D,
)
from .layers_core import Activation, Dense, Dropout, Flatten, Layer
from .layers_extra import BatchNormalization, Embedding
from .layers_recurrent import LSTM, SimpleRNN

__all__ = [
    "LSTM", "Activation", "AveragePooling1D", "BatchNormalization", "Conv1D", "Dense",
    "Dropout", "Embedding", "Flatten", "GlobalAveragePooling1D", "GlobalMaxPooling1D",
    "MaxPooling1D", "SimpleRNN",
]
_ = Layer
