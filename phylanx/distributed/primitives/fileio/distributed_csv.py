"""``file_read_csv_d``: every locality reads a CSV file and keeps its tile (reference §4.3)."""
from __future__ import annotations

import tempfile
from pathlib import Path

from ....errors import PhylanxError
from ....primitives.dtypes import to_bool
from ....primitives.registry import primitive
from ... import tiles
from .._support import ORDERED, auto_name, box_slices, create, lockstep

_EXAMPLE_DIR = Path(tempfile.gettempdir()).as_posix()


@primitive("file_read_csv_d",
           "file_read_csv_d(_1_filename, __arg(_2_mode3d, false), __arg(_3_page_nrows, 1), "
           "__arg(_4_tiling_type, \"sym\"), __arg(_5_intersection, nil), __arg(_6_name, \"\"), "
           "__arg(_7_numtiles, num_localities()))",
           flags=ORDERED, side_effects=True, no_oracle="reads a file",
           example=f'block(file_write_csv("{_EXAMPLE_DIR}/phylanx_csv_d_example.csv", '
                   f'[[1, 2], [3, 4]]), all_gather_d(file_read_csv_d('
                   f'"{_EXAMPLE_DIR}/phylanx_csv_d_example.csv")))',
           result="[[1.0, 2.0], [3.0, 4.0]]")
@lockstep
def file_read_csv_d(filename, mode3d=False, page_nrows=1, tiling_type="sym",
                    intersection=None, name="", numtiles=None):
    """This locality's tile of a CSV file (2-d, or 3-d pages of ``page_nrows`` rows).

    Every locality reads the file and keeps its tile (``tiling_type``, overlap
    ``intersection`` as for ``constant_d``).  Unnamed arrays are ``csv_file_<k>``.
    """
    from ....primitives.fileio.files import file_read_csv
    name = auto_name(name, "csv_file")
    problem, data = None, None
    try:
        data = file_read_csv(filename, to_bool(mode3d), page_nrows)
    except PhylanxError as e:
        problem = e.message
    tiles.agree(problem, f"array {name!r}")
    return create(name, data.shape, None, numtiles, tiling_type,
                  intersection, lambda box: data[box_slices(box)].copy(), replicated=data)
