"""Run real hyperparameter searches with scikit-learn, large enough to be their own truth.

    python kde_fits/sklearn_searches.py [--trials N] [--families a,b] [--jobs 2] [--out DIR]

The shipped searches hold 145 to 1,024 trials: enough to draw estimators'
samples from, too few for their empirical distribution to stand in for the
search's true score distribution. This script runs random searches of
:data:`TRIALS` trials per model family, so that the empirical distribution of
all of a family's trials is a ground truth from which EVP estimators' small
samples can be drawn, with the failed trials, ties and odd shapes of real
searches.

Every trial fits one model on the same fixed split of scikit-learn's bundled
``load_digits`` (1,797 8x8 images of handwritten digits, 10 classes, pixels
scaled to [0, 1]; no download): 50% stratified for training, 50% (899
images) for validation. Its score is the validation accuracy. The families,
whose score distributions differ in shape (hyperparameter distributions in
:func:`_mlp`, :func:`_hgb`, :func:`_svm`):

- ``mlp``: ``MLPClassifier``, at most :data:`MLP_EPOCHS` epochs, with a
  log-uniform learning rate over six decades, so that, as in real neural
  searches, some trials learn little and some diverge. scikit-learn
  guards the MLP's loss, so a diverged trial ends at chance accuracy
  (about 0.10), a score like any other; a trial whose fit raises (as
  scikit-learn does when the weights turn non-finite) is kept with a null
  score and the error as ``failure``;
- ``hgb``: ``HistGradientBoostingClassifier``, early stopping off;
- ``svm``: ``SVC`` with an RBF kernel, log-uniform C and gamma.

Each trial's hyperparameters and its model's ``random_state`` are drawn from
``np.random.default_rng([seed, family id, trial index])``, never from the
order trials run in, so any slice can be rebuilt alone (:func:`run_trials`);
BLAS and OpenMP run one thread per worker, so scores do not depend on the
number of workers. ``tests/test_sklearn_searches.py`` rebuilds a few trials
and checks them against the committed files.

Each family is written as allentune-style JSON Lines, one trial per line in
trial order, to ``evpsim/data/searches/sklearn-FAMILY.jsonl``: ``family``,
``trial``, ``seed`` (the model's ``random_state``), the hyperparameters as
top-level keys, ``best_validation_accuracy`` (null for a failed trial),
``training_duration`` (seconds of ``fit``, which vary from run to run) and
``failure`` (null, or why the trial has no score).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.datasets import load_digits
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from evpsim.io.results import atomic_write

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "evpsim" / "data" / "searches"
#: the global seed of every family's trials
SEED = 20250917
#: trials per family in the full build
TRIALS = 2000
#: the seed of the train/validation split
SPLIT_SEED = 0
#: epochs (passes over the training set) of an MLP trial at most
MLP_EPOCHS = 30
#: trials per joblib task: one load of the data per task, and one progress step
CHUNK = 10


def _log_uniform(rng, lo, hi):
    """A log-uniform draw from [lo, hi], rounded to 6 significant digits as recorded."""
    return float(f"{math.exp(rng.uniform(math.log(lo), math.log(hi))):.6g}")


def _log_int(rng, lo, hi):
    """An integer from [lo, hi], log-uniform."""
    return int(math.floor(math.exp(rng.uniform(math.log(lo), math.log(hi + 1)))))


def _mlp(rng, seed):
    """An MLP's hyperparameters and model."""
    params = {
        "layers": int(rng.integers(1, 3)),
        "hidden_units": _log_int(rng, 16, 128),
        "activation": str(rng.choice(["relu", "tanh"])),
        "solver": str(rng.choice(["sgd", "adam"])),
        "learning_rate_init": _log_uniform(rng, 1e-5, 10.0),
        "alpha": _log_uniform(rng, 1e-6, 1e-1),
        "batch_size": int(rng.choice([32, 64, 128, 256])),
    }
    model = MLPClassifier(hidden_layer_sizes=(params["hidden_units"],) * params["layers"],
                          activation=params["activation"], solver=params["solver"],
                          learning_rate_init=params["learning_rate_init"],
                          alpha=params["alpha"], batch_size=params["batch_size"],
                          max_iter=MLP_EPOCHS, random_state=seed)
    return params, model


def _hgb(rng, seed):
    """A gradient-boosting model's hyperparameters and model."""
    params = {
        "max_iter": int(rng.integers(5, 51)),
        "learning_rate": _log_uniform(rng, 1e-2, 1.0),
        "max_leaf_nodes": _log_int(rng, 4, 32),
        "min_samples_leaf": _log_int(rng, 2, 64),
        "l2_regularization": _log_uniform(rng, 1e-4, 10.0),
        "max_features": float(f"{rng.uniform(0.2, 1.0):.6g}"),
    }
    return params, HistGradientBoostingClassifier(early_stopping=False, random_state=seed,
                                                  **params)


def _svm(rng, seed):
    """An RBF SVM's hyperparameters and model."""
    params = {"C": _log_uniform(rng, 1e-2, 1e3), "gamma": _log_uniform(rng, 1e-4, 10.0)}
    return params, SVC(kernel="rbf", random_state=seed, **params)


#: family name -> (id in the seed, hyperparameter distribution and model)
FAMILIES = {"mlp": (0, _mlp), "hgb": (1, _hgb), "svm": (2, _svm)}


def _split():
    """The fixed train/validation split of the digits."""
    x, y = load_digits(return_X_y=True)
    return train_test_split(x / 16.0, y, test_size=0.5, stratify=y, random_state=SPLIT_SEED)


def _trial(family, trial, seed, data):
    """One trial's record."""
    family_id, draw = FAMILIES[family]
    rng = np.random.default_rng([seed, family_id, trial])
    model_seed = int(rng.integers(2**31 - 1))
    params, model = draw(rng, model_seed)
    x_train, x_valid, y_train, y_valid = data
    score, failure = None, None
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(x_train, y_train)
    except (ValueError, ArithmeticError) as err:
        failure = f"{type(err).__name__}: {err}"
    duration = time.perf_counter() - start
    if failure is None:
        score = float(np.mean(model.predict(x_valid) == y_valid))
    return {"family": family, "trial": trial, "seed": model_seed, **params,
            "best_validation_accuracy": score, "training_duration": round(duration, 4),
            "failure": failure}


def _chunk(family, trials, seed):
    """The records of some trials of one family, on one thread."""
    data = _split()
    with threadpool_limits(limits=1):
        return [_trial(family, trial, seed, data) for trial in trials]


def _run(tasks, n_jobs, report=None):
    """Run ``(family, trials, seed)`` tasks; their records, in the tasks' order."""
    results = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_chunk)(*task) for task in tasks)
    records = []
    for chunk in results:
        records += chunk
        if report is not None:
            report(len(records))
    return records


def run_trials(family, trials, seed=SEED, n_jobs=1):
    """Rebuild some trials of one family.

    Parameters
    ----------
    family : str
        A key of :data:`FAMILIES`.
    trials : sequence of int
        Trial indices.
    seed : int, optional
        The global seed (:data:`SEED`, that of the committed files, by default).
    n_jobs : int, optional
        joblib workers; the records do not depend on it.

    Returns
    -------
    list of dict
        The trials' records, in the order of ``trials``.
    """
    trials = [int(t) for t in trials]
    size = min(CHUNK, -(-len(trials) // n_jobs))  # every worker gets a share
    tasks = [(family, trials[i:i + size], seed) for i in range(0, len(trials), size)]
    by_trial = {r["trial"]: r for r in _run(tasks, n_jobs)}
    return [by_trial[t] for t in trials]


class _Progress:
    """Trials done of a total, elapsed time and ETA, on stderr every few seconds."""

    def __init__(self, total, every=5.0):
        self.total, self.every = total, every
        self.start = self.last = time.perf_counter()

    def __call__(self, done):
        now = time.perf_counter()
        if now - self.last < self.every and done < self.total:
            return
        self.last = now
        elapsed = now - self.start
        eta = elapsed / done * (self.total - done)
        print(f"{done}/{self.total} trials, {_clock(elapsed)} elapsed, ETA {_clock(eta)}",
              file=sys.stderr, flush=True)


def _clock(seconds):
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes}m{seconds:02d}s"


def _write_jsonl(records, path):
    """Write records as JSON Lines, whole or not at all (:func:`evpsim.io.results.atomic_write`)."""
    text = "".join(json.dumps(record, allow_nan=False) + "\n" for record in records)
    return atomic_write(path, lambda tmp: Path(tmp).write_text(text))


def build(families=tuple(FAMILIES), trials=TRIALS, jobs=2, out_dir=OUT):
    """Run trials ``0 .. trials - 1`` of each family and write one file per family.

    Progress goes to stderr. Returns the written paths, in the order of
    ``families``.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tasks = [(family, list(range(lo, min(lo + CHUNK, trials))), SEED)
             for family in families for lo in range(0, trials, CHUNK)]
    records = _run(tasks, jobs, _Progress(len(families) * trials))
    paths = []
    for family in families:
        mine = sorted((r for r in records if r["family"] == family), key=lambda r: r["trial"])
        paths.append(_write_jsonl(mine, out_dir / f"sklearn-{family}.jsonl"))
    return paths


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=TRIALS,
                        help="trials per family (default: %(default)s)")
    parser.add_argument("--families", default=",".join(FAMILIES),
                        help="comma-separated families (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=2, help="joblib workers (default: "
                        "%(default)s)")
    parser.add_argument("--out", default=str(OUT), help="folder to write to (default: "
                        "%(default)s)")
    args = parser.parse_args(argv)
    families = list(dict.fromkeys(f for f in args.families.split(",") if f))
    unknown = [f for f in families if f not in FAMILIES]
    if unknown or not families:
        parser.error(f"--families: unknown {unknown}; choose from {', '.join(FAMILIES)}")
    if args.trials < 1 or args.jobs < 1:
        parser.error("--trials and --jobs must be at least 1")
    for path in build(families, args.trials, args.jobs, args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
