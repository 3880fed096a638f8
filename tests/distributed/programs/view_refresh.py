"""A gathered copy standing for NumPy's view of a tiled array (``y = x[2]`` of row
tiles) sees every later store into the array, as the view does (issue 28: it kept the
old row).  Any number of ranks; row and column tilings (uneven tiles); the
undecorated function on the whole array is the oracle for the result and for the
array.  A copy kept alive changes no store into another array's messages (issue 28,
dist50: each sent an all_gather), and a store into an array annotated over the copied
array's tile still reaches it, as does a store through ``slice_row_d``.  Run in
``test_one_rank_errors_and_inplace_mpi.py``'s job (its DONE line says it returned: no
'OK' of its own, which that job counts for its other programs).
"""
import warnings

import numpy as np
from counted import collectives

import phylanx
from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.distributed import view_copies

warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
r = dist.find_here()


def element_stored(x):
    y = x[2]
    x[2, 0] = -1.0
    return y


def all_stored(x):
    y = x[2]
    x[...] = 7.0
    return y


def added(x):
    y = x[2]
    x += 1.0
    return y


def other_view_changed(x):
    y = x[2]
    z = x[2]
    z *= 2.0
    return y


def read_by_a_primitive(x):
    y = x[2]
    x[2, 1:3] = -5.0
    return y * 2.0 + y.sum()


def through_a_tiled_view(x):
    s = x[1:3]          # tiled on several ranks: views of x's tiles
    y = s[1]
    x[2, 0] = 9.0
    return y


def block(x):
    y = x[1:3, 1:]
    x[2, 3] = 4.0
    x[1] -= 1.0
    return y


def many_rows(x):
    # more registrations than the registry keeps between exchanges (copies collected)
    total = 0.0
    for i in range(3 * x.shape[0]):
        total = total + x[i % x.shape[0]].sum()
    y = x[3]
    x[3, 2] = 100.0
    return y + total


def index_array(x):
    y = x[[0, 2]]       # NumPy: a copy; changed in place, x does not change
    y *= 2.0
    return x


def same_everywhere(call, whole):
    """``call``'s result and the argument it changed, against NumPy's, on every tiling."""
    for tiling in ("row", "column"):     # (sym is row tiles on 2-3 ranks)
        mine = dist.tiled(whole, tiling, name=f"views_{call.__name__}_{tiling}")
        got = Phylanx(call)(mine)
        expected = whole.copy()
        wanted = call(expected)
        np.testing.assert_allclose(np.asarray(got), wanted, rtol=1e-12,
                                   err_msg=f"{call.__name__} {tiling}")
        np.testing.assert_allclose(np.asarray(mine), expected, rtol=1e-12,
                                   err_msg=f"{call.__name__} {tiling}")


rng = np.random.default_rng(11)
matrix = rng.normal(size=(7, 5))
for case in (element_stored, all_stored, added, other_view_changed, read_by_a_primitive,
             through_a_tiled_view, block, many_rows, index_array):
    same_everywhere(case, matrix)

# returned to Python while x lives on: a store from Python reaches the copy, which plain
# NumPy then reads (NumPy's view would show the new value)
rows = dist.tiled(matrix, "row", name="views_returned")
plain = matrix.copy()
got, view = Phylanx(element_stored)(rows), element_stored(plain)
rows[2, 1] = 3.5
plain[2, 1] = 3.5
np.testing.assert_array_equal(got, view)
plain += 1.0
rows[...] = plain
np.testing.assert_array_equal(got, view)
np.testing.assert_array_equal(np.asarray(rows), plain)
del got, view
# the registry forgets collected copies (it does not grow with every selection)
for i in range(40):
    rows[i % 7].sum()
rows[0, 0] = 0.0
assert view_copies.registered() <= 16, view_copies.registered()


def stored(x):
    x[0, :] = 1.0
    x += 1.0
    y = x * 2.0
    y[1] = 3.0
    return np.sum(y, axis=0)


def row_two(x):
    return x[2]




def own_rows(name):
    """``matrix``'s rows tiled by annotate (its tile a copy: memory of its own)."""
    return dist.annotate(matrix[rows_here].copy(), name,
                         ["tile", ["rows", *rows_span], ["columns", 0, matrix.shape[1]]])


k_ranks = dist.num_localities()
cuts = [round(matrix.shape[0] * i / k_ranks) for i in range(k_ranks + 1)]
rows_span = [cuts[r], cuts[r + 1]]
rows_here = slice(*rows_span)
stored_d = Phylanx(stored)
want, before = collectives(stored_d, own_rows("views_store_before"))
kept = Phylanx(row_two)(own_rows("views_kept"))         # a copy standing for a view, alive
got, after = collectives(stored_d, own_rows("views_store_after"))
np.testing.assert_allclose(got, want)
assert after == before, f"a store sent {dict(after)} with another array's copy alive, " \
    f"{dict(before)} without"
# an array annotated over the kept copy's source tile may share its memory: its stores
# still reach the copy
source = own_rows("views_source")
copy = Phylanx(row_two)(source)
alias = dist.annotate(source.local, "views_alias", source.tile())
alias[2, 1] = -8.5
expected = matrix[2].copy()
expected[1] = -8.5
np.testing.assert_array_equal(copy, expected)
# nor do other programs' copies change how many messages a program's own copies take
# (the registry's exchanges of liveness bits ride on each new copy's gather)
def reads(x):
    total = 0.0
    for i in range(20):
        total = total + x[i % x.shape[0]].sum()
    return total


reads_d = Phylanx(reads)
total, before = collectives(reads_d, own_rows("views_reads_before"))
np.testing.assert_allclose(total, reads(matrix))
others = own_rows("views_others")
held = [others[i % matrix.shape[0]] for i in range(11)]
for times in range(3):
    _, after = collectives(reads_d, own_rows(f"views_reads_after{times}"))
    assert after == before, f"reads sent {dict(after)} with copies alive, {dict(before)}"
    held += [others[i] for i in range(5)]
del held
# a store through ``slice_row_d`` (PhySL's form) reaches a copy too (before: the old row)
sliced = dist.tiled(matrix, "row", name="views_slice_store")
row = sliced[2]
phylanx.evaluate("lambda(a, block(store(slice_row_d(a, 2), 5.0), a))", sliced)
np.testing.assert_array_equal(row, np.full(matrix.shape[1], 5.0))
del kept, copy, row
dist.barrier().result()
