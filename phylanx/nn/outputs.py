"""compile's loss, ``loss_weights`` and metrics of each output of a model, as Keras 3
takes them, and the names of the values ``fit`` and ``evaluate`` report.

A model of one output has one loss and a list of metric names.  A model of several
(``Model(x, [a, b])``) takes a loss for every output (one name for all, a list in the
outputs' order, or a dict by output name: the name of the layer computing it), optional
``loss_weights`` (a list, or a dict by output name naming every output, as Keras 3;
none given: 1) and metrics as a list of lists or a dict;
its loss is ``sum(weight * output loss)``, and the logs are Keras': ``loss``, each
``<output>_loss`` (unweighted), then each ``<output>_<metric>``.  Every mismatch is an
error at the user's compile line, before any step.

``weighted_metrics`` (Keras 3's) take the same forms as ``metrics`` and are weighed by
the samples' weights (``sample_weight``, ``class_weight``, ``validation_data``'s):
Keras' ``Mean`` over the epoch, ``sum(w * value) / sum(w)``.  Their logs are named as
Keras 3 names them: ``<metric>`` (``<output>_<metric>``), or, when an unweighted metric
already has that name, ``weighted_<metric>`` (``<output>_weighted_<metric>``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import PhylanxError
from . import arguments as args
from . import losses, metrics


@dataclass
class Head:
    """One output's share of the training: its name, loss, loss weight and metrics
    (the names asked for, and the specific metric each resolves to)."""

    name: str
    loss: losses.Loss
    weight: float = 1.0
    metric_names: list = field(default_factory=list)
    metric_kinds: list = field(default_factory=list)
    #: ``weighted_metrics``: the names asked for and the metrics they resolve to
    weighted_names: list = field(default_factory=list)
    weighted_kinds: list = field(default_factory=list)


def _per_output(value: Any, names: list[str], what: str, keyed: bool = True) -> list:
    """``value`` as one item per output: a list of as many, or a dict by output name."""
    where = "compile"
    if isinstance(value, dict):
        unknown = sorted(set(map(str, value)) - set(names))
        if unknown:
            raise args.value_error(where, f"{what} names output(s) {unknown} the model does "
                                          f"not have; its outputs are {names}")
        missing = [n for n in names if n not in value]
        if missing and keyed:
            raise args.value_error(where, f"{what} gives none for output(s) {missing}; "
                                          f"the model's outputs are {names}")
        return [value.get(n) for n in names]
    if isinstance(value, (list, tuple)):
        if len(value) != len(names):
            raise args.value_error(where, f"{what} has {len(value)} entries for a model of "
                                          f"{len(names)} outputs {names}: give one per "
                                          "output, or a dict by output name")
        return list(value)
    raise args.type_error(where, f"{what} for a model of several outputs must be a list "
                                 f"(one per output) or a dict by output name, got "
                                 f"{type(value).__name__}")


def _metric_lists(value: Any, names: list[str], what: str) -> list[list]:
    """compile's ``metrics`` or ``weighted_metrics`` as a list of names per output (a
    dict may leave outputs out, as Keras 3's); every name one phylanx knows."""
    where = "compile"
    several = len(names) > 1
    if value is None:
        per_output: list = [[] for _ in names]
    elif not several:
        if not isinstance(value, (list, tuple)):
            # (Keras refuses a bare name too: list("accuracy") would be its letters)
            raise args.type_error(where, f"{what} must be a list of metric names, got "
                                         f"{value!r}")
        per_output = [list(value)]
    else:
        if isinstance(value, (list, tuple)) and any(
                not isinstance(m, (list, tuple)) and m is not None for m in value):
            raise args.value_error(where, f"{what} of a model of several outputs: a list "
                                          "with one list of metric names per output, or a "
                                          f"dict by output name {names}, got {value!r}")
        per_output = _per_output(value, names, what, keyed=False)
        per_output = [[] if m is None else [m] if isinstance(m, str) else list(m)
                      for m in per_output]
    try:
        for each in per_output:
            for name in each:
                metrics.check_name(name)
    except PhylanxError as e:
        raise args.located(e, where) from None
    return per_output


def heads(names: list[str], loss: Any, loss_weights: Any, metric_names: Any,
          weighted_metrics: Any = None) -> list[Head]:
    """Each output's :class:`Head` from compile's arguments (``names``: the outputs')."""
    where = "compile"
    several = len(names) > 1
    if several and len(set(names)) != len(names):
        raise args.value_error(where, f"the model's outputs are named {names}: several come "
                                      "from one layer, and Keras names an output by its "
                                      "layer; end each output with a layer of its own")
    if several and (isinstance(loss, (list, tuple, dict))):
        given = _per_output(loss, names, "loss")
    elif isinstance(loss, (list, tuple)) and len(loss) == 1:
        given = list(loss)
    elif isinstance(loss, dict) and len(loss) == 1 and set(loss) == set(names):
        given = list(loss.values())
    elif isinstance(loss, (list, tuple, dict)):
        raise args.value_error(where, f"loss has {len(loss)} entries for a model of one "
                                      f"output {names}")
    else:               # (one loss for every output, as Keras)
        given = [loss] * len(names)
    if loss_weights is None:
        weights = [1.0] * len(names)
    elif not several and not isinstance(loss_weights, (list, tuple, dict)):
        weights = [loss_weights]
    else:
        # (a dict missing an output is refused, as Keras 3 refuses it at fit; given
        # with one loss for all outputs, Keras took its one weight for every output)
        weights = _per_output(loss_weights, names, "loss_weights")
    weights = [1.0 if w is None else args.real(w, "loss_weights", where, 0.0)
               for w in weights]
    per_metrics = _metric_lists(metric_names, names, "metrics")
    per_weighted = _metric_lists(weighted_metrics, names, "weighted_metrics")
    try:
        found = [losses.get(each) for each in given]
    except PhylanxError as e:
        raise args.located(e, where) from None
    return [Head(n, lo, w, m, weighted_names=v)
            for n, lo, w, m, v in zip(names, found, weights, per_metrics, per_weighted)]


def resolve(heads_: list[Head], shapes: list[tuple], where: str) -> None:
    """Each head's metrics resolved from its loss and output shape; a cross-entropy on
    fewer than 2 units refused."""
    try:
        for head, shape in zip(heads_, shapes, strict=True):
            head.metric_kinds = [metrics.resolve(m, head.loss, shape)
                                 for m in head.metric_names]
            head.weighted_kinds = [metrics.resolve(m, head.loss, shape)
                                   for m in head.weighted_names]
    except PhylanxError as e:
        raise args.located(e, where) from None
    for head, shape in zip(heads_, shapes):
        if head.loss.name in ("categorical_crossentropy", "sparse_categorical_crossentropy") \
                and shape[-1] is not None and shape[-1] < 2:
            raise args.value_error(where, f"{head.loss.name} needs at least 2 output units; "
                                          f"the model outputs shape {shape} (use "
                                          "binary_crossentropy for one unit)")


def metric_log_names(heads_: list[Head]) -> list[list[str]]:
    """Each output's metrics' log names, its unweighted ones then its weighted ones,
    named as Keras 3's ``CompileMetrics.result``: ``[<output>_]<metric>``; a weighted
    metric whose name an earlier metric has takes ``[<output>_]weighted_<metric>``,
    and a name taken again gets ``_1``, ``_2`` ... appended."""
    several = len(heads_) > 1
    taken: dict[str, int] = {}
    found: list[list[str]] = [[] for _ in heads_]

    def named(i: int, metric: str, weighted: bool) -> str:
        prefix = f"{heads_[i].name}_" if several else ""
        name = prefix + metrics.display_name(metric)
        if weighted and name in taken:
            name = prefix + "weighted_" + metrics.display_name(metric)
        if name in taken:
            taken[name] += 1
            return f"{name}_{taken[name] - 1}"
        taken[name] = 1
        return name
    for weighted in (False, True):      # (Keras names every unweighted metric first)
        for i, head in enumerate(heads_):
            for m in (head.weighted_names if weighted else head.metric_names):
                found[i].append(named(i, m, weighted))
    return found


def metric_order(heads_: list[Head]) -> list[tuple[int, int]]:
    """The metrics, ``(output, metric)`` indices (a head's weighted metrics after its
    unweighted ones), in the order Keras lists their values (``evaluate`` without
    ``return_dict``).  Several outputs: by log name (Keras' ``_flatten_metrics_in_order``
    finds its metrics' bare names in no ``<output>_<metric>`` key, and sorts those
    keys).  One output: the unweighted, the weighted, then those renamed
    ``weighted_<metric>`` by name (Keras 3.15 lists the unweighted value again where
    such a metric's bare name stands, a duplicate phylanx leaves out)."""
    names = metric_log_names(heads_)
    pairs = [(i, k) for i in range(len(heads_)) for k in range(len(names[i]))]
    if len(heads_) > 1:
        return sorted(pairs, key=lambda p: names[p[0]][p[1]])
    head = heads_[0]
    bare = len(head.metric_names)

    def renamed(k: int) -> bool:
        return k >= bare and names[0][k] != metrics.display_name(head.weighted_names[k - bare])
    return sorted(pairs, key=lambda p: (renamed(p[1]), names[0][p[1]] if renamed(p[1])
                                        else str(p[1]).zfill(6)))


def log_names(heads_: list[Head]) -> list[str]:
    """The names of a step's logs in order, as Keras names them and lists their values:
    the loss, then (several outputs) each output's loss, then the metrics."""
    names = metric_log_names(heads_)
    losses_ = [f"{h.name}_loss" for h in heads_] if len(heads_) > 1 else []
    return ["loss", *losses_, *(names[i][k] for i, k in metric_order(heads_))]
