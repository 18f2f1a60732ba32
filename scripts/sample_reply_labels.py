"""Choose the replies to label by hand: a seeded sample of the reply corpus, stratified, hard cases over-sampled.

Usage::

    python3 scripts/sample_reply_labels.py [--seed 35] > ids.txt

Reads only corpus fields (never a reader's output). Strata are benchmark x kind with the quotas in ``QUOTAS``;
within a stratum, two thirds of the quota are drawn round-robin over the hard-case flags of ``hard_flags`` (each
flag's candidates shuffled with the seed) and the rest uniformly from the stratum. Then ``targeted`` adds up to
``TARGET_QUOTA`` replies for each trap pattern of ``TARGETS``. Prints one id a line, in stratum order, the targeted
draws last; deterministic for one corpus and seed.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.reply_corpus import Reply, load_replies  # noqa: E402

QUOTAS = {  # (benchmark, kind) -> replies to label
    ("blink", "choice"): 140,
    ("mathvista", "choice"): 80,
    ("mathvista", "yesno"): 45,
    ("mathvista", "number"): 50,
    ("hallusionbench", "yesno"): 35,
}
# Targeted draws: replies whose text shows one of the traps the readers must handle (a regular expression over the
# reply), TARGET_QUOTA of each, drawn with the seed from the replies not already sampled.
TARGETS = {
    "neither": r"\b[Nn]either\b",
    "two-options": r"\([A-D]\)[^()\n]{0,40}\bor\b[^()\n]{0,12}\([A-D]\)",
    "self-correction": r"\b(I apologize|[Ww]ait|[Aa]ctually|[Cc]orrection)\b",
    "cjk": r"[\u4e00-\u9fff]",
    "quoted-no": r"[\"“][^\"”\n]{0,30}\b[Nn]o\b[^\"”\n]{0,30}[\"”]",
    "article-A": r"^\s*(<s>\s*)?A [a-z]",
    "hedge": r"difficult to (definitively )?(determine|say)|cannot (be )?determine|not possible to determine",
}
TARGET_QUOTA = 8
SPECIAL = re.compile(r"</?s>|<\|[a-z_]+\|>|\[/?INST\]|<unk>|<pad>")


def hard_flags(r: Reply) -> list[str]:
    """The hard-case flags a reply raises, from its text and the corpus fields alone."""
    text = r.reply
    flags = []
    if len(text) > 600:
        flags.append("long")
    if len(set(re.findall(r"\(([A-J])\)", text))) >= 2:
        flags.append("several-options")
    if SPECIAL.search(text):
        flags.append("special-token")
    if r.options and any(
        t and len(t) > 1 and text.strip().lower().startswith(t.lower()) for t in r.options.values()
    ):
        flags.append("option-text")
    if sum(ord(c) > 0x2FF for c in text) > max(3, len(text) // 10):
        flags.append("non-english")
    if r.verdict is False or (r.extracted is None and r.extracted_raw is not None):
        flags.append("authors-wrong-or-unread")
    if re.match(r"\s*(<s>\s*)?A\s", text):
        flags.append("opens-with-A-word")
    return flags


def sample(seed: int) -> list[str]:
    replies = load_replies()
    chosen: list[str] = []
    for (bench, kind), quota in QUOTAS.items():
        stratum = [r for r in replies.values() if r.benchmark == bench and r.kind == kind]
        rng = random.Random(f"{seed}/{bench}/{kind}")
        by_flag: dict[str, list[str]] = {}
        for r in stratum:
            for f in hard_flags(r):
                by_flag.setdefault(f, []).append(r.id)
        queues = {f: rng.sample(ids, len(ids)) for f, ids in sorted(by_flag.items())}
        picked: list[str] = []
        hard_quota = (2 * quota) // 3
        while len(picked) < hard_quota and any(queues.values()):
            for f in sorted(queues):
                while queues[f] and queues[f][-1] in picked:
                    queues[f].pop()
                if queues[f] and len(picked) < hard_quota:
                    picked.append(queues[f].pop())
        rest = [r.id for r in stratum if r.id not in set(picked)]
        picked += rng.sample(rest, min(quota - len(picked), len(rest)))
        chosen += picked
    return chosen


def targeted(seed: int, exclude: set[str]) -> list[str]:
    """TARGET_QUOTA replies per pattern of TARGETS (fewer where fewer match), none in ``exclude``, none twice."""
    replies = load_replies()
    chosen: list[str] = []
    for name, pattern in TARGETS.items():
        rx = re.compile(pattern)
        pool = [
            r.id
            for r in replies.values()
            if rx.search(r.reply) and r.id not in exclude and r.id not in chosen
        ]
        chosen += random.Random(f"{seed}/target/{name}").sample(pool, min(TARGET_QUOTA, len(pool)))
    return chosen


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=35)
    args = ap.parse_args(argv)
    ids = sample(args.seed)
    print("\n".join(ids + targeted(args.seed, set(ids))))


if __name__ == "__main__":
    main()
