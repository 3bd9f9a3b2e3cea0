"""What the bad-input batteries of the readers and of the runs share: their cases by class,
the check that a command is refused in one line with nothing written, and their counts."""

from __future__ import annotations

import os
import stat
from collections import Counter

import pytest

from evpsim.cli import main


def tree(root):
    """Every entry under ``root`` (hidden ones too) with its kind, and a file's size and
    modification time."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            kind = stat.S_IFMT(st.st_mode)
            # a folder's own mtime moves when a temporary file comes and goes
            out[os.path.relpath(path, root)] = (kind,) if stat.S_ISDIR(st.st_mode) else \
                (kind, st.st_size, st.st_mtime_ns)
    return out


class Cases:
    """A battery's cases: command-line and API cases by class, and checks of results."""

    def __init__(self, classes):
        self.classes = classes
        self.cli, self.api, self.silent, self.kind = [], [], [], {}

    def refused(self, cls, name, argv, *words):
        """``evpsim curve ARGV`` is refused in one line holding ``words``."""
        self.kind[f"cli-{cls}-{name}"] = cls
        self.cli.append(pytest.param(argv, words, id=f"cli-{cls}-{name}"))

    def raises(self, cls, name, fn, exc, *words):
        """``fn(folder)`` raises ``exc`` with ``words`` in its message."""
        self.kind[f"{cls}-{name}"] = cls
        self.api.append(pytest.param(fn, exc, words, id=f"{cls}-{name}"))

    def result(self, fn):
        """A test that a result is right (class ``silent``), counted with the cases."""
        self.silent.append(fn.__name__)
        return fn

    def counts(self, extra=()):
        """The cases by class, ``extra`` (a Counter of cases checked elsewhere) included."""
        return Counter(self.kind[p.id] for p in self.api + self.cli) \
            + Counter({"silent": len(self.silent)}) + Counter(extra)

    def check_size(self, least, extra=()):
        """Every class represented, at least ``least`` cases, no id twice."""
        counts = self.counts(extra)
        assert set(counts) == set(self.classes), set(self.classes) ^ set(counts)
        assert sum(counts.values()) >= least
        ids = [p.id for p in self.api + self.cli]
        assert len(ids) == len(set(ids))

    def print_counts(self, width, what, extra=()):
        """The classes with their counts, and the total with ``what`` it holds."""
        counts = self.counts(extra)
        for key, text in self.classes.items():
            print(f"{counts[key]:4d}  {key:{width}s} {text}")
        print(f"{sum(counts.values()):4d}  total ({len(self.api)} API, {len(self.cli)} CLI, "
              f"{what})")


def assert_refused(args, capsys, *folders, prefix="evpsim curve: error: "):
    """``evpsim ARGS`` exits 2 with one line starting ``prefix`` and no traceback, says
    it wrote nothing and writes nothing in ``folders``; returns that line."""
    before = [tree(f) for f in folders]
    try:
        status = main(args)
    except SystemExit as exit_:  # argparse's usage errors
        status = exit_.code
    out, err = capsys.readouterr()
    assert status == 2, (out, err)
    assert "Traceback" not in err + out
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), err
    assert "wrote" not in out
    assert [tree(f) for f in folders] == before  # nothing written, nothing left behind
    return lines[0]
