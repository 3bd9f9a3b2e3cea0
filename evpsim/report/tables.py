"""The tables of a result of :func:`evpsim.curve`, built once as data.

A :class:`Table` holds a title, the lines a reader needs above it, and its
columns, each a header and the cells *as printed* (strings chosen by
:func:`evpsim._format.formatter`). The printed tables of ``evpsim curve``,
the files of ``--table`` (CSV, LaTeX, Markdown, JSON: :func:`write_tables`)
and the HTML report all render these same cells, so the digits agree
everywhere by construction.

An interval is a column whose cells hold two strings, ``(lower, upper)``,
printed ``[lower, upper]``; the self-check's coverage cells hold three,
``(estimate, lower, upper)``, printed ``estimate [lower, upper]``. Files
meant for programs (CSV, JSON) keep the parts apart.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass

import numpy as np

from .._format import NOISE_ULPS, formatter, number, render
from ..io.lattice import find_lattice

__all__ = ["Column", "Table", "legend", "table_ns", "shown_ns", "curve_tables",
           "check_tables", "ranking_tables", "ranking_lines", "RANKING", "reading_table",
           "budget_lines", "pair_B", "time_unit", "bound_header", "TABLE_SUFFIXES", "MISSING",
           "SD_HEADER", "write_tables"]

#: what ``--table`` writes, by the file's ending
TABLE_SUFFIXES = (".csv", ".tex", ".md", ".json")
#: the cell of a number that is not there (NaN, a method that does not apply)
MISSING = "-"
#: the heading of the SD column: of the best of n, from the plug-in distribution, so the
#: same whichever estimator draws the curve beside it
SD_HEADER = "sd of best (plug-in)"


@dataclass(frozen=True)
class Column:
    """One column of a :class:`Table`.

    Attributes
    ----------
    header : str
        Its heading.
    cells : tuple
        Top to bottom: a string per row or, for a compound column, a tuple
        of strings per row, one per name of ``parts``.
    parts : tuple of str
        ``()`` for plain cells; ``("lower", "upper")`` for an interval,
        printed ``[lower, upper]``; ``("estimate", "lower", "upper")`` for an
        estimate with its interval, printed ``estimate [lower, upper]``.
    numeric : bool
        The cells are numbers (or :data:`MISSING`); else text (a model's
        name).
    align : str
        ``">"`` or ``"<"``, as printed.
    """

    header: str
    cells: tuple
    parts: tuple = ()
    numeric: bool = True
    align: str = ">"

    def texts(self):
        """The cells as printed."""
        if not self.parts:
            return list(self.cells)
        return [f"[{c[0]}, {c[1]}]" if len(c) == 2 else f"{c[0]} [{c[1]}, {c[2]}]"
                for c in self.cells]

    def split(self):
        """``[(header, cells)]``: a column per part, for files meant for programs."""
        if not self.parts:
            return [(self.header, list(self.cells))]
        return [(self.header if p == "estimate" else f"{self.header} {p}",
                 [c[k] for c in self.cells]) for k, p in enumerate(self.parts)]


@dataclass(frozen=True)
class Table:
    """A titled table of strings as printed, with the lines to read above it.

    Attributes
    ----------
    key : str
        What the table holds: ``"curve"`` (a model's curve), ``"difference"``
        (a pair of models), ``"budget"`` (budgets that reach ``--target``),
        ``"check"`` (a model's self-check coverage) or ``"reading"`` (what
        was read).
    title : str
        ``"MLP (B = 145)"``, ``"MLP vs LSTM (V)"`` ...
    columns : tuple of Column
    notes : tuple of str
        Lines that say what the numbers are.
    legend : tuple of (str, str)
        ``(key, what it means)`` of a heading or a cell the table holds
        (:func:`legend` keeps only those it holds), written ``key: what``.
    """

    key: str
    title: str
    columns: tuple
    notes: tuple = ()
    legend: tuple = ()

    @property
    def headers(self):
        """The column headings."""
        return [c.header for c in self.columns]

    @property
    def rows(self):
        """The rows as printed: a list of strings per row."""
        texts = [c.texts() for c in self.columns]
        return [list(r) for r in zip(*texts)]

    def lines(self, indent=0):
        """The table as :func:`evpsim._format.render` prints it."""
        return render(self.headers, [c.texts() for c in self.columns], indent=indent,
                      align="".join(c.align for c in self.columns))

    @property
    def legend_lines(self):
        """The legend as lines, ``key: what it means``."""
        return tuple(f"{key}: {text}" for key, text in self.legend)

    def holds(self, key):
        """True when ``key`` is a heading of the table or one of its cells (or a part of
        one: an interval's end)."""
        if key in self.headers:
            return True
        return any(key == cell or (c.parts and key in cell)
                   for c in self.columns for cell in c.cells)


def legend(columns, *entries):
    """The entries ``(key, what it means)`` whose key is a heading or a cell of
    ``columns``: a legend line explains something on the page, or is left out."""
    probe = Table("", "", tuple(columns))
    return tuple((key, text) for key, text in entries if probe.holds(key))


def table_ns(B, extra=(), show_all=False, top=None):
    """The budgets a table shows: 1, 2, 3, 5, 10, 20, 50, ... below B, then B, and ``extra``.

    ``extra`` holds budgets that matter to the reader (where two models
    change places, where a target is reached); those beyond the last
    budget, ``top`` (default B, else beyond it: curves extended past the
    trials run), are left out.

    Examples
    --------
    >>> table_ns(441, extra=[22, 500])
    [1, 2, 3, 5, 10, 20, 22, 50, 100, 200, 441]
    >>> table_ns(50, top=1000)
    [1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000]
    """
    top = B if top is None else top
    if show_all or top <= 12:
        return list(range(1, top + 1))
    picks = {1, 2, 3, B, top}
    scale = 1
    while scale < top:
        picks |= {m * scale for m in (1, 2, 5) if m * scale < top}
        scale *= 10
    picks |= {int(n) for n in extra if 1 <= n <= top}
    return sorted(picks)


def _crossings(ds):
    """Budgets at which the model ahead changes, for any pair and estimator."""
    if "ahead" not in ds:
        return set()
    ahead = ds["ahead"].values  # (pair, estimator, n), "" beyond the pair's B
    moved = (ahead[..., 1:] != ahead[..., :-1]) & (ahead[..., 1:] != "")
    return {int(n) for n in np.flatnonzero(moved.any(axis=(0, 1))) + 2}


def _budgets(ds):
    """Budgets named by the target's budgets."""
    if "budget" not in ds:
        return set()
    found = np.concatenate([ds["budget"].values.ravel(), ds["budget_interval"].values.ravel()])
    return {int(n) for n in found[np.isfinite(found)]}


def shown_ns(ds, show_all=False):
    """``ns_of(B)``: the budgets the tables of ``ds`` show for a model or pair of ``B``
    trials: :func:`table_ns` with the budgets where models change places or reach the
    target."""
    extra = _crossings(ds) | _budgets(ds)
    top = int(ds["n_max"]) or None

    def ns_of(B):
        return table_ns(B, extra, show_all, top)

    return ns_of


def time_unit(seconds):
    """A unit for wall-clock times of this size: ``(name, seconds per unit)``."""
    top = float(np.nanmax(seconds)) if np.isfinite(seconds).any() else 0.0
    for unit, length in (("days", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if top >= 2 * length:
            return unit, length
    return "s", 1.0


def bound_header(ds):
    """The column heading of the distribution-free bound."""
    side = "upper" if bool(ds["minimize"]) else "lower"
    return f"{ds.attrs['level']:.0%} {side} bound, any F"


def _intervals(f, lower, upper):
    return tuple((f(lo), f(hi)) for lo, hi in zip(lower, upper))


def model_table(ds, model, ns):
    """Estimates, SD, expected time, intervals and the distribution-free bound of one
    model, a row per n."""
    sub = ds.sel(model=model)
    ests = [str(e) for e in sub["estimator"].values]
    meths = [str(m) for m in sub["ci_method"].values]
    rows = sub.sel(n=ns)
    # an estimate sums B terms, its rounding noise growing with B: U, V and W of B equal
    # scores spread over up to 46 units in the last place at B = 1,000, 93 at 10,000
    score = formatter(np.concatenate([rows["estimate"].values.ravel(),
                                      rows["lower"].values.ravel(),
                                      rows["upper"].values.ravel()]),
                      ulps=max(NOISE_ULPS, 2 * np.sqrt(int(sub["B"]))))
    spread = formatter(rows["sd"].values)
    columns = [Column("n", tuple(str(n) for n in ns))]
    if "expected_time" in sub:
        unit, length = time_unit(sub["expected_time"].values)
        hours = rows["expected_time"].values / length
        columns.append(Column(f"time ({unit})", tuple(map(formatter(hours), hours))))
    for e in ests:
        columns.append(Column(e, tuple(map(score, rows["estimate"].sel(estimator=e).values))))
    columns.append(Column(SD_HEADER, tuple(map(spread, rows["sd"].values))))
    for e in ests:
        for m in meths:
            if not bool(sub["applies"].sel(estimator=e, ci_method=m)):
                continue
            iv = rows.sel(estimator=e, ci_method=m)
            columns.append(Column(f"{e} {m}", _intervals(score, iv["lower"].values,
                                                         iv["upper"].values), ("lower", "upper")))
    if np.isfinite(float(sub["free_bound_worst"])):
        columns.append(Column(bound_header(sub), tuple(map(score, rows["free_bound"].values))))
    return Table("curve", f"{model} (B = {int(sub['B'])})", tuple(columns), legend=legend(
        columns, (SD_HEADER, "the SD of the best of n scores drawn with replacement from "
                             "yours (Dodge et al. 2019), the same whichever estimator"),
        (MISSING, "no estimate or interval there")))


def pair_B(ds, p):
    """The budgets a pair of models shares: the smaller of their B, or ``--n-max``."""
    if int(ds["n_max"]):
        return int(ds["n_max"])
    pair = ds.isel(pair=p)
    return int(min(ds["B"].sel(model=str(pair[k].values)) for k in ("model_a", "model_b")))


def _pair_notes(ds, p, est, nn):
    a = ds.attrs
    kinds = ds["ci_method_kind"].values.tolist()
    half = f"{1 - (1 - a['level']) / 2:.1%}"
    # methods neither of the bootstrap nor bands: each model's own intervals, combined
    own = [m for m, k in zip(ds["ci_method"].values, kinds) if k not in ("bootstrap", "band")]
    how = (["bootstrap methods: percentile interval of the bootstrap differences"]
           if "bootstrap" in kinds else []) + \
        ([f"bands: both models' {half} bands combined"] if "band" in kinds else []) + \
        ([f"{', '.join(own)}: both models' {half} intervals combined"] if own else [])
    sub = ds.isel(pair=p)
    first = str(sub["model_a"].values)
    return (f"{first} vs {sub['model_b'].values} ({est}), n up to {nn}: {a['level']:.0%} "
            f"intervals for the difference ({'; '.join(how)})",
            f"ahead: by the estimates; share {first} ahead: a share of resamples, of "
            f"{a['resamples']:,} bootstrap differences recentred on the estimate, the share with "
            f"{first} ahead, ties counting half (above 0.5 where it is ahead, below where it is "
            f"behind); MC se: its Monte Carlo standard error.",
            f"The share describes the resampling: it is not the probability that {first} is "
            f"better, and it inherits the percentile bootstrap's undercoverage near n = B.")


def pair_table(ds, p, est, ns):
    """The difference of a pair of models by one estimator, a row per n."""
    sub = ds.isel(pair=p).sel(estimator=est).sel(n=ns)
    a, b = str(sub["model_a"].values), str(sub["model_b"].values)
    diff = formatter(np.concatenate([sub["difference"].values,
                                     sub["difference_lower"].values.ravel(),
                                     sub["difference_upper"].values.ravel()]))
    columns = [Column("n", tuple(str(n) for n in ns)),
               Column("ahead", tuple(str(v) for v in sub["ahead"].values), numeric=False,
                      align="<"),
               Column(f"{a} - {b}", tuple(map(diff, sub["difference"].values)))]
    for m in (str(m) for m in ds["ci_method"].values):
        iv = sub.sel(ci_method=m)
        if bool(ds["applies"].sel(estimator=est, ci_method=m)):
            cells = _intervals(diff, iv["difference_lower"].values,
                               iv["difference_upper"].values)
            columns.append(Column(m, cells, ("lower", "upper")))
        else:
            columns.append(Column(m, (MISSING,) * len(ns)))
    columns.append(Column(f"share {a} ahead", tuple(f"{v:.3f}" for v in
                                                  sub["share_ahead"].values)))
    columns.append(Column("MC se", tuple(f"{v:.3f}" for v in sub["share_ahead_se"].values)))
    return Table("difference", f"{a} vs {b} ({est})", tuple(columns),
                 _pair_notes(ds, p, est, pair_B(ds, p)),
                 legend(columns, (MISSING, f"no interval there (a method that does not "
                                           f"apply to {est}, or none found)")))


def _budget_cells(ds):
    """What :func:`budget_table` and :func:`budget_lines` show: ``(models, estimators,
    found, unit, beyond)``, ``found`` a list of ``(what, n cells, time cells)``."""
    timed = "expected_time" in ds
    unit, length = time_unit(ds["expected_time"].values) if timed else (None, 1.0)
    models = [str(m) for m in ds["model"].values for _ in ds["estimator"].values]
    ests = [str(e) for _ in ds["model"].values for e in ds["estimator"].values]
    found = [("estimate", [float(ds["budget"].sel(model=m, estimator=e))
                           for m, e in zip(models, ests)])]
    found += [(f"{c} interval's pessimistic end",
               [float(ds["budget_interval"].sel(model=m, estimator=e, ci_method=c))
                for m, e in zip(models, ests)]) for c in map(str, ds["ci_method"].values)]
    cells = []
    for what, ns in found:
        times = [MISSING if n != n else
                 number(float(ds["expected_time"].sel(model=m, n=int(n))) / length, 3)
                 for n, m in zip(ns, models)] if timed else None
        cells.append((what, [MISSING if n != n else str(int(n)) for n in ns], times))
    return models, ests, cells, unit, "n_max" if int(ds["n_max"]) else "B"


def budget_table(ds):
    """The smallest budget whose estimate, and each interval's pessimistic end, reaches
    the target, a row per model and estimator (:data:`MISSING`: not within B)."""
    models, ests, found, unit, beyond = _budget_cells(ds)
    columns = [Column("model", tuple(models), numeric=False, align="<"),
               Column("estimator", tuple(ests), numeric=False, align="<")]
    for what, ns, times in found:
        columns.append(Column(f"{what}: n", tuple(ns)))
        if times is not None:
            columns.append(Column(f"{what}: time ({unit})", tuple(times)))
    return Table("budget", f"budget to reach {number(float(ds['target']))}", tuple(columns),
                 ("smallest n whose estimate, or whose interval's pessimistic end, reaches "
                  "the target",), legend(columns, (MISSING, f"not within {beyond}")))


def budget_lines(ds):
    """The lines ``evpsim curve`` prints of the budgets of :func:`budget_table`."""
    models, ests, found, unit, beyond = _budget_cells(ds)

    def when(r, ns, times):
        if ns[r] == MISSING:
            return f"not within {beyond}"
        return f"n = {ns[r]}" + (f" (~{times[r]} {unit})" if times is not None else "")

    lines = [f"budget to reach {number(float(ds['target']))}:"]
    for r, (model, est) in enumerate(zip(models, ests)):
        ivs = "; ".join(f"{what}: {when(r, ns, times)}" for what, ns, times in found[1:])
        lines.append(f"  {model} ({est}): estimate {when(r, *found[0][1:])}; {ivs}")
    return lines


def curve_tables(ds, show_all=False):
    """The tables ``evpsim curve`` prints of a result of :func:`evpsim.curve`: a curve
    per model, the differences of each pair by each estimator, and the budgets that reach
    the target.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.curve`.
    show_all : bool
        Every n, not a selection (:func:`table_ns`).

    Returns
    -------
    list of Table
    """
    ns_of = shown_ns(ds, show_all)
    tables = [model_table(ds, str(m), ns_of(int(ds["B"].sel(model=m))))
              for m in ds["model"].values]
    for p in range(ds.sizes.get("pair", 0)):
        nn = pair_B(ds, p)
        tables += [pair_table(ds, p, str(e), ns_of(nn)) for e in ds["estimator"].values]
    if "budget" in ds and np.isfinite(float(ds["target"])):
        tables.append(budget_table(ds))
    return tables


def check_tables(ds, show_all=False):
    """The self-check's coverage of the intervals, a table per model (empty without the
    self-check's results)."""
    if "check_coverage" not in ds:
        return []
    ns_of = shown_ns(ds, show_all)
    sym = "tau" if "check_tau" in ds else "theta"
    cols = [(str(e), str(m)) for e in ds["estimator"].values for m in ds["ci_method"].values]
    tables = []
    for model in ds["model"].values:
        sub = ds.sel(model=model)
        ns = ns_of(int(sub["B"]))
        rows = sub.sel(n=ns)
        truth = rows[f"check_{sym}"].values
        columns = [Column("n", tuple(str(n) for n in ns)),
                   Column(f"KDE {sym}", tuple(map(formatter(truth), truth)))]
        for e, m in cols:
            c = rows.sel(estimator=e, ci_method=m)
            columns.append(Column(f"{e} {m}", tuple(
                (f"{v:.3f}", f"{lo:.3f}", f"{hi:.3f}") for v, lo, hi in
                zip(c["check_coverage"].values, c["check_coverage_lower"].values,
                    c["check_coverage_upper"].values)), ("estimate", "lower", "upper")))
            if "check_width_vs_oracle" in c:
                columns.append(Column("width / oracle", tuple(
                    "-" if not np.isfinite(v) else f"{v:.2f}"
                    for v in c["check_width_vs_oracle"].values)))
        tables.append(Table(
            "check", f"self-check of {model} (B = {int(sub['B'])})", tuple(columns),
            ("coverage of the intervals at the KDE's exact curve [Clopper-Pearson 95% bounds, "
             "Monte Carlo error only]",),
            legend(columns, ("width / oracle", "the intervals' mean width over the simulated "
                                               "searches relative to the oracle interval's, "
                                               "the width an interval that knew the "
                                               "estimator's true spread on the KDE would "
                                               "have (1 is the least that covers as it "
                                               "should)"),
                   (MISSING, "no interval there to measure"))))
    return tables


#: what the ranking errors' tables are, the line printed above them
RANKING = ("ranking errors: how often one search of each (the smaller B) ranks the pair "
           "opposite to the KDEs' exact curves")


def ranking_tables(ds, show_all=False):
    """The self-check's ranking errors, a table per pair of models (a column per
    estimator; none without two models checked)."""
    if "check_wrong" not in ds:
        return []
    ns_of = shown_ns(ds, show_all)
    tables = []
    for p in range(ds.sizes["pair"]):
        sub = ds.isel(pair=p)
        ns = ns_of(pair_B(ds, p))
        columns = [Column("n", tuple(str(n) for n in ns))]
        for est in ds["estimator"].values:
            wrong = sub["check_wrong"].sel(estimator=est, n=ns).values
            columns.append(Column(str(est), tuple(f"{w:.3f}" for w in wrong)))
        pair = f"{sub['model_a'].values} vs {sub['model_b'].values}"
        tables.append(Table("ranking", f"ranking errors: {pair}", tuple(columns), (RANKING,)))
    return tables


def ranking_lines(table):
    """A ranking errors' table as ``evpsim curve`` prints it: a line per estimator."""
    pair = table.title.partition(": ")[2]
    ns = table.columns[0].cells
    return [f"  {pair} ({c.header}): " + ", ".join(f"n={n}: {w}" for n, w in zip(ns, c.cells))
            for c in table.columns[1:]]


def reading_table(searches, minimize=False):
    """What was read, a row per model: the file or URI, trials, failed, pruned and
    dropped trials, the sampler where the file records it, and the lattice the scores
    lie on.

    Parameters
    ----------
    searches : list of evpsim.io.search.Search
        Their ``pruned`` (``{reason: count}`` or a count) and ``sampler`` (its
        name) are shown where a search has them, as the readers of tools that
        record them (a study's pruned trials, its sampler) set them; elsewhere
        :data:`MISSING`, not recorded.
    minimize : bool
        The scores are losses (their ties are counted among the lowest).
    """
    def count(d):
        return str(sum(d.values())) if d else "0"

    def recorded(s, name):
        value = getattr(s, name, None)
        if value is None or value == "":
            return MISSING
        return count(value) if isinstance(value, dict) else str(value)

    columns = [Column("model", tuple(s.label for s in searches), numeric=False, align="<"),
               Column("read from", tuple(s.source for s in searches), numeric=False,
                      align="<"),
               Column("records", tuple(str(s.records) for s in searches)),
               Column("trials", tuple(str(s.scores.size) for s in searches)),
               Column("failed", tuple(count(s.failed) for s in searches)),
               Column("pruned", tuple(recorded(s, "pruned") for s in searches)),
               Column("dropped", tuple(count(s.dropped) for s in searches)),
               Column("sampler", tuple(recorded(s, "sampler") for s in searches),
                      numeric=False, align="<"),
               Column("lattice", tuple(_lattice_cell(s.scores, minimize) for s in searches),
                      numeric=False, align="<")]
    return Table("reading", "the searches read", tuple(columns), legend=legend(
        columns, (MISSING, "not recorded where the trials were read from"),
        ("lattice", "the step of the grid every score lies on (an accuracy on N examples: "
                    "1/N), and how many of the best scores are tied"),
        ("none", "the scores lie on no grid")))


def _lattice_cell(scores, minimize):
    """``1/9,815; 25 of the best 32 tied``, or ``none``."""
    lattice = find_lattice(scores, minimize)
    if lattice is None:
        return "none"
    return f"{lattice.step_text}; {lattice.tied} of the best {lattice.top} tied"


def _value(text):
    """A printed number as JSON: the float it reads as, None for :data:`MISSING`."""
    return None if text == MISSING else float(text)


def _json(tables):
    out = []
    for t in tables:
        rows = []
        for r in range(len(t.columns[0].cells)):
            row = {}
            for c in t.columns:
                cell = c.cells[r]
                if not c.numeric:
                    row[c.header] = cell
                elif c.parts:
                    row[c.header] = dict(zip(c.parts, map(_value, cell)))
                else:
                    row[c.header] = _value(cell)
            rows.append(row)
        out.append({"table": t.key, "title": t.title, "notes": [*t.notes, *t.legend_lines],
                    "columns": t.headers, "rows": rows})
    return json.dumps({"tables": out}, indent=1) + "\n"


def _csv(tables):
    """A block per table: its title alone on a line, the header, the rows, a blank line.
    Intervals take a column per end; a missing number is an empty cell."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for k, t in enumerate(tables):
        if k:
            w.writerow([])
        parts = [p for c in t.columns for p in c.split()]
        w.writerow([t.title])
        w.writerow([h for h, _ in parts])
        for r in range(len(parts[0][1])):
            w.writerow(["" if cells[r] == MISSING else cells[r] for _, cells in parts])
    return buf.getvalue()


def _markdown_cell(text):
    return text.replace("|", "\\|")


def _markdown(tables):
    blocks = []
    for t in tables:
        rule = ["---:" if c.align == ">" else ":---" for c in t.columns]
        lines = [f"**{_markdown_cell(t.title)}**", ""]
        if t.notes or t.legend:
            lines += [*t.notes, *t.legend_lines, ""]
        lines += ["| " + " | ".join(map(_markdown_cell, t.headers)) + " |",
                  "| " + " | ".join(rule) + " |"]
        lines += ["| " + " | ".join(map(_markdown_cell, row)) + " |" for row in t.rows]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


_TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                "^": r"\textasciicircum{}"}


def _tex_text(text):
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in text)


def _tex_number(text):
    """A printed number with a true minus sign; :data:`MISSING` as an en dash."""
    if text == MISSING:
        return "--"
    return "$-$" + text[1:] if text.startswith("-") else text


def _tex_cell(column, cell):
    if not column.numeric:
        return _tex_text(cell)
    if not column.parts:
        return _tex_number(cell)
    parts = [_tex_number(p) for p in cell]
    return f"[{parts[0]}, {parts[1]}]" if len(parts) == 2 else \
        f"{parts[0]} [{parts[1]}, {parts[2]}]"


def _latex(tables):
    """A ``tabular`` per table (booktabs rules), each under its title in bold; the
    notes as comments."""
    blocks = []
    for t in tables:
        spec = "".join("r" if c.align == ">" else "l" for c in t.columns)
        lines = [f"% {note}" for note in (*t.notes, *t.legend_lines)]
        lines += [r"\noindent\textbf{" + _tex_text(t.title) + r"}\par\smallskip",
                  r"\noindent\begin{tabular}{" + spec + "}", r"\toprule",
                  " & ".join(_tex_text(h) for h in t.headers) + r" \\", r"\midrule"]
        for r in range(len(t.columns[0].cells)):
            lines.append(" & ".join(_tex_cell(c, c.cells[r]) for c in t.columns) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        blocks.append("\n".join(lines))
    head = "% needs \\usepackage{booktabs}\n"
    return head + "\n\n\\bigskip\n\n".join(blocks) + "\n"


_WRITERS = {".csv": _csv, ".tex": _latex, ".md": _markdown, ".json": _json}


def write_tables(tables, path):
    """Write ``tables`` to ``path`` in the format its ending names (:data:`TABLE_SUFFIXES`).

    Meant as the ``write(tmp)`` of :func:`evpsim.io.results.atomic_write`:
    ``path`` is the temporary file, whose ending is the target's.
    """
    from pathlib import Path

    text = _WRITERS[Path(path).suffix.lower()](tables)
    Path(path).write_text(text, encoding="utf-8")
