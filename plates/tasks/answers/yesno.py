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
   that names both ("Yes or no, it is hard to say") -> refusal. Words inside double quotes are quoted, not
   said: "a sign that says "no smoking"" answers nothing. In a reply that hedges ("I cannot confirm"), "no"
   before a word is a determiner, not an answer ("there's no direct mention of Shandong").
5. True/false only: a leading yes/no word answers the statement ("Yes" -> True).
6. **An implicit answer the question makes unambiguous**, only when the question is given (``question=``):
   for a question about a symmetric comparison -- "Are the colors of tiles A and B the same / identical /
   equal / different?" -- a reply that states one side ("The colors on tiles A and B appear to be the same",
   "They are not identical", "There is no difference") answers it ("no" to "... different?", "yes" to "...
   the same?"); a reply stating both sides answers nothing. Without the question such a reply stays unread:
   what "the same" answers depends on what was asked. Only symmetric predicates are read this way: "A is
   lighter than B" answers "Is B darker than A?" only through the order of A and B, which no rule reads; but a
   reply that they are the same ("Both center areas appear to be the same size") answers a strict comparison
   ("Is the left larger than the right?") "no", whatever the order.
7. **The question's claim restated**, only with ``question=``: a sentence (in the reply's first 400
   characters) that holds every content word
   of a yes/no question's claim, with no negation, condition or question of its own ("Does Indigo have the
   lowest value?" -- "Indigo has the lowest value in this case.") answers "yes". A sentence that holds every
   content word of the claim with exactly one plain negation ("not", "n't", "never") and no other negation,
   condition or question answers "no" ("Is Periwinkle the maximum?" -- "Periwinkle is not the maximum."); a
   negation of knowing rather than of the claim ("not sure", "not clear", "not possible", "not enough ...")
   or a denial in the first person ("I don't have the exact data for ...") is not read, and neither is a
   condition: "does not provide enough information to determine whether ..."
   restates the claim too. Sentences that restate the claim both ways answer nothing.

A reply that is, as a whole, a common Chinese answer word ("是的", "不是") reads as its English word
(`plates.tasks.answers.text.translated`); leaked special tokens ("no</s>", "<s> Yes") are stripped by the
shared `plates.tasks.answers.text.prepare`.

Hedges (docs/reply-labels.md rule 7): a hedge that still says one answer commits to it, and rules 1-4 read it
("It is hard to say, but most likely yes" -> yes); the implicit answers of rules 6-7 are never read from a reply
that hedges ("difficult to definitively determine whether the colours are the same" states no side).

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
    is_hedge,
    last_answer,
    prepare,
    strip_answer_prefix,
    translated,
    unanswered,
)

__all__ = ["VOCABULARIES", "implicit_answer", "read_yes_no"]

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
#: The longest question rule 6 reads (characters): a question is trusted text, bounded all the same.
MAX_QUESTION_CHARS = 2000
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


# Rule 4: a quoted span ("no smoking") is not said by the reply. Bounded: at most 80 characters, one line.
_QUOTED_SPAN = re.compile(r'"[^"\n]{0,80}"')
# Rule 4: in a reply that hedges, "no" before a word is a determiner ("there's no direct mention of ... I
# cannot confirm"), not an answer.
_DETERMINER_NO = re.compile(r"no [a-z]", re.IGNORECASE)
# Rule 6: the two sides of a symmetric comparison, in the question and in the reply.
_SAME = (r"(?:(?:of )?(?:exactly |roughly |essentially |basically |nearly |almost )?(?:the same|identical|equal"
         r"|equivalent))")
_ASKS = re.compile(
    rf"\b(?:(?P<same>{_SAME})|(?P<different>different|differ)|(?P<strict>(?:larger|smaller|bigger|longer|shorter"
    rf"|taller|wider|narrower|darker|lighter|brighter|higher|lower|greater|more|less|fewer)\b[^?]{{0,80}}\bthan))\b",
    re.IGNORECASE,
)
_STATES = re.compile(
    rf"\b(?:(?:are|is|appear(?:s)?(?: to be)?|look(?:s)?|seem(?:s)?(?: to be)?|remain) (?P<neg>not |n't )?"
    rf"(?:(?P<same>{_SAME})|(?P<different>different|distinct))|(?P<none>no (?:visible |noticeable )?difference)"
    rf"|(?P<dneg>(?:do|does|did) ?(?:n't|not) )?(?P<differ>differ))\b",
    re.IGNORECASE,
)


def _implicit(t: str, question: str, vocabulary: str) -> str | None:
    """Rule 6: the answer a reply's statement of one side of a symmetric comparison gives to ``question``."""
    asked = _ASKS.search(question)
    if asked is None:
        return None
    sides = set()
    for m in _STATES.finditer(t):
        if m.group("none"):
            sides.add("same")
        elif m.group("differ"):
            sides.add("same" if m.group("dneg") else "different")
        else:
            side = "same" if m.group("same") else "different"
            sides.add(side if not m.group("neg") else ("different" if side == "same" else "same"))
    if len(sides) != 1:
        return None
    yes, no = VOCABULARIES[vocabulary]
    side = sides.pop()
    if asked.group("strict"):  # "Is the left larger than the right?" -- "the same size": neither is
        return no if side == "same" else None
    return yes if side == ("same" if asked.group("same") else "different") else no


def read_yes_no(reply: str, vocabulary: str = "yes-no", *, question: str | None = None) -> Reading:
    """The yes/no answer of a reply, under the policy of the module docstring.

    Parameters
    ----------
    reply : str
        The model's reply, as it came.
    vocabulary : str, default "yes-no"
        "yes-no" ("yes"/"no": ColorBlindnessEval's Y/N prompts) or "true-false" ("True"/"False":
        IllusionBench+ App. A1).
    question : str, optional
        The question asked, for rule 6 (an implicit answer to a symmetric comparison: "they appear the same" to
        "Are the colours different?" reads "no"); without it such replies stay unread.

    Returns
    -------
    Reading
        ``answer`` is "yes"/"no" or "True"/"False" when ``status`` is "ok"; else None with the status
        ("ambiguous", "unparsed", "refusal"), the rule that decided and HueManity App. E's failure mode.

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
    if question is not None and not isinstance(question, str):
        raise ValueError(f"question must be a str or None, got {type(question).__name__}")
    prepared = prepare(reply)
    t = translated(clean(prepared.text))
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
    said = _QUOTED_SPAN.sub(" ", t) if '"' in t else t
    hedged = vocabulary == "yes-no" and is_hedge(said)
    words = {_word(w.group(1), vocabulary) for w in _ANY[vocabulary].finditer(said)
             if not (hedged and _DETERMINER_NO.match(said, w.start()))}
    if len(words) == 1:
        return Reading(words.pop(), "ok", f"only {vocabulary} word", None, cut)
    if words:
        return unanswered(prepared, f"both words of {vocabulary}", label_len=3, ambiguous=not is_evasion(t))
    if vocabulary == "true-false":
        m = _LEADING_YES_NO.match(strip_answer_prefix(t))
        if m:
            return Reading(_word(m.group(1), vocabulary), "ok", "leading yes/no as true/false", None, cut)
    if question:
        implied = implicit_answer(t, question, vocabulary)
        if implied is not None:
            return Reading(implied[0], "ok", implied[1], None, cut)
    return unanswered(prepared, f"no {vocabulary} word", label_len=3)


def implicit_answer(text: str, question: str, vocabulary: str = "yes-no") -> tuple[str, str] | None:
    """Rules 6 and 7: (the answer, the rule) that ``text`` (a cleaned reply that names no word of the
    vocabulary) gives implicitly to ``question``, or None. Shared with the choice reader for yes/no options.

    Parameters
    ----------
    text : str
        A cleaned reply that names no word of the vocabulary.
    question : str
        The question asked (read up to ``MAX_QUESTION_CHARS``); anything but a str gives None.
    vocabulary : str, optional
        A key of `VOCABULARIES`: ``"yes-no"`` or ``"true-false"``.

    Returns
    -------
    tuple of (str, str) or None
        The vocabulary's yes or no word and the rule that gave it (rule 6: an implicit answer; rule 7: the
        question's claim restated or denied), or None when the reply hedges or implies neither.
    """
    if not isinstance(question, str) or is_hedge(text):
        return None
    question = question[:MAX_QUESTION_CHARS]
    implied = _implicit(text, question, vocabulary)
    if implied is not None:
        return implied, "implicit answer to the question"
    echoed = _echoes(text, question)
    if echoed is not None:
        yes, no = VOCABULARIES[vocabulary]
        return (yes, "the question's claim restated") if echoed else (no, "the question's claim denied")
    return None


_POLAR_QUESTION = re.compile(r"\b(?:is|are|does|do|did|was|were|can|could|has|have|will|would|should) ([^?]{3,200})\?",
                             re.IGNORECASE)
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?", re.IGNORECASE)
_STOP = frozenset(
    "a an the of in on at to for from by with and or is are was were be been does do did has have had can could "
    "will would should this that these those there it its they them their most all any some each every one image "
    "picture figure shown shows according".split()
)
_SENTENCES = re.compile(r"(?<=[.!?])(?= |\n)|\n")
_CLAIM_BLOCKERS = re.compile(r"\b(?:not|no|never|whether|if|neither|nor|cannot|without)\b|n't\b|\?", re.IGNORECASE)
#: The plain negations of rule 7's denied claim, and the words after one that negate knowing, not the claim.
_NEGATION = re.compile(r"\b(?:not|never)\b|n't\b", re.IGNORECASE)
_NOT_KNOWING = re.compile(r"(?:\bnot|\bnever|n't)\s+(?:\w+\s+)?(?:sure|clear|possible|certain|able|enough|known|"
                          r"evident|obvious|determinable|provided|given|specified|mentioned|shown|visible)\b",
                          re.IGNORECASE)
#: A denial in the first person is about the speaker ("I don't have the exact data for ..."), not the claim.
_FIRST_PERSON = re.compile(r"\b(?:I|[Ww]e|[Mm]y|[Oo]ur)\b")


def _stem(word: str) -> str:
    word = word.lower()
    return word[:-2] if word.endswith("es") and len(word) > 4 else word[:-1] if word.endswith("s") and len(word) > 3 \
        else word


def _echoes(text: str, question: str) -> bool | None:
    """Rule 7: True where a sentence among the reply's first 400 characters states the question's claim, every
    content word of it, without a negation, a condition or a question ("Does Indigo have the lowest value?" --
    "Indigo has the lowest value in this case."; "Is the plug put into the power outlet?" -- "the plug is put
    into the power outlet"); False where such a sentence holds exactly one plain negation and nothing else
    that blocks ("Periwinkle is not the maximum."); None where no sentence does, or sentences do both ways."""
    m = _POLAR_QUESTION.search(question)
    if m is None:
        return None
    wanted = {_stem(w) for w in _TOKEN.findall(m.group(1)) if w.lower() not in _STOP}
    if len(wanted) < 2:
        return None
    found = set()
    for sentence in _SENTENCES.split(text[:400]):
        if not wanted <= {_stem(w) for w in _TOKEN.findall(sentence)}:
            continue
        if not _CLAIM_BLOCKERS.search(sentence):
            found.add(True)
        elif (len(_NEGATION.findall(sentence)) == 1 and not _NOT_KNOWING.search(sentence)
              and not _FIRST_PERSON.search(sentence)
              and not _CLAIM_BLOCKERS.search(_NEGATION.sub(" ", sentence))):
            found.add(False)
    return found.pop() if len(found) == 1 else None
