"""First contact: ``evpsim`` alone prints an overview, and every subcommand's
``--help`` ends with examples that run as shown in an empty folder."""

import argparse
import importlib
import shlex

import pytest

from evpsim.cli import SUBCOMMANDS, build_parser, main

COMMANDS = next(a for a in build_parser()._actions
                if isinstance(a, argparse._SubParsersAction)).choices


def examples(text):
    """The command lines of the example section that ends ``text``."""
    lines = text.rstrip("\n").splitlines()
    commands = []
    while lines and lines[-1].startswith("  "):
        commands.insert(0, lines.pop().strip())
    assert commands and lines and lines[-1] in ("example:", "examples:"), text[-300:]
    return commands


def run_examples(commands, tmp_path, monkeypatch, capsys):
    """Run ``commands`` in order in an empty folder, each returning 0."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVPSIM_QUICK", "1")
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == "evpsim", command
        assert main(argv[1:]) == 0, (command, capsys.readouterr())


def test_no_command_prints_overview(tmp_path, monkeypatch, capsys):
    assert main([]) == 0
    text = capsys.readouterr().out
    assert len(COMMANDS) == len(SUBCOMMANDS)
    listed = {line.split()[0] for line in text.splitlines() if line.startswith("  ")}
    assert set(COMMANDS) <= listed
    for name in SUBCOMMANDS:
        assert importlib.import_module(f"evpsim.cli.{name}").HELP in text
    assert "evpsim COMMAND --help" in text
    assert len(text.splitlines()) <= 25
    run_examples(examples(text), tmp_path, monkeypatch, capsys)


def test_main_help_lists_commands(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: evpsim [-h] [--version] COMMAND ...")
    for command in COMMANDS:
        assert f"\n  {command} " in text


#: commands whose examples take over a minute: run with the slow tests
SLOW = {"leaderboard"}


@pytest.mark.parametrize("command", [pytest.param(c, marks=pytest.mark.slow) if c in SLOW
                                     else c for c in COMMANDS])
def test_help_ends_with_examples_that_run(command, tmp_path, monkeypatch, capsys,
                                          tiny_intervals):
    """Each command's examples run (reproduce intervals at its smallest sizes: the
    intervals study's own tests check its quick run's files and numbers)."""
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    run_examples(examples(capsys.readouterr().out), tmp_path, monkeypatch, capsys)
