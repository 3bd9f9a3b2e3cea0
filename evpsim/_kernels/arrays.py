"""Array copies for kernels, written as loops.

NumPy-style slice assignment of an array (``out[c] = acc``) compiles its
shape-mismatch error message, string formatting and all: about 3 s of a
first run's compilation per dimensionality. A loop compiles in a fraction
of that and gives the same values.
"""

from numba import njit

from .options import OPTS as _OPTS


@njit(**_OPTS)
def copy_into(dst, src):
    """``dst[...] = src`` for C-contiguous arrays of the same size."""
    d = dst.reshape(dst.size)
    s = src.reshape(src.size)
    for i in range(s.shape[0]):
        d[i] = s[i]
