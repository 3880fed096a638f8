"""Optimizers with Keras' names, defaults and update formulas, written into the step.

=========  =============================================================================
SGD        ``learning_rate=0.01, momentum=0.0, nesterov=False``:
           ``v = momentum v - lr g``; ``w += v`` (nesterov: ``w += momentum v - lr g``)
Adam       ``learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7``:
           ``m = b1 m + (1-b1) g``, ``v = b2 v + (1-b2) g^2``,
           ``w -= lr sqrt(1-b2^t)/(1-b1^t) m / (sqrt(v) + epsilon)``
RMSprop    ``learning_rate=0.001, rho=0.9, epsilon=1e-7``:
           ``v = rho v + (1-rho) g^2``, ``w -= lr g / sqrt(v + epsilon)``
AdamW      Adam with ``weight_decay=0.004``
=========  =============================================================================

Every optimizer also takes Keras 3's options, applied in Keras' order before the
update: ``clipnorm`` (each gradient scaled to an L2 norm of at most this),
``global_clipnorm`` (all gradients scaled together so that their joint norm is at most
this), ``clipvalue`` (each element clipped to ``[-v, v]``) - at most one of the three -
then ``weight_decay`` (decoupled: ``w -= w * weight_decay * lr`` before the update,
except for weights named in :meth:`Optimizer.exclude_from_weight_decay`).
``learning_rate`` may be a schedule (:mod:`.schedules`) or a callable; Keras 2's ``lr=``
alias is accepted with a ``DeprecationWarning`` (Keras 3 refuses it).

The learning rate and the step number ``t`` are inputs of the compiled step, so changing
``optimizer.learning_rate`` between epochs, or a schedule, recompiles nothing.  Slots
(velocity, moments) are float32 arrays kept by the optimizer between steps.
"""
from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np

from ..autodiff.symbolic import Graph, Var
from ..errors import PhylanxValueError
from . import arguments as args
from . import schedules


def hyper(value: Any, name: str, where: str, *bounds: Any, **options: Any) -> float | None:
    """An optimizer option that must be a number: ``args.real``, with a clear word for a
    schedule given where only ``learning_rate`` takes one."""
    if schedules.is_schedule(value):
        raise args.type_error(where, f"{name} cannot be a schedule or a callable "
                                     f"(got {type(value).__name__}): only learning_rate "
                                     "takes one")
    return args.real(value, name, where, *bounds, **options)


class Optimizer:
    slots: tuple[str, ...] = ()

    def __init__(self, learning_rate: Any, weight_decay: float | None = None,
                 clipnorm: float | None = None, clipvalue: float | None = None,
                 global_clipnorm: float | None = None, lr: Any = None,
                 name: str | None = None, **unknown: Any) -> None:
        where = self.name
        unknown = {k: v for k, v in unknown.items() if not _keras_default(k, v)}
        if unknown:     # (Python's TypeError named no optimizer and no known argument)
            keras_only = sorted(set(unknown) & set(KERAS_OPTIONS_NOT_SUPPORTED))
            if keras_only:
                raise args.value_error(where, f"{', '.join(keras_only)}: Keras 3's option "
                                              "is not supported by phylanx.nn")
            raise args.type_error(where, f"unknown argument(s) {', '.join(sorted(unknown))}; "
                                         f"{where} takes {', '.join(self._known())}")
        if lr is not None:
            # Keras 2 took lr= with a warning; Keras 3 refuses it: accepted, flagged
            warnings.warn(f"{where}: the lr argument is deprecated (Keras 3 refuses it); "
                          "use learning_rate", DeprecationWarning, stacklevel=3)
            learning_rate = lr
        self.iterations = 0
        self._learning_rate: Any = None
        self.learning_rate = learning_rate
        self.weight_decay = hyper(weight_decay, "weight_decay", where, 0.0, none=True)
        self.clipnorm = hyper(clipnorm, "clipnorm", where, 0.0, low_open=True, none=True)
        self.clipvalue = hyper(clipvalue, "clipvalue", where, 0.0, low_open=True, none=True)
        self.global_clipnorm = hyper(global_clipnorm, "global_clipnorm", where, 0.0,
                                     low_open=True, none=True)
        given = [k for k in ("clipnorm", "clipvalue", "global_clipnorm")
                 if getattr(self, k) is not None]
        if len(given) > 1:
            raise args.value_error(where, "only one of clipnorm, clipvalue and "
                                          f"global_clipnorm can be set, got {', '.join(given)}")
        self.optimizer_name = args.name(name, where)
        self._excluded_names: tuple[str, ...] = ()
        self.state: dict[str, list[np.ndarray]] = {}

    def _known(self) -> list[str]:
        """The arguments this optimizer takes (for the message of an unknown one)."""
        import inspect
        known: list[str] = []
        for cls in type(self).__mro__:
            if "__init__" in vars(cls):
                known += [p for p, v in inspect.signature(cls.__init__).parameters.items()
                          if p != "self" and v.kind is v.POSITIONAL_OR_KEYWORD
                          and p not in known and p != "lr"]
        return known

    @property
    def learning_rate(self) -> float:
        """The learning rate of the next step (a schedule's value at ``iterations``)."""
        return schedules.current(self._learning_rate, self.iterations, self.name)

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        # checked on every assignment: callbacks change it between epochs, and the step
        # reads it as a float32 input (np.float32("0.1") would quietly parse a string)
        if schedules.is_schedule(value):
            if not isinstance(value, schedules.LearningRateSchedule):
                schedules.step_parameters(value, self.name)
            self._learning_rate = value
            return
        if schedules.is_schedule(self._learning_rate):
            raise args.type_error(self.name, "this optimizer's learning_rate is a schedule "
                                             f"({type(self._learning_rate).__name__}): it "
                                             "cannot be set to a number (as in Keras); give "
                                             "a float learning_rate to change it")
        self._learning_rate = args.real(value, "learning_rate", self.name, 0.0)

    @property
    def schedule(self) -> Any:
        """The schedule or callable learning rate, or None for a number."""
        rate = self._learning_rate
        return rate if schedules.is_schedule(rate) else None

    def exclude_from_weight_decay(self, var_list: list | None = None,
                                  var_names: list[str] | None = None) -> None:
        """Weights that ``weight_decay`` leaves alone: these weights, or those whose name
        contains one of ``var_names`` (``["bias"]``), as Keras 3 matches them."""
        names = [w.name for w in var_list or []]
        pattern = list(var_names or [])
        if any(not isinstance(n, str) for n in pattern):
            raise args.type_error(self.name, "var_names must be strings")
        self._excluded_names = tuple(names)
        self._excluded_pattern = re.compile("|".join(map(re.escape, pattern))) \
            if pattern else None

    def decays(self, weight: Any) -> bool:
        if not self.weight_decay or weight.name in self._excluded_names:
            return False
        pattern = getattr(self, "_excluded_pattern", None)
        return pattern is None or pattern.search(weight.name) is None

    def init_state(self, params: list[np.ndarray]) -> None:
        self.state = {s: [np.zeros_like(p) for p in params] for s in self.slot_names()}

    def slot_names(self) -> tuple[str, ...]:
        return self.slots

    @property
    def transforms(self) -> list[str]:
        """The options that change gradients or weights beyond the update itself."""
        return [k for k in ("weight_decay", "clipnorm", "clipvalue", "global_clipnorm")
                if getattr(self, k)]

    def prepare(self, g: Graph, lr: Var, t: Var) -> dict[str, Any]:
        """Statements shared by every parameter's update (bias corrections)."""
        return {"lr": lr}

    def clip(self, g: Graph, grads: list[Var | None],
             squares: list[Var] | None = None) -> list[Var | None]:
        """The gradients as ``clipnorm``/``global_clipnorm``/``clipvalue`` leave them
        (Keras 3's formulas; a gradient of norm 0 stays 0).  ``squares``: each
        gradient's squared norm when ``grads`` are blocks of weights split over ranks
        (model-parallel ``fit``: the whole weight's, summed over the ranks)."""
        def square(i: int, d: Var) -> Var:
            return squares[i] if squares is not None else \
                g.op("sum", g.op("square", d, shape=d.shape), shape=())
        if self.clipvalue is not None:
            v = self.clipvalue
            return [None if d is None else
                    g.op("clip", d, -v, v, shape=d.shape, hint="clipped") for d in grads]
        if self.clipnorm is not None:
            c = self.clipnorm
            out = []
            for i, d in enumerate(grads):
                if d is None:
                    out.append(None)
                    continue
                norm = g.op("sqrt", square(i, d), shape=(), hint="norm")
                scaled = g.op("__mul", d, c, shape=d.shape)
                out.append(g.op("__div", scaled, g.op("maximum", norm, c, shape=()),
                                shape=d.shape, hint="clipped"))
            return out
        if self.global_clipnorm is not None:
            c = self.global_clipnorm
            present = [square(i, d) for i, d in enumerate(grads) if d is not None]
            if not present:
                return grads
            total = present[0] if len(present) == 1 else g.op("__add", *present, shape=())
            norm = g.op("sqrt", total, shape=(), hint="global_norm")
            # c * min(1/norm, 1/c): 1 below the limit, c/norm above it
            scale = g.op("__mul", c, g.op("minimum", g.op("__div", 1.0, norm, shape=()),
                                          1.0 / c, shape=()), shape=(), hint="scale")
            return [None if d is None else
                    g.op("__mul", d, scale, shape=d.shape, hint="clipped") for d in grads]
        return grads

    def decayed(self, g: Graph, w: Var, weight: Any, shared: dict[str, Any]) -> Var:
        """``w - w * weight_decay * lr`` (Keras 3's decoupled decay, before the update)."""
        if not self.decays(weight):
            return w
        shrink = g.op("__mul", g.op("__mul", w, self.weight_decay, shape=w.shape),
                      shared["lr"], shape=w.shape)
        return g.op("__sub", w, shrink, shape=w.shape, hint="decayed")

    def update(self, g: Graph, w: Var, grad: Var, slots: dict[str, Var],
               shared: dict[str, Any]) -> tuple[Var, dict[str, Var]]:
        raise NotImplementedError

    def get_config(self) -> dict:
        rate = self._learning_rate
        if isinstance(rate, schedules.LearningRateSchedule):
            rate = {"class_name": type(rate).__name__, "config": rate.get_config()}
        elif callable(rate):
            rate = {"class_name": "callable", "config": {}}
        config = {"learning_rate": rate}
        for key in ("weight_decay", "clipnorm", "clipvalue", "global_clipnorm"):
            if getattr(self, key) is not None:
                config[key] = getattr(self, key)
        return config

    @property
    def name(self) -> str:
        return type(self).__name__


class SGD(Optimizer):
    def __init__(self, learning_rate: Any = 0.01, momentum: float = 0.0,
                 nesterov: bool = False, **options: Any) -> None:
        super().__init__(learning_rate, **options)
        self.momentum = hyper(momentum, "momentum", "SGD", 0.0, 1.0)
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
    """Keras 3's Adam; ``amsgrad`` divides by the running maximum of ``v`` (its own
    slot) instead of ``v``."""

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, amsgrad: bool = False,
                 **options: Any) -> None:
        super().__init__(learning_rate, **options)
        where = self.name
        self.beta_1 = hyper(beta_1, "beta_1", where, 0.0, 1.0, high_open=True)
        self.beta_2 = hyper(beta_2, "beta_2", where, 0.0, 1.0, high_open=True)
        self.epsilon = hyper(epsilon, "epsilon", where, 0.0)
        self.amsgrad = args.boolean(amsgrad, "amsgrad", where)

    def slot_names(self):
        return ("m", "v") + (("v_hat",) if self.amsgrad else ())

    def prepare(self, g, lr, t):
        corr2 = g.op("sqrt", g.op("__sub", 1.0, g.op("power", self.beta_2, t, shape=()),
                                  shape=()), shape=())
        corr1 = g.op("__sub", 1.0, g.op("power", self.beta_1, t, shape=()), shape=())
        alpha = g.op("__div", g.op("__mul", lr, corr2, shape=()), corr1, shape=())
        return {"lr": lr, "alpha": g.op("astype", alpha, "float32", shape=(), hint="alpha")}

    def update(self, g, w, grad, slots, shared):
        s = w.shape
        m = g.op("__add", g.op("__mul", slots["m"], self.beta_1, shape=s),
                 g.op("__mul", grad, 1.0 - self.beta_1, shape=s), shape=s, hint="m")
        v = g.op("__add", g.op("__mul", slots["v"], self.beta_2, shape=s),
                 g.op("__mul", g.op("square", grad, shape=s), 1.0 - self.beta_2, shape=s),
                 shape=s, hint="v")
        made = {"m": m, "v": v}
        if self.amsgrad:
            v = made["v_hat"] = g.op("maximum", slots["v_hat"], v, shape=s, hint="v_hat")
        denom = g.op("__add", g.op("sqrt", v, shape=s), self.epsilon, shape=s)
        step = g.op("__div", g.op("__mul", m, shared["alpha"], shape=s), denom, shape=s)
        return g.op("__sub", w, step, shape=s, hint="new"), made

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon, "amsgrad": self.amsgrad}


class RMSprop(Optimizer):
    """Keras 3's RMSprop: ``v = rho v + (1 - rho) g^2``; ``centered`` subtracts the
    square of the moving mean gradient from ``v`` in the denominator; ``momentum`` > 0
    accumulates the increments ``lr g / sqrt(v + epsilon)`` (its own slot)."""

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.9,
                 momentum: float = 0.0, epsilon: float = 1e-7, centered: bool = False,
                 **options: Any) -> None:
        super().__init__(learning_rate, **options)
        self.rho = hyper(rho, "rho", "RMSprop", 0.0, 1.0, high_open=True)
        self.momentum = hyper(momentum, "momentum", "RMSprop", 0.0, 1.0)
        self.epsilon = hyper(epsilon, "epsilon", "RMSprop", 0.0)
        self.centered = args.boolean(centered, "centered", "RMSprop")

    def slot_names(self):
        return ("v",) + (("momentum",) if self.momentum else ()) + \
            (("average_gradient",) if self.centered else ())

    def update(self, g, w, grad, slots, shared):
        s = w.shape
        rho = self.rho
        v = g.op("__add", g.op("__mul", slots["v"], rho, shape=s),
                 g.op("__mul", g.op("square", grad, shape=s), 1.0 - rho, shape=s),
                 shape=s, hint="v")
        made = {"v": v}
        if self.centered:
            mean = g.op("__add", g.op("__mul", slots["average_gradient"], rho, shape=s),
                        g.op("__mul", grad, 1.0 - rho, shape=s), shape=s,
                        hint="average_gradient")
            made["average_gradient"] = mean
            spread = g.op("__sub", v, g.op("square", mean, shape=s), shape=s)
            denom = g.op("sqrt", g.op("__add", spread, self.epsilon, shape=s), shape=s)
        else:
            denom = g.op("sqrt", g.op("__add", v, self.epsilon, shape=s), shape=s)
        step = g.op("__div", g.op("__mul", grad, shared["lr"], shape=s), denom, shape=s)
        if self.momentum:
            step = g.op("__add", g.op("__mul", slots["momentum"], self.momentum, shape=s),
                        step, shape=s, hint="momentum")
            made["momentum"] = step
        return g.op("__sub", w, step, shape=s, hint="new"), made

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "momentum": self.momentum,
                "epsilon": self.epsilon, "centered": self.centered}


class AdamW(Adam):
    """Adam with decoupled weight decay (Keras 3's ``AdamW``: ``weight_decay=0.004``)."""

    def __init__(self, learning_rate: Any = 0.001, weight_decay: float = 0.004,
                 beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-7,
                 amsgrad: bool = False, **options: Any) -> None:
        if weight_decay is None:
            raise args.value_error("AdamW", "AdamW needs a weight_decay (a number >= 0); "
                                            "use Adam for none")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad,
                         weight_decay=weight_decay, **options)


#: Keras 3 optimizers' options that phylanx.nn does not implement, with Keras'
#: defaults: a default is accepted (it asks for nothing), any other value refused by name
KERAS_OPTIONS_NOT_SUPPORTED = {
    "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
    "loss_scale_factor": None, "gradient_accumulation_steps": None}



def _keras_default(name: str, value: Any) -> bool:
    """``name=value`` is one of Keras' options at its default, which asks for nothing."""
    if name not in KERAS_OPTIONS_NOT_SUPPORTED:
        return False
    default = KERAS_OPTIONS_NOT_SUPPORTED[name]
    if default is None:
        return value is None
    return isinstance(value, (bool, int, float)) and value == default


OPTIMIZERS = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop}


def get(optimizer: Any) -> Optimizer:
    if isinstance(optimizer, Optimizer):
        return optimizer
    cls = OPTIMIZERS.get(str(optimizer).lower())
    if cls is None:
        raise args.value_error("compile", f"unknown optimizer {optimizer!r}; known: SGD, "
                                          "Adam, AdamW, RMSprop (by name, or an instance)")
    return cls()


def from_config(name: str, config: dict) -> Optimizer:
    config = dict(config)
    rate = config.get("learning_rate")
    if isinstance(rate, dict):
        cls = getattr(schedules, str(rate.get("class_name")), None)
        if not (isinstance(cls, type) and issubclass(cls, schedules.LearningRateSchedule)):
            raise PhylanxValueError(f"the saved learning rate {rate.get('class_name')!r} "
                                    "cannot be restored (a Python callable is not saved): "
                                    "compile the model again")
        config["learning_rate"] = cls(**rate["config"])
    return OPTIMIZERS[name.lower()](**config)
