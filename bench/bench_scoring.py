"""Scoring: throughput on ordinary replies, and the time to score 1 MB pathological replies with every reader.

Targets (ours):

* at least 5,000 ordinary replies/s on one core (the plate scorer, ``plates.tasks.ishihara.score``), so that
  scoring a 100,000-row results table takes well under half a minute and never shows next to model latency (the
  replies mix the tricky cases of tests/tasks/test_scoring.py with a long chain-of-thought answer);
* at most 50 ms to score a 1 MB reply of each pathological shape with each reader (a hostile or broken model
  reply must not hold the one public model slot, nor stop a run): "1 1 1 ...", "12 or " * N, one long digit
  string, "(A) or " * N, nested ``<think>`` tags, Unicode digits, and a few more. Each reader bounds the reply
  first (``plates.tasks.answers.text.MAX_REPLY_CHARS``) and is linear in what it keeps;
* p99 <= 5 ms per reply, read one at a time, on real replies (the corpus of tests/data/replies: BLINK,
  MathVista and HallusionBench released outputs, read as tests/support/reply_reading.py says) and on ours (the
  ordinary replies above through every reader).

    python3 bench/bench_scoring.py [--rounds 2000] [--mb 1] [--corpus-sample 0]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET = 5000.0  # replies per second
TARGET_MS = 50.0  # per 1 MB pathological reply and reader
TARGET_P99_MS = 5.0  # per real reply

REPLIES = [
    "42", "I see 12.", "Answer: 7b", "The number is not visible", "It's 12... no, actually 17", "L1L1L1L1",
    "Answer: 07", "twelve", "This Ishihara plate (plate 5) shows 42", "**42**", "12 or 17", "",
    "Looking at the plate, the dots in the centre form two digits. " * 6 + "The number is 42.",
]
OPTIONS = {"A": "12", "B": "17", "C": "3", "D": "42"}
#: ColorBench Colour Extraction options in HSV and HEX (plates.tasks.scenes.colour_values.format_codes).
HSV_OPTIONS = {"A": "(120°, 76%, 55%)", "B": "(200°, 50%, 40%)", "C": "(10°, 90%, 80%)", "D": "(300°, 20%, 70%)"}
HEX_OPTIONS = {"A": "#228B22", "B": "#1E90FF", "C": "#1A2B3C", "D": "#000000"}


def shapes(size: int) -> dict[str, str]:
    """Pathological replies of about ``size`` characters, by name."""
    def fill(unit: str) -> str:
        return (unit * (size // len(unit) + 1))[:size]

    return {
        "1 1 1 ...": fill("1 "),
        "12 or ...": fill("12 or "),
        "digits": fill("9"),
        "(A) or ...": fill("(A) or "),
        "nested <think>": "<think>" * (size // 14) + "12" + "</think>" * (size // 16),
        "unclosed <think>": "<think>" + fill("12 or 17 "),
        "unicode digits": fill("\u0661\u0662 "),
        "spaces": "12" + " " * size + "17",
        "answer is ...": fill("the answer is "),
        "answer:\\n(A) ...": fill("answer:\n(A)\n"),  # each phrase opens a line that begins with a key
        "A. B. C. ...": fill("A. B. "),
        "left is darker, ...": fill("left is darker, "),
        "number words": fill("twenty-one "),
        "(1, 2, 3) ...": fill("(1, 2, 3), "),
        "1,2,3,4,...": fill("1,2,"),
        "hex digits": fill("1a2b3c"),
        "hard to say, but ...": fill("hard to say, but (A) is most likely; "),  # a hedged pick at every clause
    }


def readers():
    """(name, function(reply)) for every reader as the tasks call it."""
    from plates.stimuli.illusions import IllusionSpec, render
    from plates.tasks.illusions.questions import (
        mc_question,
        rcid_name_question,
        score_choice,
        score_colour_name,
        score_true_false,
        tf_questions,
    )
    from plates.tasks.ishihara import score

    truth = render(IllusionSpec("whites", size=64)).truth
    mc, tf = mc_question(truth, seed=0), tf_questions(truth)[0]
    name = rcid_name_question(render(IllusionSpec("rcid-filter", size=64)).truth, "pixel")
    return [
        ("plate number (cbe)", lambda r: score("open", r, "42", label_space="cbe")),
        ("plate label (B.2)", lambda r: score("open", r, "Rw", label_space="huemanity-alnum")),
        ("plate text (any)", lambda r: score("open", r, "HELLO")),
        ("yes/no", lambda r: score("yesno", r, "yes")),
        ("choice (letters)", lambda r: score("mc", r, "D", options=OPTIONS)),
        ("choice (numerals)", lambda r: score_choice(mc, r)),
        ("choice (HSV codes)", lambda r: score("mc", r, "A", options=HSV_OPTIONS)),
        ("choice (HEX codes)", lambda r: score("mc", r, "C", options=HEX_OPTIONS)),
        ("true/false", lambda r: score_true_false(tf, r)),
        ("colour name", lambda r: score_colour_name(name, r)),
    ]


def throughput(rounds: int) -> float:
    from plates.tasks.ishihara import score

    calls = [("open", "42", "cbe", None), ("open", "42", "huemanity-numeric", None),
             ("open", "Rw", "huemanity-alnum", None), ("yesno", "yes", None, None), ("mc", "D", None, OPTIONS)]
    n = 0
    t0 = time.perf_counter()
    for _ in range(rounds):
        for reply in REPLIES:
            for kind, expected, space, options in calls:
                score(kind, reply, expected, label_space=space, options=options)
                n += 1
    elapsed = time.perf_counter() - t0
    rate = n / elapsed
    print(f"scored {n} replies in {elapsed:.2f} s: {rate:,.0f} replies/s; "
          f"target {TARGET:,.0f}/s; ratio {rate / TARGET:.2f}")
    return rate


def pathological(mb: float, repeats: int = 3) -> float:
    size = int(mb * 1_000_000)
    worst = 0.0
    all_readers = readers()
    print(f"\n{mb:g} MB replies, median of {repeats} per reader; target <= {TARGET_MS:.0f} ms each")
    for shape, reply in shapes(size).items():
        row = []
        for name, read in all_readers:
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                read(reply)
                times.append((time.perf_counter() - t0) * 1000)
            row.append((statistics.median(times), name))
        slowest, who = max(row)
        worst = max(worst, slowest)
        flag = "ok" if slowest <= TARGET_MS else "OVER"
        print(f"  {shape:22s} slowest {slowest:7.1f} ms ({who}); {flag}")
    print(f"worst {worst:.1f} ms; target {TARGET_MS:.0f} ms; ratio {worst / TARGET_MS:.2f}")
    return worst


def _percentiles(times: list[float]) -> tuple[float, float, float]:
    ordered = sorted(times)
    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
    return at(0.5), at(0.99), ordered[-1]


def per_reply(sample: int) -> float:
    """p50/p99/max milliseconds per reply on the real-reply corpus (every reply, or a seeded sample) and on
    ours; returns the worst p99."""
    import random

    from tests.support.reply_corpus import load_replies
    from tests.support.reply_reading import askable, read

    replies = [r for r in load_replies().values() if askable(r)]
    if sample:
        replies = random.Random(0).sample(replies, min(sample, len(replies)))
    # CPU time of this thread (time.thread_time): on a shared, loaded machine wall-clock time per reply mostly
    # measures when the scheduler let the process run; the wall-clock p99 is printed beside it.
    by_kind: dict[str, list[float]] = {}
    walls: list[float] = []
    for reply in replies:
        w0, t0 = time.perf_counter(), time.thread_time()
        read(reply)
        by_kind.setdefault(f"{reply.benchmark} {reply.kind}", []).append((time.thread_time() - t0) * 1000)
        walls.append((time.perf_counter() - w0) * 1000)
    ours = []
    for reply in REPLIES:
        for _, reader in readers():
            t0 = time.thread_time()
            reader(reply)
            ours.append((time.thread_time() - t0) * 1000)
    by_kind["ours (every reader)"] = ours
    print(f"\nper reply, read one at a time, CPU time; target p99 <= {TARGET_P99_MS:.0f} ms (wall-clock p99 over "
          f"the corpus {_percentiles(walls)[1]:.3f} ms, load {os.getloadavg()[0]:.1f})")
    worst = 0.0
    for name, times in sorted(by_kind.items()):
        p50, p99, top = _percentiles(times)
        worst = max(worst, p99)
        flag = "ok" if p99 <= TARGET_P99_MS else "OVER"
        print(f"  {name:28s} n={len(times):6d}  p50 {p50:6.3f} ms  p99 {p99:6.3f} ms  max {top:7.2f} ms  {flag}")
    print(f"worst p99 {worst:.3f} ms; target {TARGET_P99_MS:.0f} ms; ratio {worst / TARGET_P99_MS:.2f}")
    return worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--mb", type=float, default=1.0, help="size of each pathological reply in MB (1e6 chars)")
    parser.add_argument("--corpus-sample", type=int, default=0,
                        help="read this many corpus replies (seeded sample; 0: all of them)")
    args = parser.parse_args()
    throughput(args.rounds)
    pathological(args.mb)
    per_reply(args.corpus_sample)
    return 0


if __name__ == "__main__":
    sys.exit(main())
