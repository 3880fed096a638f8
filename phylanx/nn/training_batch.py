"""``train_on_batch``, ``test_on_batch``, ``predict_on_batch``: one step on one batch,
with Keras 3's arguments and return forms.

Each runs the same compiled programs as ``fit``/``evaluate``/``predict`` on the whole
batch given.  The result is the loss (a float) when the model has no metrics, else
``[loss, *metrics]``, or with ``return_dict=True`` a dict keyed as ``fit``'s logs;
the values are those of this batch alone (Keras 3 resets the metrics before each call).
"""
from __future__ import annotations

from typing import Any

from . import arguments as args
from . import data


def _returned(logs: dict, return_dict: bool) -> Any:
    if return_dict:
        return logs
    values = list(logs.values())
    return values[0] if len(values) == 1 else values


class BatchMixin:
    """The ``*_on_batch`` methods of :class:`~.model.Model`."""

    def train_on_batch(self, x: Any = None, y: Any = None, sample_weight: Any = None,
                       class_weight: dict | None = None, return_dict: bool = False) -> Any:
        """One optimizer step on the batch ``(x, y)``: the loss (and metrics) of the
        batch, computed with the weights before the step, as ``fit`` logs them."""
        where = "train_on_batch"
        self._require_compiled(where)
        return_dict = args.boolean(return_dict, "return_dict", where)
        x, y = data.samples(self, x, y, where)
        weights = data.sample_weights(self, y, sample_weight, class_weight, where)
        step = self._program("train" if weights is None else
                             f"train:weighted={data.weight_ranks(weights)}")
        opt = self.optimizer
        if any(len(opt.state.get(s, ())) != len(step.trainable) for s in step.slot_names):
            opt.init_state([w.value for w in step.trainable])
        wb = data.weight_arrays(weights)
        # (as Keras: a NaN loss is returned, not raised; fit stops on it)
        from .training import _accumulate  # (training imports this module)
        logs, counts = self._train_batch(step, x, y, False, 0, 0, None, (), wb)
        # (as fit's batch logs: a weighted metric of weights summing to 0 is 0)
        return _returned(_accumulate({}, {}, logs, len(x), counts), return_dict)

    def test_on_batch(self, x: Any = None, y: Any = None, sample_weight: Any = None,
                      return_dict: bool = False) -> Any:
        """The loss (and metrics) of the batch ``(x, y)`` in inference mode."""
        where = "test_on_batch"
        self._require_compiled(where)
        return_dict = args.boolean(return_dict, "return_dict", where)
        x, y = data.samples(self, x, y, where)
        weights = data.sample_weights(self, y, sample_weight, None, where)
        logs = self._evaluate_arrays(x, y, len(x), weights)
        return _returned(logs, return_dict)

    def predict_on_batch(self, x: Any) -> Any:
        """The model's outputs for the batch ``x`` (inference mode), as one array (a
        list of them for a model of several outputs)."""
        x = data.inputs(self, x, "predict_on_batch")
        if len(x) == 0:
            return self._joined([])
        program = self._program("predict")
        return self._joined([program(*[w.value for w in program.fixed], x)])
