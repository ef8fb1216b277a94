"""Write docs/sheets.md from harness/schema.py and harness/sheet_docs.py.

    python docs/generate_sheets.py          # rewrite docs/sheets.md
    python docs/generate_sheets.py --check  # exit 1 when docs/sheets.md is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repo, run from anywhere

from harness.sheet_docs import render_markdown  # noqa: E402

TARGET = Path(__file__).resolve().parent / "sheets.md"


def main(argv: list[str]) -> int:
    text = render_markdown() + "\n"
    if "--check" in argv:
        if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is out of date: run python docs/generate_sheets.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
