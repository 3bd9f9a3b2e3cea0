"""One validator per kind of argument, for every public entry point.

Each function returns the argument normalised (an ``int``, a ``float``, a
sorted pair ...) or raises :class:`InvalidArgument`, a ``ValueError`` (a
``TypeError`` for a value of the wrong kind) whose message names the
argument in the library's terms (``replicates``, never ``--replicates``)
and whose ``argument`` attribute lets the command line name its own flag.

Size guards live here too: a request whose arrays cannot fit in memory is
refused with the size in the message before anything is allocated.
"""

from __future__ import annotations

import errno
import math
import numbers
import os
from collections.abc import Iterator

import numpy as np

__all__ = [
    "InvalidArgument", "InvalidType", "integer", "seed", "replicates", "B", "ns", "level",
    "number", "scores", "bounds", "boolean", "choice", "string", "counts", "check_memory",
    "text_file", "unmasked", "spread", "os_reason", "MAX_SCORE", "MAX_N",
]

#: largest magnitude of a score: fourth powers of differences of scores, summed
#: over as many as 2**53 replicates (the batteries' variance standard errors),
#: stay finite: (2e70)**4 * 2**53 ~ 1e297
MAX_SCORE = 1e70
#: largest seed (seeds are mixed into 64-bit stream keys)
MAX_SEED = 2**63 - 1
#: largest budget n: some batteries hold arrays of every budget up to the largest
MAX_N = 10**7


class InvalidArgument(ValueError):
    """A bad value of a named argument.

    Parameters
    ----------
    argument : str
        The argument's name in the library (``"replicates"``).
    message : str
        What is wrong, starting with the argument's name.
    """

    def __init__(self, argument, message):
        super().__init__(message)
        self.argument = argument

    def __reduce__(self):  # pickled whole (from a worker process, say)
        return type(self), (self.argument, str(self))


class InvalidType(InvalidArgument, TypeError):
    """An argument of the wrong kind (also a ``TypeError``)."""


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def integer(value, name, *, minimum=None, maximum=None):
    """``value`` as an ``int``; integral floats such as ``1e6`` are accepted.

    Booleans, strings, non-integral and non-finite numbers are refused.
    """
    if not _is_real(value):
        raise InvalidType(name, f"{name} must be an integer, got {value!r}")
    if isinstance(value, (numbers.Integral, np.integer)):
        out = int(value)
    else:
        if not math.isfinite(value) or value != math.floor(value):
            raise InvalidArgument(name, f"{name} must be an integer, got {value!r}")
        out = int(value)
    if minimum is not None and out < minimum:
        raise InvalidArgument(name, f"{name} must be at least {minimum:,}, got {out:,}")
    if maximum is not None and out > maximum:
        raise InvalidArgument(name, f"{name} must be at most {maximum:,}, got {out:,}")
    return out


def seed(value, name="seed"):
    """A seed: an integer in ``0 .. 2**63 - 1``."""
    return integer(value, name, minimum=0, maximum=MAX_SEED)


def replicates(value, name="replicates", *, minimum=2):
    """A replicate count (at least 2: a standard error needs two)."""
    return integer(value, name, minimum=minimum, maximum=2**53)


def B(value, name="B", *, minimum=2):
    """The number of trials of a search."""
    return integer(value, name, minimum=minimum)


def unmasked(values, name):
    """``values`` without a numpy mask: a masked array must have no masked entry.

    A masked array's hidden values would otherwise be used as if they were
    data (``np.asarray`` drops the mask). They are refused, not dropped, so
    that what is computed is always what was passed: ``values.compressed()``
    leaves them out, ``values.filled(x)`` replaces them.
    """
    if not isinstance(values, np.ma.MaskedArray):
        return values
    mask = np.ma.getmaskarray(values)
    if mask.any():
        first = tuple(int(i) for i in np.unravel_index(int(np.argmax(mask)), mask.shape))
        where = first[0] if len(first) == 1 else first
        raise InvalidArgument(name, f"{name} is a masked array with {int(mask.sum())} masked "
                                    f"value(s), first at index {where}: evpsim neither uses "
                                    f"masked values nor drops them silently; leave them out "
                                    f"with .compressed() or replace them with .filled(VALUE)")
    return np.ma.getdata(values)


def ns(values, B, name="ns", *, distinct=False):
    """Budgets as an int array within ``1..B`` (``None``: all of them).

    ``B`` may be ``inf`` (no upper bound but :data:`MAX_N`); with
    ``distinct``, a budget listed twice is refused.
    """
    if values is None:
        return np.arange(1, B + 1)
    if isinstance(values, (str, bytes)):
        raise InvalidType(name, f"{name} must be integers, got {values!r}")
    if isinstance(values, (set, frozenset, dict, Iterator)):
        raise InvalidType(name, f"{name} must be a budget or a sequence of budgets (a list, a "
                                f"range or an array), got a {type(values).__name__}")
    items = np.atleast_1d(np.asarray(unmasked(values, name)))
    if items.ndim != 1 or items.size == 0:
        raise InvalidArgument(name, f"{name} must be a non-empty 1-D sequence of budgets")
    top = min(B, MAX_N)
    if items.dtype.kind in "iu":
        given = items.tolist()
    else:
        given = [integer(v, name, minimum=1) for v in items.astype(object)]
    bad = [v for v in given if not 1 <= v <= top]  # Python ints: no int64 overflow
    if bad:
        if bad[0] >= 1 and top == MAX_N:
            raise InvalidArgument(name, f"every n must be at most {MAX_N:,} (larger budgets "
                                        f"are refused), got {bad[0]:,}")
        if np.isinf(B):
            raise InvalidArgument(name, f"every n must be at least 1, got {bad[0]}")
        raise InvalidArgument(name, f"every n must lie in 1..B = 1..{B}, got {bad[0]}")
    out = np.array(given, dtype=np.int64)
    if distinct:
        uniq, counts = np.unique(out, return_counts=True)
        if (counts > 1).any():
            times = int(counts[counts > 1][0])
            raise InvalidArgument(name, f"{name} lists n = {int(uniq[counts > 1][0])} "
                                        f"{'twice' if times == 2 else f'{times} times'}: give "
                                        f"each budget once")
    return out


def spread(xs, name, what):
    """Refuse values ``xs`` whose range is positive but below ``1 / MAX_SCORE``.

    Below it fourth powers of differences underflow, and variances,
    standard errors and interval widths come out 0: a wrong number, not a
    small one. ``what`` names the values in the message.
    """
    lo, hi = float(np.min(xs)), float(np.max(xs))
    if 0 < hi - lo < 1.0 / MAX_SCORE:
        raise InvalidArgument(name, f"{what} spans {hi - lo:.3g}, from {lo:.3g} to {hi:.3g}, "
                                    f"below {1.0 / MAX_SCORE:g}, where variances and standard "
                                    f"errors underflow to 0; rescale the values (e.g. "
                                    f"multiply them by 1e300)")
    return xs


#: budgets beyond B reach at most this many times B: further, a curve is an extrapolation
#: a hundred times past the data, and the arrays of every budget grow without bound
BEYOND = 100


def n_max(value, B, name="n_max"):
    """The largest budget of curves extended beyond the B trials run: B..BEYOND * B."""
    out = integer(value, name, minimum=1)
    if not B <= out <= BEYOND * B:
        raise InvalidArgument(name, f"{name} must lie in B..{BEYOND} B = {B:,}..{BEYOND * B:,} "
                                    f"(it extends the curves beyond the B = {B:,} trials run), "
                                    f"got {out:,}")
    return out


def budgets(values, B, name="ns"):
    """Distinct budgets within 1..BEYOND * B, as :func:`ns` otherwise."""
    out = ns(values, np.inf, name, distinct=True)
    if out.max() > BEYOND * B:
        raise InvalidArgument(name, f"every n must be at most {BEYOND} B = {BEYOND * B:,} (B = "
                                    f"{B:,} trials run), got {int(out.max()):,}")
    return out


def number(value, name, *, low=None, high=None, open_low=True, open_high=True):
    """A finite real number, optionally within bounds."""
    if not _is_real(value):
        raise InvalidType(name, f"{name} must be a number, got {value!r}")
    out = float(value)
    if not math.isfinite(out):
        raise InvalidArgument(name, f"{name} must be a finite number, got {value!r}")
    below = low is not None and (out <= low if open_low else out < low)
    above = high is not None and (out >= high if open_high else out > high)
    if below or above:
        lb = "(" if open_low else "["
        rb = ")" if open_high else "]"
        lo_text = "-inf" if low is None else low
        hi_text = "inf" if high is None else high
        where = f"{lb}{lo_text}, {hi_text}{rb}"
        raise InvalidArgument(name, f"{name} must lie in {where}, got {value!r}")
    return out


def lattice_step(value, name="step"):
    """A lattice's step: a positive number, or text ``1/N`` (N a positive whole number,
    thousands separated by commas or not) or a decimal such as ``0.01``."""
    if isinstance(value, str):
        num, slash, den = value.strip().partition("/")
        den = den.replace(",", "")
        try:
            if slash and (num.strip() != "1" or not den.strip().isdigit()):
                raise ValueError(value)
            out = 1.0 / int(den) if slash else float(num)
        except (ValueError, ZeroDivisionError):
            raise InvalidArgument(name, f"{name} must be 1/N (N a positive whole number) or a "
                                        f"positive decimal such as 0.01, got {value!r}") from None
    elif _is_real(value):
        out = float(value)
    else:
        raise InvalidType(name, f"{name} must be 1/N or a positive decimal, got {value!r}")
    if not (math.isfinite(out) and out > 0):
        raise InvalidArgument(name, f"{name} must be a positive step, got {value!r}")
    return out


def lattice_points(count, step, where, name="step", *, minimum=3, maximum=100_000):
    """A lattice of ``count`` points over ``where`` (text) has between ``minimum`` and
    ``maximum`` of them: a step neither too coarse nor too fine."""
    if count < minimum:
        raise InvalidArgument(name, f"{name} {step} is too coarse: {count} lattice point"
                                    f"{'' if count == 1 else 's'} within {where}, at least "
                                    f"{minimum} needed")
    if count > maximum:
        raise InvalidArgument(name, f"{name} {step} is too fine: {count:,} lattice points "
                                    f"within {where}, at most {maximum:,}")
    return count


def level(value, name="level"):
    """A confidence level in the open interval (0, 1)."""
    return number(value, name, low=0, high=1)


def boolean(value, name):
    """``True`` or ``False`` (numpy booleans too), nothing else."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidType(name, f"{name} must be True or False, got {value!r}")
    return bool(value)


def string(value, name, *, empty=False):
    """A ``str`` (non-empty unless ``empty``)."""
    if not isinstance(value, str):
        raise InvalidType(name, f"{name} must be a string, got {value!r}")
    if not value and not empty:
        raise InvalidArgument(name, f"{name} must be a non-empty string")
    return value


def counts(values, name, *, minimum=0):
    """Whole numbers as an int64 array of any shape (integral floats accepted).

    Booleans, strings, non-integral and non-finite numbers are refused.
    """
    if isinstance(values, (str, bytes)):
        raise InvalidType(name, f"{name} must be integers, got {values!r}")
    if isinstance(values, (list, tuple)):
        for v in values:  # numpy turns [True, 2] into [1, 2]
            if isinstance(v, (bool, np.bool_)):
                integer(v, name)
    values = unmasked(values, name)
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):
        raise InvalidType(name, f"{name} must be integers, got {values!r}") from None
    if raw.dtype.kind == "O":
        for v in raw.ravel():
            integer(v, name)
        raw = raw.astype(float)
    if raw.dtype.kind not in "iuf":
        kind = {"b": "booleans", "U": "strings", "S": "strings"}.get(raw.dtype.kind, raw.dtype)
        raise InvalidType(name, f"{name} must be integers, got {kind}")
    if raw.dtype.kind == "f" and raw.size:
        bad = ~np.isfinite(raw) | (raw != np.floor(raw))
        if bad.any():
            raise InvalidArgument(name, f"{name} must be integers, got "
                                        f"{float(raw[bad].ravel()[0])!r}")
        if np.abs(raw).max() > 2**53:
            raise InvalidArgument(name, f"{name} must be integers of at most 2**53")
    out = raw.astype(np.int64)
    if minimum is not None and (out < minimum).any():
        raise InvalidArgument(name, f"{name} must be at least {minimum:,}, got "
                                    f"{int(out[out < minimum].ravel()[0]):,}")
    return out


def choice(value, name, choices):
    """One of ``choices`` (strings)."""
    if not isinstance(value, str) or value not in choices:
        raise InvalidArgument(name, f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def scores(values, name="scores", *, min_size=2):
    """Scores as a finite 1-D float array of at least ``min_size`` values.

    Strings and booleans are refused even where numpy would convert them,
    and so are magnitudes above :data:`MAX_SCORE`, whose fourth powers
    would overflow the batteries' sums, and masked arrays with masked
    entries (see :func:`unmasked`).
    """
    if isinstance(values, (str, bytes)):
        raise InvalidType(name, f"{name} must be numbers, got a string")
    if isinstance(values, (list, tuple)):
        # numpy turns [0.5, True] into [0.5, 1.0]: refuse the boolean here
        flag = next((v for v in values if isinstance(v, (bool, np.bool_))), None)
        if flag is not None:
            raise InvalidType(name, f"{name} must be numbers, found a value of type bool")
    values = unmasked(values, name)
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):
        raise InvalidType(name, f"{name} must be a sequence of numbers") from None
    if raw.dtype.kind not in "iuf":
        kind = {"b": "booleans", "U": "strings", "S": "strings", "c": "complex numbers"}.get(
            raw.dtype.kind, "non-numeric values")
        if raw.dtype.kind == "O":
            kind = next((type(v).__name__ for v in raw.ravel()
                         if not _is_real(v)), None)
            if kind is None:
                raw = raw.astype(float)
            else:
                raise InvalidType(name, f"{name} must be numbers, found a value of type {kind}")
        else:
            raise InvalidType(name, f"{name} must be numbers, got {kind}")
    xs = raw.astype(float)
    if xs.ndim != 1:
        raise InvalidArgument(name, f"{name} must be one-dimensional, got shape {xs.shape}")
    if xs.size < min_size:
        raise InvalidArgument(name, f"{name} needs at least {min_size} values, got {xs.size}")
    bad = ~np.isfinite(xs)
    if bad.any():
        raise InvalidArgument(name, f"{name} contains {int(bad.sum())} NaN or infinite "
                                    f"value(s), first at index {int(np.argmax(bad))}")
    big = np.abs(xs) > MAX_SCORE
    if big.any():
        first = int(np.argmax(big))
        raise InvalidArgument(name, f"{name} has a value of magnitude {abs(xs[first]):.3g} at "
                                    f"index {first}; scores must lie within "
                                    f"+-{MAX_SCORE:.0e} (their fourth powers must be finite)")
    return xs


def bounds(value, lo, hi, what, name="bounds"):
    """The known range of the scores: ``value`` if given, else ``(lo, hi)``.

    A given range must be finite, ``lo < hi``, and contain ``[lo, hi]``,
    the range ``what`` occupies.
    """
    if value is None:
        return float(lo), float(hi)
    if isinstance(value, (str, bytes)):
        raise InvalidType(name, f"{name} must be a pair (lo, hi) of numbers, got {value!r}")
    try:
        pair = list(value)
    except TypeError:
        raise InvalidType(name, f"{name} must be a pair (lo, hi) of numbers, got {value!r}") \
            from None
    if len(pair) != 2 or not all(_is_real(b) for b in pair):
        raise InvalidArgument(name, f"{name} must be a pair (lo, hi) of numbers, got {value!r}")
    blo, bhi = (float(b) for b in pair)
    if not (math.isfinite(blo) and math.isfinite(bhi) and blo < bhi):
        raise InvalidArgument(name, f"{name} must be finite with lo < hi, got {value!r}")
    if blo > lo or bhi < hi:
        raise InvalidArgument(name, f"{name} ({blo:g}, {bhi:g}) must contain {what} "
                                    f"[{lo:g}, {hi:g}]")
    return blo, bhi


def text_file(path, name="path"):
    """The text of a score file, or an error saying why it cannot be read."""
    import stat
    from pathlib import Path

    if not isinstance(path, (str, os.PathLike)):
        raise InvalidType(name, f"{name} must be a file name or path, got {path!r}")
    if not str(path):
        raise InvalidArgument(name, f"{name} is empty: name a file of scores")
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise InvalidArgument(name, f"cannot read scores: no such file {str(p)!r}") from None
    except OSError as err:
        raise InvalidArgument(name, f"cannot read scores from {str(p)!r}: "
                                    f"{os_reason(err)}") from None
    if stat.S_ISDIR(mode):
        raise InvalidArgument(name, f"cannot read scores: {str(p)!r} is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise InvalidArgument(name, f"cannot read scores: {str(p)!r} is not a regular file "
                                    f"(a pipe, socket or device)")
    try:
        # UTF-8, with or without the byte-order mark that spreadsheets write
        return p.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidArgument(name, f"cannot read scores from {str(p)!r}: not a text file "
                                    f"(UTF-8)") from None
    except OSError as err:
        raise InvalidArgument(name, f"cannot read scores from {str(p)!r}: "
                                    f"{os_reason(err)}") from None


#: operating-system errors in plain words (others keep the system's own)
_OS_REASONS = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "the file system is read-only",
    errno.ENOSPC: "no space left on the disk",
    errno.EDQUOT: "disk quota exceeded",
    errno.ENAMETOOLONG: "the name is too long",
    errno.EISDIR: "it is a folder",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
}


def os_reason(err, creating=False):
    """What an ``OSError`` means, in a few words for a message.

    Parameters
    ----------
    err : OSError
    creating : bool
        The error came from creating a file in a folder known to exist:
        a missing file there (``ENOENT``, as in ``/proc``) or an
        unsupported operation means the folder takes no new files.

    Examples
    --------
    >>> os_reason(PermissionError(13, "Permission denied"))
    'permission denied'
    >>> os_reason(FileNotFoundError(2, "No such file or directory"), creating=True)
    'it takes no new files'
    """
    if creating and err.errno in (errno.ENOENT, errno.EOPNOTSUPP, errno.EINVAL):
        return "it takes no new files"
    if err.errno in _OS_REASONS:
        return _OS_REASONS[err.errno]
    text = err.strerror or str(err) or type(err).__name__
    return text[:1].lower() + text[1:]


def file_score(value, where, what, shown=None):
    """A score read from a file: a finite number within :data:`MAX_SCORE`, as a float.

    Parameters
    ----------
    value : object
        The value read (a float, or what a JSON field held).
    where : str
        ``"'FILE' line N"``, for the message.
    what : str
        What the value is (``"score"``, a JSON field's name).
    shown : str, optional
        The value as the file wrote it (default ``repr(value)``).
    """
    shown = repr(value) if shown is None else shown
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise InvalidArgument("path", f"{where}: {what} is {shown}, not a finite number")
    if abs(value) > MAX_SCORE:
        raise InvalidArgument("path", f"{where}: {what} is {shown}, beyond +-{MAX_SCORE:.0e}, "
                                      f"the largest magnitude evpsim accepts")
    return float(value)


def _memory_bytes():
    """Memory this process may use: what the machine has available."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def check_memory(nbytes, what, name):
    """Refuse a request whose arrays need more than half the available memory."""
    limit = _memory_bytes() // 2
    if nbytes > limit:
        raise InvalidArgument(name, f"{what} needs about {_size(nbytes)} of memory, more than "
                                    f"the {_size(limit)} this machine can spare; reduce {name}")


def _size(nbytes):
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if nbytes < 1024 or unit == "PiB":
            return f"{nbytes:,.0f} {unit}" if unit == "bytes" else f"{nbytes:,.1f} {unit}"
        nbytes /= 1024
