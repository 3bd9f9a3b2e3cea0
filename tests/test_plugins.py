"""Plugins (evpsim.plugins): the loader with fake entry points, and real discovery of
a plugin on the path by ``import evpsim`` and ``evpsim list``.

The round trip through wheels installed in a fresh virtual environment is in
test_wheel.py, which builds evpsim's wheel once for both of its tests.
"""

import os
import subprocess
import sys
import textwrap
import warnings
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import evpsim
from evpsim import plugins
from evpsim.cli import main
from evpsim.plugins import PluginWarning

REPO = Path(__file__).resolve().parents[1]
EST, CI = "evpsim.estimators", "evpsim.ci_methods"


def best_so_far(scores, ns):
    """A Python estimator: the best of the first n trials."""
    return np.maximum.accumulate(scores)[np.minimum(ns, len(scores)) - 1]


def top_weights(B):
    """An L-statistic: the sample maximum at every budget."""
    ws = np.zeros((B, B))
    ws[:, -1] = 1.0
    return ws


def whole_band(B, level):
    """A CI method: the band that says nothing (0 <= F <= 1)."""
    return np.zeros(B + 1), np.ones(B + 1)


class FakeEntryPoint:
    """What the loader reads of an ``importlib.metadata.EntryPoint``."""

    def __init__(self, group, obj, name="fake", package="evpsim-plugin-fake",
                 value="evpsim_plugin_fake:OBJ"):
        self.group, self.name, self.value, self._obj = group, name, value, obj
        self.dist = SimpleNamespace(name=package, version="1.0")

    def load(self):
        if isinstance(self._obj, BaseException):
            raise self._obj
        return self._obj


class FakeEntryPoints(list):
    """What ``importlib.metadata.entry_points()`` returns, with its ``select``."""

    def select(self, group):
        return [ep for ep in self if ep.group == group]


@pytest.fixture
def load(monkeypatch):
    """``load(*entry_points)``: load them as the installed plugins; the PluginWarning
    messages. Every estimator and CI method they register is removed afterwards."""
    monkeypatch.setattr(plugins, "_SEEN", set())
    monkeypatch.delenv(plugins.DISABLE, raising=False)
    before = set(evpsim.list_estimators()), set(evpsim.list_ci_methods())

    def run(*eps):
        monkeypatch.setattr(metadata, "entry_points", lambda: FakeEntryPoints(eps))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            plugins.load_plugins()
        for w in caught:  # each a single line as Python prints it
            assert w.category is PluginWarning, w
            text = warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line)
            assert text.count("\n") == 1, text
        return [str(w.message) for w in caught]

    yield run
    for name in set(evpsim.list_estimators()) - before[0]:
        evpsim.unregister_estimator(name)
    for name in set(evpsim.list_ci_methods()) - before[1]:
        evpsim.unregister_ci_method(name)


def _unchanged():
    return set(evpsim.list_estimators()), set(evpsim.list_ci_methods())


# --- what a plugin may provide ---------------------------------------------------------------

def test_a_mapping_registers_with_its_package_as_source(load):
    assert load(FakeEntryPoint(EST, {"name": "fake-best", "python": best_so_far,
                                     "description": "best so far"})) == []
    est = evpsim.get_estimator("fake-best")
    assert (est.kind, est.source, est.description) == (
        "python", "evpsim-plugin-fake 1.0 (plugin)", "best so far")
    assert evpsim.estimate([0.2, 0.5, 0.4], "fake-best").tolist() == [0.2, 0.5, 0.5]


def test_a_callable_returning_a_list_and_a_ci_method(load):
    def estimators():
        return [{"name": "fake-top", "weights": top_weights},
                {"name": "fake-best", "python": best_so_far, "targets": ["mean", "quantile"]}]

    assert load(FakeEntryPoint(EST, estimators),
                FakeEntryPoint(CI, ({"name": "fake-band", "band": whole_band},))) == []
    assert [evpsim.get_estimator(n).kind for n in ("fake-top", "fake-best")] == [
        "L-statistic", "python"]
    assert evpsim.get_estimator("fake-best").targets == ("mean", "quantile")
    method = evpsim.get_ci_method("fake-band")
    assert (method.kind, method.source) == ("band", "evpsim-plugin-fake 1.0 (plugin)")


def test_a_source_of_its_own_comes_before_the_package(load):
    load(FakeEntryPoint(EST, {"name": "fake-top", "weights": top_weights,
                              "source": "Smith et al. 2025"}))
    assert evpsim.get_estimator("fake-top").source == (
        "Smith et al. 2025; evpsim-plugin-fake 1.0 (plugin)")


def test_an_empty_list_registers_nothing_and_says_nothing(load):
    before = _unchanged()
    assert load(FakeEntryPoint(EST, lambda: [])) == []
    assert _unchanged() == before


# --- broken plugins: one line each, nothing registered, the others loaded -------------------

def _raise():
    raise RuntimeError("no GPU found\nsecond line")


BROKEN = {
    "import error": (ModuleNotFoundError("No module named 'nope'"),
                     "importing evpsim_plugin_fake:OBJ failed: ModuleNotFoundError: No module "
                     "named 'nope'"),
    "not a mapping": (42, "evpsim_plugin_fake:OBJ must be a mapping of register_estimator's "
                          "keyword arguments, a list of them or a callable returning either, "
                          "not an int"),
    "callable returning None": (lambda: None, "a callable returning either, not None"),
    "list holding a string": ([{"name": "fake-top", "weights": top_weights}, "fake-best"],
                              "not a list holding a str"),
    "callable raising": (_raise, "evpsim_plugin_fake:OBJ() raised RuntimeError: no GPU found"),
    "failed trial": ({"name": "fake-bad", "python": lambda scores, ns: scores},
                     "estimator 'fake-bad' not registered: python must be f(scores, ns) -> "
                     "array of len(ns); on a sample of 5 at n = 1, 2, 5 it returned shape "
                     "(5,), expected (3,)"),
    "unknown argument": ({"name": "fake-top", "weight": top_weights},
                         "estimator 'fake-top' not registered: register_estimator() got an "
                         "unexpected keyword argument 'weight'"),
    "no name": ({"weights": top_weights}, "estimator None not registered: "),
    "bad name": ({"name": "a,b", "weights": top_weights},
                 "estimator 'a,b' not registered: estimator name must be"),
    "bad source": ({"name": "fake-top", "weights": top_weights, "source": 3},
                   "estimator 'fake-top' not registered: source must be"),
    "overwrite": ({"name": "fake-top", "weights": top_weights, "overwrite": True},
                  "estimator 'fake-top': a plugin cannot overwrite"),
    "built-in name": ({"name": "V", "weights": top_weights},
                      "estimator 'V': the name is taken by a built-in estimator"),
    # the first registers, the second fails: the first is taken back
    "all or nothing": ([{"name": "fake-top", "weights": top_weights},
                        {"name": "fake-best", "python": best_so_far, "batched": "yes"}],
                       "estimator 'fake-best' not registered: batched must be"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_plugin_is_one_warning_and_registers_nothing(load, case):
    obj, problem = BROKEN[case]
    good = FakeEntryPoint(CI, {"name": "fake-band", "band": whole_band}, name="good",
                          package="evpsim-plugin-good")
    before = _unchanged()
    messages = load(FakeEntryPoint(EST, obj, name="broken"), good)
    assert len(messages) == 1, messages
    assert messages[0].startswith("evpsim plugin evpsim-plugin-fake 1.0 not loaded: "
                                  "evpsim.estimators entry point 'broken': "), messages[0]
    assert problem in messages[0], messages[0]
    assert _unchanged() == (before[0], before[1] | {"fake-band"})


def test_a_broken_ci_method_names_its_function(load):
    messages = load(FakeEntryPoint(CI, "percentile"))
    assert messages == ["evpsim plugin evpsim-plugin-fake 1.0 not loaded: evpsim.ci_methods "
                        "entry point 'fake': evpsim_plugin_fake:OBJ must be a mapping of "
                        "register_ci_method's keyword arguments, a list of them or a callable "
                        "returning either, not a str"]


def test_two_plugins_of_one_name_the_first_package_wins(load):
    spec = {"name": "fake-top", "weights": top_weights}
    messages = load(FakeEntryPoint(EST, spec, package="evpsim-plugin-b"),
                    FakeEntryPoint(EST, spec, package="evpsim-plugin-a"))
    assert evpsim.get_estimator("fake-top").source == "evpsim-plugin-a 1.0 (plugin)"
    assert messages == ["evpsim plugin evpsim-plugin-b 1.0 not loaded: evpsim.estimators entry "
                        "point 'fake': estimator 'fake-top': the name is taken by the "
                        "estimator of evpsim-plugin-a 1.0 (plugin)"]


def test_a_package_loads_whole_or_not_at_all(load):
    before = _unchanged()
    messages = load(FakeEntryPoint(EST, {"name": "fake-top", "weights": top_weights}),
                    FakeEntryPoint(CI, {"name": "fake-band", "band": whole_band}, name="a"),
                    FakeEntryPoint(CI, {"name": "fake-band2", "band": 3}, name="b"))
    assert messages == ["evpsim plugin evpsim-plugin-fake 1.0 not loaded: evpsim.ci_methods "
                        "entry point 'b': CI method 'fake-band2' not registered: band must be "
                        "a callable (B, level) -> (lower, upper)"]
    assert _unchanged() == before


def test_entry_points_that_cannot_be_read_are_one_warning(load, monkeypatch):
    def unreadable():
        raise ValueError("bad entry_points.txt")

    monkeypatch.setattr(metadata, "entry_points", unreadable)
    with pytest.warns(PluginWarning, match="entry points cannot be read: ValueError: bad "
                                           "entry_points.txt"):
        plugins.load_plugins()


def test_loading_again_takes_only_new_plugins(load):
    first = FakeEntryPoint(EST, {"name": "fake-top", "weights": top_weights})
    assert load(first) == []
    assert load(first, FakeEntryPoint(CI, {"name": "fake-band", "band": whole_band},
                                      package="evpsim-plugin-new")) == []
    assert "fake-band" in evpsim.list_ci_methods()


@pytest.mark.parametrize("value, loads", [("1", False), ("yes", False), ("0", True),
                                          ("", True)])
def test_evpsim_no_plugins(load, monkeypatch, value, loads):
    monkeypatch.setenv(plugins.DISABLE, value)
    assert load(FakeEntryPoint(EST, {"name": "fake-top", "weights": top_weights})) == []
    assert ("fake-top" in evpsim.list_estimators()) == loads


# --- evpsim list ----------------------------------------------------------------------------

def _row(out, name):
    """The fields of ``name``'s row in a table of ``evpsim list``, and its description."""
    lines = out.splitlines()
    k = next(i for i, ln in enumerate(lines) if ln.split()[:1] == [name])
    return lines[k].split(), lines[k + 1].strip()


def test_list_shows_kind_curves_extrapolation_and_source(load, capsys):
    load(FakeEntryPoint(EST, [{"name": "fake-best", "python": best_so_far,
                               "targets": ["mean", "quantile"], "extrapolates": True,
                               "description": "best so far"},
                              {"name": "fake-top", "weights": top_weights}]),
         FakeEntryPoint(CI, {"name": "fake-band", "band": whole_band,
                             "description": "0 <= F <= 1"}))
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    plugin = ["evpsim-plugin-fake", "1.0", "(plugin)"]
    assert _row(out, "fake-best") == (
        ["fake-best", "python", "mean,", "quantile", "yes", *plugin], "best so far")
    assert _row(out, "fake-top") == (["fake-top", "L-statistic", "mean", "no", *plugin],
                                     "fake-top")
    assert _row(out, "U") == (["U", "L-statistic", "mean", "no", "Tang", "et", "al.", "2020"],
                              "unbiased; unordered draws without repetition (Tang et al. "
                              "2020)")
    assert _row(out, "fake-band") == (["fake-band", "band", *plugin], "0 <= F <= 1")
    assert _row(out, "bca")[0] == ["bca", "bootstrap", "built-in"]


# --- real discovery: a plugin's metadata on the path -----------------------------------------

def _installed(site, package, module, code, entry_points):
    """Write what pip installs of a plugin: its module and its .dist-info."""
    (site / f"{module}.py").write_text(textwrap.dedent(code))
    info = site / f"{package.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


def test_import_evpsim_finds_plugins_on_the_path(tmp_path):
    _installed(tmp_path, "evpsim-plugin-demo", "evpsim_plugin_demo", """
        import numpy as np

        def best_so_far(scores, ns):
            return np.maximum.accumulate(scores)[np.minimum(ns, len(scores)) - 1]

        ESTIMATORS = {"name": "demo-best", "python": best_so_far,
                      "description": "the best of the first n trials"}
        """, """
        [evpsim.estimators]
        demo = evpsim_plugin_demo:ESTIMATORS
        """)
    _installed(tmp_path, "evpsim-plugin-broken", "evpsim_plugin_broken",
               "import evpsim_missing_dependency\n", """
        [evpsim.ci_methods]
        broken = evpsim_plugin_broken:CI_METHODS
        """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}
    env.pop(plugins.DISABLE, None)
    res = subprocess.run([sys.executable, "-m", "evpsim", "list"], env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stderr == (
        "evpsim.plugins:0: PluginWarning: evpsim plugin evpsim-plugin-broken 0.1 not loaded: "
        "evpsim.ci_methods entry point 'broken': importing evpsim_plugin_broken:CI_METHODS "
        "failed: ModuleNotFoundError: No module named 'evpsim_missing_dependency'\n")
    assert _row(res.stdout, "demo-best") == (
        ["demo-best", "python", "mean", "no", "evpsim-plugin-demo", "0.1", "(plugin)"],
        "the best of the first n trials")

    env[plugins.DISABLE] = "1"
    res = subprocess.run([sys.executable, "-c", "import evpsim; print(evpsim.list_estimators())"],
                         env=env, capture_output=True, text=True)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert "demo-best" not in res.stdout and "'V'" in res.stdout
