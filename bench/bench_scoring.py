"""Scoring throughput: replies scored per second by ``plates.tasks.scoring.score`` (pure string functions).

Target (ours): at least 5,000 replies/s on one core, so that scoring a 100,000-row results table takes well under
half a minute and never shows next to model latency. The replies mix the tricky cases of tests/tasks/test_scoring.py
with a long chain-of-thought answer, over the open (CBE numbers, HueManity B.2), yes/no and multiple-choice rules.

    python3 bench/bench_scoring.py [--rounds 2000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET = 5000.0  # replies per second

REPLIES = [
    "42", "I see 12.", "Answer: 7b", "The number is not visible", "It's 12... no, actually 17", "L1L1L1L1",
    "Answer: 07", "twelve", "This Ishihara plate (plate 5) shows 42", "**42**", "12 or 17", "",
    "Looking at the plate, the dots in the centre form two digits. " * 6 + "The number is 42.",
]
OPTIONS = {"A": "12", "B": "17", "C": "3", "D": "42"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    from plates.tasks.scoring import score

    calls = [("open", "42", "cbe", None), ("open", "42", "huemanity-numeric", None),
             ("open", "Rw", "huemanity-alnum", None), ("yesno", "yes", None, None), ("mc", "D", None, OPTIONS)]
    n = 0
    t0 = time.perf_counter()
    for _ in range(args.rounds):
        for reply in REPLIES:
            for kind, expected, space, options in calls:
                score(kind, reply, expected, label_space=space, options=options)
                n += 1
    elapsed = time.perf_counter() - t0
    rate = n / elapsed
    print(f"scored {n} replies in {elapsed:.2f} s: {rate:,.0f} replies/s; "
          f"target {TARGET:,.0f}/s; ratio {rate / TARGET:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
