# %% [markdown]
# # Intervals that hold: which confidence interval of the EVP curve to trust
#
# Tang et al. (2020) showed that percentile-bootstrap intervals of the EVP
# curve cover far less than they claim as n approaches B. The reason is
# structural: every resampled estimate is at most the sample maximum, so an
# interval built only by resampling the observed scores covers at most
# P(max of B draws >= theta_n), about a half at n = B. Near n = B an
# interval must reach beyond the best score observed.
#
# This notebook runs a small version of `evpsim reproduce intervals` (the
# full study: 14 truths, B = 25, 50, 100, M = 1,000 searches a cell; its
# tables are in the documentation's "Intervals that hold" page): the
# methods that reach beyond the maximum (`gpd-tail`, `gpd-tail-lattice`,
# `studentized`, `smoothed`) beside `percentile`, `basic`, `bca` and the
# distribution-free `ld-equal-tailed` band, on three truths of different
# kinds at B = 50. Then it runs `curve` and its self-check with its default
# interval, `gpd-tail-bounded`, on a shipped search.
#
# Sizes shrink when `EVPSIM_QUICK=1` (as in the test suite); the markdown
# points at the printed tables rather than restating numbers.

# %%
import os
import time

import numpy as np

import evpsim
from evpsim.studies.interval_study import BASELINES, CANDIDATES, GOAL_COVERAGE, summarise
from evpsim.reproduce.intervals import study, table

QUICK = os.environ.get("EVPSIM_QUICK") == "1"
TRUTHS = ["normal", "kde:reuters-lstm", "data:reuters-mlp"]
BS = [20] if QUICK else [50]
SIZES = (dict(samples=40, resamples=100, width_samples=6, oracle_samples=1000) if QUICK
         else dict(samples=1000, resamples=1000, width_samples=100, oracle_samples=20_000))
print(evpsim.__version__, "quick" if QUICK else "full sizes", SIZES)
print("baselines:", ", ".join(BASELINES), "| candidates:", ", ".join(CANDIDATES))

# %% [markdown]
# ## 1. The cells
#
# Each cell is one truth, one B and one curve (here the mean curve; the
# study also runs the median curve, where `order-statistic` is the
# candidate): the coverage battery runs every method
# on the same simulated searches (U and V up to B; V beyond B, where only
# the methods that extrapolate can be right), at budgets n on a log grid up
# to 2B, with Clopper-Pearson bounds on every coverage, the misses above
# and below counted apart, and the median width of each method's intervals
# beside the percentile interval's, the LD band's and the oracle interval's
# (the quantiles of the estimate's true sampling law).

# %%
t0 = time.perf_counter()
ds = study(TRUTHS, BS, SIZES, curves=["mean"])
print(f"{ds.sizes['dist']} truths x {ds.sizes['B']} B in {time.perf_counter() - t0:.0f} s")

# %% [markdown]
# ## 2. Up to B: lowest coverage and width, per method
#
# `cells surely < 0.93` is the share of (truth, n) cells whose coverage is
# surely below 0.93 (its Clopper-Pearson upper bound is below it), `cells
# with estimate < 0.93` the share whose coverage estimate is below it;
# `width / percentile` the median over cells of the median width relative
# to the percentile interval's. The study's goal is a coverage estimate of
# at least 0.93 in every cell at no more than twice the percentile
# interval's width.

# %%
within = summarise(ds, "within")
print(table(within))

# %% [markdown]
# ## 3. Beyond B (V only)
#
# Only the methods whose resamples reach beyond the sample maximum can
# cover here; the ordinary bootstrap's intervals sit below the truth.

# %%
print(table(summarise(ds, "beyond").sel(estimator=["V"])))

# %% [markdown]
# ## 4. Coverage and width against n / B
#
# A panel per method: coverage of V (solid) and U (dashed) for each truth,
# and the median width relative to the percentile interval's.

# %%
from IPython.display import Image, display  # noqa: E402

from evpsim.report import plot_interval_study  # noqa: E402

plot_interval_study(ds.sel(curve="mean"), "intervals_coverage.png", "intervals_width.png",
                    best="gpd-tail")
display(Image("intervals_coverage.png"))
display(Image("intervals_width.png"))

# %% [markdown]
# ## 5. Where each method falls short
#
# The cells of V below the goal (n up to 2B), method by method: which truth,
# which n, and how the intervals missed there: wholly below the truth (too
# low: the ordinary bootstrap's failure near n = B, its resamples never
# beyond the sample maximum) or wholly above it.

# %%
V = ds.sel(B=BS[0], estimator="V", curve="mean")
for m in ds["ci_method"].values:
    c = V["coverage"].sel(ci_method=m)
    if c.isnull().all():  # a method for another curve (order-statistic: the quantile curves)
        continue
    low = c.where(c < GOAL_COVERAGE).to_series().dropna()
    if low.empty:
        print(f"{m}: every cell at least {GOAL_COVERAGE}")
        continue
    dist, n = low.idxmin()
    at = V.sel(ci_method=m, dist=dist, n=n)
    print(f"{m}: {low.size} cells below {GOAL_COVERAGE}; lowest {low.min():.3f} at {dist}, "
          f"n = {n}: intervals wholly below the truth {float(at['miss_below']):.3f}, wholly "
          f"above {float(at['miss_above']):.3f}")

# %% [markdown]
# ## 6. On your own scores: `curve` and its self-check
#
# `evpsim curve` reports `gpd-tail-bounded` by default (`order-statistic`
# for a quantile curve, percentile for fewer than 10 trials), beside a
# one-sided lower bound that holds whatever the distribution. It is
# `gpd-tail-lattice`'s tail, ending at or below the best score possible (1
# here, from `bounds`), with trials failed at the floor taken as a share of
# the trials: on scores that lie on a lattice, as the Reuters MLP's F1
# scores (steps of 1/10,000), the tail is fitted to the scores jittered
# within their lattice cells. The self-check simulates searches of your B
# from a KDE of your scores (its draws snapped to their lattice) and counts
# how often the interval covered the KDE's exact curve.

# %%
from evpsim.io.shipped import shipped_scores  # noqa: E402

xs = shipped_scores("reuters-mlp")
res = evpsim.curve({"MLP": xs}, bounds=(0, 1), resamples=1000 if QUICK else 10_000)
print("interval:", ", ".join(res["ci_method"].values))
rows = res[["estimate", "lower", "upper", "free_bound"]].sel(
    model="MLP", estimator="V", n=[1, 10, 50, xs.size]).squeeze()
print(rows.to_dataframe()[["estimate", "lower", "upper", "free_bound"]].round(4))

# %%
chk = evpsim.self_check({"MLP": xs}, bounds=(0, 1), replicates=50 if QUICK else 1000,
                        resamples=100 if QUICK else 1000)
print(chk["check_coverage"].sel(model="MLP", estimator="V", ci_method="gpd-tail-bounded",
                                n=[1, 10, 50, xs.size]).round(3).to_series())
print("\n".join(evpsim.check_warnings(chk)) or "no warnings")

# %% [markdown]
# ## 7. From three truths to every truth
#
# Three truths at one B are a sketch. The full study (`evpsim reproduce
# intervals --out DIR`) runs every truth evpsim knows (and the lattice
# versions of its KDE truths, where evpsim has them), B = 25, 50 and 100,
# and the median curve beside the mean curve; the documentation's
# "Intervals that hold" page says what it costs and what its runs found.
# Where a ranking there differs from this notebook's, the full study is the
# one to believe: its cells are the ones that found where each method fails.
