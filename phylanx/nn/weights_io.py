"""``save_weights`` / ``load_weights``: a model's weights alone, in Keras 3's
``.weights.h5`` layout (with h5py) or in an ``.npz`` archive of the same keys.

Keras 3 files hold one group per layer, ``layers/<key>/vars/<i>``, where ``<key>`` is
the layer class in snake case numbered by position (``dense``, ``dense_1``, ...; the
recurrent layers' weights under ``layers/<key>/cell/vars``), not the layer's own name,
which sits in the ``vars`` group's ``name`` attribute.  The same keys are used here,
so a file written by Keras loads into the same architecture here and back.

Every write is atomic (:mod:`phylanx.atomic`): a destination that cannot be written
is an error before anything is written, and an interrupted save leaves the old file.
``load_weights`` checks the whole file against the model - every layer's group
present, as many arrays as weights, each of the weight's shape - before it changes any
weight: a mismatch is a located error naming the layer and the weight, and the model
is left as it was.
"""
from __future__ import annotations

import os
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from .. import atomic
from . import arguments as args

#: layers whose weights Keras 3 keeps in a cell sub-object
CELL_LAYERS = ("SimpleRNN", "LSTM", "GRU")


def _snake(name: str) -> str:
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def layer_keys(model: Any) -> list[tuple[Any, str, list]]:
    """``(layer, group path, weights)`` of each weight group, as Keras 3 names them: one
    group per layer, or per sub-layer for a layer whose ``keras_sublayers`` maps the
    first part of its weights' names to Keras' sub-layer names (MultiHeadAttention's
    ``query/kernel`` lives in ``layers/multi_head_attention/query_dense/vars/0``)."""
    counts: dict[str, int] = {}
    keys = []
    for layer in model.layers:
        base = _snake(type(layer).__name__)
        count = counts.get(base, 0)
        counts[base] = count + 1
        key = f"layers/{base}" + (f"_{count}" if count else "")
        sublayers = getattr(layer, "keras_sublayers", None)
        if sublayers:
            for prefix, sub in sublayers.items():
                own = [w for w in layer.weights
                       if w.name[len(layer.name) + 1:].split("/", 1)[0] == prefix]
                keys.append((layer, f"{key}/{sub}/vars", own))
            continue
        keys.append((layer, key + ("/cell/vars" if type(layer).__name__ in CELL_LAYERS
                                   else "/vars"), list(layer.weights)))
    return keys


def file_format(path: Path, where: str) -> str:
    name = path.name
    if name.endswith(".weights.h5"):
        return "h5"
    if name.endswith(".npz"):
        return "npz"
    raise args.value_error(where, f"the weights file name must end in '.weights.h5' (Keras "
                                  f"3's format) or '.npz', got '{path}'")


def check_writable(path: Path, where: str, make_folders: bool = False) -> None:
    """A located error now if ``path`` cannot be written (its folder missing, not a
    folder, or not writable; or ``path`` a folder).  ``make_folders``: a missing
    folder will be made (ModelCheckpoint), so its nearest existing parent must be
    writable."""
    if path.is_dir():
        raise args.value_error(where, f"cannot write '{path}': it is a folder")
    folder = path.parent if str(path.parent) else Path(".")
    if make_folders:
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
    if not folder.is_dir():
        raise args.value_error(where, f"cannot write '{path}': '{folder}' is not an "
                                      "existing folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise args.value_error(where, f"cannot write '{path}': the folder '{folder}' is not "
                                      "writable")
    if path.is_file() or not path.exists():
        # os.access says yes to root for every folder, also one of a read-only or
        # virtual file system (/proc) that refuses a new file only when one is made (a
        # checkpoint failed so after its first epoch, with a bare FileNotFoundError): a
        # file is made and removed (not for a stream such as /dev/stdout)
        try:
            fd, probe = tempfile.mkstemp(prefix=f".{path.name}{atomic.TEMP_MARK}probe-",
                                         dir=folder)
        except OSError as e:
            raise args.value_error(where, f"cannot write '{path}': no file can be made in "
                                          f"'{folder}' ({e.strerror})") from None
        os.close(fd)
        os.unlink(probe)


def _h5py(where: str):
    try:
        import h5py
    except ImportError:
        raise args.value_error(where, "'.weights.h5' files need h5py (pip install h5py, or "
                                      "phylanx[hdf5]); '.npz' needs nothing") from None
    return h5py


def save_weights(model: Any, filepath: Any, overwrite: bool = True) -> Path:
    where = "save_weights"
    path = Path(os.fspath(filepath))
    kind = file_format(path, where)
    overwrite = args.boolean(overwrite, "overwrite", where)
    model._require_built()
    if not overwrite and path.exists():
        raise args.value_error(where, f"'{path}' exists and overwrite=False")
    check_writable(path, where)
    groups = [(layer, key, [np.asarray(w.value) for w in weights])
              for layer, key, weights in layer_keys(model)]
    if kind == "h5":
        h5py = _h5py(where)
        with atomic.replacing(path) as tmp:
            with h5py.File(tmp, "w") as f:
                for layer, key, values in groups:
                    group = f.create_group(key)
                    group.attrs["name"] = layer.name
                    for i, value in enumerate(values):
                        group.create_dataset(str(i), data=value)
                f.create_group("vars").attrs["name"] = model.name
    else:
        arrays = {f"{key}/{i}": value for _, key, values in groups
                  for i, value in enumerate(values)}
        with atomic.open_atomic(path, "wb") as fh:
            np.savez(fh, **arrays)
    return path


def _read(path: Path, kind: str, where: str) -> dict[str, np.ndarray]:
    """Every array of the file by its key ("layers/dense/vars/0")."""
    if not path.is_file():
        raise args.value_error(where, f"no weights file '{path}'")
    found: dict[str, np.ndarray] = {}
    if kind == "h5":
        h5py = _h5py(where)
        try:
            with h5py.File(path, "r") as f:
                def visit(name, obj):
                    if isinstance(obj, h5py.Dataset):
                        found[name] = np.asarray(obj)
                f.visititems(visit)
        except OSError as e:
            raise args.value_error(where, f"'{path}' is not a whole HDF5 weights file: "
                                          f"{e}") from None
        return found
    if not zipfile.is_zipfile(path):
        raise args.value_error(where, f"'{path}' is not a whole .npz archive (cut short?)")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, zipfile.BadZipFile) as e:
        raise args.value_error(where, f"'{path}' is a damaged weights file: {e}") from None


def _groups(keys: list[str]) -> str:
    names = [k[len("layers/"):].rsplit("/vars", 1)[0] for k in keys]
    return "[" + ", ".join(names[:6]) + (" ..." if len(names) > 6 else "") + "]"


def load_weights(model: Any, filepath: Any) -> None:
    where = "load_weights"
    path = Path(os.fspath(filepath))
    kind = file_format(path, where)
    model._require_built()
    found = _read(path, kind, where)
    keys = layer_keys(model)
    theirs = sorted({k.rsplit("/", 1)[0] for k in found if k.startswith("layers/")})
    ours = sorted(key for _, key, weights in keys if weights)
    if theirs != ours:
        raise args.value_error(where, f"'{path}' holds the weights of layers "
                                      f"{_groups(theirs)}, model '{model.name}' has weighted "
                                      f"layers {_groups(ours)}: saved from another "
                                      "architecture?")
    planned = []
    used = set()
    for layer, key, weights in keys:
        for i, weight in enumerate(weights):
            name = f"{key}/{i}"
            if name not in found:
                raise args.value_error(where, f"'{path}' has no '{name}' for weight "
                                              f"{weight.name} of layer '{layer.name}' "
                                              f"({type(layer).__name__}): saved from "
                                              "another architecture?")
            value = found[name]
            if value.shape != weight.value.shape:
                raise args.value_error(where, f"weight {weight.name} of layer '{layer.name}' "
                                              f"has shape {weight.value.shape}, but "
                                              f"'{path}' holds shape {value.shape} at "
                                              f"'{name}'")
            if value.dtype.kind not in "biuf":
                raise args.value_error(where, f"'{name}' in '{path}' is not numbers "
                                              f"(dtype {value.dtype})")
            planned.append((weight, value))
            used.add(name)
    extra = sorted(k for k in found if k.startswith("layers/") and k not in used)
    if extra:
        raise args.value_error(where, f"'{path}' holds weights the model '{model.name}' "
                                      f"does not have ({', '.join(extra[:4])}"
                                      f"{' ...' if len(extra) > 4 else ''}): saved from "
                                      "another architecture?")
    for weight, value in planned:       # (all checked: now change them)
        weight.value = value.astype(np.float32)
