"""What the nn comparison cases with Keras 3 share, written once for every cases module
(``keras_cases``, ``keras_mask_cases``, ``keras_rnn_output_cases``,
``keras_weight_cases``, ``keras_weighted_metric_cases``): a case's model built in
phylanx or in Keras, the SGD both train with, how a reference is taken from Keras,
flattened into npz entries ``<case>/<field>[/<index or key>]``, read back and
regenerated (``tools/keras_case_references.py``), the comparison of a run with it, and
the pair of tests, against the stored reference and (opt-in) live Keras, of every case."""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import pytest

#: the live comparisons with Keras: opt-in, since Keras takes tens of seconds to a
#: minute to build these models (the stored references always run)
live = pytest.mark.skipif(os.environ.get("PHYLANX_KERAS_LIVE") != "1",
                          reason="Keras takes tens of seconds to build these models: "
                                 "PHYLANX_KERAS_LIVE=1 runs them (the stored test "
                                 "always runs)")

#: the cases modules the tool regenerates, by the name it is given
MODULES = {"rnn_outputs": "keras_rnn_output_cases", "weights": "keras_weight_cases",
           "weighted_metrics": "keras_weighted_metric_cases"}


def phylanx_model(cases: ModuleType, name: str, seed: int,
                  order: Sequence[str] | None = None) -> Any:
    """Case ``name``'s model in phylanx, its initial weights drawn from ``seed`` plus the
    case's index in ``order`` (``cases.CASES``' if None), so each case's differ."""
    from phylanx import nn
    nn.clear_session()
    nn.set_seed(list(cases.CASES if order is None else order).index(name) + seed)
    return nn.Model(*cases.CASES[name](nn))


def keras_model(cases: ModuleType, name: str) -> Any:
    import keras
    return keras.Model(*cases.CASES[name](keras.layers))


def sgd(keras_api: bool, learning_rate: float) -> Any:
    """The optimizer of the cases' training: Keras' SGD or phylanx's."""
    if keras_api:
        import keras
        return keras.optimizers.SGD(learning_rate)
    from phylanx import nn
    return nn.SGD(learning_rate)


def arrays(logs: dict) -> dict[str, np.ndarray]:
    """A dict of logs (History's lists, ``return_dict`` values) as arrays."""
    return {k: np.asarray(v) for k, v in logs.items()}


#: the dicts of values :func:`weighed_run` returns (and the final weights)
PARTS = ("history", "evaluate", "train_on_batch", "test_on_batch")


def rows(value: Any, part: slice) -> Any:
    """The rows ``part`` of an array, or of each of a list's or dict's (None kept)."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {k: rows(v, part) for k, v in value.items()}
    if isinstance(value, list):
        return [rows(v, part) for v in value]
    return value[part]


def weighed_run(model: Any, given: dict, batch: int, epochs: int, test_weights: Any,
                class_weight: Any = None) -> dict:
    """``epochs`` epochs of the compiled ``model`` (batches in order) on the case's data
    ``given`` weighed by its ``w`` and ``class_weight``, validated on its ``vx, vy, vw``
    (or ``validation_split=0.25``), then ``evaluate`` weighed by its ``ew``, and
    ``train_on_batch`` (``w``) and ``test_on_batch`` (``test_weights``) on the first
    batch: the :data:`PARTS` (dicts of arrays) and the final weights."""
    x, y, w = given["x"], given["y"], given.get("w")
    fit = {"validation_data": (given["vx"], given["vy"], given["vw"])} if "vx" in given \
        else {"validation_split": 0.25}
    history = model.fit(x, y, sample_weight=w, class_weight=class_weight, batch_size=batch,
                        epochs=epochs, shuffle=False, verbose=0, **fit)
    scores = model.evaluate(x, y, sample_weight=given["ew"], batch_size=batch, verbose=0,
                            return_dict=True)
    part = slice(0, batch)
    trained = model.train_on_batch(x[part], rows(y, part), sample_weight=rows(w, part),
                                   class_weight=class_weight, return_dict=True)
    tested = model.test_on_batch(x[part], rows(y, part),
                                 sample_weight=rows(test_weights, part), return_dict=True)
    return {"history": arrays(history.history), "evaluate": arrays(scores),
            "train_on_batch": arrays(trained), "test_on_batch": arrays(tested),
            "final": [np.asarray(v) for v in model.get_weights()]}


def reference(cases: ModuleType, name: str, model: Any = None) -> dict:
    """Keras' run of case ``name`` of ``cases`` from phylanx's initial weights."""
    initial = cases.phylanx_model(name).get_weights()
    model = cases.keras_model(name) if model is None else model
    model.set_weights(initial)
    return {"initial": initial, **cases.run(model, name, keras_api=True)}


def flatten(name: str, ref: dict) -> dict[str, np.ndarray]:
    """``ref`` as npz entries: ``<case>/<field>/<index or key>``."""
    arrays = {}
    for field, value in ref.items():
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            arrays[f"{name}/{field}/{key}"] = np.asarray(item)
    return arrays


def stored(path: str, name: str, tool: str, listed: tuple[str, ...]) -> dict:
    """The stored reference of case ``name`` in ``path`` (written by the command
    ``tool``): an entry ``<case>/<field>`` is an array, ``<case>/<field>/<key>`` one
    item of a dict; the fields ``listed`` are lists (their entries by index)."""
    found: dict = {}
    with np.load(path) as saved:
        for entry in saved.files:
            case, field, *key = entry.split("/")
            if case == name:
                if key:
                    found.setdefault(field, {})[key[0]] = saved[entry]
                else:
                    found[field] = saved[entry]
    if not found:
        raise KeyError(f"no stored Keras reference for {name!r}: run {tool}")
    for field in listed:
        found[field] = [found[field][k] for k in sorted(found[field], key=int)]
    return found


def assert_same(ours: dict, reference: dict, parts: tuple[str, ...],
                lost: tuple[str, ...] = ()) -> None:
    """``ours`` is Keras' ``reference``: the same keys in each of the dicts ``parts``,
    their values to 1e-5 relative (but ``lost``'s in the training parts, History and
    ``train_on_batch``: Keras' value counts a mask's padding there), the final weights
    to float32 rounding."""
    for part in parts:
        assert set(ours[part]) == set(reference[part]), part
        for key, values in reference[part].items():
            if part in ("history", "train_on_batch") and key in lost:
                continue
            np.testing.assert_allclose(ours[part][key], values, rtol=1e-5, atol=1e-7,
                                       err_msg=f"{part}[{key!r}]")
    for mine, theirs in zip(ours["final"], reference["final"], strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


def comparisons(cases: ModuleType, check: Callable[[str, dict], None]) -> tuple:
    """The two tests of every case of ``cases``, ``check(name, reference)`` against the
    stored reference (always) and against Keras run now (``live``): a test module
    names them ``test_... = comparisons(cases, check)``."""
    names = list(cases.CASES)

    @pytest.mark.parametrize("name", names)
    def against_stored(name):
        check(name, cases.stored(name))

    @pytest.mark.slow
    @live
    @pytest.mark.parametrize("name", names)
    def against_live(name):
        pytest.importorskip("keras")
        check(name, cases.reference(name))
    return against_stored, against_live


def regenerate(cases: ModuleType) -> None:
    """Run every case of ``cases`` in Keras and write ``cases.STORED`` atomically (a
    temporary file renamed over the old one after every case ran: a failing run
    leaves the old file whole)."""
    from phylanx import atomic
    arrays: dict[str, np.ndarray] = {}
    for name in cases.CASES:
        arrays.update(flatten(name, cases.reference(name)))
        print(f"{name}: done")
    with atomic.open_atomic(cases.STORED, "wb") as fh:
        np.savez_compressed(fh, **arrays)
    print(f"wrote {cases.STORED}")
