"""Numbers and lists of budgets as text, for tables and summaries."""

from __future__ import annotations

import numpy as np

__all__ = ["fmt", "spans"]


def fmt(x, width=10, digits=4, zero_below=1e-13):
    """Fixed-width number: plain for moderate magnitudes, else scientific.

    Magnitudes below ``zero_below`` (rounding noise of exact values) print
    as ``0``; NaN and None as ``-``.
    """
    if x is None or not np.isfinite(x):
        return "-".rjust(width)
    ax = abs(x)
    if ax < zero_below:
        return "0".rjust(width)
    if ax != 0 and (ax < 0.1 or ax >= 1e5):
        s = f"{x:.{digits - 1}e}"
    else:
        s = f"{x:.{digits}f}" if ax < 10 else f"{x:.{max(digits - 2, 0)}f}"
    return s.rjust(width)


def spans(ns):
    """``[20, 21, 22, 25]`` -> ``"20-22, 25"``."""
    out = []
    for n in ns:
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out)
