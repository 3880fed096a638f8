"""Optimizers with Keras' names, defaults and update formulas, written into the step.

=========  =============================================================================
SGD        ``learning_rate=0.01, momentum=0.0, nesterov=False``:
           ``v = momentum v - lr g``; ``w += v`` (nesterov: ``w += momentum v - lr g``)
Adam       ``learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7``:
           ``m = b1 m + (1-b1) g``, ``v = b2 v + (1-b2) g^2``,
           ``w -= lr sqrt(1-b2^t)/(1-b1^t) m / (sqrt(v) + epsilon)``
RMSprop    ``learning_rate=0.001, rho=0.9, epsilon=1e-7``:
           ``v = rho v + (1-rho) g^2``, ``w -= lr g / sqrt(v + epsilon)``
=========  =============================================================================

The learning rate and the step number ``t`` are inputs of the compiled step, so changing
``optimizer.learning_rate`` between epochs does not recompile anything.  Slots (velocity,
moments) are float32 arrays kept by the optimizer between steps.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..autodiff.symbolic import Graph, Var
from . import arguments as args


class Optimizer:
    slots: tuple[str, ...] = ()

    def __init__(self, learning_rate: float) -> None:
        self.learning_rate = learning_rate
        self.iterations = 0
        self.state: dict[str, list[np.ndarray]] = {}

    @property
    def learning_rate(self) -> float:
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value: float) -> None:
        # checked on every assignment: callbacks change it between epochs, and the step
        # reads it as a float32 input (np.float32("0.1") would quietly parse a string)
        self._learning_rate = args.real(value, "learning_rate", self.name, 0.0)

    def init_state(self, params: list[np.ndarray]) -> None:
        self.state = {s: [np.zeros_like(p) for p in params] for s in self.slot_names()}

    def slot_names(self) -> tuple[str, ...]:
        return self.slots

    def prepare(self, g: Graph, lr: Var, t: Var) -> dict[str, Any]:
        """Statements shared by every parameter's update (bias corrections)."""
        return {"lr": lr}

    def update(self, g: Graph, w: Var, grad: Var, slots: dict[str, Var],
               shared: dict[str, Any]) -> tuple[Var, dict[str, Var]]:
        raise NotImplementedError

    def get_config(self) -> dict:
        return {"learning_rate": self.learning_rate}

    @property
    def name(self) -> str:
        return type(self).__name__


class SGD(Optimizer):
    def __init__(self, learning_rate: float = 0.01, momentum: float = 0.0,
                 nesterov: bool = False) -> None:
        super().__init__(learning_rate)
        self.momentum = args.real(momentum, "momentum", "SGD", 0.0, 1.0)
        self.nesterov = args.boolean(nesterov, "nesterov", "SGD")

    def slot_names(self):
        return ("velocity",) if self.momentum else ()

    def update(self, g, w, grad, slots, shared):
        step = g.op("__mul", grad, shared["lr"], shape=w.shape)
        if not self.momentum:
            return g.op("__sub", w, step, shape=w.shape, hint="new"), {}
        v = g.op("__sub", g.op("__mul", slots["velocity"], self.momentum, shape=w.shape), step,
                 shape=w.shape, hint="velocity")
        if self.nesterov:
            ahead = g.op("__sub", g.op("__mul", v, self.momentum, shape=w.shape), step,
                         shape=w.shape)
            return g.op("__add", w, ahead, shape=w.shape, hint="new"), {"velocity": v}
        return g.op("__add", w, v, shape=w.shape, hint="new"), {"velocity": v}

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}


class Adam(Optimizer):
    slots = ("m", "v")

    def __init__(self, learning_rate: float = 0.001, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7) -> None:
        super().__init__(learning_rate)
        self.beta_1 = args.real(beta_1, "beta_1", "Adam", 0.0, 1.0, high_open=True)
        self.beta_2 = args.real(beta_2, "beta_2", "Adam", 0.0, 1.0, high_open=True)
        self.epsilon = args.real(epsilon, "epsilon", "Adam", 0.0)

    def prepare(self, g, lr, t):
        corr2 = g.op("sqrt", g.op("__sub", 1.0, g.op("power", self.beta_2, t, shape=()),
                                  shape=()), shape=())
        corr1 = g.op("__sub", 1.0, g.op("power", self.beta_1, t, shape=()), shape=())
        alpha = g.op("__div", g.op("__mul", lr, corr2, shape=()), corr1, shape=())
        return {"alpha": g.op("astype", alpha, "float32", shape=(), hint="alpha")}

    def update(self, g, w, grad, slots, shared):
        s = w.shape
        m = g.op("__add", g.op("__mul", slots["m"], self.beta_1, shape=s),
                 g.op("__mul", grad, 1.0 - self.beta_1, shape=s), shape=s, hint="m")
        v = g.op("__add", g.op("__mul", slots["v"], self.beta_2, shape=s),
                 g.op("__mul", g.op("square", grad, shape=s), 1.0 - self.beta_2, shape=s),
                 shape=s, hint="v")
        denom = g.op("__add", g.op("sqrt", v, shape=s), self.epsilon, shape=s)
        step = g.op("__div", g.op("__mul", m, shared["alpha"], shape=s), denom, shape=s)
        return g.op("__sub", w, step, shape=s, hint="new"), {"m": m, "v": v}

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon}


class RMSprop(Optimizer):
    slots = ("v",)

    def __init__(self, learning_rate: float = 0.001, rho: float = 0.9,
                 epsilon: float = 1e-7) -> None:
        super().__init__(learning_rate)
        self.rho = args.real(rho, "rho", "RMSprop", 0.0, 1.0, high_open=True)
        self.epsilon = args.real(epsilon, "epsilon", "RMSprop", 0.0)

    def update(self, g, w, grad, slots, shared):
        s = w.shape
        v = g.op("__add", g.op("__mul", slots["v"], self.rho, shape=s),
                 g.op("__mul", g.op("square", grad, shape=s), 1.0 - self.rho, shape=s),
                 shape=s, hint="v")
        denom = g.op("sqrt", g.op("__add", v, self.epsilon, shape=s), shape=s)
        step = g.op("__div", g.op("__mul", grad, shared["lr"], shape=s), denom, shape=s)
        return g.op("__sub", w, step, shape=s, hint="new"), {"v": v}

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}


OPTIMIZERS = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop}


def get(optimizer: Any) -> Optimizer:
    if isinstance(optimizer, Optimizer):
        return optimizer
    cls = OPTIMIZERS.get(str(optimizer).lower())
    if cls is None:
        raise args.value_error("compile", f"unknown optimizer {optimizer!r}; known: SGD, "
                                          "Adam, RMSprop (by name, or an instance)")
    return cls()


def from_config(name: str, config: dict) -> Optimizer:
    return OPTIMIZERS[name.lower()](**config)
