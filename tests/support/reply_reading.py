"""How the answer readers read one reply of the real-reply corpus (`tests.support.reply_corpus`), and how a
reading is compared with the gold answer, the authors' extraction and a hand label. Shared by
``tests/tasks/answers/test_real_replies.py`` and ``bench/bench_replies.py``.

* ``choice``: `plates.tasks.answers.read_choice` over the record's options. Where the corpus lacks an option's
  text (``None``: some of BLINK's Counting options, which no reply echoed) the reader gets a placeholder no reply
  can contain: control characters, or, where the item's known texts are all numbers, a 60-digit number, so
  that the item still offers numbers only (`read_choice` rule 12) and a reply stating the unknown option's
  value names nothing.
* ``yesno``: with options (MathVista's Yes/No items) `read_choice` with the question, the chosen option's
  text as "yes"/"no";
  without (HallusionBench) `read_yes_no` with the question (rule 6 reads implicit answers to it).
* ``number``: `plates.tasks.answers.read_number`; the gold and the authors' numbers compare as canonical
  decimals ("16.0" is 16), so an integer question answered "3.5" is read, and wrong.
"""

from __future__ import annotations

from collections.abc import Mapping

from plates.tasks.answers import Reading, check_options, read_choice, read_number, read_yes_no
from plates.tasks.answers.labels import NUMBER_PATTERN
from tests.support.reply_corpus import NONE, Reply


def options_of(reply: Reply) -> dict[str, str]:
    """The record's options for `read_choice`: unknown texts (``None``) become placeholders, distinct per key,
    that no reply contains and that name no key (see the module docstring)."""
    options: Mapping[str, str | None] = reply.options or {}
    known = [v for v in options.values() if v]
    numeric = bool(known) and all(NUMBER_PATTERN.fullmatch(v) for v in known)
    return {k: v if v else ("9" * 59 + str(i) if numeric else "\x00" * (i + 1))
            for i, (k, v) in enumerate(options.items())}


def askable(reply: Reply) -> bool:
    """Whether the record's question is one the readers accept: a few MathVista items repeat an option text
    (`check_options` refuses them, naming the repeat), and no reading of their replies can be right."""
    if not reply.options:
        return True
    try:
        check_options(options_of(reply))
    except ValueError:
        return False
    return True


def read(reply: Reply) -> Reading:
    """The reading of one corpus reply by the reader of its kind (see the module docstring)."""
    if reply.kind == "choice":
        return read_choice(reply.reply, options_of(reply))
    if reply.kind == "yesno":
        if reply.options:
            return read_choice(reply.reply, options_of(reply), question=reply.question)
        return read_yes_no(reply.reply, question=reply.question)
    if reply.kind == "number":
        return read_number(reply.reply)
    raise ValueError(f"reply kind {reply.kind!r} is not known; allowed: choice, yesno, number")


def canonical(value: str | None) -> str | None:
    """A number as a canonical decimal string ("16.0" -> "16", "1,000" -> "1000"), other text unchanged."""
    if value is None:
        return None
    text = value.strip().replace(",", "")
    try:
        number = float(text)
    except ValueError:
        return value.strip()
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else text


def answer(reply: Reply, reading: Reading) -> str:
    """A reading in the corpus's encoding: an option key, "yes"/"no", a canonical number, or ``NONE``."""
    if reading.status != "ok" or reading.answer is None:
        return NONE
    if reply.kind == "yesno" and reply.options:
        text = (reply.options.get(reading.answer) or "").strip().casefold()
        return text if text in ("yes", "no") else NONE
    if reply.kind == "number":
        return canonical(reading.answer) or NONE
    return reading.answer


def gold(reply: Reply) -> str:
    """The gold answer in the corpus's encoding (numbers canonical)."""
    return canonical(reply.gold) if reply.kind == "number" else reply.gold


def label_of(reply: Reply, label: str) -> str:
    """A hand label in the corpus's encoding (numbers canonical)."""
    return canonical(label) if reply.kind == "number" and label != NONE else label
