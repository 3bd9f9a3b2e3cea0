"""Numbers and lists of budgets as text, for tables and summaries.

One rule for every table evpsim prints: the numbers of a column share one
layout, chosen from the column's own values (:func:`formatter`), so that
scores of any scale (1e-9 ... 1e9, negative, losses) keep enough
significant digits, and columns are as wide as their widest cell plus a gap
(:func:`render`), so that neighbouring columns never run into each other.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["spans", "formatter", "number", "numbers", "rate", "interval", "render",
           "duration"]

#: fixed-point notation is used for magnitudes in [FIXED_LOW, FIXED_HIGH)
FIXED_LOW, FIXED_HIGH = 1e-3, 1e6
#: rounding noise of a column of sums of floats, in units in the last place of its largest
#: magnitude: the estimates of B = 1,000 equal scores spread over up to 46
NOISE_ULPS = 64


def formatter(values, digits=4, *, spread=True, zero=0.0, sign=False, ulps=NOISE_ULPS):
    """A function that prints every number of a column in one layout.

    The layout is chosen from the column's finite values: fixed point when
    the largest magnitude lies in ``[FIXED_LOW, FIXED_HIGH)``, with the
    decimals that give it ``digits`` significant digits and the smallest
    nonzero magnitude two, unless that takes more than six decimals more;
    scientific notation with ``digits`` significant digits otherwise. With
    ``spread``, either layout shows more digits when the values are close
    relative to their size: enough to show the column's range with three
    significant digits (so that its ends print apart: scores of 0.5 that
    differ in the twelfth decimal, integers near 1e15), down to the digit
    of ``ulps`` units in the last place of the largest magnitude, the
    rounding noise of sums of floats; a range within that noise adds no
    digit. NaN, infinities and None print as
    ``-``; a value that rounds to zero prints as an unsigned zero (``0`` in
    scientific notation).

    Parameters
    ----------
    values : array_like of float, or a list of them
        Every number the column will show (None counts as NaN).
    digits : int
        Significant digits of the largest magnitude.
    spread : bool
        Add digits when the values are close relative to their size
        (scores of 1e5 that differ in the second decimal).
    zero : float
        Magnitudes at or below it are rounding noise of a value that is
        exactly zero: they print, and choose the layout, as 0. Set it from
        the scale of the quantity (e.g. ``1e-12`` times the largest score),
        never as an absolute number, which would hide values of small
        scales.
    sign : bool
        Print ``+`` before positive numbers (differences).
    ulps : float
        The rounding noise of the column's values, in units in the last place
        of its largest magnitude (more for sums of many terms).

    Returns
    -------
    callable
        ``f(x) -> str``, unpadded.

    Examples
    --------
    >>> f = formatter([0.7787, 0.8019])
    >>> f(0.77871), f(float("nan"))
    ('0.7787', '-')
    >>> formatter([123456.25, 123456.75])(123456.25)
    '123456.250'
    >>> formatter([3e-9, 4e-9])(3.14159e-9)
    '3.142e-09'
    >>> formatter([3.0e9 + 250.0, 3.0e9 + 750.0])(3.0e9 + 250.0)
    '3.000000250e+09'
    >>> formatter([0.1023, 0.0027], digits=3)(0.0027)
    '0.0027'
    >>> formatter([-407.4, 6.8e-10])(6.8e-10)
    '6.800e-10'
    >>> formatter([1.457114839e-21, 1.457114839e-21 * (1 + 1e-15)])(1.457114839e-21)
    '1.457e-21'
    >>> f = formatter([0.5, 0.5 + 3e-12])
    >>> f(0.5), f(0.5 + 3e-12)
    ('0.50000000000000', '0.50000000000300')
    >>> f = formatter([1e15 + 3, 1e15 + 20])
    >>> f(1e15 + 3), f(1e15 + 20)
    ('1.000000000000003e+15', '1.000000000000020e+15')
    >>> g = formatter([-0.02125, 0.0, 4e-17], zero=1e-12, sign=True)
    >>> g(-0.02125), g(4e-17), g(-1e-7), g(0.5)
    ('-0.02125', '0.00000', '0.00000', '+0.50000')
    """
    layout = _layout(_column(values, zero), digits, spread, ulps)
    return _printer(("+" if sign else "") + layout, zero)


def _column(values, zero):
    """The finite numbers of a column, those at or below ``zero`` in magnitude set to 0.

    Parameters
    ----------
    values : array_like of float, or a list of them
        As :func:`formatter` takes them (None counts as NaN).
    zero : float
        The magnitude of rounding noise of an exact zero.

    Returns
    -------
    numpy.ndarray
        One flat array of floats.
    """
    parts = values if isinstance(values, (list, tuple)) else [values]
    xs = np.concatenate([np.ravel(np.asarray(np.nan if v is None else v, dtype=float))
                         for v in parts] or [np.empty(0)])
    xs = xs[np.isfinite(xs)]
    return np.where(np.abs(xs) <= zero, 0.0, xs)


def _layout(xs, digits, spread, ulps=NOISE_ULPS):
    """The format specification of a column of finite numbers, as :func:`formatter` chooses it.

    Parameters
    ----------
    xs : numpy.ndarray
        The column's finite numbers (see :func:`_column`).
    digits : int
        Significant digits of the largest magnitude.
    spread : bool
        Add digits when the values are close relative to their size.
    ulps : float
        Rounding noise, in units in the last place of the largest magnitude.

    Returns
    -------
    str
        A fixed-point (``.Nf``) or scientific (``.Ne``) specification, unsigned.
    """
    sizes = np.abs(xs[xs != 0])
    if not sizes.size:
        return f".{min(digits, 4)}f"
    width = float(xs.max() - xs.min()) if xs.size > 1 else 0.0
    top = math.floor(math.log10(sizes.max()))  # powers of ten
    decimals = digits - 1 - top
    least = 1 - math.floor(math.log10(sizes.min()))  # two digits of the smallest
    noise = ulps * float(np.spacing(sizes.max()))
    more = 0
    if spread and width > noise:
        # the range with three digits, but no digit finer than the noise's
        finest = max(math.floor(math.log10(width)) - 2, math.floor(math.log10(noise)))
        more = max(0, top - finest + 1 - digits)
    if FIXED_LOW <= sizes.max() < FIXED_HIGH and least <= decimals + 6:
        return f".{max(decimals + more, least, 0)}f"
    return f".{digits + more - 1}e"


def _printer(layout, zero):
    """The function that prints one number in ``layout``.

    Parameters
    ----------
    layout : str
        A format specification from :func:`_layout`, ``+`` in front for signed numbers.
    zero : float
        Magnitudes at or below it print as an unsigned zero.

    Returns
    -------
    callable
        ``f(x) -> str``: ``-`` for NaN, infinities and None.
    """
    scientific = layout.endswith("e")
    unsigned = layout.lstrip("+")

    def f(x):
        if x is None or not np.isfinite(x):
            return "-"
        if abs(x) <= zero or x == 0:
            return "0" if scientific else f"{0.0:{unsigned}}"
        s = f"{x:{layout}}"
        return f"{0.0:{unsigned}}" if not s.strip("+-0.") else s  # rounds to zero: no sign

    return f


def number(x, digits=6):
    """One number in prose: ``digits`` significant digits at any scale.

    Examples
    --------
    >>> number(3.2e-9), number(0.059233), number(123456789.0)
    ('3.2e-09', '0.059233', '1.23457e+08')
    """
    return "-" if x is None or not np.isfinite(x) else f"{x:.{digits}g}"


def numbers(values, digits=6):
    """Numbers in prose (:func:`number`), with more digits where two different values
    would print alike (the ends of a range of scores that differ in the twelfth digit).

    Examples
    --------
    >>> numbers([0.5, 0.5 + 3e-12]), numbers([0.7371, 0.8024])
    (['0.5', '0.500000000003'], ['0.7371', '0.8024'])
    """
    distinct = len({float(v) for v in values})
    for d in range(digits, 18):
        texts = [number(v, d) for v in values]
        if len(set(texts)) == distinct:
            break
    return texts


def rate(x, decimals=4):
    """A rate or probability: fixed point, as its scale is [0, 1] whatever the scores'.

    Examples
    --------
    >>> rate(0.50642), rate(float("nan")), rate(1.0, 3)
    ('0.5064', '-', '1.000')
    """
    return "-" if x is None or not np.isfinite(x) else f"{x:.{decimals}f}"


def interval(lo, hi, f):
    """``[lo, hi]`` with formatter ``f``."""
    return f"[{f(lo)}, {f(hi)}]"


def render(headers, columns, *, gap=2, indent=0, align=None, widths=None):
    """Lines of a table whose columns are as wide as their widest cell.

    Parameters
    ----------
    headers : sequence of str
        A header per column.
    columns : sequence of sequence of str
        The cells of each column, top to bottom (all the same length).
    gap : int
        Spaces between columns (at least one).
    indent : int
        Spaces before the first column.
    align : str, optional
        ``"<"`` or ``">"`` per column (default: first column right-aligned
        like the rest; numbers read best right-aligned).
    widths : sequence of int, optional
        Least width of each column (a table's layout at typical scale);
        a column is still as wide as its widest cell.

    Returns
    -------
    list of str
        The header line, then a line per row.

    Examples
    --------
    >>> print("\\n".join(render(["n", "V"], [["1", "10"], ["0.5", "123456.2"]], indent=2)))
       n         V
       1       0.5
      10  123456.2
    """
    align = align or ">" * len(headers)
    least = widths or [0] * len(headers)
    widths = [max([w, len(h), *(len(c) for c in col)])
              for w, h, col in zip(least, headers, columns)]
    sep = " " * max(gap, 1)
    nrows = len(columns[0]) if columns else 0

    def line(cells):
        parts = [f"{c:{a}{w}}" for c, a, w in zip(cells, align, widths)]
        return (" " * indent + sep.join(parts)).rstrip()

    return [line(headers)] + [line([col[r] for col in columns]) for r in range(nrows)]


def spans(ns):
    """``[20, 21, 22, 25]`` -> ``"20-22, 25"``."""
    out = []
    for n in ns:
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out)


def duration(seconds):
    """A time in words: ``40 s``, ``4.5 min``, ``2.5 h`` or ``68 days``.

    Examples
    --------
    >>> duration(40.2), duration(270), duration(9000), duration(5.9e6)
    ('40 s', '4.5 min', '2.5 h', '68 days')
    """
    for unit, length, limit in (("days", 86400, 2 * 86400), ("h", 3600, 5400),
                                ("min", 60, 90)):
        if seconds >= limit:
            return f"{seconds / length:,.{0 if unit == 'days' else 1}f} {unit}"
    return f"{seconds:.0f} s"
