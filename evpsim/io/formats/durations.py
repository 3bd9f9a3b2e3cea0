"""Durations of trials as files write them: seconds, clock times, ISO 8601, timestamps.

A time field (``time_field`` of :func:`evpsim.read_searches`) holds each
trial's duration: seconds, AllenNLP's ``str(timedelta)`` (``H:MM:SS``,
``H:MM:SS.ffffff``, ``1 day, 2:03:04.5``), pandas' ``str(Timedelta)``
(``0 days 00:10:00``) or ISO 8601's ``PnDTnHnMnS`` (``PT10M``); a list of
them, one per checkpoint, reduced by one of :data:`TIME_REDUCTIONS`; or two
fields ``START,END`` holding timestamps (Unix seconds or ISO 8601), the
duration between them.
"""

from __future__ import annotations

import datetime
import math
import re

import numpy as np

from ... import _validate as check
from ..records import MISSING, is_number, show

__all__ = ["TIME_REDUCTIONS", "seconds", "time_keys", "duration"]

#: ways to make one duration of a time field holding a list (one per checkpoint)
TIME_REDUCTIONS = ("last", "sum", "max")
# str(datetime.timedelta): "0:03:24", "0:03:24.374862", "1 day, 2:03:04.500000"; pandas'
# str(Timedelta): "0 days 00:10:00", "1 days 02:03:04.500000"
_TIMEDELTA = re.compile(r"(?:(\d+) days?,? )?(\d+):([0-5]\d):([0-5]\d(?:\.\d+)?)")
# ISO 8601 durations of days and times: "PT10M", "P1DT2H3M4.5S" (not "P" or "PT" alone)
_ISO_DURATION = re.compile(r"P(?=\d|T\d)(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?",
                           re.IGNORECASE)


def seconds(value, where, what, how=None, argument="time_field"):
    """A duration in seconds: a number, AllenNLP's ``str(timedelta)``, pandas'
    ``str(Timedelta)`` or ISO 8601's ``PnDTnHnMnS``, or a list of them reduced by ``how``
    (see ``time_reduce``); NaN when missing. ``argument`` is blamed for a value that is
    no duration."""
    if value is MISSING or value is None:
        return math.nan
    if isinstance(value, list):
        if how is None:
            raise check.InvalidArgument("time_reduce", f"time_reduce is needed: {where}: {what} "
                                                       f"holds a list of {len(value)} times (one "
                                                       f"per checkpoint); choose "
                                                       f"{', '.join(TIME_REDUCTIONS)}")
        times = [seconds(v, where, what, argument=argument) for v in value]
        if not times or all(math.isnan(t) for t in times):
            return math.nan
        return float(times[-1] if how == "last" else np.nansum(times) if how == "sum"
                     else np.nanmax(times))
    number = value
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return math.nan
        match = _TIMEDELTA.fullmatch(text) or _ISO_DURATION.fullmatch(text)
        if match:
            days, hours, minutes, secs = match.groups()
            return (int(days or 0) * 86400 + int(hours or 0) * 3600 + int(minutes or 0) * 60
                    + float(secs or 0))
        try:
            number = float(text)
        except ValueError:
            number = None
    if is_number(number) and math.isnan(number):
        return math.nan
    if not is_number(number) or not 0 <= number < math.inf:
        raise check.InvalidArgument(argument, f"{where}: {what} is {show(value)}, not a "
                                              f"duration (seconds, H:MM:SS[.ffffff] after "
                                              f"'N days, ' or 'N days ' beyond a day, or ISO "
                                              f"8601's PnDTnHnMnS)")
    return float(number)


def time_keys(time_field):
    """The keys of a time field: one (a duration), or two timestamps (``START,END``)."""
    return [key.strip() for key in str(time_field).split(",")] if "," in str(time_field) \
        else [time_field]


def duration(values, where, what, how=None, argument="time_field"):
    """Seconds of a duration (one value, see :func:`seconds`) or between two timestamps;
    ``argument`` is blamed for a value that is no duration."""
    if len(values) == 1:
        return seconds(values[0], where, what, how, argument)
    if len(values) != 2:
        raise check.InvalidArgument("time_field", f"time_field {what!r} names {len(values)} "
                                                  f"fields: give one (a duration) or two "
                                                  f"(START,END timestamps)")
    start, end = (_instant(v, where, what) for v in values)
    if end < start:
        raise check.InvalidArgument("time_field", f"{where}: {what} ends before it starts")
    return end - start


def _instant(value, where, what):
    """A timestamp in seconds: a number (Unix time) or ISO 8601 text; NaN when missing."""
    if value is MISSING or value is None or (isinstance(value, str) and not value.strip()):
        return math.nan
    if is_number(value):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return float(text)
        except ValueError:
            pass
        try:
            return datetime.datetime.fromisoformat(re.sub(r"Z$", "+00:00", text)).timestamp()
        except ValueError:
            pass
    raise check.InvalidArgument("time_field", f"{where}: {what} holds {show(value)}, not a "
                                              f"timestamp (Unix seconds, or ISO 8601 such as "
                                              f"2026-11-20T10:00:00Z)")
