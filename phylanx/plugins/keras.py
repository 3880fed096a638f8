"""``phylanx.plugins.keras``: the decorated helper the Keras backend imports.

``in_top_k(predictions, targets, k)`` is, as in the original, a ``@Phylanx``
function: sort ``-predictions`` along the last axis, keep the first ``k``
columns, compare with ``targets`` as a column and take ``any`` along the last
axis, giving one bool per batch row.  Ties are decided by ``argsort``'s order
(TensorFlow counts every tied value as inside the top k).
"""
from __future__ import annotations

import numpy as np

from ..frontend.decorator import Phylanx


@Phylanx
def in_top_k(predictions, targets, k):
    top_k = np.argsort(-predictions, axis=-1)[:, :k]
    target = np.reshape(targets, (-1, 1))
    return np.any(target == top_k, axis=-1)


__all__ = ["in_top_k"]
