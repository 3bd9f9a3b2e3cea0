"""Run every benchmark script and collect their tables in ``RESULTS.md``.

    python benchmarks/run_all.py

Each script runs evpsim and its obvious alternative side by side; run this
on an otherwise idle machine. The README's benchmark section reproduces
``RESULTS.md``.
"""

import datetime as dt
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = ["bench_startup.py", "bench_bias.py", "bench_coverage.py", "bench_compare.py",
           "bench_curve.py", "bench_sweep.py", "bench_estimators.py", "bench_kernels.py"]


def main():
    parts = [f"# Benchmark results\n\nMeasured {dt.date.today().isoformat()} on "
             f"{platform.machine()}, {os.cpu_count()} cores, Python "
             f"{platform.python_version()}; `python benchmarks/run_all.py`.\n"]
    for script in SCRIPTS:
        print(f"running {script} ...", file=sys.stderr, flush=True)
        res = subprocess.run([sys.executable, str(HERE / script)], capture_output=True,
                             text=True, check=True)
        parts.append(f"## {script}\n\n{res.stdout.strip()}\n")
    out = HERE / "RESULTS.md"
    tmp = out.with_suffix(".md.part")
    tmp.write_text("\n".join(parts))
    os.replace(tmp, out)
    print(out.read_text())


if __name__ == "__main__":
    main()
