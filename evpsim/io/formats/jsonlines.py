"""JSON Lines: one trial per line, the score in a field reached by a dotted path.

This covers allentune's ``results.jsonl`` (keys flattened by pandas, such
as ``model.encoder.type``; several models told apart by the ``model``
field; ``training_duration`` written by AllenNLP as ``H:MM:SS.ffffff``)
and opda's learning curves (a list of checkpoints per trial, reduced to
one score by one of :data:`REDUCTIONS`; a run that diverged flagged by
``nan_train_loss``). A dotted path is read by :func:`lookup`.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

from ... import _validate as check
from ..records import (DIVERGED, EMPTY_CURVE, FIELD_MISSING, MISSING, MODEL_FIELD, NOT_JSON,
                       NOT_NUMBER, NOT_OBJECT, Record, is_number, show, too_many_models)
from ..trials import DIVERGED_FLAGS, STATE_FIELDS, state_flag, state_kind
from .durations import duration, time_keys

__all__ = ["JSONL_SUFFIXES", "REDUCTIONS", "jsonl_records", "lookup", "path_parts",
           "reduce_curve"]

JSONL_SUFFIXES = (".jsonl", ".ndjson")
#: ways to make one score of a learning curve (a field holding a list)
REDUCTIONS = ("max", "min", "last")
_INDEX = re.compile(r"-?\d+")
_JSON_TYPES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}


def jsonl_records(f, field, group, reduce, time_field, strict, time_reduce=None,
                  run_field=None):
    """The records of a JSON Lines file ``f`` (:class:`~evpsim.io.records.File`).

    ``field``, ``group``, ``reduce``, ``time_field``, ``time_reduce`` and
    ``run_field`` are as in :func:`evpsim.read_searches`; ``strict`` says a
    reader of one model's scores is asking (in the message of a file holding
    several models).
    """
    parts = path_parts(field, "field")
    # the fields that tell a record's model and its run: (attribute, path, key, argument, what)
    keys = [(attr, path_parts(key, name), key, name, what)
            for attr, key, name, what in (("group", group, "group", "model"),
                                          ("run", run_field, "run_field", "run"))
            if key is not None]
    time_parts = None if time_field is None else [path_parts(key, "time_field")
                                                  for key in time_keys(time_field)]
    records, first, models = [], None, {}
    # does some record have the field (beyond an empty list), the group, the time?
    seen = {"field": False, "group": False, "run_field": False, "time_field": False}
    for line, text in enumerate(f.text.splitlines(), start=1):
        if not text.strip():
            continue
        record = Record(line)
        records.append(record)
        obj = _json_object(record, text)
        if obj is None:
            if keys:  # the record cannot be counted against any model, or run
                raise check.InvalidArgument("path", f"{f.name} {record.detail}, so its "
                                                    f"{keys[0][2]!r} is unknown: repair or "
                                                    f"remove the line")
            continue
        first = obj if first is None else first
        if group is None and isinstance(obj.get(MODEL_FIELD), str):
            models[obj[MODEL_FIELD]] = True
        for attr, key_parts, _, name, _ in keys:
            setattr(record, attr, lookup(obj, key_parts))
            seen[name] |= getattr(record, attr) is not MISSING
        if time_parts is not None:
            values = [lookup(obj, parts) for parts in time_parts]
            seen["time_field"] |= all(value is not MISSING for value in values)
            record.duration = duration(values, f"{f.name} line {line}", time_field, time_reduce)
        value = lookup(obj, parts)
        seen["field"] |= value is not MISSING and value != []
        _json_score(record, value, field, reduce, f.name, keys=obj)
        record.flag = next((flag for flag in DIVERGED_FLAGS if obj.get(flag) is True), "") \
            or state_flag(obj.items())
        record.state = next((state_kind(v) for k, v in obj.items()
                             if isinstance(k, str) and k.lower() in STATE_FIELDS), None)
    if len(models) > 1:
        raise too_many_models(f, list(models), "field", strict)
    # a key that no record has is a typo; one that some records lack is counted
    for name, value, asked in (("field", field, any(r.reason == FIELD_MISSING for r in records)),
                               ("group", group, group is not None),
                               ("run_field", run_field, run_field is not None),
                               ("time_field", time_field, time_field is not None)):
        if asked and first is not None and not seen[name]:
            raise check.InvalidArgument(name, f"{name} {value!r} is in no record of {f.name}; "
                                              f"the first record's keys: {_keys(first)}")
    for attr, _, key, name, what in keys:
        for record in records:
            setattr(record, attr, _key_name(record, attr, key, name, what, f.name))
    return records


def _json_object(record, text):
    """The JSON object of a line, or None (the record dropped, saying why)."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        record.drop(NOT_JSON, f"not JSON ({err.msg})")
        return None
    except RecursionError:
        record.drop(NOT_JSON, "JSON nested too deeply")
        return None
    if not isinstance(obj, dict):
        record.drop(NOT_OBJECT, f"the line is a JSON {_JSON_TYPES.get(type(obj))}, not an "
                                f"object")
        return None
    return obj


def _key_name(record, attr, key, argument, what, name):
    """The model (``attr`` "group") or run (``attr`` "run") a record belongs to: the value of
    its field ``key`` as a string."""
    value = getattr(record, attr)
    if value is MISSING or value is None or isinstance(value, (dict, list)):
        shown = "missing" if value is MISSING else show(value)
        raise check.InvalidArgument(argument, f"{name} line {record.line}: {key!r} is {shown}, "
                                              f"so the record's {what} is unknown")
    return value if isinstance(value, str) else json.dumps(value)


def lookup(node, parts):
    """The value at a dotted path (see :func:`evpsim.read_searches`), or ``MISSING``.

    At an array not indexed by an integer the rest of the path is mapped
    over the elements (objects only, unless the part is ``*``), giving a
    list; an element that lacks it is None there.
    """
    if not parts:
        return node
    if isinstance(node, dict):
        for cut in range(len(parts), 0, -1):
            key = ".".join(parts[:cut])
            if key in node:
                found = lookup(node[key], parts[cut:])
                if found is not MISSING:
                    return found
        return MISSING
    if isinstance(node, list):
        head = parts[0]
        if _INDEX.fullmatch(head):
            i = int(head)
            return lookup(node[i], parts[1:]) if -len(node) <= i < len(node) else MISSING
        rest = parts[1:] if head == "*" else parts
        items = [lookup(item, rest) if head == "*" or isinstance(item, dict) else MISSING
                 for item in node]
        if items and all(item is MISSING for item in items):
            return MISSING
        return [None if item is MISSING else item for item in items]
    return MISSING


def _json_score(record, value, field, reduce, name, keys):
    """The score of a JSON record, or why it is dropped."""
    where = f"{name} line {record.line}"
    if value is MISSING:
        record.drop(FIELD_MISSING, f"no field {field!r}; keys: {_keys(keys)}", "field")
    elif isinstance(value, list):
        if reduce is None:
            raise check.InvalidArgument("reduce", f"reduce is needed: {where}: {field} holds a "
                                                  f"list of {len(value)} checkpoints (a learning "
                                                  f"curve); choose max, min or last")
        reduce_curve(record, value, field, reduce, where)
    elif reduce is not None and value is not None:
        raise check.InvalidArgument("reduce", f"reduce applies to a field holding a list (a "
                                              f"learning curve), but {where}: {field} is "
                                              f"{show(value)}")
    elif value is None or (isinstance(value, float) and not math.isfinite(value)):
        record.drop(DIVERGED, f"{field} is {value!r}, not a finite number")
    elif not is_number(value):
        record.drop(NOT_NUMBER, f"{field} is {show(value)}, not a finite number")
    else:
        record.score = check.file_score(value, where, field)


def reduce_curve(record, values, field, how, where):
    """One score from a learning curve: its max, min or last checkpoint."""
    points = []
    for value in values:
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            points.append(math.nan)
        elif not is_number(value):
            hint = f"; reach into lists with '*' (e.g. {field}.*.1)" \
                if isinstance(value, list) else ""
            record.drop(NOT_NUMBER, f"{field} holds {show(value)} where a number should "
                                    f"be{hint}")
            return
        else:
            points.append(check.file_score(value, where, f"a checkpoint of {field}"))
    if all(math.isnan(p) for p in points):
        record.drop(EMPTY_CURVE, f"{field} has no finite checkpoint ({len(points)} in all)")
    elif how == "last":
        if math.isnan(points[-1]):
            record.drop(DIVERGED, f"the last checkpoint of {field} is NaN or null")
        else:
            record.score = points[-1]
    else:
        record.score = float(np.nanmax(points) if how == "max" else np.nanmin(points))


def path_parts(value, name):
    """A dotted path's parts; the argument's check (``name`` is the argument)."""
    if not isinstance(value, str) or not value:
        raise check.InvalidArgument(name, f"{name} must be a non-empty key, got {value!r}")
    parts = value.split(".")
    if not all(parts):
        raise check.InvalidArgument(name, f"{name} {value!r} has an empty part (two dots, or a "
                                          f"dot at an end)")
    return parts


def _keys(obj):
    keys = list(obj)
    return ", ".join(keys[:40]) + (", ..." if len(keys) > 40 else "") if keys else "none"
