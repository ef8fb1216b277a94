"""Peak memory of `harness audit` on decompression bombs built from a real export.

Three bombs, each a real workbook whose first sheet is replaced by XML padded to
``--gib`` GiB (1.5 by default) that deflates to a few MB: its size declared truthfully,
declared as 2,000 bytes (a lying header), and, for scale, the clean workbook itself.
Each is audited by `harness audit` in a child process; printed: the exit code, the one
line it printed, wall time and the child's peak RSS.

    python benchmarks/hostile_workbook.py [--gib 1.5]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.hostile import bomb_part, first_sheet, rebuild  # noqa: E402
from scratch import scratch  # noqa: E402 - beside this script, in benchmarks/

_CHILD = ("import sys; from harness.cli import main; from benchmarks.memory import own_peak_mb\n"
          "try:\n    main(['audit', sys.argv[1]])\nexcept SystemExit as e:\n"
          "    print(e.code, own_peak_mb(), file=sys.stderr)")


def _export(path: Path) -> None:
    from harness import Harness

    store = path.with_suffix(".db")
    subprocess.run([sys.executable, "-c", "from harness.cli import main; main()", "run", "Acme Corp", "--no-excel",
                    "--store", str(store)], check=True, capture_output=True)
    Harness(store=store, writer="inline").export_excel(path)


def _audit(path: Path) -> tuple[str, str, float, float]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True)
    *lines, last = done.stderr.strip().splitlines()
    code, peak_mb = last.split()
    return code, (lines[0] if lines else ""), time.perf_counter() - started, float(peak_mb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.5)
    args = parser.parse_args()
    tmp = scratch()
    clean = tmp / "clean.xlsx"
    _export(clean)
    part = first_sheet(clean)
    bomb = bomb_part(int(args.gib * 1024**3))
    honest, liar = tmp / "bomb.xlsx", tmp / "bomb_lying.xlsx"
    rebuild(clean, honest, part, bomb)
    rebuild(clean, liar, part, bomb, declared=2000)
    for label, path in (("clean export", clean), ("bomb, size declared", honest), ("bomb, size hidden", liar)):
        code, line, seconds, peak_mb = _audit(path)
        print(f"{label:>20}: {path.stat().st_size / 1e6:6.2f} MB file, exit {code}, {seconds:5.2f} s, "
              f"peak RSS {peak_mb:6.1f} MB  {line}")
    print(f"(the bombs inflate to {bomb[2] / 1024**3:.2f} GiB; ru_maxrss of this process: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")


if __name__ == "__main__":
    main()
