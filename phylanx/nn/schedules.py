"""Learning-rate schedules with Keras 3's names, arguments and formulas.

A schedule maps the optimizer's step count (0 for the first update, as Keras'
``optimizer.iterations``) to a learning rate.  The optimizer evaluates it in Python
before every step, in float32 as Keras does, and passes the value to the compiled step
as its ``learning_rate`` input: a schedule changes no program.

=========================  ===============================================================
ExponentialDecay           ``lr0 * decay_rate ** (step / decay_steps)`` (``floor`` of the
                           exponent if ``staircase``)
PiecewiseConstantDecay     ``values[0]`` while ``step <= boundaries[0]``, ``values[i]``
                           while ``boundaries[i-1] < step <= boundaries[i]``, then the last
InverseTimeDecay           ``lr0 / (1 + decay_rate * step / decay_steps)`` (``floor`` if
                           ``staircase``)
CosineDecay                ``lr * ((1 - alpha) * 0.5 * (1 + cos(pi * s / decay_steps)) +
                           alpha)``, ``s`` capped at ``decay_steps``; with
                           ``warmup_target``: a linear ramp from ``lr0`` to the target over
                           ``warmup_steps``, then the cosine decay from the target
=========================  ===============================================================

:func:`current` also takes a plain callable: with no parameter it is called as Keras 3
calls one (``lr()``), with one parameter it is given the step.
"""
from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import arguments as args


class LearningRateSchedule:
    """Base class: ``schedule(step)`` is the learning rate of step ``step`` (from 0)."""

    def __call__(self, step: int) -> float:
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}


def _positive_steps(value: Any, name: str, where: str) -> float:
    return args.real(value, name, where, 0.0, low_open=True)


class _StepDecay(LearningRateSchedule):
    """The schedules of Keras's shape ``lr0 · f(decay_rate, step / decay_steps)``, the
    quotient floored with ``staircase``; computed in float32 as Keras does."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float,
                 staircase: bool = False, name: str | None = None) -> None:
        where = type(self).__name__
        self.initial_learning_rate = args.real(initial_learning_rate,
                                               "initial_learning_rate", where, 0.0)
        self.decay_steps = _positive_steps(decay_steps, "decay_steps", where)
        self.decay_rate = args.real(decay_rate, "decay_rate", where, 0.0)
        self.staircase = args.boolean(staircase, "staircase", where)
        self.name = where if name is None else name

    def _progress(self, step) -> np.float32:
        p = np.float32(step) / np.float32(self.decay_steps)
        return np.floor(p) if self.staircase else p

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_StepDecay):
    def __call__(self, step):
        return float(np.float32(self.initial_learning_rate)
                     * np.power(np.float32(self.decay_rate), self._progress(step),
                                dtype=np.float32))


class PiecewiseConstantDecay(LearningRateSchedule):
    def __init__(self, boundaries: list, values: list, name: str = "PiecewiseConstant"):
        where = "PiecewiseConstantDecay"
        if not isinstance(boundaries, (list, tuple)) or not isinstance(values, (list, tuple)):
            raise args.type_error(where, "boundaries and values must be lists")
        if len(boundaries) != len(values) - 1 or not boundaries:
            raise args.value_error(where, "boundaries must be one shorter than values (and "
                                          f"not empty), got {len(boundaries)} boundaries "
                                          f"and {len(values)} values")
        self.boundaries = [args.real(b, "boundaries", where) for b in boundaries]
        if any(b >= c for b, c in zip(self.boundaries, self.boundaries[1:])):
            raise args.value_error(where, f"boundaries must increase, got {list(boundaries)}")
        self.values = [args.real(v, "values", where, 0.0) for v in values]
        self.name = name

    def __call__(self, step):
        for boundary, value in zip(self.boundaries, self.values):
            if step <= boundary:
                return float(np.float32(value))
        return float(np.float32(self.values[-1]))

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class InverseTimeDecay(_StepDecay):
    def __call__(self, step):
        f32 = np.float32
        return float(f32(self.initial_learning_rate)
                     / (f32(1) + f32(self.decay_rate) * self._progress(step)))


class CosineDecay(LearningRateSchedule):
    def __init__(self, initial_learning_rate: float, decay_steps: int, alpha: float = 0.0,
                 name: str = "CosineDecay", warmup_target: float | None = None,
                 warmup_steps: int = 0) -> None:
        where = "CosineDecay"
        self.initial_learning_rate = args.real(initial_learning_rate,
                                               "initial_learning_rate", where, 0.0)
        self.decay_steps = _positive_steps(decay_steps, "decay_steps", where)
        self.alpha = args.real(alpha, "alpha", where, 0.0, 1.0)
        self.warmup_target = args.real(warmup_target, "warmup_target", where, 0.0, none=True)
        self.warmup_steps = args.real(warmup_steps, "warmup_steps", where, 0.0)
        self.name = name

    def _decay(self, step, start):
        f32 = np.float32
        fraction = f32(step) / f32(self.decay_steps)
        cosine = f32(0.5) * (f32(1) + np.cos(f32(math.pi) * fraction, dtype=f32))
        return f32(start) * ((f32(1) - f32(self.alpha)) * cosine + f32(self.alpha))

    def __call__(self, step):
        f32 = np.float32
        if self.warmup_target is None:
            return float(self._decay(min(f32(step), f32(self.decay_steps)),
                                     self.initial_learning_rate))
        s = min(f32(step), f32(self.decay_steps) + f32(self.warmup_steps))
        if s < self.warmup_steps:
            delta = f32(self.warmup_target) - f32(self.initial_learning_rate)
            return float(delta * (s / f32(self.warmup_steps)) + f32(self.initial_learning_rate))
        return float(self._decay(s - f32(self.warmup_steps), self.warmup_target))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


def is_schedule(value: Any) -> bool:
    """A learning rate that changes with the step: a schedule or a plain callable."""
    return isinstance(value, LearningRateSchedule) or (
        callable(value) and not isinstance(value, (int, float, np.number)))


def step_parameters(function: Callable, where: str) -> int:
    """How a plain callable learning rate is called: 0 (``lr()``, Keras 3) or 1
    (``lr(step)``); anything else is refused."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        raise args.type_error(where, f"learning_rate {function!r} is a callable whose "
                                     "parameters cannot be read") from None
    required = [p for p in signature.parameters.values()
                if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
                                                       p.POSITIONAL_OR_KEYWORD)]
    if len(required) > 1:
        raise args.type_error(where, "a callable learning_rate takes no parameter (Keras "
                                     "3) or the step number, got one that needs "
                                     f"{len(required)}")
    return len(required)


def current(rate: Any, step: int, where: str) -> float:
    """The learning rate of step ``step`` (from 0): ``rate`` itself if it is a number."""
    if isinstance(rate, LearningRateSchedule):
        value = rate(step)
    elif callable(rate):
        value = rate(step) if step_parameters(rate, where) else rate()
        value = np.asarray(value)
        if value.shape != () or value.dtype.kind not in "iuf":
            raise args.value_error(where, f"the learning_rate callable returned {value!r}, "
                                          "not a number")
        value = float(value)
    else:
        return rate
    if not math.isfinite(value) or value < 0:
        raise args.value_error(where, f"the learning rate schedule gives {value} at step "
                                      f"{step}: not a number >= 0")
    return value
