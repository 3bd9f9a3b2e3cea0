# %% [markdown]
# # Add an estimator and read the leaderboard
#
# `evpsim leaderboard` ranks every registered estimator of the EVP curve,
# and every confidence-interval method, over truths, budgets B and n
# (beyond B for the estimators that extrapolate), for the mean curve
# (the expected best score of n trials) and the median curve (the median
# best score of n trials). This notebook registers a new estimator, runs a
# leaderboard on a handful of truths with it among the others, and reads
# the tables and figures. Every cell of the leaderboard is a bias run and
# a coverage run of the batteries, so the new estimator is compared with
# the others on exactly the same simulated searches.
#
# Sizes shrink when `EVPSIM_QUICK=1` (as in the test suite); the markdown
# below points at the printed tables rather than restating numbers.

# %%
import os
import time

import numpy as np

import evpsim
from evpsim.studies.leaderboard import leaderboard
from evpsim.report.leaderboard import estimator_table, interval_table, summary

QUICK = os.environ.get("EVPSIM_QUICK") == "1"
TRUTHS = ["normal", "tang-big", "kde:reuters-lstm-centered", "data:reuters-mlp",
          "data:sklearn-hgb"]
SIZES = (dict(replicates=2000, coverage_replicates=60, resamples=200, python_replicates={"kde": 10})
         if QUICK else dict(replicates=20_000, coverage_replicates=400, resamples=1000,
                            python_replicates={"kde": 100}))
BS = [10, 25] if QUICK else [25, 50]
print(evpsim.__version__, "quick" if QUICK else "full sizes", SIZES)

# %% [markdown]
# ## 1. A new estimator: shrink V towards U
#
# V (the plug-in) is biased low near n = B and U (unbiased) is noisier
# there; a weighted average of the two is an L-statistic, so every battery
# gets its exact moments. The weight on U grows with n / B.

# %%
def blend_weights(B):
    ns = np.arange(1, B + 1)[:, None]
    share = ns / B                  # U's share: 0 at n = 0, 1 at n = B
    return share * evpsim.estimator_weights("U", B) + (1 - share) * evpsim.estimator_weights("V", B)


evpsim.register_estimator("VU-blend", weights=blend_weights,
                          description="V shrunk towards U in proportion to n / B",
                          overwrite=True)
evpsim.estimate([0.71, 0.74, 0.69, 0.80, 0.77], "VU-blend")

# %% [markdown]
# ## 2. The leaderboard with it
#
# Every estimator of each curve (the new one estimates the mean curve and
# stops at B, as U does), every CI method on the L-statistics.

# %%
t0 = time.perf_counter()
lb = leaderboard(truths=TRUTHS, Bs=BS, curves=["mean", "median"],
                 estimators=["U", "V", "W", "quantile", "naive", "kde", "VU-blend"],
                 ci_methods=["percentile", "basic", "bca", "ld-equal-tailed"], **SIZES)
print(f"{lb.sizes['dist']} truths x {lb.sizes['B']} B x {lb.sizes['curve']} curves in "
      f"{time.perf_counter() - t0:.0f} s")

# %% [markdown]
# ## 3. Point estimates: RMSE relative to V
#
# A ratio below 1 beats V in that (truth, n) cell. The `runs on` column says
# whether the numbers are exact (L-statistics, and naive through the exact
# moments of the best of n) or Monte Carlo on how many searches.

# %%
for B in BS:
    print(f"mean curve, B = {B}")
    print("\n".join(estimator_table(lb, "mean", B)))
    print()

# %%
for B in BS:
    print(f"median curve, B = {B}")
    print("\n".join(estimator_table(lb, "median", B)))
    print()

# %% [markdown]
# ## 4. Intervals
#
# Minimum coverage over the cells with its Clopper-Pearson bounds, and
# the cells surely below 0.93 (Clopper-Pearson upper bound below it) with
# those whose coverage estimate is below it beside them, for each
# estimator and CI method.

# %%
print("\n".join(interval_table(lb, "mean", BS[-1])))

# %% [markdown]
# ## 5. Where the new estimator wins, cell by cell
#
# Its RMSE relative to V at each n, truths as rows.

# %%
rel = (lb["rmse"].sel(curve="mean", B=BS[-1], estimator="VU-blend")
       / lb["rmse"].sel(curve="mean", B=BS[-1], estimator="V"))
rel = rel.sel(n=rel["n"].values[np.isfinite(rel).any("dist").values])
print(rel.round(3).to_pandas().to_string())

# %%
from evpsim.report import plot_leaderboard_rmse  # noqa: E402

fig_path = "leaderboard_rmse.png"
plot_leaderboard_rmse(lb, "mean", "V", fig_path)
from IPython.display import Image  # noqa: E402

Image(fig_path)

# %% [markdown]
# ## 6. The summary
#
# `summary(lb)` states what holds, with intervals, per curve and B.

# %%
print("\n".join(summary(lb)))

# %%
evpsim.unregister_estimator("VU-blend")
