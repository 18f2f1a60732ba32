"""Yes/no answers, in two vocabularies: "yes"/"no" (ColorBlindnessEval's Y/N prompts) and "True"/"False"
(IllusionBench+ App. A1's true/false statements).

Policy (after the shared rules of `plates.tasks.answers.text`), first rule that decides wins:

1. **A leading word**: "Yes, the number 12 is visible", "False, because ..." (unless the reply goes on "or
   no"/"or false": "Yes or no, hard to say" answers nothing).
2. **An explicit answer phrase**: "The answer is: no", "answer: true"; the last one wins (lmms-eval's
   ``mcq_extract`` convention for explicit answers).
3. **Negated truth** (true/false only): "not true", "incorrect", "wrong" -> False.
4. **The only word of the vocabulary** in the reply: "I think yes", "It is true, because ..." (IllusionBench+
   App. B1 quotes such replies). Both words ("yes for the top and no for the bottom") -> ambiguous; a refusal
   that names both ("Yes or no, it is hard to say") -> refusal.
5. True/false only: a leading yes/no word answers the statement ("Yes" -> True).

Trap: "No number is visible" starts with "No" but is an evasion, not the answer "no".
"""

from __future__ import annotations

import re

from plates.tasks.answers.text import Reading, clean, is_evasion, prepare, strip_answer_prefix, unanswered

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
_MARKED = {k: re.compile(r"\banswer ?(?:is)? ?:? ?\W{0,4}" + w, re.IGNORECASE) for k, w in _WORDS.items()}
_NOT_TRUE = re.compile(r"\b(?:not (?:true|correct|accurate)|incorrect|inaccurate|wrong)\b", re.IGNORECASE)
_LEADING_YES_NO = re.compile(r"^\W{0,8}(yes|no)\b", re.IGNORECASE)


def _word(found: str, vocabulary: str) -> str:
    yes, no = VOCABULARIES[vocabulary]
    return yes if found.lower() in ("yes", "true") else no


def read_yes_no(reply: str, vocabulary: str = "yes-no") -> Reading:
    """The yes/no answer of ``reply`` in ``vocabulary`` ("yes-no": "yes"/"no"; "true-false": "True"/"False")."""
    if vocabulary not in VOCABULARIES:
        raise ValueError(f"vocabulary {vocabulary!r} is not known; allowed: {', '.join(VOCABULARIES)}")
    prepared = prepare(reply)
    t = clean(prepared.text)
    body = strip_answer_prefix(t)
    cut = prepared.truncated
    m = _LEADING[vocabulary].match(body)
    if m:
        return Reading(_word(m.group(1), vocabulary), "ok", f"leading {vocabulary}", None, cut)
    marked = None
    for marked in _MARKED[vocabulary].finditer(t):  # noqa: B007 - the last explicit answer wins
        pass
    if marked is not None:
        return Reading(_word(marked.group(1), vocabulary), "ok", f"answer: {vocabulary}", None, cut)
    if vocabulary == "true-false" and _NOT_TRUE.search(t):
        return Reading("False", "ok", "negated truth", None, cut)
    words = {_word(w.group(1), vocabulary) for w in _ANY[vocabulary].finditer(t)}
    if len(words) == 1:
        return Reading(words.pop(), "ok", f"only {vocabulary} word", None, cut)
    if words:
        return unanswered(prepared, f"both words of {vocabulary}", label_len=3, ambiguous=not is_evasion(t))
    if vocabulary == "true-false":
        m = _LEADING_YES_NO.match(body)
        if m:
            return Reading(_word(m.group(1), vocabulary), "ok", "leading yes/no as true/false", None, cut)
    return unanswered(prepared, f"no {vocabulary} word", label_len=3)
