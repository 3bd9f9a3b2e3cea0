"""The format rule of every table: numbers at any scale, columns that never fuse."""

import math

import numpy as np
import pytest

from evpsim._format import formatter, interval, number, rate, render

SCALES = [10.0 ** k for k in range(-9, 10)]


def _relative_error(text, x):
    return abs(float(text) - x) / abs(x)


def _scores(scale, shift=0.0, seed=0):
    """30 scores like a search's (mean 0.6, sd 0.07), times ``scale``, plus ``shift``."""
    rng = np.random.default_rng(seed)
    return rng.normal(0.6, 0.07, 30) * scale + shift


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_every_scale_keeps_four_digits_of_the_largest_and_two_of_every_value(scale, sign):
    xs = sign * _scores(scale)
    f = formatter(xs)
    texts = [f(x) for x in xs]
    top = np.argmax(np.abs(xs))
    assert _relative_error(texts[top], xs[top]) <= 5e-4
    assert all(_relative_error(t, x) <= 5e-2 for t, x in zip(texts, xs))
    assert all(t.startswith("-") == (sign < 0) for t in texts)


@pytest.mark.parametrize("scale", SCALES)
def test_close_values_stay_apart(scale):
    """Scores far from zero that differ by a thousandth of their size or less
    (1e5 +- 0.1, 3e9 +- 500) still print differently."""
    xs = _scores(scale * 1e-3, shift=5 * scale)
    f = formatter(xs)
    assert max(abs(float(f(x)) - x) for x in xs) <= np.ptp(xs) / 200


def test_a_column_spanning_many_scales_prints_none_as_zero():
    xs = [-407.4, 6.8e-10, 0.5, 3e5]
    f = formatter(xs)
    assert all(_relative_error(f(x), x) <= 5e-2 for x in xs)


def test_fixed_point_gives_the_smallest_value_two_digits():
    f = formatter([0.1023, 0.0027], digits=3)
    assert f(0.1023) == "0.1023" and f(0.0027) == "0.0027"


def test_nan_none_and_infinities_print_as_dash():
    f = formatter([0.5, np.nan, None, np.inf])
    assert [f(x) for x in (np.nan, None, np.inf, -np.inf)] == ["-"] * 4
    assert formatter([np.nan, None])(0.25) == "0.2500"  # no finite values: a plain layout
    assert formatter([])(1.5) == "1.5000"


def test_zero_noise_prints_as_zero_and_never_as_minus_zero():
    exact_bias = np.array([4e-17, -1.1e-16, -2.548e-3, -2.125e-2])
    f = formatter(exact_bias, zero=1e-12)
    assert [f(x) for x in exact_bias[:2]] == ["0.00000", "0.00000"]
    assert f(-2.548e-3) == "-0.00255"
    g = formatter([2e-11, -3e-9], zero=1e-12 * 1e-9)  # the same noise rule at scale 1e-9
    assert g(2e-11) == "2.000e-11"
    assert formatter([1.0, -1e-9])(-1e-9) != "-0.0000"
    assert not formatter([0.7, 0.8])(-1e-7).startswith("-")


def test_signed_differences():
    f = formatter([0.4477, -0.0009], sign=True)
    assert f(0.4477) == "+0.44770" and f(-0.0009) == "-0.00090" and f(0.0) == "0.00000"
    g = formatter([3.6e9, 1.2e5], sign=True)
    assert g(3.6e9) == "+3.600e+09"


def test_number_and_rate():
    assert number(2.95882e-11) == "2.95882e-11" and number(0.059233) == "0.059233"
    assert number(float("nan")) == "-"
    assert rate(0.50642) == "0.5064" and rate(1.0, 3) == "1.000"
    assert interval(0.5042, 0.5086, rate) == "[0.5042, 0.5086]"


@pytest.mark.parametrize("seed", range(5))
def test_render_columns_never_fuse(seed):
    rng = np.random.default_rng(seed)
    columns = []
    for _ in range(6):
        xs = rng.normal(0, 1, 8) * 10.0 ** rng.integers(-12, 12)
        f = formatter(xs)
        columns.append([f(x) for x in xs])
    lines = render([f"c{i}" for i in range(6)], columns, gap=1, widths=[4] * 6)
    assert len({len(line) for line in lines}) == 1  # right-aligned: one width
    for r, line in enumerate(lines[1:]):
        assert line.split() == [col[r] for col in columns]


def test_render_keeps_least_widths_and_grows_past_them():
    lines = render(["n", "theta"], [["1", "10"], ["0.6000", "1.234567e+09"]], gap=1,
                   widths=[4, 8])
    assert lines == ["   n        theta", "   1       0.6000", "  10 1.234567e+09"]
    assert render(["n", "theta"], [["1"], ["0.6000"]], gap=1, widths=[4, 8]) == \
        ["   n    theta", "   1   0.6000"]


def test_scientific_digits_follow_the_spread_but_not_rounding_noise():
    f = formatter([3.0e9 + 250.0, 3.0e9 + 750.0])
    assert f(3.0e9 + 250.0) != f(3.0e9 + 750.0)
    assert math.isclose(float(f(3.0e9 + 250.0)), 3.0e9 + 250.0, rel_tol=1e-10)
    same = 1.457114839e-21 * np.array([1, 1 + 4e-16, 1 - 4e-16])  # one value, float noise
    assert {formatter(same)(x) for x in same} == {"1.457e-21"}
    assert formatter([3e9, 3e9 * (1 + 4e-16)])(3e9) == "3.000e+09"
