"""ctc_decode with one input length per batch entry (greedy): the best path with
repeats merged and blanks (the last class) dropped, -1 padded."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def decode(y_pred, lengths):
    return ctc_decode(y_pred, lengths, True)  # noqa: F821


def greedy(probs, length, blank):
    best = np.argmax(probs[:length], axis=1)
    merged = [c for i, c in enumerate(best) if i == 0 or c != best[i - 1]]
    return [c for c in merged if c != blank]


rng = np.random.default_rng(7)
y = rng.random((2, 5, 4))
y /= y.sum(axis=2, keepdims=True)
lengths = np.array([5, 3])
decoded, log_prob = decode(y, lengths)
paths = decoded[0]
for b in range(2):
    expected = greedy(y[b], lengths[b], 3)
    row = [c for c in paths[b] if c != -1]
    assert row == expected, (row, expected)
best = [np.log(y[b, :lengths[b]].max(axis=1)).sum() for b in range(2)]
assert np.allclose(np.ravel(log_prob), -np.array(best))
