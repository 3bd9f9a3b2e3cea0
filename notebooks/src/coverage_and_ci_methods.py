# %% [markdown]
# # Coverage of bootstrap intervals for EVP, and other CI methods (Tang et al. 2020, Fig. 4)
#
# Tang et al. (2020, §4.2–4.3) drew M = 1000 samples of B = 50 scores from a
# ground truth, built a 95% **percentile-bootstrap** interval for the
# expected maximum θ_n from R = 5000 resamples of each, for every budget
# n = 1..50, and counted how often the interval contained the true θ_n.
# Their Fig. 4 shows this empirical coverage falling well below 95%, "to an
# ECP of 0.7 by n = 20".
#
# This notebook
#
# 1. reproduces Fig. 4 with `evpsim.coverage` on Tang et al.'s two Reuters
#    KDE truths and on Dodge et al.'s truncated normal, against the *exact*
#    θ_n;
# 2. shows that the intervals of V miss on one side: they lie below θ_n;
# 3. compares the CI methods evpsim ships (`percentile`, `basic`, `bca`,
#    and the distribution-free bands `dkw`, `ks`, `ld-equal-tailed`,
#    `ld-highest-density`): coverage, width, and coverage of the whole
#    curve at once;
# 4. compares the estimators U, V and W under each method;
# 5. asks how coverage at n = 20 depends on the number of trials B, and
#    evaluates a user-registered CI method (a bias-corrected
#    normal-approximation interval).
#
# Every statement about the results below refers to a printed number; sizes
# shrink when `EVPSIM_QUICK=1` (as in the test suite), and then the numbers
# are noisy.

# %%
import math
import os
import tempfile
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr
from IPython.display import Image

import evpsim
from evpsim.report import plot_coverage

QUICK = os.environ.get("EVPSIM_QUICK") == "1"
B = 50
M, R = (100, 500) if QUICK else (1000, 5000)  # samples, bootstrap resamples (Tang et al.)
SEED = 2020
TRUTHS = ["kde:reuters-lstm", "kde:reuters-mlp", "normal"]
SHOW_N = [1, 2, 5, 10, 20, 30, 40, 50]
FIGS = Path(tempfile.mkdtemp(prefix="evpsim-nb-"))  # figures are embedded, not kept
print(evpsim.__version__, "quick" if QUICK else "full sizes", f"(M = {M}, R = {R}, B = {B})")
print("CI methods:", evpsim.list_ci_methods())

# %% [markdown]
# ## 1. Fig. 4: percentile-bootstrap coverage of V
#
# One call per truth runs every estimator (U, V, W) and every CI method on
# the same M samples and the same resamples. The result is an xarray
# Dataset with dims `estimator`, `ci_method`, `n`; select a CI method with
# `ds.sel(ci_method="percentile")`. The truth is named by scalar
# coordinates (`truth`, `truth_description`, `truth_lo`, `truth_hi`, and
# `B`), so the three results combine into one Dataset along a new `truth`
# dimension.

# %%
results = {}
for spec in TRUTHS:
    t0 = time.perf_counter()
    results[spec] = evpsim.coverage(spec, B=B, replicates=M, resamples=R, seed=SEED)
    print(f"{spec:<18} {time.perf_counter() - t0:5.1f} s  "
          f"{results[spec]['truth_description'].item()}")


def row(ds, estimator, method):
    return ds.sel(estimator=estimator, ci_method=method)


fig4 = xr.concat([results[s] for s in TRUTHS], dim="truth", coords="different", compat="equals")
print("\ncombined:", dict(fig4["coverage"].sizes))
print("\ncoverage of the 95% percentile interval of V, with Clopper-Pearson 95% bounds")
print(f"{'n':>3} " + " ".join(f"{s:>26}" for s in fig4["truth"].values))
for n in SHOW_N:
    cells = []
    for spec in fig4["truth"].values:
        r = row(fig4, "V", "percentile").sel(truth=spec, n=n)
        cells.append(f"{float(r.coverage):.3f} [{float(r.coverage_lower):.3f}, "
                     f"{float(r.coverage_upper):.3f}]")
    print(f"{n:>3} " + " ".join(f"{c:>26}" for c in cells))

# %% [markdown]
# The figure in Tang et al.'s layout: coverage of the percentile interval of
# V against n, with Clopper-Pearson bands, the nominal 0.95 dashed, and
# their reported "about 0.7 by n = 20" marked.

# %%
fig, ax = plt.subplots(figsize=(6.4, 4.2))
ns = np.arange(1, B + 1)
for k, spec in enumerate(TRUTHS):
    r = row(results[spec], "V", "percentile")
    ax.fill_between(ns, r.coverage_lower, r.coverage_upper, color=f"C{k}", alpha=0.2, lw=0)
    ax.plot(ns, r.coverage, color=f"C{k}", lw=1.6, label=spec)
ax.axhline(0.95, color="black", ls="--", lw=1, label="nominal 0.95")
ax.plot([20], [0.7], "kx", ms=9, mew=2, label="Tang et al.: ~0.7 at n = 20")
ax.set_xlabel("n (budget)")
ax.set_ylabel("empirical coverage of V's percentile CI")
ax.set_title(f"B = {B}, M = {M:,} samples, R = {R:,} resamples", fontsize=10)
ax.grid(alpha=0.3)
ax.legend(frameon=False, fontsize=8, loc="lower left")
fig.tight_layout()

# %%
print("coverage at n = 20 (Tang et al.: about 0.7):")
for spec in TRUTHS:
    r = row(results[spec], "V", "percentile").sel(n=20)
    print(f"  {spec:<18} {float(r.coverage):.3f} [{float(r.coverage_lower):.3f}, "
          f"{float(r.coverage_upper):.3f}]")
for spec in TRUTHS:
    r = row(results[spec], "V", "percentile")
    below = np.flatnonzero(r.coverage_upper.values < 0.95)
    first = f"n = {below[0] + 1}" if below.size else "never"
    print(f"  {spec:<18} first n whose upper Clopper-Pearson bound is below 0.95: {first}; "
          f"coverage at n = {B}: {float(r.coverage.sel(n=B)):.3f}")

# %% [markdown]
# ## 2. The misses are one-sided
#
# An interval that misses θ_n lies either entirely below it (`miss_below`)
# or entirely above (`miss_above`); for a well-calibrated two-sided 95%
# interval each would be about 0.025. V is biased low (Tang et al. §3), and
# its bootstrap distribution is centred on the biased estimate, so one
# expects its percentile intervals to miss from below:

# %%
print("V, percentile: miss below / miss above (0.025 / 0.025 if calibrated)")
print(f"{'n':>3} " + " ".join(f"{s:>18}" for s in TRUTHS))
for n in SHOW_N:
    cells = [f"{float(row(results[s], 'V', 'percentile').miss_below.sel(n=n)):.3f} / "
             f"{float(row(results[s], 'V', 'percentile').miss_above.sel(n=n)):.3f}" for s in TRUTHS]
    print(f"{n:>3} " + " ".join(f"{c:>18}" for c in cells))
for spec in TRUTHS:
    r = row(results[spec], "V", "percentile").sel(n=slice(2, None))
    print(f"{spec:<18} over n = 2..{B}: total miss below {float(r.miss_below.sum()):.2f}, "
          f"above {float(r.miss_above.sum()):.2f}; share of misses that are below: "
          f"{float(r.miss_below.sum() / (r.miss_below.sum() + r.miss_above.sum())):.3f}")

# %%
fig, axes = plt.subplots(1, len(TRUTHS), figsize=(12, 3.4), sharey=True)
for ax, spec in zip(axes, TRUTHS):
    r = row(results[spec], "V", "percentile")
    ax.plot(ns, r.miss_below, label="interval below theta_n", color="C3")
    ax.plot(ns, r.miss_above, label="interval above theta_n", color="C0")
    ax.axhline(0.025, color="black", ls="--", lw=0.8, label="0.025 (calibrated)")
    ax.set_title(spec, fontsize=10)
    ax.set_xlabel("n")
    ax.grid(alpha=0.3)
axes[0].set_ylabel("fraction of samples (V, percentile)")
axes[0].legend(frameon=False, fontsize=8)
fig.tight_layout()

# %% [markdown]
# ## 3. Other CI methods
#
# * `basic` (reverse percentile) reflects the bootstrap quantiles about the
#   estimate, `2·V − q`, which shifts the interval up by about the bootstrap
#   estimate of the bias;
# * `bca` corrects the percentile interval for median bias and skewness
#   (jackknife acceleration), as `scipy.stats.bootstrap` does;
# * `dkw`, `ks`, `ld-equal-tailed` and `ld-highest-density` do not
#   bootstrap at all: a simultaneous confidence band for the CDF, with the
#   score range known, turned into a band for the whole curve θ_1..θ_B
#   (Lourie et al. 2024). They are the same for every estimator. DKW and KS
#   are ECDF ± a constant; the Learned-Miller–DeStefano (LD) bands bound
#   each order statistic by a Beta interval (equal-tailed or highest
#   density) at one pointwise level, calibrated so that all hold at once,
#   which makes them narrower than DKW and KS near the ends of the
#   distribution.
#
# For each truth: coverage at a few n, the mean width of the intervals, and
# `coverage_all`, the fraction of samples whose intervals cover θ_n at every
# n at once (what one needs to trust a drawn curve).

# %%
METHODS = [str(m) for m in results[TRUTHS[0]]["ci_method"].values]
WM = max(len(m) for m in METHODS) + 1
for spec in TRUTHS:
    ds = results[spec]
    print(f"\n{spec}: estimator V; coverage (mean width) at n")
    print(f"{'method':<{WM}}" + "".join(f"{'n = ' + str(n):>17}" for n in (1, 10, 20, 50))
          + f"{'all n at once':>15}")
    for m in METHODS:
        r = row(ds, "V", m)
        cells = "".join(f"{float(r.coverage.sel(n=n)):>8.3f} ({float(r.mean_width.sel(n=n)):.4f})"
                        for n in (1, 10, 20, 50))
        print(f"{m:<{WM}}{cells}{float(r.coverage_all):>15.3f}")
    undefined = float(ds["undefined"].sel(ci_method="bca").max())
    print(f"largest fraction of undefined BCa intervals (any estimator, any n): {undefined:.3f}")

# %% [markdown]
# How much wider are the distribution-free bands than the bootstrap
# intervals? Ratio of mean widths to the percentile interval of V, averaged
# over n:

# %%
print(f"{'':<18}" + "".join(f"{m:>{WM}}" for m in METHODS))
for spec in TRUTHS:
    ds = results[spec]
    base = row(ds, "V", "percentile").mean_width
    ratios = [float((row(ds, "V", m).mean_width / base).mean()) for m in METHODS]
    print(f"{spec:<18}" + "".join(f"{v:>{WM - 1}.2f}x" for v in ratios))

# %% [markdown]
# Every method on the LSTM truth, as `evpsim coverage --plot` draws it:
# coverage against n (top) and mean interval width (bottom, log scale).

# %%
plot_coverage(results["kde:reuters-lstm"], FIGS / "coverage_reuters_lstm.png")
Image(FIGS / "coverage_reuters_lstm.png")

# %% [markdown]
# ## 4. U vs V vs W
#
# Tang et al. bootstrapped V. The same question for the unbiased U and the
# multiset W, under each bootstrap method: coverage at n = 10, 20 and B,
# the one-sidedness of the misses at n = B, and `coverage_all`.

# %%
BOOT = ["percentile", "basic", "bca"]
for spec in TRUTHS:
    ds = results[spec]
    print(f"\n{spec}")
    print(f"{'est':<4}{'method':<11}{'n=10':>7}{'n=20':>7}{'n=' + str(B):>7}"
          f"{'below/above at n=' + str(B):>24}{'all n':>8}")
    for e in ["U", "V", "W"]:
        for m in BOOT:
            r = row(ds, e, m)
            print(f"{e:<4}{m:<11}" + "".join(f"{float(r.coverage.sel(n=n)):>7.3f}"
                                             for n in (10, 20, B))
                  + f"{float(r.miss_below.sel(n=B)):>15.3f} / {float(r.miss_above.sel(n=B)):.3f}"
                  + f"{float(r.coverage_all):>8.3f}")

# %% [markdown]
# Which (estimator, method) pair comes closest to 0.95 on average over n,
# and which covers the whole curve most often, on each truth? (Bands
# excluded: they cover by construction, at several times the width.)

# %%
for spec in TRUTHS:
    ds = results[spec].sel(ci_method=BOOT)
    gap = abs(ds["coverage"] - 0.95).mean("n").to_series()  # indexed by (estimator, ci_method)
    call = ds["coverage_all"].to_series()
    best, best_all = gap.idxmin(), call.idxmax()
    print(f"{spec:<18} closest to 0.95 on average: {' '.join(best)} "
          f"(mean |coverage - 0.95| = {gap[best]:.3f}); "
          f"highest coverage_all: {' '.join(best_all)} ({call[best_all]:.3f})")

# %%
fig, axes = plt.subplots(1, 3, figsize=(12, 3.6), sharey=True)
spec = "kde:reuters-lstm"
for ax, m in zip(axes, BOOT):
    for k, e in enumerate("UVW"):
        r = row(results[spec], e, m)
        ax.fill_between(ns, r.coverage_lower, r.coverage_upper, color=f"C{k}", alpha=0.2, lw=0)
        ax.plot(ns, r.coverage, color=f"C{k}", label=e)
    ax.axhline(0.95, color="black", ls="--", lw=1)
    ax.set_title(f"{m} ({spec})", fontsize=10)
    ax.set_xlabel("n")
    ax.grid(alpha=0.3)
axes[0].set_ylabel("coverage")
axes[0].legend(frameon=False)
fig.tight_layout()

# %% [markdown]
# ## 5a. Does more data help? Coverage at n = 20 against B
#
# Tang et al. fixed B = 50. With more trials the ECDF is closer to the
# truth, but θ_20 also sits deeper inside the sample (n/B shrinks), so it is
# not obvious how the coverage at fixed n = 20 moves with B. Estimator V,
# every bootstrap method, on the LSTM truth.

# %%
BS = [20, 30, 50, 100] if QUICK else [20, 30, 50, 75, 100, 150]
by_B = {}
for b in BS:
    by_B[b] = evpsim.coverage("kde:reuters-lstm", B=b, estimators="V", ci_methods=BOOT,
                              replicates=M, resamples=R, seed=SEED)
print("kde:reuters-lstm, V, coverage at n = 20 [Clopper-Pearson 95%]  (miss below)")
print(f"{'B':>4} " + "".join(f"{m:>30}" for m in BOOT))
for b in BS:
    cells = []
    for m in BOOT:
        r = row(by_B[b], "V", m).sel(n=20)
        cells.append(f"{float(r.coverage):.3f} [{float(r.coverage_lower):.3f},"
                     f"{float(r.coverage_upper):.3f}] ({float(r.miss_below):.3f})")
    print(f"{b:>4} " + "".join(f"{c:>30}" for c in cells))

# %%
fig, ax = plt.subplots(figsize=(6, 3.8))
for k, m in enumerate(BOOT):
    cov = [float(row(by_B[b], "V", m).coverage.sel(n=20)) for b in BS]
    lo = [float(row(by_B[b], "V", m).coverage_lower.sel(n=20)) for b in BS]
    hi = [float(row(by_B[b], "V", m).coverage_upper.sel(n=20)) for b in BS]
    ax.fill_between(BS, lo, hi, color=f"C{k}", alpha=0.2, lw=0)
    ax.plot(BS, cov, "o-", color=f"C{k}", label=m)
ax.axhline(0.95, color="black", ls="--", lw=1)
ax.set_xlabel("B (trials per search)")
ax.set_ylabel("coverage of theta_20 (V)")
ax.set_title("kde:reuters-lstm", fontsize=10)
ax.grid(alpha=0.3)
ax.legend(frameon=False)
fig.tight_layout()

# %% [markdown]
# ## 5b. A CI method of one's own: the bias-corrected normal interval
#
# A bootstrap CI method is a numba-compilable
# `func(boots, estimate, jackknife, level) -> (lower, upper)`. Here: the
# normal-approximation interval centred on the bootstrap bias-corrected
# estimate, `2·estimate − mean(boots) ± z·sd(boots)`. The z quantile comes
# from bisection on `math.erf`, so the method works at any level. Its
# kernel is compiled on first use (a few seconds).

# %%
def normal_bc(boots, estimate, jackknife, level):
    target = 0.5 + 0.5 * level  # Phi(z) = 1 - alpha / 2
    lo, hi = 0.0, 10.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if 0.5 * (1.0 + math.erf(mid / math.sqrt(2.0))) < target:
            lo = mid
        else:
            hi = mid
    z = 0.5 * (lo + hi)
    mean = boots.mean()
    sd = math.sqrt(((boots - mean) ** 2).sum() / (boots.size - 1))
    centre = 2.0 * estimate - mean
    return centre - z * sd, centre + z * sd


evpsim.register_ci_method("normal-bc", func=normal_bc, overwrite=True,
                          description="bias-corrected normal: 2 est - mean(boots) +- z sd(boots)")
t0 = time.perf_counter()
user = {spec: evpsim.coverage(spec, B=B, estimators="U,V,W",
                              ci_methods="percentile,basic,normal-bc",
                              replicates=M, resamples=R, seed=SEED) for spec in TRUTHS}
print(f"{time.perf_counter() - t0:.1f} s (includes compiling the user kernel)")

# %% [markdown]
# Same samples and resamples as above (same seed), so `percentile` and
# `basic` reproduce section 1's numbers exactly and the new method is
# compared on identical data.

# %%
assert all(np.array_equal(row(user[s], "V", "percentile").coverage,
                          row(results[s], "V", "percentile").coverage) for s in TRUTHS)
for spec in TRUTHS:
    ds = user[spec]
    print(f"\n{spec}: coverage at n (miss below / above at n = {B}), coverage_all")
    print(f"{'est':<4}{'method':<11}" + "".join(f"{'n=' + str(n):>7}" for n in (1, 10, 20, B))
          + f"{'below/above':>16}{'all n':>8}")
    for e in "UVW":
        for m in ["percentile", "basic", "normal-bc"]:
            r = row(ds, e, m)
            print(f"{e:<4}{m:<11}" + "".join(f"{float(r.coverage.sel(n=n)):>7.3f}"
                                             for n in (1, 10, 20, B))
                  + f"{float(r.miss_below.sel(n=B)):>9.3f}/{float(r.miss_above.sel(n=B)):.3f}"
                  + f"{float(r.coverage_all):>8.3f}")

# %%
import shutil

evpsim.unregister_ci_method("normal-bc")
shutil.rmtree(FIGS)  # the figures are embedded above

# %% [markdown]
# ## Reading the results
#
# * **Fig. 4.** The first table and figure give the percentile coverage of
#   V at each n for the three truths; compare the n = 20 row with Tang et
#   al.'s "about 0.7", and see where the Clopper-Pearson bounds leave 0.95.
# * **One-sidedness.** The miss table of section 2 splits the misses: where
#   `miss_below` dominates `miss_above`, the intervals fail because V is
#   biased low, not because they are too narrow in both directions.
# * **Methods.** `basic` recentres the interval by the bootstrap bias
#   estimate and `bca` by the median bias; section 3 prints whether that
#   recovers coverage, at what width, and how often a whole curve is
#   covered (`coverage_all`). The bands cover by construction, at the
#   width ratios printed; compare the two LD rows with DKW and KS for how
#   much a band shaped like the order statistics' spread saves.
# * **Estimators, B, user methods.** Sections 4 and 5 print the same
#   numbers for U and W, for other B at n = 20, and for the bias-corrected
#   normal interval; read the conclusions off those tables rather than off
#   this text. With `EVPSIM_QUICK=1` the samples are too few for fine
#   distinctions.
