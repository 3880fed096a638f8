"""Issue 26 item 9: ``util.unserialize`` rebuilds only ASTs and data (the restricted
unpickler ``file_read`` uses), so bytes from elsewhere are refused, never executed."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import phylanx
from phylanx import util
from phylanx.errors import PhylanxValueError
from phylanx.language import parse


class _WritesAFile:
    """A pickle that, when loaded unrestricted, creates ``path`` (stands for any code)."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_unserialize_refuses_a_pickle_that_would_run_code(tmp_path):
    marker = tmp_path / "ran"
    payload = pickle.dumps([_WritesAFile(marker)])
    refused = r"data holds a (io|builtins)\.open, which unserialize does not load"
    with pytest.raises(PhylanxValueError, match=refused):
        util.unserialize(payload)
    assert not marker.exists()
    with pytest.raises(PhylanxValueError, match="unserialize does not load"):
        util.unserialize_expr(pickle.dumps(_WritesAFile(marker)))
    assert not marker.exists()


def test_file_read_refuses_it_too(tmp_path):
    marker, bad = tmp_path / "ran", tmp_path / "bad.bin"
    bad.write_bytes(pickle.dumps(("phylanx-file_write", 1, _WritesAFile(marker))))
    with pytest.raises(PhylanxValueError, match="file_read does not load"):
        phylanx.evaluate(f'file_read("{bad}")')
    assert not marker.exists()


def test_asts_and_data_still_round_trip():
    program = parse('define(f, x, [1.5, 2] + -x)\nf(slice(list(1, "a", nil, true), 0))\n'
                    "f{1}(3)", "round.physl")
    assert util.unserialize(util.serialize(program)) == list(program.body)
    assert util.unserialize_expr(util.serialize(program.body[1])) == program.body[1]
    values = [np.arange(6.0).reshape(2, 3), np.float32(2.5), range(3), 1 + 2j, {"k": (1, "s")}]
    back = util.unserialize(util.serialize(values))
    np.testing.assert_array_equal(back[0], values[0])
    assert back[1:] == values[1:] and type(back[1]) is np.float32
