"""A 1-D convolutional network on scikit-learn's 8x8 digits with phylanx.nn: each image
is read as a sequence of 8 rows (steps) of 8 pixels (channels).

    python examples/nn_digits_cnn.py [--epochs 30] [--batch-size 32] [--filters 32]

Each training step (forward, backward, Adam update) is one compiled execution tree.
"""
from __future__ import annotations

import argparse
import time

from _digits import digits

from phylanx import nn


def build(filters: int) -> nn.Sequential:
    return nn.Sequential([
        nn.Input((8, 8)),
        nn.Conv1D(filters, 3, padding="same", activation="relu"),
        nn.Conv1D(filters * 2, 3, activation="relu"),
        nn.MaxPooling1D(2),
        nn.Flatten(),
        nn.Dense(64, activation="relu"),
        nn.Dense(10, activation="softmax"),
    ])


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--epochs", type=int, default=30, help="passes over the training set")
    parser.add_argument("--batch-size", type=int, default=32, help="samples per step")
    parser.add_argument("--filters", type=int, default=32, help="filters of the first Conv1D")
    parser.add_argument("--lr", type=float, default=0.002, help="Adam's learning rate")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--verbose", type=int, default=2, choices=(0, 1, 2),
                        help="Keras' verbosity of fit")
    args = parser.parse_args(argv)
    nn.set_seed(args.seed)
    x_train, y_train, x_test, y_test = digits(seed=args.seed)
    rows = (-1, 8, 8)                      # (images, 8 steps, 8 channels)
    model = build(args.filters)
    model.compile(nn.Adam(args.lr), "sparse_categorical_crossentropy", metrics=["accuracy"])
    if args.verbose:
        model.summary()
    start = time.perf_counter()
    model.fit(x_train.reshape(rows), y_train, batch_size=args.batch_size, epochs=args.epochs,
              validation_split=0.1, verbose=args.verbose,
              callbacks=[nn.EarlyStopping(monitor="val_loss", patience=5,
                                          restore_best_weights=True)])
    seconds = time.perf_counter() - start
    _, accuracy = model.evaluate(x_test.reshape(rows), y_test, verbose=0)
    print(f"test accuracy {accuracy:.4f} ({len(x_test)} digits); training took {seconds:.1f}s")
    return accuracy


if __name__ == "__main__":
    main()
