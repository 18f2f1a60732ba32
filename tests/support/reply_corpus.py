"""The corpus of real VLM replies and its hand labels, as frozen records (tests and benches read them here).

The corpus (``tests/data/replies/replies.jsonl.gz``) holds replies that public VLMs wrote on public benchmarks
(BLINK, MathVista, HallusionBench), each with its provenance, the gold answer, the authors' extracted answer
and the authors' verdict; ``scripts/build_reply_corpus.py`` regenerates it from the benchmarks' repositories.
The hand labels (``tests/data/replies/labels.jsonl``) say what a sample of those replies commits to, under the
rules in ``docs/reply-labels.md``; they join the corpus by ``Reply.id``.

    replies = load_replies()                      # {id: Reply}
    for label in load_labels():                   # (Label, ...)
        reply = replies[label.id]
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from tests.support import ROOT

DATA = ROOT / "tests" / "data" / "replies"
CORPUS = DATA / "replies.jsonl.gz"
LABELS = DATA / "labels.jsonl"
KINDS = ("choice", "yesno", "number")
NONE = "none"  # the label of a reply that commits to nothing


@dataclass(frozen=True)
class Reply:
    """One real reply with its provenance.

    ``options`` maps option keys ("A", "B", ...) to option texts (``None`` where the source does not publish the
    text and no reply echoes it: BLINK publishes none, and the builder, ``scripts/build_reply_corpus.py``, takes
    each task's from the replies that echo them, per item for Counting's numbers); it is ``None`` for yes/no without options and for numbers. ``gold`` is an option key, "yes"/"no" or a
    number as a string; ``extracted`` is the authors' extracted answer in the same encoding (``None`` where their
    matcher found none or they publish none) and ``extracted_raw`` what they published; ``verdict`` is whether
    the authors' evaluation counted the reply correct (``None`` where they publish no verdict).
    """

    id: str
    benchmark: str
    source_repo: str
    commit: str
    path: str
    licence: str
    model: str
    item: str
    task: str
    question: str | None
    options: Mapping[str, str | None] | None
    kind: str
    gold: str
    extracted: str | None
    extracted_raw: str | None
    verdict: bool | None
    reply: str


@dataclass(frozen=True)
class Label:
    """What one reply commits to, read by hand: an option key, "yes"/"no", a number (as written, a string) or
    ``"none"``; ``clear`` is False where a careful reader could reasonably disagree."""

    id: str
    label: str
    clear: bool
    note: str


def _reply(raw: dict) -> Reply:
    missing = [f for f in Reply.__dataclass_fields__ if f not in raw]
    if missing:
        raise ValueError(f"corpus record {raw.get('id')!r} lacks {missing}")
    if raw["kind"] not in KINDS:
        raise ValueError(f"corpus record {raw['id']!r}: kind {raw['kind']!r} is not one of {KINDS}")
    if not re.fullmatch(r"[0-9a-f]{40}", raw["commit"]):
        raise ValueError(f"corpus record {raw['id']!r}: commit {raw['commit']!r} is not 40 hex digits")
    options = raw["options"]
    fields = {f: raw[f] for f in Reply.__dataclass_fields__}
    fields["options"] = None if options is None else MappingProxyType(dict(options))
    return Reply(**fields)


@lru_cache(maxsize=2)
def load_replies(path: Path = CORPUS) -> Mapping[str, Reply]:
    """Every reply of the corpus by id (read-only mapping, in file order).

    Raises
    ------
    ValueError
        A record lacks a field, names an unknown kind or a malformed commit, or an id repeats.
    """
    out: dict[str, Reply] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            reply = _reply(json.loads(line))
            if reply.id in out:
                raise ValueError(f"corpus id {reply.id!r} repeats")
            out[reply.id] = reply
    return MappingProxyType(out)


def load_labels(path: Path = LABELS) -> tuple[Label, ...]:
    """The hand labels in file order.

    Raises
    ------
    ValueError
        A line lacks a field, ``clear`` is not a boolean, or an id repeats.
    """
    labels: list[Label] = []
    seen: set[str] = set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        raw = json.loads(line)
        if set(raw) != set(Label.__dataclass_fields__):
            raise ValueError(
                f"{path.name} line {n}: fields {sorted(raw)}; allowed {sorted(Label.__dataclass_fields__)}"
            )
        if not isinstance(raw["clear"], bool):
            raise ValueError(f"{path.name} line {n}: clear {raw['clear']!r} is not true or false")
        if raw["id"] in seen:
            raise ValueError(f"{path.name} line {n}: id {raw['id']!r} repeats")
        seen.add(raw["id"])
        labels.append(Label(**raw))
    return tuple(labels)


def labelled(path: Path = LABELS, corpus: Path = CORPUS) -> tuple[tuple[Reply, Label], ...]:
    """Each hand label with its reply (joined by id).

    Raises
    ------
    ValueError
        A label names an id the corpus does not hold.
    """
    replies = load_replies(corpus)
    missing = [label.id for label in load_labels(path) if label.id not in replies]
    if missing:
        raise ValueError(f"labels name ids the corpus lacks: {missing[:5]}")
    return tuple((replies[label.id], label) for label in load_labels(path))
