"""The answer readers on the corpus of real VLM replies (tests/data/replies, loaded by
tests/support/reply_corpus.py; read as tests/support/reply_reading.py says).

* Hand labels (what each reply commits to, labelled without any reader's output): agreement >= 97% on the
  clearly labelled replies and >= 90% on all, for multiple choice and for yes/no (the issue's targets).
* The authors' verdicts (BLINK's GPT-3.5 matcher, MathVista's GPT-4 extraction): the rules' verdict (read
  answer == gold) agrees with the authors' on at least the share below, per benchmark and kind. The floors sit a
  little under today's figures (bench/bench_replies.py prints them, with accuracy beside the authors'), so
  that a rule that starts reading the wrong option, or stops reading a common form, fails here.
"""

from __future__ import annotations

import collections

import pytest

from tests.support.reply_corpus import labelled, load_replies
from tests.support.reply_reading import answer, askable, gold, label_of, read

#: (clear, all) agreement with the hand labels, per kind.
LABEL_TARGETS = {"choice": (0.97, 0.90), "yesno": (0.97, 0.90)}
#: Agreement of the rules' verdict with the authors' verdict, per (benchmark, kind). Today (rules 3): BLINK
#: choice 99.5%, MathVista choice 90.6%, number 97.2%, yes/no 87.6%.
VERDICT_FLOORS = {("blink", "choice"): 0.98, ("mathvista", "choice"): 0.88, ("mathvista", "number"): 0.95,
                  ("mathvista", "yesno"): 0.83}


def _label_agreement() -> dict[str, collections.Counter]:
    rows: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for reply, label in labelled():
        if not askable(reply):
            continue
        agree = answer(reply, read(reply)) == label_of(reply, label.label)
        row = rows[reply.kind]
        row["all"] += 1
        row["agree"] += agree
        row["clear"] += label.clear
        row["clear agree"] += agree and label.clear
    return rows


@pytest.mark.parametrize("kind", sorted(LABEL_TARGETS))
def test_readers_agree_with_the_hand_labels(kind):
    row = _label_agreement()[kind]
    clear_target, all_target = LABEL_TARGETS[kind]
    assert row["clear"] >= 50 and row["all"] >= 80, f"too few {kind} labels to measure: {dict(row)}"
    clear = row["clear agree"] / row["clear"]
    everything = row["agree"] / row["all"]
    assert clear >= clear_target, f"{kind}: {row['clear agree']}/{row['clear']} clear labels agree"
    assert everything >= all_target, f"{kind}: {row['agree']}/{row['all']} labels agree"


def test_rules_verdicts_agree_with_the_authors_verdicts():
    rows: dict[tuple[str, str], collections.Counter] = collections.defaultdict(collections.Counter)
    for reply in load_replies().values():
        if reply.verdict is None or not askable(reply):
            continue
        row = rows[(reply.benchmark, reply.kind)]
        row["n"] += 1
        row["agree"] += (answer(reply, read(reply)) == gold(reply)) == reply.verdict
    assert set(VERDICT_FLOORS) <= set(rows), f"the corpus lacks {set(VERDICT_FLOORS) - set(rows)}"
    low = {key: round(row["agree"] / row["n"], 4) for key, row in rows.items()
           if key in VERDICT_FLOORS and row["agree"] / row["n"] < VERDICT_FLOORS[key]}
    assert not low, f"agreement with the authors' verdicts under the floor: {low}"
