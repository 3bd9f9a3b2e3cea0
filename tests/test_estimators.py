"""Estimator weights and estimates: definitions, invariants, errors."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evpsim
from evpsim import _validate as check


def brute_force(xs, n, name):
    """The three estimators from their counting definitions (small B only)."""
    xs = list(xs)
    B = len(xs)
    if name == "V":  # ordered draws with repetition
        draws = itertools.product(range(B), repeat=n)
    elif name == "U":  # subsets
        draws = itertools.combinations(range(B), n)
    else:  # multisets
        draws = itertools.combinations_with_replacement(range(B), n)
    maxima = [max(xs[i] for i in d) for d in draws]
    return math.fsum(maxima) / len(maxima)


@pytest.mark.parametrize("name", ["U", "V", "W"])
def test_estimators_match_counting_definitions(name):
    rng = np.random.default_rng(7)
    xs = np.round(rng.random(6), 1)  # rounding makes ties
    for n in range(1, 7):
        got = evpsim.estimate(xs, name, ns=[n])[0]
        assert got == pytest.approx(brute_force(xs, n, name), abs=1e-13)


@pytest.mark.parametrize("B", [1, 2, 3, 17, 100, 1030, 3000])
@pytest.mark.parametrize("name", ["U", "V", "W"])
def test_weights_are_probabilities(name, B):
    ws = evpsim.estimator_weights(name, B)
    assert ws.shape == (B, B)
    assert np.all(np.isfinite(ws))
    assert np.all(ws >= 0)
    assert np.abs(ws.sum(axis=1) - 1).max() < 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("name", ["U", "V", "W"])
def test_weights_at_ten_thousand(name):
    ws = evpsim.estimator_weights(name, 10_000)
    assert np.all(np.isfinite(ws)) and np.all(ws >= 0)
    assert np.abs(ws.sum(axis=1) - 1).max() < 1e-12


@pytest.mark.parametrize("name", ["U", "W"])
def test_weights_match_closed_forms_at_large_B(name):
    """Spot-check the log-space weights against exact rational arithmetic."""
    from fractions import Fraction

    B = 1200
    ws = evpsim.estimator_weights(name, B)
    for n, i in [(1, 1), (7, 900), (600, 1100), (1200, 1200), (50, 50)]:
        if name == "U":
            exact = Fraction(math.comb(i - 1, n - 1), math.comb(B, n))
        else:
            exact = Fraction(math.comb(i + n - 2, n - 1), math.comb(B + n - 1, n))
        assert ws[n - 1, i - 1] == pytest.approx(float(exact), rel=1e-10, abs=1e-300)


def test_v_weights_closed_form():
    B = 500
    ws = evpsim.estimator_weights("V", B)
    i = np.arange(1, B + 1)
    for n in (1, 2, 40, 500):
        expected = (i / B) ** n - ((i - 1) / B) ** n
        np.testing.assert_allclose(ws[n - 1], expected, rtol=1e-10, atol=1e-300)


scores = st.lists(st.sampled_from([0.1, 0.25, 0.5, 0.5, 0.7, 0.9, 1.0])
                  | st.floats(-5, 5, allow_nan=False, allow_subnormal=False),
                  min_size=2, max_size=40)


@settings(max_examples=150, deadline=None)
@given(scores)
def test_properties_on_random_samples_with_ties(xs):
    xs = np.array(xs)
    B = xs.size
    u, v, w = (evpsim.estimate(xs, e) for e in "UVW")
    tol = 1e-12 * max(1.0, np.abs(xs).max())
    assert np.all(w <= v + tol) and np.all(v <= u + tol)
    assert u[-1] == pytest.approx(xs.max(), abs=tol)
    for est in (u, v, w):
        assert est[0] == pytest.approx(xs.mean(), abs=tol)
        assert np.all(np.diff(est) >= -tol)
        assert np.all(est >= xs.min() - tol) and np.all(est <= xs.max() + tol)
    perm = np.random.default_rng(B).permutation(B)
    np.testing.assert_allclose(evpsim.estimate(xs[perm], "V"), v, atol=tol, rtol=0)


@settings(max_examples=100, deadline=None)
@given(scores, st.floats(1e-3, 3), st.floats(-10, 10, allow_subnormal=False))
def test_affine_equivariance(xs, a, b):
    """est(a x + b) = a est(x) + b for a > 0 (a < 0 turns maxima into minima)."""
    xs = np.array(xs)
    for e in "UVW":
        lhs = evpsim.estimate(a * xs + b, e)
        rhs = a * evpsim.estimate(xs, e) + b
        np.testing.assert_allclose(lhs, rhs, atol=1e-9 * (1 + abs(b) + abs(a) * np.abs(xs).max()))


def test_registry_lstatistic_and_general():
    def half_uv(B):
        return 0.5 * (evpsim.estimator_weights("U", B) + evpsim.estimator_weights("V", B))

    def sample_max(xs, n):
        return xs[-1]

    try:
        evpsim.register_estimator("UVmix", weights=half_uv, description="mix")
        evpsim.register_estimator("MAX", func=sample_max, description="sample maximum")
        assert {"UVmix", "MAX"} <= set(evpsim.list_estimators())
        xs = [0.3, 0.9, 0.5]
        mix = evpsim.estimate(xs, "UVmix")
        np.testing.assert_allclose(mix, 0.5 * (evpsim.estimate(xs, "U") + evpsim.estimate(xs, "V")))
        np.testing.assert_allclose(evpsim.estimate(xs, "MAX"), [0.9, 0.9, 0.9])
        with pytest.raises(ValueError, match="already registered"):
            evpsim.register_estimator("MAX", func=sample_max)
    finally:
        for name in ("UVmix", "MAX"):
            if name in evpsim.list_estimators():
                evpsim.unregister_estimator(name)


@pytest.mark.parametrize("kwargs, message", [
    ({"weights": None, "func": None}, "exactly one of"),
    ({"weights": 3}, "weights must be a callable"),
])
def test_register_errors(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        evpsim.register_estimator("bad", **kwargs)


def test_register_rejects_bad_name_and_builtin():
    with pytest.raises(ValueError, match="estimator name"):
        evpsim.register_estimator("a,b", weights=lambda B: np.eye(B))
    with pytest.raises(ValueError, match="already registered"):
        evpsim.register_estimator("U", weights=lambda B: np.eye(B), overwrite=True)
    with pytest.raises(ValueError, match="built-in"):
        evpsim.unregister_estimator("V")


def test_bad_weights_shape_is_reported():
    # weights are tried once at registration, so the bad shape is refused there
    try:
        with pytest.raises(ValueError, match="shape"):
            evpsim.register_estimator("badshape", weights=lambda B: np.ones((B, B + 1)))
    finally:
        if "badshape" in evpsim.list_estimators():
            evpsim.unregister_estimator("badshape")
    assert "badshape" not in evpsim.list_estimators()


@pytest.mark.parametrize("scores, message", [
    ([0.1, float("nan"), 0.3], "NaN"),
    ([0.5], "at least 2"),
    ([], "at least 2"),
    (["a", "b"], "must be numbers"),
    ([[0.1, 0.2]], "one-dimensional"),
])
def test_estimate_rejects_bad_scores(scores, message):
    with pytest.raises((ValueError, TypeError), match=message):
        evpsim.estimate(scores)


def test_estimate_rejects_bad_ns_and_names():
    with pytest.raises(ValueError, match="at least 1"):
        evpsim.estimate([0.1, 0.2, 0.3], ns=[0])
    for name in ("U", "W"):
        with pytest.raises(ValueError, match=f"{name} does not estimate beyond the B = 3 "
                                             f"trials run \\(n = 4 asked for\\): "):
            evpsim.estimate([0.1, 0.2, 0.3], name, ns=[4])
    assert evpsim.estimate([0.1, 0.2, 0.3], "V", ns=[4])[0] < 0.3
    with pytest.raises(ValueError, match="must be an integer"):
        check.ns([1.5], 3)
    with pytest.raises(ValueError, match="unknown estimator 'Z'"):
        evpsim.estimate([0.1, 0.2], "Z")
    with pytest.raises(ValueError, match="B must be at least 1"):
        evpsim.estimator_weights("U", 0)


def test_an_estimator_needing_a_missing_package_is_refused_before_any_work():
    from evpsim.estimators import Estimator

    est = Estimator("needs-q", "d", python=lambda samples, ns, context: samples[:, :1],
                    needs="nonexistent_module_q: pip install q")
    with pytest.raises(ValueError, match="needs-q needs nonexistent_module_q, which is not "
                                         "installed: pip install q"):
        est.check_use(5, [1])
    assert "opda" in evpsim.get_estimator("opda-parametric").needs
