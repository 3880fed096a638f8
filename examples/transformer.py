"""A transformer encoder block learns "does token A come before token B?" (phylanx.nn).

    python examples/transformer.py [--epochs 8] [--samples 2048]
    phylanx run -n 2 examples/transformer.py     # the same, data parallel on 2 localities

The data are generated here: sequences of ``--steps`` tokens from a vocabulary of
``--vocab``, each holding token A (1) and token B (2) once at random places, the other
tokens random (3 and up); the label is 1 when A comes first.  No single position
answers it: the model must relate two positions, which is what attention does.

The model is Keras' text-classification transformer: TokenAndPositionEmbedding,
a MultiHeadAttention block and a Dense feed-forward block, each with dropout, a
residual ``Add`` and LayerNormalization, then GlobalAveragePooling1D, Dropout and a
softmax Dense.  ``keras_model`` builds the same model in Keras 3 (for the comparisons
of tests/nn/test_transformer.py and benchmarks/transformer_step.py).  With
``distributed="data"`` every locality trains on its shard of each batch and the
gradients are all-reduced; with the same seed the losses are those of one locality.
Rank 0 prints.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from phylanx import distributed as dist
from phylanx import nn

TOKEN_A, TOKEN_B = 1, 2


def order_data(samples: int, steps: int = 12, vocab: int = 16,
               seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(samples, steps) token indices (float32, as fit takes them) and 0/1 labels:
    whether token A comes before token B (the same on every rank)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(3, vocab, (samples, steps))
    places = np.argsort(rng.random((samples, steps)), axis=1)[:, :2]    # 2 distinct places
    rows = np.arange(samples)
    x[rows, places[:, 0]] = TOKEN_A
    x[rows, places[:, 1]] = TOKEN_B
    return x.astype(np.float32), (places[:, 0] < places[:, 1]).astype(np.int64)


def build(steps: int = 12, vocab: int = 16, dim: int = 16, heads: int = 2,
          hidden: int = 32, dropout: float = 0.1) -> nn.Model:
    """The encoder-block classifier (see the module doc)."""
    inputs = nn.Input((steps,))
    h = nn.TokenAndPositionEmbedding(vocab, steps, dim)(inputs)
    attended = nn.MultiHeadAttention(heads, dim // heads, dropout=dropout)(h, h)
    h = nn.LayerNormalization(epsilon=1e-6)(nn.Add()([h, nn.Dropout(dropout)(attended)]))
    fed = nn.Dense(dim)(nn.Dense(hidden, activation="relu")(h))
    h = nn.LayerNormalization(epsilon=1e-6)(nn.Add()([h, nn.Dropout(dropout)(fed)]))
    h = nn.Dropout(dropout)(nn.GlobalAveragePooling1D()(h))
    return nn.Model(inputs, nn.Dense(2, activation="softmax")(h))


def keras_model(steps: int = 12, vocab: int = 16, dim: int = 16, heads: int = 2,
                hidden: int = 32, dropout: float = 0.1):
    """The same model in Keras 3 (same layers, order and weight layout): its weights
    transfer with ``set_weights(model.get_weights())``."""
    import keras
    from keras import layers, ops

    class TokenAndPositionEmbedding(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.token_embedding = layers.Embedding(vocab, dim, name="token_embedding")
            self.position_embedding = layers.Embedding(steps, dim, name="position_embedding")

        def call(self, x):
            positions = self.position_embedding(ops.arange(0, ops.shape(x)[-1]))
            return self.token_embedding(x) + positions

    inputs = keras.Input((steps,), dtype="int32")
    h = TokenAndPositionEmbedding()(inputs)
    attended = layers.MultiHeadAttention(heads, dim // heads, dropout=dropout)(h, h)
    h = layers.LayerNormalization(epsilon=1e-6)(layers.Add()([h, layers.Dropout(dropout)(
        attended)]))
    fed = layers.Dense(dim)(layers.Dense(hidden, activation="relu")(h))
    h = layers.LayerNormalization(epsilon=1e-6)(layers.Add()([h, layers.Dropout(dropout)(fed)]))
    h = layers.Dropout(dropout)(layers.GlobalAveragePooling1D()(h))
    return keras.Model(inputs, layers.Dense(2, activation="softmax")(h))


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--epochs", type=int, default=8, help="passes over the training set")
    parser.add_argument("--samples", type=int, default=2048, help="generated sequences")
    parser.add_argument("--steps", type=int, default=12, help="tokens per sequence")
    parser.add_argument("--vocab", type=int, default=16, help="vocabulary size")
    parser.add_argument("--dim", type=int, default=16, help="embedding width")
    parser.add_argument("--heads", type=int, default=2, help="attention heads")
    parser.add_argument("--dropout", type=float, default=0.1, help="dropout rate")
    parser.add_argument("--batch-size", type=int, default=64, help="global samples per step")
    parser.add_argument("--lr", type=float, default=0.003, help="Adam's learning rate")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--verbose", type=int, default=2, choices=(0, 1, 2),
                        help="Keras' verbosity of fit (rank 0)")
    args = parser.parse_args(argv)
    rank, count = dist.find_here(), dist.num_localities()
    nn.set_seed(args.seed)
    x, y = order_data(args.samples, args.steps, args.vocab, args.seed)
    x_test, y_test = order_data(512, args.steps, args.vocab, args.seed + 1)
    model = build(args.steps, args.vocab, args.dim, args.heads, 2 * args.dim, args.dropout)
    model.compile(nn.Adam(args.lr), "sparse_categorical_crossentropy", metrics=["accuracy"])
    start = time.perf_counter()
    model.fit(x, y, batch_size=args.batch_size, epochs=args.epochs,
              verbose=args.verbose if rank == 0 else 0,
              distributed="data" if count > 1 else None)
    seconds = time.perf_counter() - start
    _, accuracy = model.evaluate(x_test, y_test, verbose=0)
    if rank == 0:
        print(f"test accuracy {accuracy:.4f} ({len(x_test)} sequences); training took "
              f"{seconds:.1f}s on {count} localit{'y' if count == 1 else 'ies'}")
    return accuracy


if __name__ == "__main__":
    main()
