"""Scores on a lattice: the step found from the gaps between distinct scores, the ties
at the top, and none found in continuous scores."""

import math

import numpy as np
import pytest
from conftest import DATA, DATA_MISSING

import evpsim
from evpsim.io.lattice import find_lattice, step_text, top_ties


def _real(name):
    if not (DATA / name).is_file():
        pytest.skip(DATA_MISSING)
    return np.loadtxt(DATA / name)


def _ties(counts, top):
    """Tied among the ``top`` largest of integer ``counts``, counted directly."""
    order = np.sort(counts)[::-1][:top]
    return sum(int(np.count_nonzero(counts == c) > 1) for c in order)


@pytest.mark.parametrize("name, N", [("mnli_deberta_base_acc.txt", 9815),
                                     ("mnli_deberta_v3_base_acc.txt", 9815),
                                     ("sst2_bcn_glove_acc.txt", 872),
                                     ("sst5_cnn_acc.txt", 1101),
                                     ("reuters_mlp_f1.txt", 10_000)])
def test_real_accuracies_lie_on_one_over_the_dev_set_size(name, N):
    # MultiNLI matched has 9,815 examples, SST-2's dev set 872, SST-5's 1,101;
    # the Reuters MLP's F1 is printed to four decimals
    xs = _real(name)
    lattice = find_lattice(xs)
    assert lattice.denominator == N and lattice.step == 1 / N
    assert lattice.step_text == f"1/{N:,}"
    counts = np.round(xs * N).astype(int)
    np.testing.assert_allclose(xs * N, counts, rtol=0, atol=1e-9)
    assert lattice.distinct == np.unique(counts).size and lattice.size == xs.size
    top = max(5, math.ceil(math.sqrt(xs.size)))
    assert (lattice.top, lattice.tied) == (top, _ties(counts, top))
    low = find_lattice(-xs, minimize=True)
    assert (low.step, low.tied) == (lattice.step, lattice.tied)


def test_the_deberta_search_ties_heavily_at_the_top():
    lattice = find_lattice(_real("mnli_deberta_base_acc.txt"))
    assert lattice.describe() == ("scores on a lattice of step 1/9,815 (438 distinct of "
                                  "1,024); 25 of the best 32 tied")


@pytest.mark.parametrize("name, field, N", [("sklearn-hgb", "best_validation_accuracy", 899),
                                            ("sklearn-svm", "best_validation_accuracy", 899),
                                            ("mnli-deberta-v3-base", None, 9815),
                                            ("reuters-lstm", None, None)])
def test_shipped_searches(name, field, N):
    xs = evpsim.read_searches(evpsim.search_path(name), field=field)[0].scores
    lattice = find_lattice(xs)
    if N is None:  # the Reuters LSTM's F1 is not rounded: no lattice
        assert lattice is None
    else:
        assert lattice.denominator == N


def test_continuous_scores_lie_on_no_lattice():
    rng = np.random.default_rng(34)
    for _ in range(200):
        B = int(rng.integers(3, 300))
        assert find_lattice(rng.beta(8, 3, size=B)) is None
        # single precision: its numbers are a grid of their own, finer than rounding
        assert find_lattice(rng.normal(0.7, 0.1, size=B).astype(np.float32)) is None


@pytest.mark.parametrize("N", [100, 500, 2000])
@pytest.mark.parametrize("B", [25, 50, 100])
def test_rounded_draws(N, B):
    rng = np.random.default_rng(N + B)
    counts = np.round(rng.beta(8, 3, size=B) * N).astype(int)
    for xs in (counts / N, (counts / N).astype(np.float32), 100 * counts / N):
        lattice = find_lattice(xs)
        step = np.gcd.reduce(np.diff(np.unique(counts))) / N * (100 if xs.max() > 1 else 1)
        assert lattice.step == pytest.approx(step, rel=1e-9)
        top = max(5, math.ceil(math.sqrt(B)))
        assert (lattice.top, lattice.tied) == (top, _ties(counts, top))
    assert find_lattice(counts / N).step_text == f"1/{N:,}"


def test_too_few_distinct_scores():
    assert find_lattice([0.5, 0.5, 0.6, 0.6]) is None
    assert find_lattice([0.5, 0.6, 0.8]).step_text == "1/10"


def test_top_ties_and_step_text():
    assert top_ties([3, 1, 2, 2, 5, 5, 5, 0, 0], top=3) == (3, 3)
    assert top_ties([3, 1, 2, 2, 5, 5, 5, 0, 0], top=5) == (5, 4)  # 5, 5, 5, not 3, 2
    assert top_ties(np.arange(100.0)) == (10, 0)
    assert step_text(1 / 9815) == "1/9,815" and step_text(0.3) == "0.3"
    assert step_text(2.0) == "2"
    assert step_text(1e-6) == "1/1,000,000" and step_text(1e-13) == "1e-13"
