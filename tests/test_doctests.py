"""The Examples sections of the public modules' docstrings run as doctests."""

import doctest
import importlib
import pkgutil

import pytest

import evpsim

MODULES = sorted(m.name for m in pkgutil.walk_packages(evpsim.__path__, "evpsim.")
                 if "._kernels" not in m.name and ".cli" not in m.name
                 and m.name != "evpsim.__main__")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
