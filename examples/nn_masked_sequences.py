"""An LSTM tags padded variable-length sequences, the padding masked (phylanx.nn).

    python examples/nn_masked_sequences.py [--epochs 4] [--samples 1024]
    phylanx run -n 2 examples/nn_masked_sequences.py     # data parallel on 2 localities

The data are generated here: sequences of 3 to ``--steps`` tokens (1 .. ``--vocab`` - 1)
padded with 0 at the end to ``--steps``; each step's label is 1 once token 1 has
appeared at or before it, else 0 (so the tagger must remember).  The padding steps get
random labels: only a model that leaves them out can fit them all.

The model is Keras' masked-sequence idiom: ``Embedding(mask_zero=True)`` (index 0 is
padding, so ``input_dim`` is the vocabulary size + 1), an LSTM returning its sequence
(a padded step keeps the state), and a per-step softmax Dense.  The mask reaches the
loss and metrics, which count the real steps only, as Keras 3 does.  With
``distributed="data"`` every locality trains on its shard of each batch (the counts
of real steps all-reduced); rank 0 prints.
"""
from __future__ import annotations

import argparse

import numpy as np

from phylanx import distributed as dist
from phylanx import nn


def padded_data(samples: int, steps: int = 10, vocab: int = 8,
                seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(samples, steps) tokens, 0 after each sequence's end, and per-step 0/1 labels
    (random on the padding)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(2, vocab, (samples, steps))
    seen_one = rng.random((samples, steps)) < 0.15
    x[seen_one] = 1
    y = (np.cumsum(x == 1, axis=1) > 0).astype(np.int64)
    lengths = rng.integers(3, steps + 1, samples)
    padding = np.arange(steps) >= lengths[:, None]
    x[padding] = 0
    y[padding] = rng.integers(0, 2, int(padding.sum()))
    return x, y


def build(steps: int = 10, vocab: int = 8, dim: int = 8, units: int = 16) -> nn.Model:
    """The masked tagger (see the module doc)."""
    tokens = nn.Input((steps,))
    h = nn.Embedding(vocab, dim, mask_zero=True)(tokens)
    h = nn.LSTM(units, return_sequences=True)(h)
    return nn.Model(tokens, nn.Dense(2, activation="softmax")(h))


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--epochs", type=int, default=4, help="passes over the training set")
    parser.add_argument("--samples", type=int, default=1024, help="generated sequences")
    parser.add_argument("--steps", type=int, default=10, help="longest sequence (padded to)")
    parser.add_argument("--vocab", type=int, default=8, help="tokens, padding 0 included")
    parser.add_argument("--batch-size", type=int, default=32, help="global samples per step")
    parser.add_argument("--lr", type=float, default=0.02, help="Adam's learning rate")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--verbose", type=int, default=2, choices=(0, 1, 2),
                        help="Keras' verbosity of fit (rank 0)")
    args = parser.parse_args(argv)
    rank, count = dist.find_here(), dist.num_localities()
    nn.set_seed(args.seed)
    x, y = padded_data(args.samples, args.steps, args.vocab, args.seed)
    x_test, y_test = padded_data(256, args.steps, args.vocab, args.seed + 1)
    model = build(args.steps, args.vocab)
    model.compile(nn.Adam(args.lr), "sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x, y, batch_size=args.batch_size, epochs=args.epochs,
              verbose=args.verbose if rank == 0 else 0,
              distributed="data" if count > 1 else None)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    if rank == 0:
        real = int((x_test != 0).sum())
        print(f"test accuracy {accuracy:.4f} over the {real} real steps of {len(x_test)} "
              f"padded sequences (loss {loss:.4f}) on {count} "
              f"localit{'y' if count == 1 else 'ies'}")
    return accuracy


if __name__ == "__main__":
    main()
