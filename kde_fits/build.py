"""Rebuild the committed KDE ground truths and their manifest.

    python kde_fits/build.py [--data DIR] [--out DIR]

Reads the raw score files from the folder given by ``--data`` (the
project's ``../shared/data/`` beside the repository by default; they are
never copied into it), fits every entry of :data:`FITS` in the
``tang2020`` construction (``NAME.nc``) and the ``centered`` one clipped to
the metric's range [0, 1] (``NAME-centered.nc``), and writes them with the
manifest ``README.md`` into ``evpsim/data/kde_fits/``, where the package
reads them as package data. ``tests/test_kde.py`` runs :func:`build` into a temporary
folder and checks that it reproduces the committed files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from evpsim.truths.kde import fit_kde, load_kde
from evpsim.io.results import write_netcdf
from evpsim.io.searchfiles import read_scores

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data"
OUT = HERE.parent / "evpsim" / "data" / "kde_fits"
BOUNDS = (0.0, 1.0)  # every metric here is a fraction: F1 or accuracy
STAND_IN = ("public stand-in for Tang et al.'s \"{}\" ({} runs), whose runs are not public; "
            "from Dodge et al. 2019's SST-2 search")

#: name, score file, model, metric, note
FITS = [
    ("reuters-mlp", "reuters_mlp_f1.txt", "Reuters MLP", "dev F1",
     "Tang et al.'s \"MLP\" (Table 2: 145 runs, bw 0.0049, support [0.72, 0.82])"),
    ("reuters-lstm", "reuters_lstm_f1.txt", "Reuters LSTM", "dev F1",
     "Tang et al.'s \"LSTM\" (Table 2: 152 runs, bw 0.059, support [-0.18, 1.08])"),
    ("sst2-glove", "sst2_lstm_glove_acc.txt", "SST-2 LSTM+GloVe", "dev accuracy",
     STAND_IN.format("GloVe", 114)),
    ("sst2-elmo", "sst2_lstm_elmo_frozen_acc.txt", "SST-2 LSTM+frozen ELMo", "dev accuracy",
     STAND_IN.format("ELMo", 84)),
    ("sst5-cnn", "sst5_cnn_acc.txt", "SST-5 CNN", "dev accuracy",
     "Dodge et al. 2021 section 4 \"CNN\""),
    ("sst5-boe", "sst5_boe_acc.txt", "SST-5 bag of embeddings", "dev accuracy",
     "Dodge et al. 2021 section 4 \"LBoE\""),
    ("sst5-linear", "sst5_linear_acc.txt", "SST-5 linear BoW", "dev accuracy", ""),
    ("sst5-lstm", "sst5_lstm_acc.txt", "SST-5 LSTM", "dev accuracy", ""),
    ("sst2-bcn-glove", "sst2_bcn_glove_acc.txt", "SST-2 BCN+GloVe", "dev accuracy",
     "Dodge et al. 2019 section 4.3"),
    ("sst2-bcn-elmo-frozen", "sst2_bcn_elmo_frozen_acc.txt", "SST-2 BCN+frozen ELMo",
     "dev accuracy", "Dodge et al. 2019 section 4.3"),
    ("sst2-bcn-elmo-finetuned", "sst2_bcn_elmo_finetuned_acc.txt", "SST-2 BCN+fine-tuned ELMo",
     "dev accuracy", "Dodge et al. 2019 section 4.3"),
    ("mnli-deberta-base", "mnli_deberta_base_acc.txt", "MultiNLI DeBERTa-base",
     "matched accuracy", "opda's 1,024-trial random search"),
    ("mnli-deberta-v3-base", "mnli_deberta_v3_base_acc.txt", "MultiNLI DeBERTa-v3-base",
     "matched accuracy", "opda's 1,024-trial random search"),
]

INTRO = """\
# Committed KDE ground truths

Discretized Gaussian kernel density estimates of real hyperparameter-search
results (Tang et al. 2020, section 4.1), used as `--dist kde:NAME`. Every
file here ships inside the package (`evpsim/data/kde_fits/`) and is computed
by `python kde_fits/build.py` from the project's copies of the public score
files (sources and licences: `evpsim/data/searches/NOTICE.md`). The SST runs
state no licence, so only what evpsim computes from them is shipped, never
the runs; the Reuters and DeBERTa runs ship too, as `data:NAME`.
`tests/test_kde.py` rebuilds every fit and checks it against the committed
file. This manifest is written by the same script.

- `NAME` (`tang2020`): Tang et al.'s construction, for faithful
  reproduction: normal-reference bandwidth
  (4/3)^(1/5) min(sd, IQR/1.349) N^(-1/5), a 512-point grid over
  [min - 3 bw, max + 3 bw], the 511 interval masses at the intervals'
  left edges, mass outside the grid dropped and the rest renormalised.
- `NAME-centered`: the same bandwidth and grid clipped to the metric's
  range [0, 1], masses at the bins' centres, the KDE's mass beyond [0, 1]
  dropped and the rest renormalised, so no mass falls on impossible scores.
  The better default for new work.

Interval masses are exact differences of the Gaussian mixture's CDF.
Tang et al.'s own GloVe and ELMo runs (114 and 84) are not public:
`sst2-glove` and `sst2-elmo` are public stand-ins from Dodge et al. 2019's
SST-2 search (LSTM with GloVe, LSTM with frozen ELMo, 50 runs each).

Columns: runs and bandwidth (normal reference) of the fit; grid support
[lo, hi]; "outside [0, 1]" is the truth's mass on impossible scores;
theta_1 and theta_50 are the exact expected maxima of 1 and 50 draws.
"""

IMPOSSIBLE = """\
Fits that put mass on impossible scores (outside [0, 1]); use their
`-centered` versions for new work:

"""


def _summary(fit):
    """The manifest's row of ``fit``, and a remark if it has impossible mass."""
    a = fit.attrs
    xs, ps = fit["x"].values, fit["pmf"].values
    below, above = float(ps[xs < BOUNDS[0]].sum()), float(ps[xs > BOUNDS[1]].sum())
    theta1, theta50 = load_kde(fit).theta([1, 50])
    row = (f"| `{a['name']}` | {a['construction']} | `{a['source']}` | {a['runs']} "
           f"| {a['model']} | {a['metric']} | {a['bandwidth']:.6f} "
           f"| [{a['grid_lo']:.4f}, {a['grid_hi']:.4f}] | {a['bins']} | {below + above:.4f} "
           f"| {theta1:.4f} | {theta50:.4f} | {a['note']} |")
    remark = (f"- `{a['name']}`: {below:.2%} of the mass below 0 and {above:.2%} above 1; "
              f"theta_50 = {theta50:.4f}." if below + above >= 1e-4 else "")
    return row, remark


def build(data_dir=DATA, out_dir=OUT):
    """Fit every entry of :data:`FITS` and write the files and the manifest.

    Returns the written paths (fits first, then ``README.md``).
    """
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    rows, remarks, paths = [], [], []
    for name, filename, model, metric, note in FITS:
        scores = read_scores(data_dir / filename)
        for suffix, options in (("", {"construction": "tang2020"}),
                                ("-centered", {"construction": "centered", "bounds": BOUNDS})):
            fit = fit_kde(scores, name=name + suffix, model=model, metric=metric,
                          source=filename, note=note, **options)
            paths.append(write_netcdf(fit, out_dir / f"{name}{suffix}.nc"))
            row, remark = _summary(fit)
            rows.append(row)
            remarks += [remark] if remark else []
    head = ("| name | construction | source | runs | model | metric | bandwidth | grid support "
            "| bins | outside [0, 1] | theta_1 | theta_50 | note |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    readme = out_dir / "README.md"
    readme.write_text(INTRO + "\n" + head + "\n".join(rows) + "\n\n" + IMPOSSIBLE
                      + "\n".join(remarks) + "\n")
    return paths + [readme]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DATA), help="folder of the score files "
                        "(default: %(default)s)")
    parser.add_argument("--out", default=str(OUT), help="folder to write to (default: "
                        "%(default)s)")
    args = parser.parse_args(argv)
    if not Path(args.data).is_dir():
        parser.error(f"--data {args.data!r} is not a folder")
    for path in build(args.data, args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
