"""Write the Ray Tune experiment of this folder with a real (small) Ray Tune run.

    pip install "ray[tune]"
    python tests/data/raytune/make_raytune.py

Ray is not needed to read the experiment (evpsim reads the trials' files), so
the output is committed: ``experiment/`` holds what Ray Tune wrote, less its
experiment state (mostly pickles), its TensorBoard event files and its
checkpoints (which evpsim does not read), so that the fixture stays small.
A random search (Ray Tune's default ``BasicVariantGenerator``, seeded, over
``tune.uniform``) of 10 trials, each
reporting an accuracy for 3 iterations; the trials whose learning rate is
above 0.85 raise before their last report (errored trials, which evpsim
counts as failed).
"""

import shutil
from pathlib import Path

from ray import tune
from ray.tune.search import BasicVariantGenerator

HERE = Path(__file__).resolve().parent
NAME = "experiment"
KEEP = ("params.json", "result.json", "progress.csv", "error.txt")
#: what the searcher saved, which tells it was random search
SEARCHER_STATE = "basic-variant-state-"


def trainable(config):
    for step in range(3):
        if step == 2 and config["lr"] > 0.85:
            raise RuntimeError("the loss became NaN")
        tune.report({"accuracy": round(0.5 + 0.4 * config["lr"] * (step + 1) / 3, 6)})


def main():
    scratch = HERE / "scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    tuner = tune.Tuner(trainable, param_space={"lr": tune.uniform(0.0, 1.0)},
                       tune_config=tune.TuneConfig(num_samples=10, metric="accuracy",
                                                   mode="max",
                                                   search_alg=BasicVariantGenerator(
                                                       random_state=20261127)),
                       run_config=tune.RunConfig(name=NAME, storage_path=str(scratch),
                                                 verbose=0))
    tuner.fit()
    out = HERE / NAME
    shutil.rmtree(out, ignore_errors=True)
    for path in sorted((scratch / NAME).rglob("*")):
        keep = path.name in KEEP or path.name.startswith(SEARCHER_STATE)
        if path.is_file() and keep:
            target = out / path.relative_to(scratch / NAME)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
