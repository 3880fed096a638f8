"""The digits examples run (few epochs here) and learn; their --help shows defaults."""
from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

pytest.importorskip("sklearn")

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def load(name: str):
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(f"phylanx_example_{name}",
                                                  EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name,args,least", [
    ("nn_digits_mlp", ["--epochs", "3", "--hidden", "64"], 0.85),
    ("nn_digits_cnn", ["--epochs", "3", "--filters", "16"], 0.85),
])
def test_digits_examples_learn(name, args, least, capsys):
    accuracy = load(name).main([*args, "--verbose", "0"])
    assert accuracy >= least
    assert "test accuracy" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["nn_digits_mlp", "nn_digits_cnn"])
def test_help_shows_defaults(name, capsys):
    with pytest.raises(SystemExit):
        load(name).main(["--help"])
    out = capsys.readouterr().out
    assert "--epochs EPOCHS" in out and "(default: 30)" in out
