"""The result schema: dimension names, identifying coordinates, files."""

import os
import stat

import numpy as np
import pytest
import xarray as xr

import evpsim
from evpsim.io.results import read_netcdf, write_netcdf


@pytest.fixture(scope="module")
def cov():
    return evpsim.coverage("normal", B=6, estimators="U,V", ci_methods="percentile,bca,dkw",
                           replicates=16, resamples=200, seed=2)


def test_ci_methods_are_selected_by_name(cov):
    one = cov.sel(ci_method="bca")
    assert one["coverage"].dims == ("estimator", "n")
    assert str(one["ci_method_kind"].item()) == "bootstrap"
    assert "method" not in cov.dims


def test_intervals_select_by_ci_method():
    ds = evpsim.bootstrap_intervals([0.7, 0.72, 0.75, 0.71, 0.8], "V",
                                    ci_methods="percentile,basic", resamples=300)
    assert ds.sel(ci_method="basic")["lower"].dims == ("estimator", "n")


def _exact(truth, B):
    return evpsim.bias(truth, B=B, method="exact")


def test_results_of_two_truths_concatenate_with_their_descriptions():
    a, b = _exact("normal", 6), _exact("tang-small", 6)
    both = xr.concat([a, b], dim="truth", coords="different", compat="equals")
    assert both["truth"].values.tolist() == ["normal", "tang-small"]
    assert both["truth_description"].values.tolist() == [
        a["truth_description"].item(), b["truth_description"].item()]
    assert both["truth_hi"].values.tolist() == [1.0, 0.6]
    np.testing.assert_array_equal(both["theta"].sel(truth="tang-small"), b["theta"])


def test_truths_of_different_kinds_concatenate_with_their_parameters():
    import json

    both = xr.concat([_exact("normal", 5), _exact("kde:reuters-lstm", 5)], dim="truth",
                     coords="different", compat="equals")
    normal, kde = (json.loads(p) for p in both["truth_params"].values)
    assert normal == {"mu": 0.6, "sigma": 0.07}
    assert kde["kde_construction"] == "tang2020" and kde["support_size"] == 511
    assert not any(k.startswith("truth") for k in both.attrs)


def test_results_of_two_sizes_concatenate_along_B():
    both = xr.concat([_exact("normal", 4), _exact("normal", 7)], dim="B", coords="different",
                     compat="equals", join="outer")
    assert both["B"].values.tolist() == [4, 7]
    assert both.sizes["n"] == 7
    assert np.isnan(both["theta"].sel(B=4, n=7))
    assert float(both["theta"].sel(B=7, n=7)) > 0


def test_truth_coordinates_survive_netcdf(tmp_path):
    ds = _exact("tang-big", 5)
    back = read_netcdf(write_netcdf(ds, tmp_path / "r.nc"))
    for name in ("truth", "truth_description", "truth_lo", "truth_hi", "truth_params", "B"):
        assert back[name].item() == ds[name].item()



def test_labels_read_from_a_file_and_combined_with_longer_ones_are_written_whole(tmp_path):
    """Combined results keep the text width the first part was read with (its encoding);
    written again, a longer label is not cut to it."""
    short = xr.Dataset({"x": ("estimator", [1.0, 2.0])}, coords={"estimator": ["U", "V"]})
    first = read_netcdf(write_netcdf(short, tmp_path / "a.nc"))
    longer = xr.Dataset({"x": ("estimator", [3.0])}, coords={"estimator": ["quantile"]})
    both = xr.concat([first, longer], dim="estimator")
    back = read_netcdf(write_netcdf(both, tmp_path / "b.nc"))
    assert back["estimator"].values.tolist() == ["U", "V", "quantile"]

def test_comparisons_name_both_models_in_coordinates():
    ds = evpsim.compare_curves("tang-small", "tang-big", B=4, replicates=2000)
    assert ds["truth_a"].item() == "tang-small" and ds["truth_b"].item() == "tang-big"
    assert ds["label_a"].item() == "tang-small" and int(ds["B"]) == 4


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_output_files_honour_the_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        path = write_netcdf(_exact("normal", 3), tmp_path / "r.nc")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask
