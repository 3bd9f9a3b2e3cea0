"""Plain text: one score per line, blank lines and ``#`` comments skipped.

A line of text, like a CSV cell (:mod:`.csvfiles`), holds one score; a
line that is empty, not a number or not finite is a record dropped,
counted by reason (:mod:`evpsim.io.records`).
"""

from __future__ import annotations

import math

from ... import _validate as check
from ..records import DIVERGED, EMPTY_CELL, NOT_NUMBER, Record

__all__ = ["content_lines", "text_score", "text_records"]


def content_lines(text):
    """``(line number, line)`` of the lines of ``text`` that are neither blank nor a
    ``#`` comment."""
    return [(i + 1, ln) for i, ln in enumerate(text.splitlines())
            if ln.strip() and not ln.lstrip().startswith("#")]


def text_score(record, raw, name):
    """The score of a line of text or a CSV cell."""
    text = raw.strip()
    if not text:
        record.drop(EMPTY_CELL, "the score's cell is empty")
        return
    try:
        value = float(text)
    except ValueError:
        hint = " (CSV fields are separated by commas; tab-separated files end in .tsv)" \
            if any(c in text for c in ";\t") else ""
        record.drop(NOT_NUMBER, f"{text!r} is not a number{hint}")
        return
    if not math.isfinite(value):
        record.drop(DIVERGED, f"score is {text!r}, not a finite number")
        return
    record.score = check.file_score(value, f"{name} line {record.line}", "score", repr(text))


def text_records(f):
    """The records of a plain-text file ``f`` (:class:`~evpsim.io.records.File`), one per
    line holding a score."""
    records = []
    for line, text in content_lines(f.text):
        record = Record(line)
        text_score(record, text, f.name)
        records.append(record)
    return records
