"""Reading researchers' search-result files: every format, every drop counted, no pooling.

The fixtures in ``tests/data`` (see its README) are small copies of the
formats: allentune's merged ``results.jsonl``, opda's learning curves (AlexNet
and DeBERTa), plain text and CSV.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import evpsim
from evpsim._validate import InvalidArgument, InvalidType
from evpsim.io.records import (
    DIVERGED,
    EMPTY_CELL,
    EMPTY_CURVE,
    FIELD_MISSING,
    NOT_JSON,
    NOT_NUMBER,
    NOT_OBJECT,
)
from evpsim.io.search import Search, describe_dropped, describe_reading
from evpsim.io.searchfiles import read_jsonl_scores, read_scores, read_searches

DATA = Path(__file__).resolve().parent / "data"
ALLENTUNE = DATA / "results.jsonl"
ALEXNET = DATA / "alexnet_tuning.results.jsonl"
DEBERTA = DATA / "deberta-base.results.jsonl"
PLAIN = DATA / "mlp.txt"
TABLE = DATA / "reuters.csv"

#: the scores the fixtures were made from (tests/data/README.md)
MLP_10 = [0.7941, 0.7807, 0.7581, 0.771, 0.7853, 0.7974, 0.792, 0.7765, 0.7798, 0.7811]
LSTM_8 = [0.36217183770883055, 0.24806746310611386, 0.20825016633399865, 0.3697148475909538,
          0.19280380176510525, 0.002506265664160401, 0.17030729359496483, 0.1346370816096277]


def _write(tmp_path, name, lines):
    """A JSON Lines file of ``lines`` (dicts, or raw strings written as they are)."""
    path = tmp_path / name
    path.write_text("".join((ln if isinstance(ln, str) else json.dumps(ln)) + "\n"
                            for ln in lines))
    return path


def _error(match, argument, fn, *args, exc=InvalidArgument, **kwargs):
    """The error of ``fn(*args, **kwargs)``: its type, words and argument."""
    with pytest.raises(exc, match=match) as info:
        fn(*args, **kwargs)
    assert info.value.argument == argument
    return str(info.value)


# --- allentune ---------------------------------------------------------------------------

def test_allentune_models_are_read_apart_with_their_drops_counted():
    mlp, lstm = read_searches(ALLENTUNE, field="best_validation_accuracy", group="model")
    assert isinstance(mlp, Search)
    assert mlp.label == "mlp" and lstm.label == "reg_lstm"
    # the 4th is null: a failed trial, counted at the worst score: 0, as the other F1
    # scores lie in [0, 1] on a lattice of step 1/10,000; with bounds="none", at the
    # lowest score observed
    assert mlp.scores.tolist() == MLP_10[:3] + [0.0] + MLP_10[4:]
    assert mlp.failed_basis == ("the lower end of [0, 1], the range of scores on a lattice of "
                                "step 1/10,000")
    free, _ = read_searches(ALLENTUNE, field="best_validation_accuracy", group="model",
                            bounds="none")
    worst = min(MLP_10[:3] + MLP_10[4:])
    assert free.scores.tolist() == MLP_10[:3] + [worst] + MLP_10[4:]
    assert free.failed_basis == "the lowest observed"
    assert lstm.scores.tolist() == LSTM_8[:5] + LSTM_8[6:]  # the 6th has no such key
    assert (mlp.records, mlp.dropped, mlp.failed) == (10, {}, {DIVERGED: 1})
    assert (lstm.records, lstm.dropped, lstm.failed) == (8, {FIELD_MISSING: 1}, {})
    for s in (mlp, lstm):
        assert s.source == "results.jsonl" and s.metric == "best_validation_accuracy"
        assert s.durations is None and s.durations_missing == 0
        assert s.scores.dtype == float


def test_allentune_models_are_never_pooled():
    message = _error("holds 2 models", "group", read_searches, ALLENTUNE,
                     field="best_validation_accuracy")
    assert "in its 'model' field (mlp, reg_lstm), which are never pooled" in message
    assert "pass group='model' to read them apart" in message
    # the strict reader (of a truth: one model) refuses too, in words for any caller
    message = _error("holds 2 models", "group", read_jsonl_scores, ALLENTUNE,
                     "best_validation_accuracy")
    assert message.endswith("which are never pooled: give a file holding one model's scores")


def test_pooling_refusal_lists_at_most_five_models(tmp_path):
    path = _write(tmp_path, "many.jsonl", [{"model": f"m{i}", "acc": 0.5} for i in range(7)])
    message = _error("holds 7 models", "group", read_searches, path, field="acc")
    assert "(m0, m1, m2, m3, m4, ...)" in message


def test_one_model_named_in_the_model_field_is_read_without_group(tmp_path):
    path = _write(tmp_path, "cnn.jsonl", [{"model": "cnn", "acc": x} for x in (0.4, 0.5)])
    s, = read_searches(path, field="acc")
    assert s.label == "cnn" and s.scores.tolist() == [0.4, 0.5]


def test_a_nested_model_config_is_not_a_model_name(tmp_path):
    """Only a string ``model`` names a model; an object there is a configuration."""
    path = _write(tmp_path, "r.jsonl", [{"model": {"hidden": h}, "acc": 0.5 + h / 1000}
                                        for h in (64, 128)])
    assert read_searches(path, field="acc")[0].scores.size == 2


def test_select_keeps_the_chosen_models():
    s, = read_searches(ALLENTUNE, field="best_validation_accuracy", group="model",
                       select="reg_lstm")
    assert s.label == "reg_lstm" and s.records == 8
    both = read_searches(ALLENTUNE, field="best_validation_accuracy", group="model",
                         select=["reg_lstm", "mlp"])
    assert [s.label for s in both] == ["mlp", "reg_lstm"]  # in the file's order


def test_allentune_durations_in_every_form_allennlp_writes():
    mlp, lstm = read_searches(ALLENTUNE, field="best_validation_accuracy", group="model",
                              time_field="training_duration")
    assert mlp.durations.size == mlp.scores.size  # kept trials only
    assert mlp.durations[0] == pytest.approx(12 * 60 + 23.865980)  # "0:12:23.865980"
    assert mlp.durations[1] == 300.0  # "0:05:00"
    assert lstm.durations[2] == pytest.approx(86400 + 2 * 3600 + 3 * 60 + 4.5)  # 1 day, ...
    assert mlp.durations_missing == lstm.durations_missing == 0


# --- dotted keys -----------------------------------------------------------------------

def test_flattened_dotted_keys_are_read_literally():
    """``model.encoder.type`` is one key of allentune's records, not a nested path."""
    boe, lstm = read_searches(ALLENTUNE, field="best_validation_accuracy",
                              group="model.encoder.type", failed="drop")
    assert (boe.label, lstm.label) == ("boe", "lstm")
    assert boe.scores.tolist() == MLP_10[:3] + MLP_10[4:]
    lr, = read_searches(ALLENTUNE, field="trainer.optimizer.lr", group="model", select="mlp")
    assert lr.scores.size == 10


def test_longest_literal_key_first_then_nested(tmp_path):
    rows = [{"a.b": 1, "a": {"b": 2}}, {"a": {"b": 3}},
            {"a.b": {"x": 9}, "a": {"b": {"c": 4}}}]  # a.b.c: a.b has no c, a -> b -> c
    path = _write(tmp_path, "keys.jsonl", rows)
    s, = read_searches(path, field="a.b")
    assert s.scores.tolist() == [1, 3] and s.dropped == {NOT_NUMBER: 1}
    path = _write(tmp_path, "deep.jsonl", rows[2:] * 2)
    assert read_searches(path, field="a.b.c")[0].scores.tolist() == [4, 4]


# --- opda learning curves ----------------------------------------------------------------

@pytest.mark.parametrize("reduce, scores, dropped", [
    ("max", [0.362172, 0.248067, 0.20825, 0.369715, 0.192804, 0.002506, 0.170307, 0.094246,
             0.333333], {EMPTY_CURVE: 3}),
    ("last", [0.362172, 0.240625, 0.20825, 0.369715, 0.192804, 0.002506, 0.170307, 0.323333],
     {EMPTY_CURVE: 3, DIVERGED: 1}),
    ("min", [0.144869, 0.173647, 0.0833, 0.147886, 0.077122, 0.001003, 0.068123, 0.053855,
             0.183333], {EMPTY_CURVE: 3}),
])
def test_opda_learning_curves_reduced(reduce, scores, dropped):
    """Iterations 2, 6, 9 have empty curves; iteration 11 ends in NaN, ignored by max and
    min, a diverged run for last; iterations 3 and 12 peak before their last epoch."""
    s, = read_searches(ALEXNET, field="learning_curve.top_1", reduce=reduce, failed="drop")
    assert s.label == "alexnet_tuning.results" and s.metric == "learning_curve.top_1"
    assert s.scores.tolist() == scores
    assert s.records == 12 and s.dropped == dropped == s.failed
    # by default the failed trials count at the lowest score observed, where they ran
    counted, = read_searches(ALEXNET, field="learning_curve.top_1", reduce=reduce)
    failed_at = {1, 5, 8} | ({10} if reduce == "last" else set())
    kept = iter(scores)
    assert counted.scores.tolist() == [min(scores) if i in failed_at else next(kept)
                                       for i in range(12)]
    assert counted.dropped == {} and counted.failed == dropped


def test_opda_durations_from_the_last_checkpoint():
    s, = read_searches(ALEXNET, field="learning_curve.top_1", reduce="max",
                       time_field="learning_curve.-1.time")
    assert s.durations[0] == 818.932468 and s.durations.size == 12
    assert s.durations_missing == 3  # the empty curves have no time
    dropped, = read_searches(ALEXNET, field="learning_curve.top_1", reduce="max",
                             time_field="learning_curve.-1.time", failed="drop")
    assert dropped.durations.size == 9 and dropped.durations_missing == 0


def test_opda_diverged_runs_kept_or_dropped():
    """Iteration 11 is flagged nan_train_loss with three epochs before diverging: kept
    by default, at its best epoch, and counted; dropped on request, and counted."""
    kept, = read_searches(ALEXNET, field="learning_curve.top_1", reduce="max")
    assert 0.094246 in kept.scores.tolist() and kept.scores.size == 12
    assert kept.diverged_kept == {"nan_train_loss": 1} and kept.dropped == {}
    assert kept.failed == {EMPTY_CURVE: 3}  # flagged too, but without a checkpoint
    assert "kept 1 diverged run (nan_train_loss)" in describe_reading(kept)
    # dropped: every flagged run, with or without checkpoints
    dropped, = read_searches(ALEXNET, field="learning_curve.top_1", reduce="max",
                             diverged="drop")
    assert dropped.scores.tolist() == [s for i, s in enumerate(kept.scores.tolist())
                                       if i not in (1, 5, 8, 10)]
    assert dropped.dropped == {"flagged as diverged (nan_train_loss)": 4}
    assert dropped.diverged_kept == {} == dropped.failed and dropped.records == 12
    # its last checkpoint is NaN: with reduce="last" it has no score, a failed trial
    last, = read_searches(ALEXNET, field="learning_curve.top_1", reduce="last")
    assert last.diverged_kept == {} and last.failed == {EMPTY_CURVE: 3, DIVERGED: 1}


def test_only_a_json_true_flags_a_run(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps({"nan_train_loss": flag, "acc": acc}) + "\n"
                            for flag, acc in ((1, 0.5), ("true", 0.6), (None, 0.7),
                                              (True, 0.1), (False, 0.8))))
    s, = read_searches(path, field="acc", diverged="drop")
    assert s.scores.tolist() == [0.5, 0.6, 0.7, 0.8]
    assert s.dropped == {"flagged as diverged (nan_train_loss)": 1}


def test_fields_per_path_read_files_of_different_formats(tmp_path):
    plain, alexnet = read_searches([PLAIN, ALEXNET], field=[None, "learning_curve.top_1"],
                                   reduce="max")
    assert plain.scores.size == 20 and plain.metric == ""
    assert alexnet.scores.size == 12 and alexnet.metric == "learning_curve.top_1"
    path = tmp_path / "runs.csv"
    path.write_text("lr,f1\n0.1,0.5\n0.2,0.6\n")
    table, text = read_searches([path, PLAIN], column=["f1", None])
    assert table.metric == "f1" and table.scores.tolist() == [0.5, 0.6]
    assert text.scores.tolist() == plain.scores.tolist()


def test_a_repeated_column_name_is_refused_only_when_asked_for(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("acc,note,note\n0.5,a,b\n0.6,c,d\n0.7,a,b\n0.8,c,d\n")
    assert read_searches(path, column="acc")[0].scores.tolist() == [0.5, 0.6, 0.7, 0.8]
    message = _error("group 'note' is ambiguous", "group", read_searches, path, column="acc",
                     group="note")
    assert "has 2 columns of that name, at 0-based positions 1, 2" in message
    assert [s.label for s in read_searches(path, column="acc", group="2")] == ["b", "d"]


def test_describe_reading_says_nothing_of_a_clean_read():
    s, = read_searches(PLAIN)
    assert describe_reading(s) == ""


def test_opda_deberta_pairs():
    best, = read_searches(DEBERTA, field="learning_curves.matched.*.1", reduce="max")
    assert best.scores.tolist() == [0.7987, 0.7706, 0.7798, 0.7769, 0.7945, 0.7819]
    last, = read_searches(DEBERTA, field="learning_curves.matched.*.1", reduce="last")
    final, = read_searches(DEBERTA, field="learning_curves.matched.-1.1")
    assert last.scores.tolist() == final.scores.tolist()
    assert final.scores[3] == 0.327356  # the run that collapsed


def test_pairs_without_star_say_how_to_reach_into_them():
    message = _error("holds no scores: 6 records read, all dropped", "path", read_searches,
                     DEBERTA, field="learning_curves.matched", reduce="max")
    assert "6 not a number; first, line 1: learning_curves.matched holds [1000, 0.47922]" \
        in message
    assert "reach into lists with '*' (e.g. learning_curves.matched.*.1)" in message


def test_learning_curve_needs_reduce():
    message = _error("reduce is needed", "reduce", read_searches, ALEXNET,
                     field="learning_curve.top_1")
    assert "line 1: learning_curve.top_1 holds a list of 3 checkpoints" in message
    assert "choose max, min or last" in message


def test_reduce_refused_on_a_single_value():
    message = _error("reduce applies to a field holding a list", "reduce", read_searches,
                     ALEXNET, field="iteration", reduce="last")
    assert "line 1: iteration is 1" in message


def test_all_nan_curve_is_empty(tmp_path):
    path = _write(tmp_path, "c.jsonl", ['{"c": [NaN, null]}', '{"c": [0.1, 0.3]}',
                                        '{"c": [0.2, Infinity, 0.25]}'])
    s, = read_searches(path, field="c", reduce="max", failed="drop")
    assert s.scores.tolist() == [0.3, 0.25] and s.dropped == {EMPTY_CURVE: 1}


# --- plain text and CSV ----------------------------------------------------------------

def test_plain_text():
    s, = read_searches(PLAIN)
    assert (s.label, s.source, s.metric, s.records, s.dropped) == ("mlp", "mlp.txt", "", 20, {})
    assert s.scores.tolist()[:10] == MLP_10
    np.testing.assert_array_equal(s.scores, read_scores(PLAIN))


def test_plain_text_drops_are_counted(tmp_path):
    path = tmp_path / "runs.txt"
    path.write_text("# dev accuracy\nacc\n0.5\nnan\n\n0.7\n-inf\n0.6\n")
    s, = read_searches(path, failed="drop")
    assert s.scores.tolist() == [0.5, 0.7, 0.6] and s.records == 6
    assert s.dropped == {NOT_NUMBER: 1, DIVERGED: 2}
    s, = read_searches(path)  # "acc" cannot be read; nan and -inf are failed trials,
    # counted at 0: the others lie in [0, 1] on a lattice of step 1/10
    assert s.scores.tolist() == [0.5, 0.0, 0.7, 0.0, 0.6] and s.dropped == {NOT_NUMBER: 1}
    s, = read_searches(path, bounds="none")  # no range: at the lowest score observed
    assert s.scores.tolist() == [0.5, 0.5, 0.7, 0.5, 0.6]
    _error("line 2: 'acc' is not a number", "path", read_scores, path)  # strict


def test_csv_grouped_with_durations():
    mlp, lstm = read_searches(TABLE, column="dev_f1", group="model", time_field="train_seconds")
    assert (mlp.label, lstm.label) == ("mlp", "reg_lstm")
    assert mlp.scores.tolist() == [0.7576, 0.7706, 0.7911, 0.7941, 0.7744, 0.7974, 0.7961, 0.766]
    assert (lstm.scores.size, lstm.records, lstm.dropped) == (7, 8, {EMPTY_CELL: 1})
    assert mlp.metric == "dev_f1" and mlp.source == "reuters.csv"
    assert mlp.durations[0] == 517.8 and math.isnan(mlp.durations[6])
    assert (mlp.durations_missing, lstm.durations_missing) == (1, 0)


def test_csv_models_are_never_pooled():
    message = _error("holds 2 models in its 'model' column", "group", read_searches, TABLE,
                     column="dev_f1")
    assert "(mlp, reg_lstm)" in message
    _error("holds 2 models in its 'model' column", "group", read_scores, TABLE, column="dev_f1")


def test_csv_ragged_row_is_counted(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("trial,f1\n1,0.5\n2\n3,0.7\n4,0.8\n")
    s, = read_searches(path, column="f1")
    assert s.scores.tolist() == [0.5, 0.7, 0.8] and s.dropped == {"column missing": 1}


# --- several files, labels -----------------------------------------------------------------

def test_several_files_are_labelled_by_stem(tmp_path):
    other = tmp_path / "lstm.txt"
    other.write_text("".join(f"{x}\n" for x in LSTM_8))
    searches = read_searches([PLAIN, other])
    assert [s.label for s in searches] == ["mlp", "lstm"]
    assert searches[1].scores.tolist() == LSTM_8


def test_field_makes_a_file_of_another_suffix_json_lines(tmp_path):
    """Suffixes decide first; then field means JSON Lines, column CSV (as read_scores)."""
    path = tmp_path / "results.log"
    path.write_text(ALEXNET.read_text())
    s, = read_searches(path, field="learning_curve.top_1", reduce="max")
    assert s.scores.size == 12 and s.label == "results"
    mixed = _error("holds no scores", "path", read_searches, [PLAIN, ALEXNET],
                   field="learning_curve.top_1", reduce="max")
    assert "mlp.txt' holds no scores: 21 records read, all dropped (1 not JSON; " in mixed


def test_several_grouped_files_are_labelled_stem_slash_value():
    searches = read_searches([ALLENTUNE, TABLE], field="best_validation_accuracy",
                             column="dev_f1", group="model")
    assert [s.label for s in searches] == ["results/mlp", "results/reg_lstm", "reuters/mlp",
                                           "reuters/reg_lstm"]
    assert [s.metric for s in searches] == ["best_validation_accuracy"] * 2 + ["dev_f1"] * 2


def test_labels_replace_the_names():
    a, b = read_searches(TABLE, column="dev_f1", group="model", labels=["MLP", "LSTM"])
    assert (a.label, b.label) == ("MLP", "LSTM")
    s, = read_searches(PLAIN, labels="Reuters MLP")
    assert s.label == "Reuters MLP"


def test_select_across_files_must_find_each_value_somewhere():
    searches = read_searches([ALLENTUNE, TABLE], field="best_validation_accuracy",
                             column="dev_f1", group="model", select="mlp")
    assert [s.label for s in searches] == ["results/mlp", "reuters/mlp"]


def test_describe_dropped():
    assert describe_dropped({DIVERGED: 2, FIELD_MISSING: 1}) == \
        "2 NaN, infinite or null (diverged); 1 field missing"
    assert describe_dropped({}) == ""


# --- JSON Lines drops ----------------------------------------------------------------------

def test_every_kind_of_jsonl_drop_is_counted(tmp_path):
    path = _write(tmp_path, "mixed.jsonl", [
        {"acc": 0.5}, {"acc": None}, '{"acc": NaN}', {"loss": 1.0}, {"acc": "0.6"},
        {"acc": True}, "not json", "[0.5]", "", {"acc": 0.7}, '{"acc": 1e400}', {"acc": 2}])
    s, = read_searches(path, field="acc", failed="drop")
    assert s.scores.tolist() == [0.5, 0.7, 2.0]
    assert s.records == 11  # the blank line is no record
    assert s.dropped == {DIVERGED: 3, FIELD_MISSING: 1, NOT_NUMBER: 2, NOT_JSON: 1,
                         NOT_OBJECT: 1}
    assert sum(s.dropped.values()) + s.scores.size == s.records


def test_durations_every_form(tmp_path):
    forms = ["0:00:05", "0:01:02.500000", "1 day, 2:03:04.5", "3 days, 0:00:01", 12.5, "7",
             None]
    rows = [{"acc": 0.1 * i, "t": t} for i, t in enumerate(forms)] + [{"acc": 0.9}]
    s, = read_searches(_write(tmp_path, "t.jsonl", rows), field="acc", time_field="t")
    expected = [5, 62.5, 86400 + 7384.5, 3 * 86400 + 1, 12.5, 7]
    np.testing.assert_array_equal(s.durations[:6], expected)
    assert np.isnan(s.durations[6:]).all() and s.durations_missing == 2


@pytest.mark.parametrize("bad", ["1:2:3", "an hour", "-1 day, 23:59:59", -5, True, [1, "x"],
                                 "Infinity", "PT", "P1H"])
def test_bad_duration_names_the_line(tmp_path, bad):
    path = _write(tmp_path, "t.jsonl", [{"acc": 0.5, "t": 1}, {"acc": 0.6, "t": bad}])
    message = _error("not a duration", "time_field", read_searches, path, field="acc",
                     time_field="t", time_reduce="last")
    assert "t.jsonl' line 2: t is " in message


# --- errors, one each ----------------------------------------------------------------------

def test_field_missing_from_every_record_is_a_typo():
    message = _error("field 'best_validation_acc' is in no record of", "field", read_searches,
                     ALLENTUNE, field="best_validation_acc", group="model")
    assert "the first record's keys: directory, random_seed" in message


def test_group_missing_from_every_record_is_a_typo():
    _error("group 'modle' is in no record of .*keys: directory", "group", read_searches,
           ALLENTUNE, field="best_validation_accuracy", group="modle")


def test_time_field_missing_from_every_record_is_a_typo():
    _error("time_field 'duration' is in no record", "time_field", read_searches, ALLENTUNE,
           field="best_validation_accuracy", group="model", time_field="duration")


def test_record_without_its_group_value_is_refused(tmp_path):
    path = _write(tmp_path, "g.jsonl", [{"model": "a", "acc": 0.5}, {"acc": 0.6},
                                        {"model": "a", "acc": 0.7}])
    _error("line 2: 'model' is missing, so the record's model is unknown", "group",
           read_searches, path, field="acc", group="model")


def test_unreadable_line_is_refused_when_grouping(tmp_path):
    path = _write(tmp_path, "g.jsonl", [{"model": "a", "acc": 0.5}, "{oops",
                                        {"model": "a", "acc": 0.7}])
    _error(r"line 2: not JSON \(Expecting property name.*\), so its 'model' is unknown",
           "path", read_searches, path, field="acc", group="model")


def test_unknown_column():
    _error(r"has no column 'f1'; columns: \['trial', 'model', 'lr', 'train_seconds', "
           r"'dev_f1'\]", "column", read_searches, TABLE, column="f1", group="model")
    _error("has no column 'team'", "group", read_searches, TABLE, column="dev_f1",
           group="team")


def test_unknown_select():
    message = _error("select 'cnn' is not a value of 'model'", "select", read_searches,
                     ALLENTUNE, field="best_validation_accuracy", group="model", select="cnn")
    assert message.endswith("its values: mlp, reg_lstm")


def test_select_matching_nothing_in_one_file(tmp_path):
    other = _write(tmp_path, "other.jsonl", [{"model": "cnn", "best_validation_accuracy": x}
                                             for x in (0.4, 0.5)])
    _error("other.jsonl' holds none of the selected 'model' values", "select", read_searches,
           [ALLENTUNE, other], field="best_validation_accuracy", group="model", select="mlp")


def test_select_without_group():
    _error("select needs group", "select", read_searches, ALLENTUNE,
           field="best_validation_accuracy", select="mlp")


def test_unknown_reduce():
    _error("reduce must be one of max, min, last, got 'mean'", "reduce", read_searches,
           ALEXNET, field="learning_curve.top_1", reduce="mean")


def test_jsonl_without_field():
    _error("field must name the score's key: .*results.jsonl' is JSON Lines", "field",
           read_searches, ALLENTUNE)


def test_options_that_apply_to_no_file():
    _error("field applies to JSON Lines files, and .*reuters.csv' holds none", "field",
           read_searches, TABLE, field="dev_f1")
    _error("column applies to CSV files", "column", read_searches, ALLENTUNE, column="x",
           field="best_validation_accuracy")
    _error("reduce applies to JSON Lines fields", "reduce", read_searches, PLAIN, reduce="max")
    _error("time_field applies to JSON Lines and CSV files, not to plain text", "time_field",
           read_searches, PLAIN, time_field="t")


def test_model_with_too_few_scores_says_what_was_dropped(tmp_path):
    path = _write(tmp_path, "few.jsonl", [{"model": "a", "acc": 0.5}, {"model": "a", "acc": None},
                                          {"model": "a"}, {"model": "b", "acc": 0.6},
                                          {"model": "b", "acc": 0.7}])
    message = _error("few.jsonl' \\(model 'a'\\) holds 1 score of 3 records, too few for a "
                     "search \\(at least 2\\); 2 dropped", "path", read_searches, path,
                     field="acc", group="model", failed="drop")
    assert "(1 NaN, infinite or null (diverged); 1 field missing; first, line 2: acc is None" \
        in message
    s, = read_searches(path, field="acc", group="model", select="b")  # b alone is fine
    assert s.scores.tolist() == [0.6, 0.7]


def test_file_with_one_score(tmp_path):
    path = tmp_path / "one.txt"
    path.write_text("0.5\n")
    _error("one.txt' holds 1 score; a search needs at least 2", "path", read_searches, path)
    assert read_scores(path).tolist() == [0.5]  # a file: truth says why it needs 2


def test_empty_file(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n")
    _error("empty.jsonl' holds no scores$", "path", read_searches, path, field="acc")


def test_huge_score_is_an_error(tmp_path):
    path = _write(tmp_path, "h.jsonl", [{"c": [0.5, 1e300]}])
    _error("h.jsonl' line 1: a checkpoint of c is 1e\\+300, beyond \\+-1e\\+70", "path",
           read_searches, path, field="c", reduce="max")
    text = tmp_path / "h.txt"
    text.write_text("0.5\n1e71\n")
    _error("line 2: score is '1e71', beyond", "path", read_searches, text)


def test_wrong_label_count():
    _error(r"labels has 1 name for 2 models \(mlp, reg_lstm\): give one per model", "labels",
           read_searches, TABLE, column="dev_f1", group="model", labels=["x"])


def test_repeated_labels(tmp_path):
    _error("two models are both labelled 'x': give each model its own", "labels",
           read_searches, TABLE, column="dev_f1", group="model", labels=["x", "x"])
    (tmp_path / "sub").mkdir()
    copy = tmp_path / "sub" / "mlp.txt"
    copy.write_text(PLAIN.read_text())
    _error("two models are both labelled 'mlp': '.*mlp.txt' and '.*sub/mlp.txt'; name them "
           "with labels", "path", read_searches, [PLAIN, copy])


@pytest.mark.parametrize("kwargs, argument, match", [
    ({"field": ""}, "field", "field must be a non-empty key, got ''"),
    ({"field": "a..b"}, "field", "field 'a..b' has an empty part"),
    ({"field": "acc", "select": []}, "select", "select must be a string or a non-empty list"),
    ({"field": "acc", "labels": [""]}, "labels", "labels must be a non-empty string"),
])
def test_bad_arguments(kwargs, argument, match):
    _error(match, argument, read_searches, ALLENTUNE, **kwargs)


def test_bad_paths(tmp_path):
    _error("path names no file", "path", read_searches, [])
    _error("path must be a file name or path, got 5", "path", read_searches, 5, exc=InvalidType)
    _error("no such file", "path", read_searches, [PLAIN, tmp_path / "missing.txt"])
    _error("column must be a column's name or 0-based index, got 1.5", "column", read_searches,
           TABLE, column=1.5, exc=InvalidType)


# --- the package's face and the strict readers ----------------------------------------------

def test_exported():
    assert evpsim.read_searches is read_searches and evpsim.Search is Search
    assert evpsim.read_scores is read_scores


def test_read_jsonl_scores_is_strict(tmp_path):
    path = _write(tmp_path, "r.jsonl", [{"m": {"acc": 0.5}}, {"m": {"acc": None}}])
    _error("r.jsonl' line 2: m.acc is None, not a finite number", "path", read_jsonl_scores,
           path, "m.acc")
    good = _write(tmp_path, "g.jsonl", [{"m": {"acc": 0.5}}, {"m": {"acc": 0.25}}])
    assert read_jsonl_scores(good, "m.acc").tolist() == [0.5, 0.25]


def test_file_truth_reads_through_the_strict_reader():
    t = evpsim.make_truth(f"file:{PLAIN}")
    assert t.support.size == np.unique(read_searches(PLAIN)[0].scores).size
