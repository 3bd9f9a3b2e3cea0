"""evpsim's own scikit-learn searches (``data:sklearn-*``): large real pools as truths."""

import numpy as np
import pytest

import evpsim
from evpsim.cli import main
from evpsim.io.shipped import SEARCHES, shipped_scores

POOLS = [name for name, entry in SEARCHES.items() if name.startswith("sklearn-")]


@pytest.mark.parametrize("name", POOLS)
def test_pool_is_a_truth_with_exact_theta(name):
    scores = shipped_scores(name)
    assert scores.size >= 1990 and np.all(np.isfinite(scores))  # failed trials left out
    truth = evpsim.make_truth(f"data:{name}")
    # the exact expected maximum of n draws with replacement from the pool
    xs = np.sort(scores)
    n = 10
    cdf = np.arange(1, xs.size + 1) / xs.size
    brute = float(np.sum(xs * (cdf ** n - np.concatenate([[0.0], cdf[:-1]]) ** n)))
    assert truth.theta([n])[0] == pytest.approx(brute, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", POOLS)
def test_monte_carlo_agrees_with_exact_on_each_pool(name):
    ds = evpsim.bias(f"data:{name}", B=50, replicates=200_000, seed=11)
    assert ds.attrs["max_abs_z"] < 4  # largest |MC - exact| / SE over every estimator and n


def test_batteries_run_on_a_pool(capsys):
    assert main(["bias", "--dist", "data:sklearn-svm", "--B", "20", "--method", "exact"]) == 0
    assert "truth: empirical distribution of 2000 scores" in capsys.readouterr().out  # none failed
    assert main(["coverage", "--dist", "data:sklearn-mlp", "--B", "20", "--estimators", "V",
                 "--replicates", "100", "--resamples", "200", "--ci-methods", "percentile"]) == 0
    assert main(["compare", "--a", "data:sklearn-hgb", "--b", "data:sklearn-svm", "--B", "20",
                 "--pool", "--replicates", "2000"]) == 0


def test_curve_and_fit_kde_read_a_pool_without_naming_its_field(tmp_path, capsys):
    # percentile's intervals, the cheapest: the reading is what is tested
    assert main(["curve", "data:sklearn-svm", "data:sklearn-hgb", "--resamples", "200",
                 "--ci-methods", "percentile"]) == 0
    out = capsys.readouterr().out
    assert "2000 scores from sklearn-svm.jsonl" in out
    assert main(["fit-kde", "data:sklearn-mlp", "--name", "mlp", "--bandwidth", "cv",
                 "--construction", "centered", "--bounds", "0,1",
                 "--out", str(tmp_path / "mlp.nc")]) == 0
