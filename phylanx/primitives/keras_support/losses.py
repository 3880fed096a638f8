"""Keras-support losses and decoding: categorical/binary cross-entropy, ctc_decode.

Probabilities are clipped to [eps, 1 - eps] with Keras' eps = 1e-7 (in the output's
float type).  With ``from_logits`` the losses use the exact log-sum-exp forms, which
stay finite for any logits.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxValueError
from ...values import scalarize
from ..dtypes import to_axis, to_bool, to_int
from ..registry import primitive
from ._windows import as_array, as_float_array, check_rank
from .activations import log_softmax, stable_softmax

EPSILON = 1e-7


def _clip(p: np.ndarray) -> np.ndarray:
    return np.clip(p, EPSILON, 1 - EPSILON).astype(p.dtype, copy=False)


def _operands(target, output) -> tuple[np.ndarray, np.ndarray]:
    out = as_float_array(output, "output")
    tgt = as_array(target, "target")
    tgt = tgt.astype(np.result_type(out.dtype, tgt.dtype if tgt.dtype.kind == "f"
                                    else out.dtype), copy=False)
    if tgt.shape != out.shape:
        raise PhylanxValueError(f"target and output must have the same shape, got {tgt.shape} "
                                f"and {out.shape}")
    return tgt, out


@primitive(
    "categorical_crossentropy",
    "categorical_crossentropy(_1_target,_2_output,__arg(_3_from_logits,false),"
    "__arg(_4_axis,-1))",
    differentiable=True,
    no_oracle="returns a list [loss, clipped output]; checked against direct formulas in "
    "tests/primitives/test_keras_support.py",
    example="categorical_crossentropy([0., 1.], [0.25, 0.75])",
    result="list(0.2876820724517809, [0.25, 0.75])",
)
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Keras categorical cross-entropy along ``axis``; returns ``list(loss, output')``.

    Without ``from_logits``, ``output`` is scaled to sum to 1 along ``axis`` and clipped
    to [eps, 1-eps]: ``loss = -sum(target * log(output'))``.  With ``from_logits``,
    ``output'`` is the (clipped) softmax of the logits and the loss is the exact
    ``-sum(target * log_softmax(logits))``.  ``output'`` is returned for the gradient.

    Scalars are one class (the original's 0-d form): the loss alone,
    ``-target * log(1 - eps)`` (an output of 0 is 0/0, NaN, as the formula says).
    """
    tgt, out = _operands(target, output)
    if out.ndim == 0:
        loss, _ = categorical_crossentropy(tgt.reshape(1), out.reshape(1), from_logits, -1)
        return loss
    ax = to_axis(axis, out.ndim)
    if to_bool(from_logits):
        if out.size == 0:
            return [scalarize(np.sum(tgt * out, axis=ax)), out.copy()]
        loss = -np.sum(tgt * log_softmax(out, ax), axis=ax)
        return [scalarize(loss), _clip(stable_softmax(out, ax))]
    probs = _clip(out / np.sum(out, axis=ax, keepdims=True))
    return [scalarize(-np.sum(tgt * np.log(probs), axis=ax)), probs]


def _softmax_crossentropy_oracle(target, logits, sparse=False):
    kinds = [np.asarray(logits).dtype] + ([] if sparse else [np.asarray(target).dtype])
    dtype = np.result_type(*[k if k.kind == "f" else np.float64 for k in kinds])
    return _float64_crossentropy(target, logits, sparse).astype(dtype)


def _float64_crossentropy(target, logits, sparse):
    z = np.asarray(logits, dtype=np.float64)
    shifted = z - z.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    if sparse:
        labels = np.asarray(target)
        if labels.dtype.kind not in "iu" or labels.shape != z.shape[:-1] \
                or labels.min() < 0 or labels.max() >= z.shape[-1]:
            raise ValueError("bad labels")
        return -np.mean(np.take_along_axis(log_probs, labels[..., None], -1))
    t = np.asarray(target, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return -np.mean(np.sum(np.where(t == 0, 0.0, t * log_probs), axis=-1))


def class_labels(target, logits: np.ndarray) -> np.ndarray:
    """``target`` as one class index per sample of ``logits`` (its last axis the
    classes), or a located error."""
    labels = as_array(target, "target")
    if labels.dtype.kind not in "iu":
        raise PhylanxValueError(f"sparse targets must be integer class indices, got "
                                f"{labels.dtype}")
    if labels.shape != logits.shape[:-1]:
        raise PhylanxValueError(f"sparse targets must have shape {logits.shape[:-1]} (one "
                                f"class per sample of logits {logits.shape}), got "
                                f"{labels.shape}")
    if labels.size and (labels.min() < 0 or labels.max() >= logits.shape[-1]):
        bad = labels[(labels < 0) | (labels >= logits.shape[-1])].reshape(-1)[0]
        raise PhylanxValueError(f"class index {bad} is out of range for "
                                f"{logits.shape[-1]} classes")
    return labels


@primitive(
    "softmax_crossentropy",
    "softmax_crossentropy(_1_target,_2_logits,__arg(_3_sparse,false))",
    differentiable=True, extension=True, oracle=_softmax_crossentropy_oracle,
    example="softmax_crossentropy([1], [[0., 0.]], true)", result="0.6931471805599453",
)
def softmax_crossentropy(target, logits, sparse=False):
    """Mean cross-entropy of ``softmax(logits)`` over the samples (one statement).

    ``mean(-sum(target * log_softmax(logits), -1))``, the last axis the classes.  With
    ``sparse``, ``target`` holds one integer class per sample (shape
    ``logits.shape[:-1]``).

    What ``softmax``, ``one_hot``, ``categorical_crossentropy``, ``slice`` and
    ``mean`` compute, but without clipping the probabilities: the exact log-sum-exp
    form, finite for finite logits (a class at -inf costs nothing where its target is 0
    and infinity where it is not); ``phylanx.nn`` uses it for a softmax output layer's
    cross-entropy, as Keras' TensorFlow backend uses the softmax's logits.
    """
    z = as_float_array(logits, "logits")
    if z.ndim == 0:
        raise PhylanxValueError("logits must have a class axis, got a scalar")
    if z.shape[-1] == 0:
        raise PhylanxValueError("logits need at least one class")
    log_probs = log_softmax(z, -1)
    if to_bool(sparse):
        labels = class_labels(target, z)
        # plain indexing (not take_along_axis): called once per training step, where
        # every NumPy call's overhead counts (W4's step)
        rows = log_probs.reshape(-1, z.shape[-1])
        each = -rows[np.arange(rows.shape[0]), labels.reshape(-1)].reshape(labels.shape)
    else:
        tgt, _ = _operands(target, z)
        # a class of probability 0 (logit -inf) adds nothing where its target is 0
        with np.errstate(invalid="ignore"):
            terms = tgt * log_probs
        if not np.all(np.isfinite(log_probs)):
            terms = np.where(tgt == 0, 0, terms)
        each = -terms.sum(axis=-1)
    if each.size == 0:
        raise PhylanxValueError("softmax_crossentropy of no samples (the mean is undefined)")
    return scalarize(each.sum() / each.size)


def _binary_oracle(target, output, from_logits=False):
    t = np.asarray(target, dtype=np.float64)
    o = np.asarray(output, dtype=np.float64)
    if from_logits:
        return np.maximum(o, 0) - o * t + np.log1p(np.exp(-np.abs(o)))
    p = np.clip(o, EPSILON, 1 - EPSILON)
    return -(t * np.log(p) + (1 - t) * np.log(1 - p))


@primitive(
    "binary_crossentropy",
    "binary_crossentropy(_1_target,_2_output,__arg(_3_from_logits,false))",
    elementwise=True, differentiable=True,
    oracle=_binary_oracle,
    example="binary_crossentropy([1.], [0.5])", result="[0.6931471805599453]",
)
def binary_crossentropy(target, output, from_logits=False):
    """Element-wise Keras binary cross-entropy of probabilities (or logits).

    Probabilities are clipped to [eps, 1-eps]: ``-(t*log(p) + (1-t)*log(1-p))``; logits
    use ``max(x, 0) - x*t + log1p(exp(-|x|))`` (no overflow).
    """
    tgt, out = _operands(target, output)
    if to_bool(from_logits):
        loss = np.maximum(out, 0) - out * tgt + np.log1p(np.exp(-np.abs(out)))
    else:
        p = _clip(out)
        loss = -(tgt * np.log(p) + (1 - tgt) * np.log1p(-p))
    return scalarize(loss)


def _greedy(log_probs: np.ndarray, lengths: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Best path per sample: argmax per step, repeats merged, blanks (last class) removed."""
    blank = log_probs.shape[2] - 1
    steps = np.arange(log_probs.shape[1])
    best = np.argmax(log_probs, axis=2)                                 # (B, T)
    valid = steps[None, :] < lengths[:, None]
    repeated = np.zeros_like(valid)
    repeated[:, 1:] = best[:, 1:] == best[:, :-1]
    keep = valid & ~repeated & (best != blank)
    score = np.where(valid, np.max(log_probs, axis=2), 0).sum(axis=1)
    decoded = [best[i][keep[i]] for i in range(best.shape[0])]
    return decoded, -score[:, None]


def _beam(log_probs: np.ndarray, length: int, beam_width: int,
          top_paths: int) -> tuple[list[np.ndarray], list[float]]:
    """CTC prefix beam search of one sample; (labelings, log-probabilities), best first.

    Each prefix keeps the probability of its alignments ending in a blank and in its
    last label, summed over all alignments that survived the beam, as in Graves'
    prefix search.  Blank is the last class.
    """
    blank = log_probs.shape[1] - 1
    beams: dict[tuple, tuple[float, float]] = {(): (0.0, -np.inf)}   # (end blank, end label)
    for t in range(length):
        row = log_probs[t]
        grown: dict[tuple, list[float]] = {}

        def add(prefix, which, value, grown=grown):
            slot = grown.setdefault(prefix, [-np.inf, -np.inf])
            slot[which] = np.logaddexp(slot[which], value)

        for prefix, (p_blank, p_label) in beams.items():
            total = np.logaddexp(p_blank, p_label)
            add(prefix, 0, total + row[blank])
            if prefix:
                add(prefix, 1, p_label + row[prefix[-1]])   # repeat collapses
            for c in range(blank):
                # after a label, the same label extends only via a blank in between
                base = p_blank if prefix and prefix[-1] == c else total
                add(prefix + (c,), 1, base + row[c])
        ranked = sorted(grown.items(), key=lambda kv: -np.logaddexp(*kv[1]))
        beams = {k: (v[0], v[1]) for k, v in ranked[:beam_width]}
    ranked = sorted(beams.items(), key=lambda kv: -np.logaddexp(*kv[1]))[:top_paths]
    return ([np.array(k, dtype=np.int64) for k, _ in ranked],
            [float(np.logaddexp(*v)) for _, v in ranked])


def _dense(sequences: list[np.ndarray]) -> np.ndarray:
    """Rows padded with -1 to the longest sequence (Keras' dense decoded form)."""
    width = max((len(s) for s in sequences), default=0)
    dense = np.full((len(sequences), width), -1, dtype=np.int64)
    for i, s in enumerate(sequences):
        dense[i, :len(s)] = s
    return dense


@primitive(
    "ctc_decode",
    "ctc_decode(_1, _2, __arg(_3_greedy, 1), __arg(_4_beam_width, 100), "
    "__arg(_5_top_paths, 1))",
    no_oracle="decoding; checked against brute-force enumeration of alignments in "
    "tests/primitives/test_keras_support.py",
    example="ctc_decode([[[0.6, 0.4], [0.7, 0.3]]], [2])",
    result="list(list([[0]]), [[0.8675002581809379]])",
)
def ctc_decode(y_pred, input_length, greedy=1, beam_width=100, top_paths=1):
    """Decode CTC softmax outputs ``(samples, steps, classes)``; blank is the last class.

    Returns ``list(decoded, log_prob)`` as Keras does: ``decoded`` is a list of int64
    arrays ``(samples, longest)`` padded with -1 (one for greedy, ``top_paths`` for
    beam search).  Greedy: best class per step, repeats merged, blanks dropped;
    ``log_prob`` ``(samples, 1)`` is minus the sum of the best log-probabilities.
    Beam search (``greedy`` false): CTC prefix beam search of width ``beam_width``;
    ``log_prob`` ``(samples, top_paths)`` holds each labeling's log-probability.
    Only the first ``input_length[i]`` steps of sample ``i`` are read.
    """
    probs = as_float_array(y_pred, "y_pred")
    check_rank(probs, (3,), "y_pred (samples, steps, classes)")
    lengths = as_array(input_length, "input_length").reshape(-1).astype(np.int64)
    if lengths.shape[0] != probs.shape[0]:
        raise PhylanxValueError(f"input_length must hold {probs.shape[0]} lengths, "
                                f"got {lengths.shape[0]}")
    if np.any(lengths < 0) or np.any(lengths > probs.shape[1]):
        raise PhylanxValueError(f"input_length must be between 0 and {probs.shape[1]}")
    if probs.shape[2] == 0:
        raise PhylanxValueError("y_pred needs at least one class (the blank)")
    log_probs = np.log(probs + EPSILON)        # Keras adds epsilon before the log
    if to_bool(greedy):
        decoded, score = _greedy(log_probs, lengths)
        return [[_dense(decoded)], score.astype(probs.dtype)]
    width = to_int(beam_width, "beam_width")
    paths = to_int(top_paths, "top_paths")
    if width < 1 or not 1 <= paths <= width:
        raise PhylanxValueError(f"need beam_width >= top_paths >= 1, got beam_width={width}, "
                                f"top_paths={paths}")
    per_sample = [_beam(log_probs[i], int(lengths[i]), width, paths)
                  for i in range(probs.shape[0])]
    decoded, scores = [], np.full((probs.shape[0], paths), -np.inf, dtype=probs.dtype)
    for k in range(paths):
        decoded.append(_dense([s[0][k] if k < len(s[0]) else np.zeros(0, np.int64)
                               for s in per_sample]))
    for i, (_, sample_scores) in enumerate(per_sample):
        scores[i, :len(sample_scores)] = sample_scores
    return [decoded, scores]
