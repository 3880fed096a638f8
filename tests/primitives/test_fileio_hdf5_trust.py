"""file_read_hdf5 stays inside the file (issue 26 item 8): a crafted file whose dataset
is stored elsewhere (external storage, a virtual dataset) or is reached through a soft
or external link is refused with a located error, unless allow_external is true."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxValueError

h5py = pytest.importorskip("h5py", reason="h5py (the hdf5 extra) is not installed")

_STATE = phylanx.execution_tree.compiler_state("test_hdf5_trust", "<test_hdf5_trust>")


def read(path, key, *extra):
    return phylanx.execution_tree.eval(
        _STATE, f'lambda(a0, file_read_hdf5(a0, "{key}"{"".join(extra)}))', str(path),
        file_name="<test_hdf5_trust>")


@pytest.fixture
def secret(tmp_path):
    """A file outside any HDF5 file, holding numbers a crafted file could hand out."""
    values = np.random.default_rng(8).standard_normal(16)
    path = tmp_path / "secret.bin"
    path.write_bytes(values.tobytes())
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f["y"] = values
    return values, path, other


def _crafted(tmp_path, secret):
    """(file, dataset, what the refusal names) for each way out of the file."""
    values, path, other = secret
    cases = []
    ext = tmp_path / "external.h5"
    with h5py.File(ext, "w") as f:
        f.create_dataset("x", shape=values.shape, dtype="f8",
                         external=[(str(path), 0, values.nbytes)])
    cases.append((ext, "x", "external file"))
    vds = tmp_path / "virtual.h5"
    with h5py.File(vds, "w") as f:
        layout = h5py.VirtualLayout(shape=values.shape, dtype="f8")
        layout[:] = h5py.VirtualSource(str(other), "y", shape=values.shape)
        f.create_virtual_dataset("x", layout)
    cases.append((vds, "x", "virtual dataset"))
    links = tmp_path / "links.h5"
    with h5py.File(links, "w") as f:
        f["outside"] = h5py.ExternalLink(str(other), "/y")
        f.create_group("g")["via"] = h5py.ExternalLink(str(other), "/")
        f["soft"] = h5py.SoftLink("/outside")
    cases += [(links, "outside", "external link"), (links, "g/via/y", "'/g/via' is an external"),
              (links, "soft", "soft link")]
    return cases


def test_ways_out_of_the_file_are_refused(tmp_path, secret):
    for path, key, reason in _crafted(tmp_path, secret):
        with pytest.raises(PhylanxValueError, match=f"dataset '{key}' .* refused: .*{reason}"
                           ".*allow_external=true") as info:
            read(path, key)
        assert info.value.primitive == "file_read_hdf5" and info.value.loc is not None


def test_allow_external_opts_in(tmp_path, secret):
    values = secret[0]
    for path, key, _ in _crafted(tmp_path, secret):
        got = read(path, key, ", __arg(allow_external, true)")
        np.testing.assert_array_equal(got, values)


def test_only_a_boolean_or_number_opts_in(tmp_path, secret):
    # Python's truth of the string "false" is True: allow_external "false" opened the door
    from phylanx.errors import PhylanxTypeError
    for path, key, _ in _crafted(tmp_path, secret):
        for flag in ('"false"', '"no"', "list(0)"):
            with pytest.raises(PhylanxTypeError, match="a flag must be true or false") as e:
                read(path, key, f", __arg(allow_external, {flag})")
            assert e.value.loc is not None
        with pytest.raises(PhylanxValueError, match="refused"):
            read(path, key, ", __arg(allow_external, 0)")


def test_data_inside_the_file_is_read_as_before(tmp_path):
    path = tmp_path / "plain.h5"
    data = np.arange(6.0).reshape(2, 3)
    with h5py.File(path, "w") as f:
        f.create_group("g")["x"] = data
        f["g"].attrs["note"] = "hard links only"
    np.testing.assert_array_equal(read(path, "g/x"), data)
    np.testing.assert_array_equal(read(path, "/g/x"), data)
    with pytest.raises(PhylanxValueError, match="no dataset 'g/y'"):
        read(path, "g/y")
