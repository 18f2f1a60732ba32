"""Yes/no answers, in two vocabularies: "yes"/"no" (ColorBlindnessEval's Y/N prompts) and "True"/"False"
(IllusionBench+ App. A1's true/false statements).

Policy (after the shared rules of `plates.tasks.answers.text`), first rule that decides wins:

0. **A self-correction decides**: after the last "actually", "wait", "on reflection"..., the tail is read with
   rules 1-4; only when it names no answer is the whole reply read ("Yes... wait, no" -> no).
1. **An explicit answer phrase**: "The answer is: no", "answer: true"; the LAST one wins, the rule every reader
   shares (`plates.tasks.answers.text.last_answer`; lmms-eval's ``mcq_extract`` convention), and it wins over
   a leading word ("Yes. On closer look the answer is no." -> no, as "A. ... the answer is C." -> C).
2. **A leading word**: "Yes, the number 12 is visible", "False, because ..." (unless the reply goes on "or
   no"/"or false": "Yes or no, hard to say" answers nothing).
3. **Negated truth** (true/false only): "not true", "incorrect", "wrong" -> False.
4. **The only word of the vocabulary** in the reply: "I think yes", "It is true, because ..." (IllusionBench+
   App. B1 quotes such replies). Both words ("yes for the top and no for the bottom") -> ambiguous; a refusal
   that names both ("Yes or no, it is hard to say") -> refusal.
5. True/false only: a leading yes/no word answers the statement ("Yes" -> True).

Trap: "No number is visible" starts with "No" but is an evasion, not the answer "no".
"""

from __future__ import annotations

import re

from plates.tasks.answers.text import (
    ANSWER_PHRASE,
    Reading,
    after_correction,
    clean,
    is_evasion,
    last_answer,
    prepare,
    strip_answer_prefix,
    unanswered,
)

__all__ = ["VOCABULARIES", "read_yes_no"]

#: Vocabulary name -> (the affirmative word, the negative word) as a reading's ``answer`` writes them.
VOCABULARIES = {"yes-no": ("yes", "no"), "true-false": ("True", "False")}

# Trap: "No number is visible" starts with "No" but is an evasion, not the answer "no".
_YES_OR_NO = (
    r"(yes\b|no\b(?! (?:(?:visible|discernible|clear|legible|hidden|such|obvious|recogni[sz]able) )?"
    r"(?:numbers?|digits?|text|characters?|letters?|visible|discernible|such)\b))"
)
_WORDS = {
    "yes-no": _YES_OR_NO,
    "true-false": r"(true\b|false\b)",
}
_OTHER = {"yes-no": r"(?:yes|no)\b", "true-false": r"(?:true|false)\b"}
_LEADING = {k: re.compile(r"^\W{0,8}" + w + r"(?! ?(?:or|/|and) ?" + _OTHER[k] + ")", re.IGNORECASE)
            for k, w in _WORDS.items()}
_ANY = {k: re.compile(r"\b" + w, re.IGNORECASE) for k, w in _WORDS.items()}
# The explicit answer phrase (`text.ANSWER_PHRASE`); the word is read at its end (`_WORD_AT`).
_MARKED = {k: re.compile(ANSWER_PHRASE, re.IGNORECASE) for k in _WORDS}
_AT = {k: re.compile(r"\W{0,4}" + w, re.IGNORECASE) for k, w in _WORDS.items()}
_WORD_AT = {k: (lambda text, pos, p=p: m.group(1) if (m := p.match(text, pos)) else None) for k, p in _AT.items()}
_NOT_TRUE = re.compile(r"\b(?:not (?:true|correct|accurate)|incorrect|inaccurate|wrong)\b", re.IGNORECASE)
_LEADING_YES_NO = re.compile(r"^\W{0,8}(yes|no)\b", re.IGNORECASE)


def _word(found: str, vocabulary: str) -> str:
    yes, no = VOCABULARIES[vocabulary]
    return yes if found.lower() in ("yes", "true") else no


def _decided(t: str, vocabulary: str) -> tuple[str, str] | None:
    """Rules 1-3 on cleaned text ``t``: (the answer, the rule), or None."""
    marked = last_answer(t, _MARKED[vocabulary], _WORD_AT[vocabulary])
    if marked is not None:
        return _word(marked, vocabulary), f"answer: {vocabulary}"
    m = _LEADING[vocabulary].match(strip_answer_prefix(t))
    if m:
        return _word(m.group(1), vocabulary), f"leading {vocabulary}"
    if vocabulary == "true-false" and _NOT_TRUE.search(t):
        return "False", "negated truth"
    return None


def read_yes_no(reply: str, vocabulary: str = "yes-no") -> Reading:
    """The yes/no answer of a reply, under the policy of the module docstring.

    Parameters
    ----------
    reply : str
        The model's reply, as it came.
    vocabulary : str, default "yes-no"
        "yes-no" ("yes"/"no": ColorBlindnessEval's Y/N prompts) or "true-false" ("True"/"False":
        IllusionBench+ App. A1).

    Returns
    -------
    Reading
        ``answer`` is "yes"/"no" or "True"/"False" when ``status`` is "ok"; else None with the status ("ambiguous", "unparsed",
        "refusal"), the rule that decided and HueManity App. E's failure mode.

    Raises
    ------
    ValueError
        A reply that is not a str, or another vocabulary (`VOCABULARIES`).

    Examples
    --------
    >>> read_yes_no("Yes, it is 12.").answer, read_yes_no("False.", "true-false").answer
    ('yes', 'False')
    >>> read_yes_no("I am not sure.").status
    'refusal'
    """
    if vocabulary not in VOCABULARIES:
        raise ValueError(f"vocabulary {vocabulary!r} is not known; allowed: {', '.join(VOCABULARIES)}")
    prepared = prepare(reply)
    t = clean(prepared.text)
    cut = prepared.truncated
    tail = after_correction(t)
    if tail is not None:
        found = _decided(tail, vocabulary)
        if found is None:
            words = {_word(w.group(1), vocabulary) for w in _ANY[vocabulary].finditer(tail)}
            found = (words.pop(), f"only {vocabulary} word") if len(words) == 1 else None
        if found is not None:
            return Reading(found[0], "ok", f"after a correction: {found[1]}", None, cut)
    found = _decided(t, vocabulary)
    if found is not None:
        return Reading(found[0], "ok", found[1], None, cut)
    words = {_word(w.group(1), vocabulary) for w in _ANY[vocabulary].finditer(t)}
    if len(words) == 1:
        return Reading(words.pop(), "ok", f"only {vocabulary} word", None, cut)
    if words:
        return unanswered(prepared, f"both words of {vocabulary}", label_len=3, ambiguous=not is_evasion(t))
    if vocabulary == "true-false":
        m = _LEADING_YES_NO.match(strip_answer_prefix(t))
        if m:
            return Reading(_word(m.group(1), vocabulary), "ok", "leading yes/no as true/false", None, cut)
    return unanswered(prepared, f"no {vocabulary} word", label_len=3)
