"""The answer readers on real replies: accuracy against gold beside the benchmark authors' own matcher, and
agreement with the hand labels (the corpus of `tests/support/reply_corpus.py`; how a reply is read:
`tests/support/reply_reading.py`).

Targets (issue "Read what real VLMs write"):

* rules alone, multiple choice per benchmark, accuracy against gold >= the authors' where they matched with a
  GPT-3.5-class model (BLINK: ``eval/multiple_choice.py``), >= 80% of the authors' where they extracted with
  GPT-4 (MathVista, its Yes/No items included). Numbers (MathVista free-form) are printed beside the
  authors' without a target; HallusionBench publishes no verdict: its accuracy is printed alone;
* hand labels: agreement >= 97% on the clearly labelled replies and >= 90% on all, for multiple choice and for
  yes/no (numbers are printed without a target).

    python3 bench/bench_replies.py [--show 20] [--kind choice] [--benchmark blink]

``--show N`` prints N label disagreements (reply, label, reading and the rule that decided) and N replies
where the authors were right and the rules were not.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: Accuracy targets against the authors' verdicts: benchmark -> (share of the authors' accuracy, matcher).
AUTHOR_TARGETS = {"blink": (1.0, "GPT-3.5 matcher"), "mathvista": (0.8, "GPT-4 extraction")}
#: The kinds the accuracy targets cover: multiple choice (MathVista's Yes/No items are multiple choice there).
TARGET_KINDS = ("choice", "yesno")
#: Agreement targets with the hand labels: (clear, all), for these kinds.
LABEL_TARGETS = {"choice": (0.97, 0.90), "yesno": (0.97, 0.90)}


def accuracy(replies, show: int) -> bool:
    from tests.support.reply_reading import answer, askable, gold, read

    rows = collections.defaultdict(collections.Counter)
    missed = collections.defaultdict(list)
    refused = 0
    for reply in replies:
        if not reply.reply.strip():
            continue
        if not askable(reply):
            refused += 1
            continue
        reading = read(reply)
        got = answer(reply, reading)
        key = (reply.benchmark, reply.kind)
        row = rows[key]
        row["n"] += 1
        row[reading.status] += 1
        right = got == gold(reply)
        row["rules"] += right
        if reply.verdict is not None:
            row["judged"] += 1
            row["authors"] += reply.verdict
            if reply.verdict and not right:
                missed[key].append((reply, reading))
    ok = True
    print(f"accuracy against gold, non-empty replies (rules alone vs the authors' matcher); {refused} replies to "
          "questions whose options repeat a text left out")
    print(f"  {'benchmark':14s} {'kind':7s} {'n':>6s} {'rules':>7s} {'authors':>8s} {'ratio':>6s} target   "
          "unread (unparsed / ambiguous / refusal)")
    for (bench, kind), row in sorted(rows.items()):
        n = row["n"]
        rules = row["rules"] / n
        unread = f"{row['unparsed'] / n:5.1%} / {row['ambiguous'] / n:5.1%} / {row['refusal'] / n:5.1%}"
        if not row["judged"]:
            print(f"  {bench:14s} {kind:7s} {n:6d} {rules:7.1%} {'n/a':>8s} {'':>6s} none     {unread}")
            continue
        authors = row["authors"] / row["judged"]
        ratio = rules / authors if authors else float("inf")
        share, matcher = AUTHOR_TARGETS.get(bench, (None, "")) if kind in TARGET_KINDS else (None, "")
        flag = "" if share is None else ("ok" if ratio >= share else "MISSED")
        ok &= flag != "MISSED"
        target = "none" if share is None else f">={share:.0%}"
        print(f"  {bench:14s} {kind:7s} {n:6d} {rules:7.1%} {authors:8.1%} {ratio:6.3f} {target:6s} {flag:6s} "
              f"{unread}  ({row['rules']} vs {row['authors']} right; {matcher or 'no target'})")
    if show:
        rng = random.Random(0)
        for key, items in sorted(missed.items()):
            print(f"\n{key}: {len(items)} replies the authors read right and the rules did not; {show} of them")
            for reply, reading in rng.sample(items, min(show, len(items))):
                print(f"--- {reply.id} gold {reply.gold} options {dict(reply.options or {})}\n    reading "
                      f"{reading.answer} {reading.status} ({reading.rule})\n    {reply.reply[:400]!r}")
    return ok


def labels(pairs, show: int) -> bool:
    from tests.support.reply_reading import answer, askable, label_of, read

    rows = collections.defaultdict(collections.Counter)
    wrong = []
    for reply, label in pairs:
        if not askable(reply):
            continue
        reading = read(reply)
        got = answer(reply, reading)
        agree = got == label_of(reply, label.label)
        row = rows[reply.kind]
        row["all"] += 1
        row["agree"] += agree
        row["clear"] += label.clear
        row["clear agree"] += agree and label.clear
        if not agree:
            wrong.append((reply, label, reading, got))
    ok = True
    print("\nagreement with the hand labels (clear / all)")
    for kind, row in sorted(rows.items()):
        clear = row["clear agree"] / max(1, row["clear"])
        everything = row["agree"] / max(1, row["all"])
        targets = LABEL_TARGETS.get(kind)
        if targets is None:
            flag, target = "", "no target"
        else:
            good = clear >= targets[0] and everything >= targets[1]
            ok &= good
            flag, target = ("ok" if good else "MISSED"), f">= {targets[0]:.0%} / >= {targets[1]:.0%}"
        print(f"  {kind:7s} clear {row['clear agree']:4d}/{row['clear']:<4d} {clear:6.1%}   all "
              f"{row['agree']:4d}/{row['all']:<4d} {everything:6.1%}   target {target} {flag}")
    for reply, label, reading, got in wrong[:show]:
        print(f"--- {reply.id} label {label.label} ({'clear' if label.clear else 'unclear'}: {label.note})\n"
              f"    reading {got} {reading.status} ({reading.rule}); options {dict(reply.options or {})}\n"
              f"    {reply.reply[:500]!r}")
    return ok


def main() -> int:
    from tests.support.reply_corpus import labelled, load_replies

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=0, help="print this many disagreements of each kind")
    parser.add_argument("--kind", default=None, help="only replies of this kind (choice, yesno, number)")
    parser.add_argument("--benchmark", default=None, help="only replies of this benchmark")
    args = parser.parse_args()

    def keep(reply) -> bool:
        return (args.kind in (None, reply.kind)) and (args.benchmark in (None, reply.benchmark))

    replies = [r for r in load_replies().values() if keep(r)]
    ok = accuracy(replies, args.show)
    ok &= labels([(r, lab) for r, lab in labelled() if keep(r)], args.show)
    print("\nall targets met" if ok else "\nsome targets MISSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
