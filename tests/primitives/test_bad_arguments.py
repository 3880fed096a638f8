"""Bad input to any primitive gives a located PhylanxError naming it, never a leak or a hang.

Registry-driven: every eager primitive is called through PhySL with a wrong kind of value
(a string, nil, a ragged list, a 5-d array) in each required slot, the other slots taking
a plausible sample; it may succeed (many primitives accept lists or nil) or fail, but a
failure must be a PhylanxError carrying the primitive's name and a source location.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxError
from phylanx.primitives.registry import all_specs

from .families import samples_for

#: primitives that legitimately block, print, touch files or take seconds on bad sizes
SKIP = {"cout", "debug", "file_write", "file_write_csv", "file_write_hdf5", "file_read",
        "file_read_csv", "file_read_hdf5", "enable_tracing", "__raise", "__print"}
BAD_VALUES = {"string": '"x"', "nil": "nil", "ragged": "list(list(1, 2), list(3))",
              "deep": "constant(1.0, list(1, 1, 1, 1, 1))"}


def _cases():
    cases = []
    for spec in all_specs():
        if spec.special or spec.lazy or spec.name in SKIP or spec.side_effects:
            continue
        required = spec.signature.min_args
        if required == 0:
            continue
        for slot in range(required):
            for label in BAD_VALUES:
                cases.append(pytest.param(spec, slot, label, id=f"{spec.name}-{slot}-{label}"))
    return cases


def _sample(spec):
    try:
        samples = samples_for(spec)
    except KeyError:
        samples = []
    return samples[0] if samples else None


@pytest.mark.parametrize("spec, slot, label", _cases())
def test_bad_argument_is_a_located_phylanx_error(spec, slot, label):
    required = spec.signature.min_args
    sample = _sample(spec)
    params = [f"a{i}" for i in range(required)]
    args = [BAD_VALUES[label] if i == slot else params[i] for i in range(required)]
    code = f"lambda({', '.join(params + [f'{spec.name}({chr(44).join(args)})'])})"
    values = list(sample[:required]) if sample is not None and len(sample) >= required else \
        [np.arange(4.0)] * required
    outcome = {}

    def run():
        try:
            with np.errstate(all="ignore"):
                phylanx.execution_tree.eval(
                    phylanx.execution_tree.compiler_state("bad"), code, *values)
            outcome["ok"] = True
        except PhylanxError as e:
            outcome["error"] = e
        except BaseException as e:  # noqa: BLE001 - this is what the test looks for
            outcome["leak"] = e

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), f"{spec.name} hung on a bad {label} argument"
    assert "leak" not in outcome, f"{spec.name}: {type(outcome['leak']).__name__} leaked: " \
                                  f"{outcome['leak']}"
    if "error" in outcome:
        err = outcome["error"]
        assert err.loc is not None and err.loc.line >= 1, str(err)
        assert err.primitive is not None, str(err)
