"""The output-schema reference, generated from real runs.

Every Dataset evpsim writes is described in ``docs/reference/schema.json``,
which this module makes by running each one small (the commands with
``--out``, the Python functions, the reproductions at reduced size), writing
it as netCDF and reading it back: the names of its dimensions, coordinates,
variables and attributes, each variable's dimensions, type, ``long_name`` and
``units``. What a name means where the run does not say (no ``long_name``)
is written by hand in ``docs/reference/schema_notes.yaml``. The Sphinx
directive ``evpsim-schema`` renders both; ``tests/test_docs.py`` runs the
small runs again and fails when the JSON no longer matches them.

Regenerate after changing what a Dataset holds::

    python docs/_ext/evpsim_schema.py                     # batteries, curve, sweeps, fits
    python docs/_ext/evpsim_schema.py --reproductions     # also the papers (~2 min)
    python docs/_ext/evpsim_schema.py --reproductions --data DIR   # with the SST runs

and describe in ``schema_notes.yaml`` the names the test reports.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent
SCHEMA_JSON = DOCS / "reference" / "schema.json"
NOTES_YAML = DOCS / "reference" / "schema_notes.yaml"
SECTIONS = ("dims", "coords", "data_vars", "attrs")

#: groups of names shared by many Datasets, documented once
GROUPS = {
    "provenance": ["evpsim_version", "numpy_version", "numba_version", "scipy_version",
                   "xarray_version", "python_version", "numba_threads", "created_utc",
                   "command", "platform"],
}


# --------------------------------------------------------------------------- runs

def _cli(args, out):
    """Run ``evpsim ARGS --out OUT`` in this process, quietly; return the Dataset written."""
    from evpsim.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        status = main([*args, "--out", str(out)])
    if status:
        raise RuntimeError(f"evpsim {' '.join(args)} exited with {status}")
    return _read(out)


def _read(path):
    from evpsim.io.results import read_netcdf

    return read_netcdf(path)


def _roundtrip(ds, folder, name):
    """``ds`` as a reader of the file gets it back: written as netCDF and read."""
    from evpsim.io.results import write_netcdf

    path = Path(folder) / f"{name}.nc"
    write_netcdf(ds, path)
    return _read(path)


def _score_files(folder):
    """Two small results files with a time field, as users have them (JSON Lines)."""
    path = Path(folder) / "results.jsonl"
    rows = []
    for i in range(12):
        rows.append({"model": "A", "acc": 0.70 + 0.01 * ((7 * i) % 11), "seconds": 60 + i})
        rows.append({"model": "B", "acc": 0.66 + 0.015 * ((5 * i) % 9), "seconds": 90 + i})
    rows.append({"model": "B", "acc": None, "seconds": 30})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _runs_file(folder):
    """A search run with two seeds for each of two models, a trial per line (JSON Lines)."""
    path = Path(folder) / "runs.jsonl"
    rows = [{"model": m, "seed": seed, "acc": 0.60 + 0.01 * ((7 * i + 3 * seed + k) % 11)}
            for k, m in enumerate(("A", "B")) for seed in range(2) for i in range(6)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _optuna_journal(folder):
    """An Optuna journal written by Optuna: studies tpe-0, tpe-1 (TPESampler) and random-2,
    random-3 (RandomSampler), 6 trials each, each saying its sampler (made once)."""
    import optuna

    path = Path(folder) / "runs.log"
    if path.is_file():
        return path
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    storage = optuna.storages.JournalStorage(
        optuna.storages.journal.JournalFileBackend(str(path)))
    for name, sampler, seed in (("tpe", optuna.samplers.TPESampler, 0),
                                ("tpe", optuna.samplers.TPESampler, 1),
                                ("random", optuna.samplers.RandomSampler, 2),
                                ("random", optuna.samplers.RandomSampler, 3)):
        study = optuna.create_study(study_name=f"{name}-{seed}", storage=storage,
                                    direction="maximize", sampler=sampler(seed=seed))
        study.set_user_attr("sampler", sampler.__name__)
        study.optimize(lambda t: 0.5 + 0.4 * t.suggest_float("x", 0, 1), n_trials=6)
    return path


def battery_runs(tmp):
    """``{kind: {variant: Dataset}}`` of the batteries, ``curve``, sweeps and KDE fits."""
    import evpsim

    tmp = Path(tmp)
    t = iter(range(10_000))

    def out():
        return tmp / f"out{next(t)}.nc"

    def sweep_cli(args):
        path = out()
        return _cli(["sweep", *args, "--store", str(path) + ".cells"], path)

    results = Path(_score_files(tmp))
    runs = {
        "bias": {
            "defaults": lambda: _cli(["bias", "--dist", "normal", "--B", "6",
                                     "--replicates", "2000"], out()),
            "--method exact": lambda: _cli(["bias", "--B", "6", "--method", "exact"], out()),
            "--method mc": lambda: _cli(["bias", "--B", "6", "--method", "mc",
                                         "--replicates", "2000"], out()),
            "--curve median": lambda: _cli(["bias", "--B", "6", "--curve", "median",
                                            "--replicates", "2000"], out()),
        },
        "coverage": {
            "defaults": lambda: _cli(["coverage", "--dist", "normal", "--B", "6",
                                     "--replicates", "20", "--resamples", "100"], out()),
            "--curve median": lambda: _cli(["coverage", "--B", "6", "--curve", "median",
                                            "--replicates", "20", "--resamples", "100"],
                                           out()),
        },
        "falseconc": {
            "defaults": lambda: _cli(["falseconc", "--dist", "normal", "--B", "6",
                                     "--replicates", "2000"], out()),
            "--curve median": lambda: _cli(["falseconc", "--B", "6", "--curve", "median",
                                            "--replicates", "2000"], out()),
            "--truth-method mc": lambda: _cli(["falseconc", "--B", "6", "--truth-method", "mc",
                                               "--truth-replicates", "2000",
                                               "--replicates", "2000"], out()),
        },
        "compare_curves": {
            "defaults": lambda: _cli(["compare", "--a", "normal", "--b", "tang-small",
                                     "--B", "6", "--replicates", "2000"], out()),
            "--pool": lambda: _cli(["compare", "--a", "data:reuters-mlp",
                                    "--b", "data:reuters-lstm", "--B", "6", "--pool",
                                    "--replicates", "2000"], out()),
            "--curve median": lambda: _cli(["compare", "--a", "normal", "--b", "tang-small",
                                            "--B", "6", "--curve", "median",
                                            "--replicates", "2000"], out()),
            "--truth-method mc": lambda: _cli(["compare", "--a", "normal", "--b", "tang-small",
                                               "--B", "6", "--truth-method", "mc",
                                               "--truth-replicates", "2000",
                                               "--replicates", "2000"], out()),
        },
        "comparison_errors": {
            "defaults": lambda: _cli(["compare", "--a", "normal", "--b", "tang-small",
                                     "--B", "5:6", "--replicates", "2000"], out()),
            "--pool": lambda: _cli(["compare", "--a", "data:reuters-mlp",
                                    "--b", "data:reuters-lstm", "--B", "5:6", "--pool",
                                    "--replicates", "2000"], out()),
            "--curve median": lambda: _cli(["compare", "--a", "normal", "--b", "tang-small",
                                            "--B", "5:6", "--curve", "median",
                                            "--replicates", "2000"], out()),
            "--every-n": lambda: _cli(["compare", "--a", "normal", "--b", "tang-small",
                                       "--B", "5:6", "--every-n", "--replicates", "2000"],
                                      out()),
            "--truth-method mc": lambda: _cli(["compare", "--a", "normal", "--b", "tang-small",
                                               "--B", "5:6", "--truth-method", "mc",
                                               "--truth-replicates", "2000",
                                               "--replicates", "2000"], out()),
        },
        "curve": {
            "defaults": lambda: _cli(["curve", str(results), "--field", "acc",
                                     "--group", "model", "--resamples", "200"], out()),
            "python": lambda: _roundtrip(evpsim.curve(
                {"A": [0.71, 0.74, 0.69, 0.80, 0.77], "B": [0.70, 0.72, 0.75, 0.73, 0.74]},
                resamples=200), tmp, "curve"),
            "one model": lambda: _roundtrip(evpsim.curve(
                [0.71, 0.74, 0.69, 0.80, 0.77], resamples=200), tmp, "curve1"),
            "--target --time-field --bounds": lambda: _cli(
                ["curve", str(results), "--field", "acc", "--group", "model",
                 "--time-field", "seconds", "--target", "0.75", "--bounds", "0,1",
                 "--ci-methods", "percentile,dkw", "--resamples", "200"], out()),
            "--check": lambda: _cli(
                ["curve", str(results), "--field", "acc", "--group", "model",
                 "--bounds", "0,1", "--resamples", "200", "--check",
                 "--check-replicates", "20", "--check-resamples", "50"], out()),
            "--check --curve median": lambda: _cli(
                ["curve", str(results), "--field", "acc", "--group", "model",
                 "--bounds", "0,1", "--resamples", "200", "--check", "--curve", "median",
                 "--check-replicates", "20", "--check-resamples", "50"], out()),
            "a random study beside an adaptive one": lambda: _cli(
                ["curve", f"optuna:{_optuna_journal(tmp)}", "--study", "random-2,tpe-0",
                 "--resamples", "200"], out()),
        },
        "runs_curve": {
            "python": lambda: _roundtrip(evpsim.runs_curve(
                {"A": [[0.70, 0.80, 0.75], [0.60, 0.85, 0.90], [0.72, 0.74, 0.80]],
                 "B": [[0.65, 0.70, 0.72], [0.70, 0.71, 0.73], [0.66, 0.69, 0.75]]},
                random_search="B", resamples=200), tmp, "runs"),
            "one search": lambda: _roundtrip(evpsim.runs_curve(
                [[0.70, 0.80, 0.75], [0.60, 0.85, 0.90]], resamples=200), tmp, "runs1"),
            "--runs --run-field": lambda: _cli(
                ["curve", str(_runs_file(tmp)), "--field", "acc", "--group", "model",
                 "--run-field", "seed", "--runs", "--resamples", "200"], out()),
            "--runs (Optuna studies)": lambda: _cli(
                ["curve", f"optuna:{_optuna_journal(tmp)}", "--study", "tpe-*,random-*",
                 "--runs", "--resamples", "200"], out()),
        },
        "observed_curves": {
            "one adaptive study (curve)": lambda: _cli(
                ["curve", f"optuna:{_optuna_journal(tmp)}", "--study", "tpe-0"], out()),
        },
        "self_check": {
            "python": lambda: _roundtrip(evpsim.self_check(
                {"A": [0.71, 0.74, 0.69, 0.80, 0.77, 0.72], "B": [0.70, 0.72, 0.75, 0.73,
                                                                   0.74, 0.71]},
                bounds=(0, 1), replicates=20, resamples=50), tmp, "check"),
            "one model": lambda: _roundtrip(evpsim.self_check(
                [0.71, 0.74, 0.69, 0.80, 0.77, 0.72], bounds=(0, 1), replicates=20,
                resamples=50), tmp, "check1"),
        },
        "bootstrap_intervals": {
            "python": lambda: _roundtrip(evpsim.bootstrap_intervals(
                [0.71, 0.74, 0.69, 0.80, 0.77], "U,V", ci_methods="percentile,bca,dkw",
                bounds=(0, 1), resamples=200), tmp, "bi"),
        },
        "sweep_bias": {
            "defaults": lambda: sweep_cli(["bias", "--dist", "normal,tang-small",
                                          "--B", "5,6", "--method", "exact"]),
        },
        "sweep_coverage": {
            "defaults": lambda: sweep_cli(["coverage", "--dist", "normal,tang-small",
                                          "--B", "5,6", "--estimators", "V",
                                          "--ci-methods", "percentile",
                                          "--replicates", "10", "--resamples", "50"]),
        },
        "sweep_falseconc": {
            "defaults": lambda: sweep_cli(["falseconc", "--dist", "normal,tang-small",
                                          "--B", "5,6", "--replicates", "1000"]),
        },
        "sweep_compare": {
            "defaults": lambda: sweep_cli(["compare", "--a", "normal", "--b",
                                          "tang-small,tang-big", "--B", "5,6",
                                          "--replicates", "1000"]),
        },
        "leaderboard": {
            "defaults": lambda: _leaderboard(tmp / f"lb{next(t)}"),
        },
        "kde_fit": {
            "defaults": lambda: _cli(["fit-kde", "data:reuters-lstm", "--name", "x"], out()),
            "--construction centered --bandwidth cv": lambda: _cli(
                ["fit-kde", "data:reuters-lstm", "--name", "y", "--construction", "centered",
                 "--bounds", "0,1", "--bandwidth", "cv"], out()),
            "shipped (kde:reuters-lstm)": lambda: _read(_shipped_fit("reuters-lstm")),
        },
    }
    return runs


def _leaderboard(folder):
    """``evpsim leaderboard`` on a one-truth grid, both curves; its ``leaderboard.nc``."""
    from evpsim.cli import main

    args = ["leaderboard", "--truths", "normal", "--B", "10", "--curves", "mean,median",
            "--estimators", "V,quantile", "--ci-methods", "percentile", "--replicates", "200",
            "--samples", "20", "--resamples", "50", "--quiet", "--out", str(folder)]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        status = main(args)
    if status:
        raise RuntimeError(f"evpsim {' '.join(args)} exited with {status}")
    return _read(Path(folder) / "leaderboard.nc")


def _shipped_fit(name):
    from evpsim.io.shipped import package_data

    return package_data("kde_fits", f"{name}.nc")


#: the reproductions' files: kind -> (paper, files)
REPRODUCTIONS = {
    "tang2020_fig1": ("tang2020", ["tang2020_fig1_reuters.nc", "tang2020_fig1_sst2.nc"]),
    "tang2020_fig2": ("tang2020", ["tang2020_fig2.nc"]),
    "tang2020_fig3": ("tang2020", ["tang2020_fig3.nc"]),
    "tang2020_fig4": ("tang2020", ["tang2020_fig4.nc"]),
    "tang2020_fig5": ("tang2020", ["tang2020_fig5.nc"]),
    "dodge2021_fig1": ("dodge2021", ["dodge2021_fig1.nc"]),
    "dodge2021_fig2": ("dodge2021", ["dodge2021_fig2.nc"]),
    "dodge2021_fig3": ("dodge2021", ["dodge2021_fig3.nc"]),
    "dodge2019_fig1": ("dodge2019", ["dodge2019_fig1.nc"]),
    "dodge2019_fig2": ("dodge2019", ["dodge2019_fig2.nc"]),
    "kde_validity": ("kde-validity", ["kde_validity.nc"]),
    "intervals": ("intervals", ["intervals.nc"]),
}


def reproduction_runs(tmp, data=None):
    """``{kind: {variant: Dataset}}`` of every reproduction's files, at reduced size.

    Variants: ``installed`` (a fresh install: the shipped searches and fits) and,
    with ``data`` (a folder holding the SST runs), ``--data DIR``.
    """
    from evpsim.reproduce import reproduce

    tmp = Path(tmp)
    setups = {"installed": None}
    if data:
        setups["--data DIR"] = data
    runs = {}
    for paper in dict.fromkeys(p for p, _ in REPRODUCTIONS.values()):
        for variant, folder in setups.items():
            out = tmp / f"{paper}-{len(runs)}-{variant.strip('-').replace(' ', '')}"
            env = {"EVPSIM_DATA": ""} if folder is None else {}
            with _environ(env), contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                reproduce(paper, out, data=folder, quick=True)
            for kind, (p, files) in REPRODUCTIONS.items():
                if p != paper:
                    continue
                for name in files:
                    if (out / name).is_file():
                        label = variant if len(files) == 1 else f"{variant}: {name}"
                        runs.setdefault(kind, {})[label] = _read(out / name)
    return runs


@contextlib.contextmanager
def _environ(changes):
    old = {k: os.environ.get(k) for k in changes}
    try:
        for k, v in changes.items():
            if v:
                os.environ[k] = v
            else:
                os.environ.pop(k, None)
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# --------------------------------------------------------------------------- structure

def _kind(dtype):
    return {"f": "float", "i": "int", "u": "int", "b": "bool", "U": "str", "S": "str",
            "O": "str", "M": "datetime", "m": "timedelta"}.get(dtype.kind, str(dtype))


def _attr_type(value):
    import numpy as np

    if isinstance(value, str):
        return "str"
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "list"
    return type(value).__name__


def structure(ds):
    """The names of ``ds`` and what the file says of each."""

    def var(v):
        info = {"dims": list(v.dims), "type": _kind(v.dtype)}
        for key in ("long_name", "units"):
            if key in v.attrs:
                info[key] = str(v.attrs[key])
        return info

    return {
        "dims": sorted(ds.sizes),
        "coords": {k: var(v) for k, v in sorted(ds.coords.items())},
        "data_vars": {k: var(v) for k, v in sorted(ds.data_vars.items())},
        "attrs": {k: _attr_type(v) for k, v in sorted(ds.attrs.items())},
    }


def generate(reproductions=False, data=None, only=None, verbose=False, first=False):
    """``{kind: {variant: structure}}`` from real runs.

    ``only``: those kinds; ``first``: each battery kind's first variant only
    (its defaults), the quick check.
    """
    out = {}
    with tempfile.TemporaryDirectory() as tmp, _environ({"MPLBACKEND": "Agg"}):
        runs = battery_runs(tmp)
        for kind, variants in runs.items():
            if only and kind not in only:
                continue
            out[kind] = {}
            for label, make in list(variants.items())[:1 if first else None]:
                start = time.perf_counter()
                out[kind][label] = structure(make())
                if verbose:
                    print(f"{kind} [{label}]: {time.perf_counter() - start:.1f} s",
                          file=sys.stderr)
        if reproductions:
            for kind, variants in reproduction_runs(tmp, data).items():
                if only and kind not in only:
                    continue
                out[kind] = {label: structure(ds) for label, ds in variants.items()}
    return out


def load():
    return json.loads(SCHEMA_JSON.read_text())


def save(schema):
    SCHEMA_JSON.write_text(json.dumps(schema, indent=1, sort_keys=False) + "\n")


def notes():
    import yaml

    return yaml.safe_load(NOTES_YAML.read_text())


def merged(kind_variants):
    """One table per section: name -> info, with ``when`` naming the variants it is in."""
    labels = list(kind_variants)
    table = {s: {} for s in SECTIONS}
    seen = {s: {} for s in SECTIONS}
    for label, st in kind_variants.items():
        for s in SECTIONS:
            items = st[s] if isinstance(st[s], dict) else {name: None for name in st[s]}
            for name, info in items.items():
                table[s].setdefault(name, info)
                seen[s].setdefault(name, []).append(label)
    for s in SECTIONS:
        for name in table[s]:
            where = seen[s][name]
            table[s][name] = {"info": table[s][name],
                              "when": None if len(where) == len(labels) else where}
    return table


def undocumented(schema, described):
    """``[(kind, section, name)]`` of names with neither a ``long_name`` nor a note."""
    return [(kind, s, name) for kind, variants in schema.items()
            for s, names in merged(variants).items() for name in names
            if describe(schema, described, kind, s, name) is None]


def stale_notes(schema, described):
    """``[(kind, section, name)]`` of notes on names no run has."""
    stale = []
    for kind, sections in (described.get("kinds") or {}).items():
        if kind not in schema:
            stale.append((kind, "*", "*"))
            continue
        heirs = [k for k in schema if kind in _ancestry(described, k)]
        tables = [merged(schema[k]) for k in heirs]
        for s in SECTIONS:
            for name in ((sections or {}).get(s) or {}):
                if not any(name in t[s] for t in tables):
                    stale.append((kind, s, name))
    everywhere = {s: set() for s in SECTIONS}
    for variants in schema.values():
        for s, names in merged(variants).items():
            everywhere[s] |= set(names)
    for s in SECTIONS:
        for name in ((described.get("common") or {}).get(s) or {}):
            if name not in everywhere[s]:
                stale.append(("common", s, name))
    return stale


def _ancestry(described, kind):
    """``kind`` and the kinds it inherits from, nearest first."""
    chain = [kind]
    while True:
        base = ((described.get("kinds") or {}).get(chain[-1]) or {}).get("inherits")
        if not base or base in chain:
            return chain
        chain.append(base)


def describe(schema, described, kind, section, name, _seen=()):
    """What ``name`` means: its note, else its ``long_name``, else the inherited kind's.

    A note on the kind wins; the run's ``long_name`` comes next (a note that
    adds to it is shown after it); then the kind it ``inherits`` (a sweep, the
    battery of its cells) and the notes common to every Dataset.
    """
    kinds = described.get("kinds") or {}
    k = kinds.get(kind) or {}
    note = (k.get(section) or {}).get(name)
    long_name = None
    if kind in schema and section in ("coords", "data_vars"):
        entry = merged(schema[kind])[section].get(name)
        long_name = ((entry or {}).get("info") or {}).get("long_name")
    if note and long_name and note != long_name:
        return f"{long_name}: {note}"
    if note or long_name:
        return note or long_name
    base = k.get("inherits")
    if base and base not in _seen:
        text = describe(schema, described, base, section, name, (*_seen, kind))
        if text is not None:
            return text
    return ((described.get("common") or {}).get(section) or {}).get(name)


# --------------------------------------------------------------------------- Sphinx

def _md_text(text):
    """One line of Markdown: whitespace folded, table pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def render(kind, schema, described):
    """MyST Markdown of one Dataset's tables."""
    variants = schema[kind]
    table = merged(variants)
    k = described.get("kinds", {}).get(kind, {}) or {}
    lines = []
    if k.get("intro"):
        lines += [_md_text(k["intro"]), ""]
    lines += ["Generated from: " + "; ".join(f"`{v}`" for v in variants) + ".", ""]
    group_names = {n for g in GROUPS.values() for n in g}
    for section, title in (("dims", "Dimensions"), ("coords", "Coordinates"),
                           ("data_vars", "Variables"), ("attrs", "Attributes")):
        names = table[section]
        shown = {n: e for n, e in names.items()
                 if not (section == "attrs" and n in group_names and e["when"] is None)}
        grouped = [g for g, members in GROUPS.items() if section == "attrs"
                   and all(m in names and names[m]["when"] is None for m in members)]
        if not shown and not grouped:
            continue
        with_dims = section in ("coords", "data_vars")
        lines += [f"**{title}**", ""]
        lines += (["| name | dims (type) | meaning |", "|---|---|---|"] if with_dims
                  else ["| name | meaning |", "|---|---|"])
        for name, entry in shown.items():
            info = entry["info"]
            text = describe(schema, described, kind, section, name) or ""
            if isinstance(info, dict) and info.get("units"):
                text += f" [{info['units']}]"
            if section == "attrs" and info:
                text = f"({info}) {text}"
            text = _md_text(text)
            if entry["when"]:
                text += " *(only in: " + _md_text("; ".join(entry["when"])) + ")*"
            if with_dims:
                dims = ", ".join(info.get("dims", [])) or "scalar"
                lines.append(f"| `{name}` | {dims} ({info.get('type', '')}) | {text} |")
            else:
                lines.append(f"| `{name}` | {text} |")
        for g in grouped:
            members = ", ".join(f"`{m}`" for m in GROUPS[g])
            lines.append(f"| *{g}* | the {g} attributes: {members} "
                         f"(see {{ref}}`schema-{g}`) |")
        lines.append("")
    return "\n".join(lines)


def render_group(group, described):
    lines = ["| name | meaning |", "|---|---|"]
    for name in GROUPS[group]:
        text = (described.get("common", {}).get("attrs") or {}).get(name, "")
        lines.append(f"| `{name}` | {_md_text(text)} |")
    return "\n".join(lines + [""])


def setup(app):
    from docutils.parsers.rst import Directive, directives
    from docutils.statemachine import StringList
    from docutils import nodes

    class SchemaDirective(Directive):
        required_arguments = 1
        option_spec = {"group": directives.flag}

        def run(self):
            env = self.state.document.settings.env
            env.note_dependency(str(SCHEMA_JSON))
            env.note_dependency(str(NOTES_YAML))
            name = self.arguments[0]
            if "group" in self.options:
                text = render_group(name, notes())
            else:
                schema = load()
                if name not in schema:
                    raise self.error(f"no Dataset {name!r} in {SCHEMA_JSON.name}")
                text = render(name, schema, notes())
            node = nodes.section() if False else nodes.container()
            self.state.nested_parse(StringList(text.split("\n"), source=str(SCHEMA_JSON)),
                                    self.content_offset, node)
            return node.children

    app.add_directive("evpsim-schema", SchemaDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# --------------------------------------------------------------------------- command

def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(description="Regenerate docs/reference/schema.json from "
                                            "real runs.")
    p.add_argument("--reproductions", action="store_true",
                   help="also run the reproductions at reduced size (~2 min)")
    p.add_argument("--data", help="a folder with the SST runs (reproductions' --data)")
    p.add_argument("--only", nargs="*", help="regenerate these kinds only")
    args = p.parse_args(argv)
    schema = load() if SCHEMA_JSON.is_file() else {}
    fresh = generate(reproductions=args.reproductions, data=args.data, only=args.only,
                     verbose=True)
    for kind, variants in fresh.items():
        old = schema.get(kind, {})
        # variants this run could not make (no --data) are kept as they were
        keep = {v: s for v, s in old.items() if v not in variants
                and v.startswith("--data") and not args.data}
        schema[kind] = {**variants, **keep}
    order = [*battery_order(), *REPRODUCTIONS]
    schema = {k: schema[k] for k in order if k in schema}
    save(schema)
    missing = undocumented(schema, notes()) if NOTES_YAML.is_file() else []
    for kind, section, name in missing:
        print(f"undocumented: {kind} {section} {name}")
    return 0


def battery_order():
    return ["bias", "coverage", "falseconc", "compare_curves", "comparison_errors", "curve",
            "runs_curve", "observed_curves", "self_check", "bootstrap_intervals",
            "sweep_bias", "sweep_coverage", "sweep_falseconc", "sweep_compare",
            "leaderboard", "kde_fit"]


if __name__ == "__main__":
    sys.path.insert(0, str(DOCS.parent))
    sys.exit(main())
