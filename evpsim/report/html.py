"""A report of ``evpsim curve`` as one self-contained HTML file.

Everything is inside the file: the figures as PNG data URIs, the style
inline, no script, and a content security policy that forbids the page to
load anything, so that it opens the same from an e-mail attachment, a
shared drive or a browser offline. The tables are those of
:mod:`evpsim.report.tables`, with the cells as printed.
"""

from __future__ import annotations

import base64
import io
from html import escape

__all__ = ["html_report", "figure_uri"]

#: the page may load nothing: images only from data URIs, style only inline
POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 72em; padding: 0 1em; color: #222; line-height: 1.4;
       overflow-wrap: anywhere; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em;
     border-bottom: 1px solid #ccc; } h3 { font-size: 1em; }
div.table { margin: 0.5em 0 1.5em; }
table { border-collapse: collapse; font-size: 0.9em; margin-top: 0.3em; }
caption { text-align: left; font-weight: bold; padding-bottom: 0.3em; min-width: 30em; }
th, td { padding: 0.15em 0.7em; overflow-wrap: normal; }
thead th { border-bottom: 1px solid #444; vertical-align: bottom; }
tbody tr:last-child td { border-bottom: 1px solid #444; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.text, th.text { text-align: left; }
p.note, p.legend { font-size: 0.9em; color: #444; margin: 0.2em 0; }
p.sub { margin-left: 2em; }
figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; }
figcaption { font-size: 0.9em; color: #444; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.2em 1em;
     font-size: 0.9em; }
dt { font-weight: bold; } dd { margin: 0; font-family: monospace; word-break: break-all; }
.warning { color: #8a4b00; }
"""


def figure_uri(fig, dpi=130):
    """``fig`` as a PNG data URI."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _table(t):
    """A :class:`~evpsim.report.tables.Table`: its notes, its legend (a line per key,
    ``data-key`` naming the heading or cell it explains) and the table, in one block."""
    kinds = ["num" if c.align == ">" else "text" for c in t.columns]
    out = [f'<div class="table" data-table="{escape(t.key)}">']
    out += [f'<p class="note">{escape(n)}</p>' for n in t.notes]
    out += [f'<p class="legend" data-key="{escape(key)}">{escape(line)}</p>'
            for (key, _), line in zip(t.legend, t.legend_lines)]
    out += [f'<table data-table="{escape(t.key)}">', f"<caption>{escape(t.title)}</caption>"]
    out.append("<thead><tr>" + "".join(f'<th class="{k}">{escape(h)}</th>'
                                        for k, h in zip(kinds, t.headers)) + "</tr></thead>")
    out.append("<tbody>")
    for row in t.rows:
        out.append("<tr>" + "".join(f'<td class="{k}">{escape(c)}</td>'
                                    for k, c in zip(kinds, row)) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _paragraphs(blocks):
    """A paragraph per line (an indented line continues the one above it, set in), a
    table per :class:`~evpsim.report.tables.Table`."""
    out = []
    for block in blocks:
        if not isinstance(block, str):
            out.append(_table(block))
        elif block.strip():
            kind = "warning" if block.startswith("warning:") else "note"
            sub = " sub" if block.startswith(" ") else ""
            out.append(f'<p class="{kind}{sub}">{escape(block.strip())}</p>')
    return "\n".join(out)


def _figure(uri, caption):
    return (f'<figure><img src="{uri}" alt="{escape(caption)}">'
            f"<figcaption>{escape(caption)}</figcaption></figure>")


def _provenance(attrs):
    keys = ["evpsim_version", "command", "created_utc", "seed", "resamples", "level",
            "check_seed", "check_replicates", "check_construction", "check_bandwidth_asked",
            "python_version", "numpy_version", "numba_version", "scipy_version",
            "xarray_version", "numba_threads", "platform"]
    keys += sorted(k for k in attrs if k.startswith("input_"))
    rows = "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(attrs[k]))}</dd>"
                   for k in keys if k in attrs)
    return f"<dl>{rows}</dl>"


def html_report(ds, *, reading, summary, tables, curve_figure, curve_caption,
                check_summary=(), check_figure=None):
    """The HTML text of a report of ``evpsim curve``.

    Parameters
    ----------
    ds : xarray.Dataset
        The result (with the self-check's results merged in when it ran),
        for its title and provenance attributes: of :func:`evpsim.curve`,
        :func:`evpsim.runs_curve`, or the observed best so far of single
        runs of adaptive searches alone
        (:func:`evpsim.curves.runs.observed_curves`).
    reading : Table
        What was read (:func:`evpsim.report.tables.reading_table`).
    summary : list of str
        The lines printed about the models, the intervals and the bound
        (an indented line continues the one above it).
    tables : list of Table
        :func:`evpsim.report.tables.curve_tables`.
    curve_figure : matplotlib.figure.Figure
        The curves.
    curve_caption : str
        What the figure shows (:func:`evpsim.report.curvefigure.figure_caption`).
    check_summary : list of str or Table
        The self-check's lines and tables as printed, when it ran; its coverage
        tables (``key`` "check") follow the figure of its coverage.
    check_figure : matplotlib.figure.Figure, optional
        The self-check's coverage against n.

    Returns
    -------
    str
    """
    names = ds["model"].values if "model" in ds.coords else ds["observed_model"].values
    title = f"EVP curves: {', '.join(str(m) for m in names)}"
    body = [f"<h1>{escape(title)}</h1>",
            f'<p class="note">{escape(str(ds.attrs.get("metric", "score")))}; written by '
            f'evpsim {escape(str(ds.attrs.get("evpsim_version", "")))} on '
            f'{escape(str(ds.attrs.get("created_utc", "")))}</p>',
            "<h2>What was read</h2>", _table(reading),
            "<h2>The curves</h2>", _paragraphs(summary),
            _figure(figure_uri(curve_figure), curve_caption),
            "<h2>Tables</h2>", *(_table(t) for t in tables)]
    if check_summary:
        coverage = [b for b in check_summary if getattr(b, "key", None) == "check"]
        body += ["<h2>Self-check</h2>",
                 _paragraphs([b for b in check_summary
                              if getattr(b, "key", None) != "check"])]
        if check_figure is not None:
            body.append(_figure(figure_uri(check_figure), "coverage of the intervals at the "
                                "KDE's exact curve against n, with Clopper-Pearson 95% "
                                "bounds; the nominal level dashed"))
        body += [_table(t) for t in coverage]
    body += ["<h2>Provenance</h2>", _provenance(ds.attrs)]
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">',
        f"<title>{escape(title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
        *body, "</body>", "</html>", ""])
