"""Human activity recognition (the DLS 2020 paper's Keras model), trained data parallel.

    phylanx run -n 2 examples/nn_activity_recognition.py [--epochs 5] [--samples 1200]
    python examples/nn_activity_recognition.py          # the same on one locality

Inputs are 80 time steps of 3 accelerometer channels; here synthetic and seeded: each
of the 6 classes is a sum of two sinusoids of class-dependent frequencies with random
phases, amplitude and noise.  The model is the paper's: Conv1D(100, 10, relu) x 2,
MaxPooling1D(3), Conv1D(160, 10, relu) x 2, GlobalAveragePooling1D, Dropout(0.5),
Dense(6, softmax).  ``fit(..., distributed="data")`` gives every locality its shard of
each batch and all-reduces each gradient as soon as the backward pass produced it; with
the same seed the losses are those of one locality (``docs/nn.md``).  Rank 0 prints.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from phylanx import distributed as dist
from phylanx import nn

CLASSES, STEPS, CHANNELS = 6, 80, 3


def activity_data(samples: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(samples, 80, 3) float32 signals and their labels 0..5 (the same on every rank)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, CLASSES, samples)
    t = np.arange(STEPS, dtype=np.float64)[None, :, None] / STEPS
    slow = (1.0 + labels)[:, None, None]                     # cycles per window
    fast = (3.0 + 1.5 * labels)[:, None, None]
    phase = rng.uniform(0, 2 * np.pi, (samples, 1, CHANNELS))
    amp = rng.uniform(0.5, 1.5, (samples, 1, CHANNELS))
    x = amp * np.sin(2 * np.pi * slow * t + phase) + 0.5 * np.sin(2 * np.pi * fast * t)
    x += 0.3 * rng.normal(size=x.shape)
    return x.astype(np.float32), labels


def build() -> nn.Sequential:
    return nn.Sequential([
        nn.Input((STEPS, CHANNELS)),
        nn.Conv1D(100, 10, activation="relu"),
        nn.Conv1D(100, 10, activation="relu"),
        nn.MaxPooling1D(3),
        nn.Conv1D(160, 10, activation="relu"),
        nn.Conv1D(160, 10, activation="relu"),
        nn.GlobalAveragePooling1D(),
        nn.Dropout(0.5),
        nn.Dense(CLASSES, activation="softmax"),
    ])


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--epochs", type=int, default=5, help="passes over the training set")
    parser.add_argument("--samples", type=int, default=1200, help="synthetic samples")
    parser.add_argument("--batch-size", type=int, default=64, help="global samples per step")
    parser.add_argument("--lr", type=float, default=0.001, help="Adam's learning rate")
    parser.add_argument("--seed", type=int, default=0, help="random seed (data, weights)")
    args = parser.parse_args(argv)
    rank, count = dist.find_here(), dist.num_localities()
    x, y = activity_data(args.samples, args.seed)
    nn.set_seed(args.seed)
    model = build()
    model.compile(optimizer=nn.Adam(args.lr), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    start = time.perf_counter()
    history = model.fit(x, y, batch_size=args.batch_size, epochs=args.epochs,
                        verbose=2 if rank == 0 else 0, distributed="data")
    elapsed = time.perf_counter() - start
    loss = history.history["loss"][-1]
    if rank == 0:
        print(f"{count} localit{'y' if count == 1 else 'ies'}: final loss {loss:.8f}, "
              f"accuracy {history.history['accuracy'][-1]:.4f}, {elapsed:.1f} s")
    return loss


if __name__ == "__main__":
    main()
