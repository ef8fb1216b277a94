"""Secret redaction on its own: the redactor over texts of the kinds runs carry.

The overhead benchmark's run holds almost no text a rule looks at, so its redaction figure
is nearly all the needle pass. Here each kind of text is about 10 KB and scrubbed whole
(``Redactor.__call__``) and scanned as cells (``Redactor.finds_any``), with the rule table
and with none, in interleaved rounds; printed per text: microseconds per call (median) and
the ratio of the rules to none.

- ``prose``: a model's answer, with the words the rules' needles are made of ("key",
  "token", "secret", "password", "auth") but no secret;
- ``json``: a tool's output kept as JSON text: escapes (``\\n``, ``\\t``, ``\\"``) and
  usage counts (``"total_tokens": 54``), no secret;
- ``env file``: lines of ``NAME=value`` as a tool that reads a ``.env`` file returns them,
  one key in four a secret, JSON-escaped;
- ``no needles``: text holding none of the needles (the common case: passed through).

    python benchmarks/redaction.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.secrets.redact import Redactor

SIZE = 10_000


def _fill(pieces: list[str], seed: int, sep: str = " ") -> str:
    rng = random.Random(seed)
    out: list[str] = []
    while sum(map(len, out)) + len(out) < SIZE:
        out.append(rng.choice(pieces))
    return sep.join(out)


def texts() -> dict[str, str]:
    prose = _fill(["The", "key", "point", "is", "that", "revenue", "grew;", "token", "count:", "42.", "a", "secret",
                   "sauce,", "password", "policy", "and", "auth", "flows", "were", "reviewed.", "\n", "\t", "Basic",
                   "bearer", "bonds", "asked", "task", "risk"], 1)
    usage = {"input_tokens": 42, "output_tokens": 12, "total_tokens": 54}
    rows = [{"title": f"Result {i}", "snippet": f"Line {i}\n\tThe key finding: \"growth\"", "usage": usage}
            for i in range(200)]
    tool_json = json.dumps({"results": rows}, ensure_ascii=False)[:SIZE]
    rng = random.Random(3)
    lines = []
    while sum(map(len, lines)) < SIZE:
        i = len(lines)
        secret = f"ghp_{''.join(rng.choice('abcdefghijklmnopqrstuvwxyz0123456789') for _ in range(36))}"
        lines.append(f"SERVICE_{i}_TOKEN={secret}" if i % 4 == 0 else f"SERVICE_{i}_HOST=host-{i}.internal")
    env_file = json.dumps("\n".join(lines))
    plain = _fill(["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do"], 4)
    return {"prose": prose, "json": tool_json, "env file": env_file, "no needles": plain}


def _time_us(fn: Callable[[], object], samples: list[float]) -> None:
    t0 = time.perf_counter()
    fn()
    samples.append((time.perf_counter() - t0) * 1e6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    with_rules, without = Redactor(environ={}), Redactor(environ={}, rules=())
    print(f"{'text':>12}  {'chars':>6}  {'scrub rules':>11}  {'none':>6}  {'ratio':>6}  "
          f"{'scan rules':>10}  {'none':>6}  {'ratio':>6}   (us per call, median)")
    for name, text in texts().items():
        cells = [text[i:i + 500] for i in range(0, len(text), 500)]
        times: dict[str, list[float]] = {"scrub": [], "scrub none": [], "scan": [], "scan none": []}
        calls = {"scrub": lambda t=text: with_rules(t), "scrub none": lambda t=text: without(t),
                 "scan": lambda c=cells: with_rules.finds_any(c), "scan none": lambda c=cells: without.finds_any(c)}
        for _ in range(args.rounds):
            for key, call in calls.items():
                _time_us(call, times[key])
        m = {key: statistics.median(values) for key, values in times.items()}
        print(f"{name:>12}  {len(text):6d}  {m['scrub']:11.0f}  {m['scrub none']:6.0f}  "
              f"{m['scrub'] / m['scrub none']:6.1f}  {m['scan']:10.0f}  {m['scan none']:6.0f}  "
              f"{m['scan'] / m['scan none']:6.1f}")


if __name__ == "__main__":
    main()
