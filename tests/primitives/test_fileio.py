"""CSV, pickle and HDF5 file primitives, checked against numpy.loadtxt and h5py."""
from __future__ import annotations

import pickle
import sys

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxError, PhylanxTypeError, PhylanxValueError

from ..shared_data import shared_file

_STATE = phylanx.execution_tree.compiler_state("test_fileio", "<test_fileio>")


def run(code, *args):
    names = ", ".join(f"a{i}" for i in range(len(args)))
    # file_name given explicitly: code containing "/" followed by a string argument
    # would otherwise be taken for the original's eval(state, file_name, code) form
    return phylanx.execution_tree.eval(_STATE, f"lambda({names}, {code})", *args,
                                       file_name="<test_fileio>")


def write_csv(path, data):
    return run("file_write_csv(a0, a1)", str(path), data)


def read_csv(path, *options):
    extra = "".join(f", a{i + 1}" for i in range(len(options)))
    return run(f"file_read_csv(a0{extra})", str(path), *options)


# --- CSV ----------------------------------------------------------------------------------

def test_csv_round_trip_is_exact(tmp_path):
    rng = np.random.default_rng(7)
    data = rng.standard_normal((5, 4)) * 10.0 ** rng.integers(-300, 300, (5, 4))
    data[0, :3] = [0.1, -0.0, 1 / 3]
    path = tmp_path / "m.csv"
    returned = write_csv(path, data)
    assert returned is not None and np.array_equal(returned, data)
    back = read_csv(path)
    assert back.dtype == np.float64 and back.shape == (5, 4)
    assert np.array_equal(back, data)
    np.testing.assert_array_equal(back, np.loadtxt(path, delimiter=",", ndmin=2))


def test_csv_nan_inf_int_and_bool(tmp_path):
    path = tmp_path / "special.csv"
    write_csv(path, np.array([[np.nan, np.inf, -np.inf]]))
    np.testing.assert_array_equal(read_csv(path), np.loadtxt(path, delimiter=",", ndmin=2))
    write_csv(path, np.array([[1, -2], [3, 4]]))
    assert path.read_text() == "1,-2\n3,4\n"
    write_csv(path, np.array([True, False]))
    assert path.read_text() == "1,0\n"


def test_csv_vector_and_scalar_are_one_line(tmp_path):
    path = tmp_path / "v.csv"
    write_csv(path, np.array([1.5, 2.0, 3.25]))
    assert path.read_text().count("\n") == 1
    np.testing.assert_array_equal(read_csv(path), [[1.5, 2.0, 3.25]])
    write_csv(path, 7.5)
    np.testing.assert_array_equal(read_csv(path), [[7.5]])


def test_csv_header_skipped_only_on_the_first_line(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("3,2,first,second\n1.0, 2.0\n\n3,4\n5,6e-3\n")
    np.testing.assert_array_equal(read_csv(path),
                                  np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2))
    path.write_text("1,2\nx,4\n")
    with pytest.raises(PhylanxValueError, match="line 2 .*'x' is not a number"):
        read_csv(path)


def test_csv_ragged_lines_and_empty_file(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("1,2\n3\n")
    with pytest.raises(PhylanxValueError, match="line 2 .* has 1 values, the lines before it "
                                                "have 2"):
        read_csv(path)
    # like numpy.loadtxt: a file with no numbers warns and gives an empty matrix ...
    path.write_text("\n\n")
    with pytest.warns(UserWarning, match="no numbers"):
        assert read_csv(path).shape == (0, 0)
    with pytest.warns(UserWarning):
        np.loadtxt(path, delimiter=",")


def test_csv_zero_byte_file_is_a_located_error(tmp_path):
    # ... but 0 bytes is what an interrupted write leaves: not a (0, 0) matrix
    path = tmp_path / "cut.csv"
    path.write_bytes(b"")
    with pytest.raises(PhylanxValueError, match=r"cut.csv' is empty \(0 bytes\)") as info:
        read_csv(path)
    assert info.value.loc is not None and info.value.primitive == "file_read_csv"


def test_csv_empty_array_reads_back_empty(tmp_path):
    path = tmp_path / "e.csv"
    write_csv(path, np.zeros((0, 3)))
    assert path.stat().st_size > 0
    with pytest.warns(UserWarning, match="no numbers"):
        assert read_csv(path).shape == (0, 0)


def test_csv_mode3d_pages(tmp_path):
    data = np.arange(24.0).reshape(6, 4)
    path = tmp_path / "p.csv"
    write_csv(path, data)
    pages = read_csv(path, True, 2)
    np.testing.assert_array_equal(pages, data.reshape(3, 2, 4))
    np.testing.assert_array_equal(read_csv(path, True), data.reshape(6, 1, 4))
    assert read_csv(path, False, 5).shape == (6, 4)          # page_nrows only for 3-d
    with pytest.raises(PhylanxValueError, match="not a multiple of page_nrows=4"):
        read_csv(path, True, 4)
    with pytest.raises(PhylanxValueError, match="page_nrows must be at least 1"):
        read_csv(path, True, 0)


def test_csv_keywords(tmp_path):
    path = tmp_path / "k.csv"
    write_csv(path, np.arange(6.0).reshape(3, 2))
    got = run("file_read_csv(__arg(filename, a0), __arg(mode3d, true), __arg(page_nrows, 3))",
              str(path))
    assert got.shape == (1, 3, 2)


def test_csv_3d_write_reads_back_in_mode3d(tmp_path):
    cube = np.arange(12.0).reshape(2, 3, 2)
    path = tmp_path / "c.csv"
    write_csv(path, cube)
    np.testing.assert_array_equal(read_csv(path, True, 3), cube)


def test_csv_errors(tmp_path):
    with pytest.raises(PhylanxValueError, match="cannot read .*missing.csv"):
        read_csv(tmp_path / "missing.csv")
    with pytest.raises(PhylanxTypeError, match="filename must be a string"):
        phylanx.evaluate("file_read_csv(42)")
    with pytest.raises(PhylanxValueError, match="rank 0 to 3"):
        write_csv(tmp_path / "x.csv", np.zeros((1, 1, 1, 1)))
    with pytest.raises(PhylanxTypeError, match="writes numbers"):
        write_csv(tmp_path / "x.csv", "text")
    with pytest.raises(PhylanxValueError, match="cannot write"):
        write_csv(tmp_path / "no" / "dir.csv", np.ones(2))


def test_breast_cancer_data_set():
    BREAST_CANCER = shared_file("breast_cancer.csv")
    data = read_csv(BREAST_CANCER)
    assert data.shape == (569, 31)
    np.testing.assert_array_equal(data, np.loadtxt(BREAST_CANCER, delimiter=",", skiprows=1))
    assert set(np.unique(data[:, 30])) == {0.0, 1.0}


# --- file_write / file_read ---------------------------------------------------------------

@pytest.mark.parametrize("value", [
    np.arange(6, dtype=np.float32).reshape(2, 3)[:, ::-1],
    [np.int64(1), "two", [np.float64(3.5), None], np.array([True, False])],
    {"a": np.arange(3), "b": [np.float64(1.0), "x"]},
    np.float64(2.5),
    "text",
    None,
])
def test_file_write_read_round_trip(tmp_path, value):
    path = str(tmp_path / "v.bin")
    returned = run("file_write(a0, a1)", path, value)
    back = run("file_read(a0)", path)
    for got in (returned, back):
        _assert_equal(got, value)


def _assert_equal(got, expected):
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    elif isinstance(expected, (list, tuple)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _assert_equal(g, e)
    elif isinstance(expected, dict):
        assert list(got) == list(expected)
        for key in expected:
            _assert_equal(got[key], expected[key])
    else:
        assert type(got) is type(expected) and got == expected


def test_file_read_of_a_range(tmp_path):
    path = str(tmp_path / "r.bin")
    run("file_write(a0, range(2, 5))", path)
    assert list(run("file_read(a0)", path)) == [2, 3, 4]


def test_file_write_refuses_functions(tmp_path):
    with pytest.raises(PhylanxTypeError, match="cannot write"):
        run("file_write(a0, list(1, lambda(x, x)))", str(tmp_path / "f.bin"))


class _Payload:
    def __reduce__(self):
        return (print, ("this must not be printed",))


def test_file_read_does_not_execute_foreign_pickles(tmp_path, capsys):
    path = tmp_path / "evil.bin"
    path.write_bytes(pickle.dumps(("phylanx-file_write", 1, _Payload())))
    with pytest.raises(PhylanxValueError, match="builtins.print"):
        run("file_read(a0)", str(path))
    assert "must not be printed" not in capsys.readouterr().out
    path.write_bytes(b"not a pickle at all")
    with pytest.raises(PhylanxValueError, match="was not written by file_write"):
        run("file_read(a0)", str(path))
    path.write_bytes(pickle.dumps([1, 2]))
    with pytest.raises(PhylanxValueError, match="was not written by file_write"):
        run("file_read(a0)", str(path))


def test_file_read_missing_file(tmp_path):
    with pytest.raises(PhylanxValueError, match="cannot read"):
        run("file_read(a0)", str(tmp_path / "nothing.bin"))


# --- HDF5 ---------------------------------------------------------------------------------

h5py = pytest.importorskip("h5py", reason="h5py (the hdf5 extra) is not installed")


@pytest.mark.parametrize("data", [
    np.arange(12.0).reshape(3, 4), np.arange(5), np.array([True, False]),
    np.arange(8, dtype=np.float32).reshape(2, 2, 2), np.float64(3.5),
])
def test_hdf5_round_trip_against_h5py(tmp_path, data):
    path = str(tmp_path / "d.h5")
    run("file_write_hdf5(a0, \"group/x\", a1)", path, data)
    with h5py.File(path, "r") as f:
        stored = f["group/x"][()]
    np.testing.assert_array_equal(stored, data)
    back = run("file_read_hdf5(a0, \"group/x\")", path)
    assert np.asarray(back).dtype == np.asarray(data).dtype
    np.testing.assert_array_equal(back, data)
    if np.ndim(data) == 0:
        assert isinstance(back, np.generic)


def test_hdf5_replaces_a_dataset_and_keeps_others(tmp_path):
    path = str(tmp_path / "d.h5")
    run("block(file_write_hdf5(a0, \"a\", [1, 2]), file_write_hdf5(a0, \"b\", [3.0]),"
        " file_write_hdf5(a0, \"a\", [[5, 6, 7]]))", path)
    with h5py.File(path, "r") as f:
        assert sorted(f) == ["a", "b"]
        np.testing.assert_array_equal(f["a"][()], [[5, 6, 7]])


def test_hdf5_errors(tmp_path):
    path = str(tmp_path / "d.h5")
    run("file_write_hdf5(a0, \"x\", [1.0])", path)
    with pytest.raises(PhylanxValueError, match="no dataset 'y' \\(datasets: x\\)"):
        run("file_read_hdf5(a0, \"y\")", path)
    with pytest.raises(PhylanxValueError, match="cannot read"):
        run("file_read_hdf5(a0, \"x\")", str(tmp_path / "missing.h5"))
    with pytest.raises(PhylanxTypeError, match="numeric arrays"):
        run("file_write_hdf5(a0, \"x\", \"text\")", path)
    with pytest.raises(PhylanxTypeError, match="dataset name must be a string"):
        run("file_read_hdf5(a0, 1)", path)


def test_hdf5_without_h5py_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "h5py", None)     # makes ``import h5py`` fail
    with pytest.raises(PhylanxError, match=r"pip install phylanx\[hdf5\]"):
        run("file_read_hdf5(a0, \"x\")", str(tmp_path / "d.h5"))
