"""Element-by-element array loops for the solvers' compiled passes.

Numba compiles an array assigned to a slice (NumPy functions such as ``np.diff`` do it inside)
with the formatting of its shape-mismatch message (some ten string functions, about 2 s once per
process), and an array comparison with NumPy's element-wise machinery; these loops compile in a
fraction of that and give the same values.
"""

from __future__ import annotations

import numba


@numba.njit(cache=True, inline="always")
def copy_values(out, values):
    """Write ``values[k]`` into ``out[k]`` for every k of the 1-D ``values``."""
    for k in range(len(values)):
        out[k] = values[k]


@numba.njit(cache=True, inline="always")
def same_labels(found, truth):
    """Return whether two 1-D arrays of labels are equal, element by element."""
    if len(found) != len(truth):
        return False
    for k in range(len(found)):
        if found[k] != truth[k]:
            return False
    return True
