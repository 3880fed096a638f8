"""Activation functions by Keras name, emitted as primitives of a layer's program.

``relu sigmoid tanh softmax linear elu selu softplus softsign hard_sigmoid exponential
swish`` (``silu``); ``None`` and ``"linear"`` are the identity.  ``hard_sigmoid`` is
Keras 3's, ``relu6(x + 3) / 6`` (the PhySL primitive is Keras 2's ``0.2 x + 0.5``).
"""
from __future__ import annotations

from ..autodiff.symbolic import Graph, Var
from . import arguments as args

_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805


def _simple(primitive: str):
    return lambda g, x: g.op(primitive, x, shape=x.shape, hint=primitive)


def _softmax(g: Graph, x: Var) -> Var:
    return g.op("softmax", x, -1, shape=x.shape, hint="softmax")


def _elu(g: Graph, x: Var) -> Var:
    return g.op("elu", x, 1.0, shape=x.shape, hint="elu")


def _selu(g: Graph, x: Var) -> Var:
    inner = g.op("elu", x, _SELU_ALPHA, shape=x.shape, hint="selu")
    return g.op("__mul", inner, _SELU_SCALE, shape=x.shape, hint="selu")


def _hard_sigmoid(g: Graph, x: Var) -> Var:
    # Keras 3's relu6(x + 3) / 6 = clip(x / 6 + 0.5, 0, 1); the primitive keeps Keras 2's
    # (and the original's) clip(0.2 x + 0.5, 0, 1), so it reads x scaled by 5/6
    scaled = g.op("__mul", x, 5.0 / 6.0, shape=x.shape, hint="hard_sigmoid")
    return g.op("hard_sigmoid", scaled, shape=x.shape, hint="hard_sigmoid")


def _swish(g: Graph, x: Var) -> Var:
    s = g.op("sigmoid", x, shape=x.shape)
    return g.op("__mul", x, s, shape=x.shape, hint="swish")


ACTIVATIONS = {
    "linear": lambda g, x: x,
    "relu": _simple("relu"),
    "sigmoid": _simple("sigmoid"),
    "tanh": _simple("tanh"),
    "softmax": _softmax,
    "elu": _elu,
    "selu": _selu,
    "softplus": _simple("softplus"),
    "softsign": _simple("softsign"),
    "hard_sigmoid": _hard_sigmoid,
    "exponential": _simple("exp"),
    "swish": _swish,
    "silu": _swish,
}


def check(name: str | None) -> str:
    """The canonical name of an activation (``None`` -> ``"linear"``), or a clear error."""
    key = "linear" if name is None else str(name).lower()
    if key not in ACTIVATIONS:
        raise args.value_error("activation", f"unknown activation {name!r}; known: "
                                             f"{', '.join(sorted(ACTIVATIONS))}")
    return key


def apply(name: str, g: Graph, x: Var) -> Var:
    return ACTIVATIONS[check(name)](g, x)
