"""The tables and figure of searches run several times (:func:`evpsim.runs_curve`), and of
single runs of adaptive searches (their observed best so far).

The tables are :class:`~evpsim.report.tables.Table` objects, so that the
printed tables, ``--table`` files and the HTML report show the same cells:
a curve per search (the mean or median of its runs' best-so-far curves
with their interval across runs, and for random search the curve of its
pooled trials), the difference of each pair of searches with its interval,
the share of resamples and the share of pairs of runs in which one is
ahead; :func:`ahead_lines` says from which budget one is ahead.
"""

from __future__ import annotations

import numpy as np

from .._format import formatter
from .tables import MISSING, Column, Table, legend, table_ns

__all__ = ["runs_tables", "ahead_lines", "observed_tables", "plot_runs_figure",
           "plot_observed_figure", "draw_observed", "runs_caption", "DIFFERENCE_METHODS"]

#: how the interval of the difference of each curve is made, as a heading
DIFFERENCE_METHODS = {"welch": "Welch's t", "percentile": "percentile"}


def _methods(ds, curve):
    """The CI methods across runs that bound ``curve``."""
    bounds = ds["bounds_curve"].sel(curve=curve).values
    return [str(m) for m, b in zip(ds["ci_method"].values, bounds) if b]


def _ns(ds, B, show_all):
    """The budgets a table shows: :func:`~evpsim.report.tables.table_ns`, with those where
    the search ahead changes and the budgets from which one is ahead."""
    extra = set()
    if "ahead" in ds:
        ahead = ds["ahead"].values
        moved = (ahead[..., 1:] != ahead[..., :-1]) & (ahead[..., 1:] != "")
        extra |= {int(n) for n in np.flatnonzero(moved.any(axis=(0, 1))) + 2}
        for key in ("ahead_from", "surely_ahead_from"):
            values = ds[key].values.ravel()
            extra |= {int(v) for v in values[np.isfinite(values)]}
    return table_ns(B, extra, show_all)


def _search_table(ds, model, curve, show_all):
    """One search's curve across runs, and its pooled curve where it is random search."""
    sub = ds.sel(model=model, curve=curve)
    k, B = int(sub["runs"]), int(sub["shortest"])
    rows = sub.sel(n=_ns(ds, B, show_all))
    methods = _methods(ds, curve)
    pooled = bool(sub["random_search"])
    shown = [rows["estimate"].values, rows["lower"].sel(ci_method=methods).values.ravel(),
             rows["upper"].sel(ci_method=methods).values.ravel()]
    if pooled:
        shown += [rows[key].values for key in ("pooled_estimate", "pooled_lower",
                                               "pooled_upper")]
    score = formatter(np.concatenate(shown))
    what = f"{curve} of runs"
    columns = [Column("n", tuple(str(n) for n in rows["n"].values)),
               Column(what, tuple(map(score, rows["estimate"].values)))]
    for m in methods:
        iv = rows.sel(ci_method=m)
        columns.append(Column(m, _pairs(score, iv["lower"].values, iv["upper"].values),
                              ("lower", "upper")))
    title = f"{model} ({k} runs, n up to {B})"
    est = str(sub["pooled_estimator"].values)
    if pooled:
        columns += [Column(f"{est} pooled", tuple(map(score, rows["pooled_estimate"].values))),
                    Column(f"{est} pooled {sub['pooled_method'].values}",
                           _pairs(score, rows["pooled_lower"].values,
                                  rows["pooled_upper"].values), ("lower", "upper"))]
        title = f"{model} ({k} runs, n up to {B}; {int(sub['trials'])} trials pooled)"
    return Table("curve", title, tuple(columns), legend=legend(
        columns,
        (what, f"the {curve} over the runs of each run's best score among its first n trials"),
        *((m, f"its {ds.attrs['level']:.0%} interval across runs") for m in methods),
        (f"{est} pooled", f"the curve of the {int(sub['trials'])} trials of the runs pooled, "
                          f"as i.i.d. draws (random search)"),
        (MISSING, "no interval there")))


def _pairs(f, lower, upper):
    """An interval column's cells: ``(lower, upper)`` as printed by ``f``."""
    return tuple((f(lo), f(hi)) for lo, hi in zip(lower, upper))


def _pair_table(ds, p, curve, show_all):
    """The difference of a pair of searches' curves, a row per n."""
    sub = ds.isel(pair=p).sel(curve=curve)
    a, b = str(sub["model_a"].values), str(sub["model_b"].values)
    nn = int(min(ds["shortest"].sel(model=a), ds["shortest"].sel(model=b)))
    rows = sub.sel(n=_ns(ds, nn, show_all))
    diff = formatter(np.concatenate([rows["difference"].values,
                                     rows["difference_lower"].values,
                                     rows["difference_upper"].values]))
    method = DIFFERENCE_METHODS[str(sub["difference_method"].values)]
    pairs = int(ds["runs"].sel(model=a)) * int(ds["runs"].sel(model=b))
    columns = [Column("n", tuple(str(n) for n in rows["n"].values)),
               Column("ahead", tuple(str(v) for v in rows["ahead"].values), numeric=False,
                      align="<"),
               Column(f"{a} - {b}", tuple(map(diff, rows["difference"].values))),
               Column(method, _pairs(diff, rows["difference_lower"].values,
                                     rows["difference_upper"].values), ("lower", "upper")),
               Column(f"share {a} ahead", tuple(f"{v:.3f}" for v in rows["share_ahead"].values)),
               Column("MC se", tuple(f"{v:.3f}" for v in rows["share_ahead_se"].values)),
               Column(f"runs {a} ahead", tuple(f"{v:.3f}" for v in
                                               rows["share_runs_ahead"].values))]
    level = ds.attrs["level"]
    how = ("Welch's t interval of the difference of the means, the runs of each search "
           "independent" if method == "Welch's t" else
           f"the percentile interval of {ds.attrs['resamples']:,} differences, each search's "
           f"runs resampled")
    notes = (f"{a} vs {b} ({curve} curves), n up to {nn}: {level:.0%} intervals for the "
             f"difference: {how}",
             f"ahead: by the estimates; share {a} ahead: a share of resamples, of "
             f"{ds.attrs['resamples']:,} resamples of each search's runs, the differences "
             f"recentred on the estimate, the share with {a} ahead, ties counting half; MC se: "
             f"its Monte Carlo standard error; runs {a} ahead: the share of the {pairs} pairs "
             f"of runs, one of each search, in which {a}'s best so far is ahead at n, ties "
             f"counting half.",
             f"Neither share is the probability that {a} is better: the first describes the "
             f"resampling, the second these runs.")
    return Table("difference", f"{a} vs {b} ({curve} curves)", tuple(columns), notes)


def runs_tables(ds, curve="mean", show_all=False):
    """The tables of a result of :func:`evpsim.runs_curve`: a curve per search, and the
    difference of each pair of searches.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.runs_curve`.
    curve : {"mean", "median"}
        The curve shown.
    show_all : bool
        Every n, not a selection (:func:`~evpsim.report.tables.table_ns`).

    Returns
    -------
    list of Table
    """
    tables = [_search_table(ds, str(m), curve, show_all) for m in ds["model"].values]
    tables += [_pair_table(ds, p, curve, show_all) for p in range(ds.sizes.get("pair", 0))]
    return tables


def ahead_lines(ds, curve="mean"):
    """A line per pair of searches: which is ahead from which budget, that budget's range
    over the resamples of the runs, and from which budget the difference's interval lies
    on its side."""
    lines = []
    level = ds.attrs["level"]
    tail = f"{(1 - level) / 2:.1%}"
    for p in range(ds.sizes.get("pair", 0)):
        sub = ds.isel(pair=p).sel(curve=curve)
        a, b = str(sub["model_a"].values), str(sub["model_b"].values)
        nn = int(min(ds["shortest"].sel(model=a), ds["shortest"].sel(model=b)))
        leader = str(sub["leader"].values)
        if leader == "tie":
            lines.append(f"{a} and {b}: their {curve} curves tie at n = {nn}, the last n both "
                         f"ran: neither is ahead")
            continue
        other = b if leader == a else a
        lo, hi = float(sub["ahead_from_lower"]), float(sub["ahead_from_upper"])
        span = (f"from n = {int(lo)} to {int(hi)}" if np.isfinite(hi) else
                f"from n = {int(lo)} to beyond {nn}: in more than {tail} of them {leader} is "
                f"not ahead at n = {nn}")
        sure = float(sub["surely_ahead_from"])
        surely = (f"the {level:.0%} interval of the difference lies on {leader}'s side from "
                  f"n = {int(sure)} to {nn}" if np.isfinite(sure) else
                  f"the {level:.0%} interval of the difference includes 0 at n = {nn}: these "
                  f"runs do not show {leader} ahead there")
        lines.append(f"{leader} ahead of {other} by the {curve} curves from n = "
                     f"{int(sub['ahead_from'])} to {nn}, the last n both ran; over the "
                     f"resamples of the runs, {level:.0%} of that budget lies {span}; {surely}")
    return lines


def observed_tables(obs, show_all=False):
    """The observed best-so-far curve of each single run of an adaptive search (a result
    of :func:`evpsim.curves.runs.observed_curves`), a table each."""
    tables = []
    for m in obs["observed_model"].values:
        sub = obs.sel(observed_model=m)
        B = int(sub["observed_B"])
        ns = table_ns(B, (), show_all)
        values = sub["observed_best"].sel(observed_n=ns).values
        score = formatter(values)
        columns = (Column("n", tuple(str(n) for n in ns)),
                   Column("best so far", tuple(map(score, values))))
        tables.append(Table("observed", f"{m} (one run of {sub['observed_sampler'].values}, "
                                        f"B = {B})", columns,
                            legend=(("best so far", "the best score among its first n "
                                                    "trials, as they ran: one run, no "
                                                    "interval"),)))
    return tables


def runs_caption(ds, curve="mean"):
    """What :func:`plot_runs_figure` draws, in a sentence."""
    parts = [f"the {curve} over runs of each search's best score among its first n trials, "
             f"its {ds.attrs['level']:.0%} interval across runs shaded"]
    if bool(ds["random_search"].any()):
        parts.append("the curve of a random search's pooled trials dashed")
    if ds.sizes.get("pair", 0):
        parts.append("beside it, the difference of each pair with its interval")
    return "; ".join(parts)


def plot_runs_figure(ds, path=None, *, curve="mean", log_x=None):
    """The curves of searches run several times, with their intervals across runs, and
    the difference of each pair of searches.

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`evpsim.runs_curve`.
    path : str or path, optional
        Figure file (.png, .pdf or .svg), written atomically.
    curve : {"mean", "median"}
        The curve drawn.
    log_x : bool, optional
        Log-scaled x axes; default: where the longest shortest run has at
        least :data:`~evpsim.report.curvefigure.LOG_X_FROM` trials.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib
    from matplotlib.figure import Figure

    from .curvefigure import LOG_X_FROM
    from .curves import CURVE_STYLE
    from .drawing import MODEL_COLORS

    log_x = bool(ds.sizes["n"] >= LOG_X_FROM) if log_x is None else bool(log_x)
    method = _methods(ds, curve)[0]
    pairs = ds.sizes.get("pair", 0)
    best = "lowest" if ds.attrs.get("minimize") == "True" else "best"
    with matplotlib.rc_context(CURVE_STYLE):
        fig = Figure(figsize=(7.0 if not pairs else 12.0, 4.3))
        axes = fig.subplots(1, 2 if pairs else 1, squeeze=False)[0]
        ax = axes[0]
        for k, m in enumerate(ds["model"].values):
            sub = ds.sel(model=m, curve=curve).isel(n=slice(0, int(ds["shortest"].sel(model=m))))
            c, n = MODEL_COLORS[k % len(MODEL_COLORS)], sub["n"].values
            ax.plot(n, sub["estimate"].values, color=c, lw=2.0,
                    label=f"{m} ({int(sub['runs'])} runs)")
            iv = sub.sel(ci_method=method)
            ax.fill_between(n, iv["lower"].values, iv["upper"].values, color=c, alpha=0.2, lw=0)
            if bool(sub["random_search"]):
                ax.plot(n, sub["pooled_estimate"].values, color=c, lw=1.5, ls="--",
                        label=f"{m}: {sub['pooled_estimator'].values} of its pooled trials")
                ax.fill_between(n, sub["pooled_lower"].values, sub["pooled_upper"].values,
                                color=c, alpha=0.1, lw=0)
        ax.set_ylabel(f"{curve} {best} {ds.attrs.get('metric') or 'score'} over runs")
        ax.set_title(f"{method} intervals across runs")
        for p in range(pairs):
            sub = ds.isel(pair=p).sel(curve=curve).dropna("n", subset=["difference"])
            c = MODEL_COLORS[p % len(MODEL_COLORS)]
            label = f"{sub['model_a'].values} - {sub['model_b'].values}"
            axes[1].plot(sub["n"].values, sub["difference"].values, color=c, lw=2.0,
                         label=label)
            axes[1].fill_between(sub["n"].values, sub["difference_lower"].values,
                                 sub["difference_upper"].values, color=c, alpha=0.2, lw=0)
        if pairs:
            how = DIFFERENCE_METHODS[str(ds["difference_method"].sel(curve=curve).values)]
            axes[1].axhline(0.0, color="black", lw=1.0)
            axes[1].set_title(f"difference, {how} intervals")
        _axes_style(axes, log_x)
        for a in axes:
            a.legend(frameon=False)
        fig.tight_layout()
    return _saved(fig, path)


def draw_observed(axes, obs, first_color=0):
    """Each single run of an adaptive search as its observed best-so-far steps on each of
    ``axes`` (dash-dotted, in the colours after the first ``first_color``), added to the
    axes' legend."""
    from .drawing import MODEL_COLORS

    for ax in axes:
        legend = ax.get_legend()
        handles = list(legend.legend_handles) if legend else []
        labels = [t.get_text() for t in legend.get_texts()] if legend else []
        for k, m in enumerate(obs["observed_model"].values):
            sub = obs.sel(observed_model=m)
            B = int(sub["observed_B"])
            handles += ax.step(sub["observed_n"].values[:B], sub["observed_best"].values[:B],
                               where="post", lw=1.5, ls="-.",
                               color=MODEL_COLORS[(first_color + k) % len(MODEL_COLORS)])
            labels.append(f"{m}: one run, observed")
        ax.legend(handles, labels, frameon=False)


def plot_observed_figure(obs, path=None, *, log_x=None):
    """The observed best-so-far curves of single runs of adaptive searches.

    Parameters
    ----------
    obs : xarray.Dataset
        A result of :func:`evpsim.curves.runs.observed_curves`.
    path : str or path, optional
        Figure file (.png, .pdf or .svg), written atomically.
    log_x : bool, optional
        Log-scaled x axis; default: where the longest run has at least
        :data:`~evpsim.report.curvefigure.LOG_X_FROM` trials.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib
    from matplotlib.figure import Figure

    from .curvefigure import LOG_X_FROM
    from .curves import CURVE_STYLE

    log_x = bool(obs.sizes["observed_n"] >= LOG_X_FROM) if log_x is None else bool(log_x)
    with matplotlib.rc_context(CURVE_STYLE):
        fig = Figure(figsize=(7.0, 4.3))
        ax = fig.subplots()
        draw_observed([ax], obs)
        best = "lowest" if obs.attrs.get("minimize") == "True" else "best"
        ax.set_ylabel(f"{best} {obs.attrs.get('metric') or 'score'} so far")
        ax.set_title("one run each: no interval")
        _axes_style([ax], log_x)
        fig.tight_layout()
    return _saved(fig, path)


def _axes_style(axes, log_x):
    """Trials on the x axis (log-scaled with ``log_x``), and a grid."""
    for ax in axes:
        ax.set_xlabel("hyperparameter trials (n)")
        if log_x:
            ax.set_xscale("log")
        ax.grid(alpha=0.3)


def _saved(fig, path):
    """``fig``, written atomically to ``path`` first when one is given."""
    from ..io.results import atomic_write

    if path is not None:
        atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=200, bbox_inches="tight"))
    return fig
