"""Claims of a paper beside evpsim's numbers, written as ``summary.md``."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..results import atomic_write


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
        ``"agrees"``, ``"differs"`` or ``"partly"``: set from the numbers by
        the reproduction code, never by hand.
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
    """Everything a reproduction produced."""

    paper: str
    title: str
    claims: list = field(default_factory=list)
    files: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    quick: bool = False
    verbose: bool = False
    started: float = field(default_factory=time.perf_counter)

    def step(self, what):
        """Say on stderr which part of a long reproduction is running."""
        if self.verbose:
            print(f"[{time.perf_counter() - self.started:6.1f} s] {what}", file=sys.stderr,
                  flush=True)

    def markdown(self):
        """The summary as markdown."""
        lines = [f"# {self.title}", ""]
        size = "reduced sizes (--quick)" if self.quick else "the paper's sizes"
        lines += [f"Run with {size} in {self.seconds:.1f} s. Every number below comes "
                  "from this run.", ""]
        lines += ["| claim | paper | evpsim | verdict | why it differs |",
                  "|---|---|---|---|---|"]
        for c in self.claims:
            cells = [c.claim, c.paper, c.evpsim, c.verdict, c.why or ""]
            lines.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
        if self.notes:
            lines += ["", "## Notes", ""] + [f"- {n}" for n in self.notes]
        lines += ["", "## Files", ""] + [f"- `{f}`" for f in self.files]
        return "\n".join(lines) + "\n"

    def write(self, folder):
        """Write ``summary.md`` into ``folder`` atomically and return its path."""
        text = self.markdown()
        return atomic_write(Path(folder) / "summary.md",
                            lambda tmp: Path(tmp).write_text(text))
