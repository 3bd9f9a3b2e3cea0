"""Write the search-result fixtures of this folder (see README.md).

    python tests/data/make_fixtures.py

Scores come from the MIT-licensed Reuters searches in ``../shared/data``
(override with ``EVPSIM_SHARED_DATA``); everything else (hyperparameters,
durations, seeds, curves) is drawn from a seeded generator, so the files
are the same on every run.
"""

import datetime
import json
import math
import os
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("EVPSIM_SHARED_DATA", HERE.parents[2] / "shared" / "data"))
MLP = np.loadtxt(DATA / "reuters_mlp_f1.txt").tolist()
LSTM = np.loadtxt(DATA / "reuters_lstm_f1.txt").tolist()
rng = np.random.default_rng(20240601)


def pandas_line(record):
    """A record as pandas' ``to_json(orient="records", lines=True)`` writes it."""
    return json.dumps(record, separators=(",", ":")).replace("/", "\\/") + "\n"


def allentune():
    """allentune ``report`` of two searches, merged (``allentune merge``)."""
    lines = []
    for model, scores, encoder in (("mlp", MLP[:10], "boe"), ("reg_lstm", LSTM[:8], "lstm")):
        for i, score in enumerate(scores):
            seconds = float(rng.uniform(150, 900))
            if model == "reg_lstm" and i == 2:
                seconds = 86400 + 7384.5  # a run of more than a day
            if model == "mlp" and i == 1:
                seconds = 300.0  # whole seconds: str(timedelta) writes no fraction
            epochs = int(rng.integers(5, 40))
            diverged = model == "mlp" and i == 3
            record = {
                "directory": f"/home/user/logs/{model}/run_{i}_2019-08-20_1{i}-2{i}-0{i}/trial/",
                "random_seed": str(rng.integers(10000, 99999)),
                "pytorch_seed": str(rng.integers(100, 999)),
                "numpy_seed": str(rng.integers(1000, 9999)),
                "dataset_reader.type": "text_classification_json",
                "iterator.batch_size": int(rng.choice([16, 32, 64, 128])),
                "model.type": "classifier",
                "model.encoder.type": encoder,
                "model.encoder.embedding_dim": 300 if encoder == "boe" else None,
                "model.encoder.hidden_size": int(rng.integers(64, 512))
                if encoder == "lstm" else None,
                "model.dropout": round(float(rng.uniform(0, 0.5)), 4),
                "trainer.num_epochs": 50,
                "trainer.optimizer.type": "adam",
                "trainer.optimizer.lr": float(f"{10 ** rng.uniform(-5, -1):.6g}"),
                "best_epoch": epochs - 3,
                "peak_cpu_memory_MB": round(float(rng.uniform(2500, 4000)), 3),
                "training_duration": str(datetime.timedelta(seconds=seconds)),
                "training_start_epoch": 0,
                "training_epochs": epochs - 1,
                "epoch": epochs - 1,
                "training_accuracy": None if diverged else round(min(1, score + 0.15), 4),
                "training_loss": None if diverged else round(float(rng.uniform(0.05, 0.4)), 6),
                "validation_accuracy": None if diverged else round(score - 0.003, 4),
                "validation_loss": None if diverged else round(float(rng.uniform(0.1, 0.6)), 6),
                "best_validation_accuracy": None if diverged else score,
                "best_validation_loss": None if diverged else
                round(float(rng.uniform(0.1, 0.5)), 6),
                "model": model,
            }
            if model == "reg_lstm" and i == 5:  # a record written without the metric
                del record["best_validation_accuracy"]
            lines.append(pandas_line(record))
    (HERE / "results.jsonl").write_text("".join(lines))


def curve(peak, epochs, shape):
    """``top_1`` after each epoch: rising to ``peak`` (``shape`` "end") or
    peaking one epoch early and dipping 3% (``shape`` "early")."""
    rise = [peak * (0.4 + 0.6 * j / (epochs - 1)) for j in range(epochs)]
    if shape == "early":
        rise = rise[1:] + [peak * 0.97]
    return [round(v, 6) for v in rise]


def opda_alexnet():
    """opda's ImageNet AlexNet tuning file: learning curves per trial."""
    empty, nan_run = {2, 6, 9}, 11
    peaks = iter(LSTM[:9])
    lines = []
    for iteration in range(1, 13):
        epochs = int(rng.integers(3, 6))
        record = {
            "iteration": iteration,
            "nan_train_loss": iteration in empty or iteration == nan_run,
            "epochs": epochs,
            "batch_size": int(rng.choice([128, 256, 512, 1024])),
            "lr": float(f"{10 ** rng.uniform(math.log10(5e-3), math.log10(5e1)):.6g}"),
            "lr_peak_epoch": int(rng.integers(0, epochs)),
            "momentum": round(float(rng.uniform(0.7, 1.0)), 6),
            "weight_decay": float(f"{10 ** rng.uniform(-6, -3):.6g}"),
            "label_smoothing": round(float(rng.uniform(0, 0.5)), 6),
        }
        checkpoints = []
        if iteration not in empty:
            top_1 = curve(next(peaks), epochs, "early" if iteration % 3 == 0 else "end")
            if iteration == nan_run:  # the loss blew up after two epochs
                top_1 = top_1[:2] + [math.nan] * (epochs - 2)
            elapsed = 0.0
            for epoch, acc in enumerate(top_1):
                elapsed += float(rng.uniform(240, 320))
                checkpoints.append({
                    "time": round(elapsed, 6), "epoch": epoch, "top_1": acc,
                    "top_5": acc if math.isnan(acc) else round(min(1.0, 2.1 * acc), 6),
                    "train_loss": math.nan if math.isnan(acc) else
                    round(6.9 - 4 * acc, 6)})
        record["learning_curve"] = checkpoints
        lines.append(json.dumps(record) + "\n")
    (HERE / "alexnet_tuning.results.jsonl").write_text("".join(lines))


def opda_deberta():
    """opda's MultiNLI DeBERTa tuning file: ``[step, accuracy]`` pairs per split."""
    lines = []
    for iteration, peak in enumerate(MLP[20:26], start=1):
        steps = int(rng.integers(3001, 9000))
        if iteration == 4:  # a run that collapsed to the majority class
            matched = [peak, 0.354457, 0.318186, 0.327356]
        else:
            matched = curve(peak, 4, "early" if iteration % 2 else "end")
        pairs = list(zip([1000, 2000, 3000, steps], matched))
        record = {
            "iteration": iteration,
            "num_train_epochs": int(rng.integers(1, 4)),
            "train_batch_size": int(rng.integers(16, 64)),
            "total_model_steps": steps,
            "learning_rate": float(f"{10 ** rng.uniform(-6, -3):.6g}"),
            "warmup_steps": int(rng.integers(100, 3000)),
            "cls_drop_out": round(float(rng.uniform(0, 0.3)), 6),
            "learning_curves": {
                "matched": [[s, a] for s, a in pairs],
                "mismatched": [[s, round(a - 0.004, 6)] for s, a in pairs],
            },
        }
        lines.append(json.dumps(record) + "\n")
    (HERE / "deberta-base.results.jsonl").write_text("".join(lines))


def plain():
    body = "".join(f"{x:g}\n" for x in MLP[:20])
    (HERE / "mlp.txt").write_text("# Reuters MLP, dev F1: the first 20 trials of the search\n"
                                  "\n" + body)


def table():
    rows = ["trial,model,lr,train_seconds,dev_f1"]
    for i, (a, b) in enumerate(zip(MLP[30:38], LSTM[20:28])):
        for model, score in (("mlp", a), ("reg_lstm", b)):
            seconds = "" if (model, i) == ("mlp", 6) else f"{rng.uniform(60, 600):.1f}"
            cell = "" if (model, i) == ("reg_lstm", 4) else f"{score:.6g}"
            rows.append(f"{len(rows)},{model},{10 ** rng.uniform(-4, -1):.3g},{seconds},{cell}")
    (HERE / "reuters.csv").write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    allentune()
    opda_alexnet()
    opda_deberta()
    plain()
    table()
