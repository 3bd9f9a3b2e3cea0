"""Options shared by every numba kernel (one place to change them)."""

OPTS = dict(cache=True, nogil=True)
