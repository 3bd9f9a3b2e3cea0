"""Claims of a paper beside evpsim's numbers, written as ``summary.md``."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..io.results import atomic_write
from ..report.leaderboard import QUICK_NOTE

#: where the search files that evpsim may not ship are public
PUBLIC_REPOSITORY = "https://github.com/dodgejesse/reproducibility"
#: each such file: the table in that repository and the rows it holds
PUBLIC_FILES = {
    "sst5_linear_acc.txt": "`results/sst5_search.tsv`, rows with encoder linear and sample 8543",
    "sst5_cnn_acc.txt": "`results/sst5_search.tsv`, rows with encoder cnn and sample 8543",
    "sst5_boe_acc.txt": "`results/sst5_search.tsv`, rows with encoder boe and sample 8543",
    "sst2_bcn_glove_acc.txt": "`results/sst2_biattentive_classifier.csv`, BCN + GloVe",
    "sst2_bcn_elmo_frozen_acc.txt": "`results/sst2_biattentive_classifier.csv`, BCN + GloVe "
                                    "+ frozen ELMo",
    "sst2_bcn_elmo_finetuned_acc.txt": "`results/sst2_biattentive_classifier.csv`, BCN + "
                                       "GloVe + fine-tuned ELMo",
    "sst2_lstm_glove_acc.txt": "`results/sst2_elmo_transformer_results.tsv`, LSTM + GloVe",
    "sst2_lstm_elmo_frozen_acc.txt": "`results/sst2_elmo_transformer_results.tsv`, LSTM + "
                                     "frozen ELMo",
}


@dataclass
class Claim:
    """One claim of a paper and what evpsim measured.

    Attributes
    ----------
    claim : str
        The paper's statement, with its figure or section.
    paper : str
        The paper's number or qualitative finding.
    evpsim : str
        evpsim's number from this run, with its interval where it has one.
    verdict : str
        ``"agrees"``, ``"differs"`` or ``"partly"`` (``"inconclusive"``
        where a test is too weak to tell): set from the numbers by the
        reproduction code, never by hand.
    why : str
        What differs because the data or the method differ.
    """

    claim: str
    paper: str
    evpsim: str
    verdict: str
    why: str = ""


@dataclass
class Report:
    """Everything a reproduction produced.

    ``full_size`` is what the summary calls a run without ``quick`` (the
    module's ``FULL_SIZE``).

    ``data`` maps each search file the paper reads (by its original name) to
    where it was found, or None; ``data_folder`` is the user's folder of
    search files (``--data`` or ``$EVPSIM_DATA``), or None. What a
    reproduction did instead of reading a file that was not found is
    recorded by :meth:`substitute`.
    """

    paper: str
    title: str
    claims: list = field(default_factory=list)
    files: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    quick: bool = False
    full_size: str = "the paper's sizes"
    verbose: bool = False
    data: dict = field(default_factory=dict)
    data_folder: Path | None = None
    instead: dict = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)
    #: further sections of the summary: ``(title, markdown)``, after the notes
    sections: list = field(default_factory=list)

    def step(self, what):
        """Say on stderr which part of a long reproduction is running."""
        if self.verbose:
            print(f"[{time.perf_counter() - self.started:6.1f} s] {what}", file=sys.stderr,
                  flush=True)

    def substitute(self, files, what):
        """Record what was done in place of reading ``files`` (not found).

        ``what`` is a sentence such as ``"Fig. 3 skipped: ..."``; it goes
        into the summary's data section under each file and, with
        ``verbose``, onto stderr as one line.
        """
        for name in files:
            self.instead.setdefault(name, []).append(what)
        self.step(f"{', '.join(files)} not found; {what}")

    def _data_section(self):
        """The summary's lines saying where each search file came from."""
        lines = ["", "## Data", ""]
        for name, path in self.data.items():
            if path is None:
                where = (f"not in the data folder `{self.data_folder}`" if self.data_folder
                         else "not shipped with evpsim, and no data folder given (--data DIR "
                              "or $EVPSIM_DATA)")
                lines.append(f"- `{name}`: {where}. " + " ".join(self.instead.get(name, [])))
            elif self.data_folder is not None and path == self.data_folder / name:
                lines.append(f"- `{name}`: read from the data folder (`{path}`).")
            else:
                lines.append(f"- `{name}`: the copy shipped with evpsim (`data:{path.stem}`).")
        public = [f"`{name}` is {PUBLIC_FILES[name]}" for name, path in self.data.items()
                  if path is None and name in PUBLIC_FILES]
        if public:
            lines += ["", "evpsim does not ship these runs (they state no licence); they are "
                          f"public in {PUBLIC_REPOSITORY}: " + "; ".join(public) + ". To use the "
                          "runs themselves, as the paper did, save each as a text file of that "
                          "name, one validation score per line in the order the source lists "
                          "them, and rerun with `--data DIR` (or `EVPSIM_DATA=DIR`)."]
        return lines

    def markdown(self):
        """The summary as markdown; a ``quick`` run's first line says its sizes decide
        nothing."""
        lines = [f"# {self.title}" + (f" {QUICK_NOTE}" if self.quick else ""), ""]
        size = "reduced sizes (--quick)" if self.quick else self.full_size
        absent = " Some search files were not found: see Data for what was substituted or " \
                 "skipped." if None in self.data.values() else ""
        lines += [f"Run at {size} in {self.seconds:.1f} s. Every number below comes "
                  f"from this run.{absent}", ""]
        lines += ["| claim | paper | evpsim | verdict | why it differs |",
                  "|---|---|---|---|---|"]
        for c in self.claims:
            cells = [c.claim, c.paper, c.evpsim, c.verdict, c.why or ""]
            lines.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
        if self.data:
            lines += self._data_section()
        if self.notes:
            lines += ["", "## Notes", ""] + [f"- {n}" for n in self.notes]
        for title, text in self.sections:
            lines += ["", f"## {title}", "", text]
        lines += ["", "## Files", ""] + [f"- `{f}`" for f in self.files]
        return "\n".join(lines) + "\n"

    def write(self, folder):
        """Write ``summary.md`` into ``folder`` atomically and return its path."""
        text = self.markdown()
        return atomic_write(Path(folder) / "summary.md",
                            lambda tmp: Path(tmp).write_text(text))
