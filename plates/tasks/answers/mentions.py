"""Where a reply names an option in prose: the sentence-level rules of the multiple-choice reader
(`plates.tasks.answers.choice`, rules 4b and 5c-5g of its policy), kept here so that the reader stays short.

What real VLM replies do (BLINK's and MathVista's released outputs) that a key-only reader misses:

* they **begin with an option's text** ("A is closer to the camera.", "Yes, the teddy bear ...", "Box A more
  accurately localizes ...", "The second image is most similar ...");
* they **state the choice in their first sentence** and explain it afterwards, naming the other options while
  explaining ("Box B more accurately localizes the bed. ... Box A, on the other hand, is too large");
* they **conclude** after discussing every option ("Therefore, the second image is the most suitable.");
* they **name an option as correct after the fact** ("A is the correct option for the given question");
* they **state a computed result** that is an option's value ("... = 16." for the option "16");
* they **reject every option** ("Neither bounding box A nor B ...": no option).

The policy of each rule is in its function's docstring. A "mention" of an option in a sentence is: its text
(whole words, any case; a text inside a longer option text counts once, as the longer one), its key in
parentheses "(B)", "option B", and, when every option's text names its own key as a word ("Point A", "Box B",
"A is closer", "picture C": the letters name things in the image), the key as a capital letter that is no
article ("Point A", "A is ...", "A.", a quoted "A" -- never "A dog"); for other options, a capital key before a verb ("A is
the number shown", "B seems right") or after "image", "picture", "option" or "choice" ("I believe image A ... is most
likely", not the label line "Image A: ...") where the reply names no points by capitals. Option texts that are numbers or yes/no words are
mentions only where they lead the reply or are stated as a result: "There is no cat" does not answer "no", and
"2 steps" does not choose the option "2".

Sentences are bounded (``SENTENCE_CHARS``) and every pattern runs once over the (already capped) reply.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from plates.tasks.answers.text import ANSWER_PHRASE, hedge_end, is_hedge

__all__ = [
    "SENTENCE_CHARS",
    "OptionNames",
    "concluded",
    "first_sentence",
    "first_sentence_choice",
    "last_paragraph",
    "leading_option",
    "mentioned",
    "named_as_correct",
    "names_of",
    "rejects_all",
    "sentences_of",
    "stated_result",
]

#: The longest sentence the sentence rules read (characters); a longer first sentence is read up to here.
SENTENCE_CHARS = 400

_SENTENCE_END = re.compile(r"[.!?][\"')]?(?= |\n|$)|\n")
# Negations, and verbs and degrees that turn a mention against its option ("I would eliminate option (A)",
# "the first image is the least likely to be real").
NEGATION = re.compile(
    r"\b(?:not|no|never|neither|nor|none|cannot|nothing|(?<!at )least|less|eliminat\w*|exclud\w*|rul(?:e|es|ed|ing) out"
    r"|reject\w*|incorrect|wrong)\b|n't\b",
    re.IGNORECASE,
)
# Yes/no words as option texts: answers only where they lead the reply (a determiner "no" is no answer).
_POLAR = frozenset({"yes", "no", "true", "false"})
_NUMERIC = re.compile(r"[-+]?[0-9][0-9,]*(?:\.[0-9]+)?(?: ?(?:°|%|cm|m|mm|km|kg|g|s|units?))?", re.IGNORECASE)
# An article "A" is followed by a word that is no verb; a key "A" by a verb, a conjunction or punctuation.
_KEY_VERB = r"(?:is|was|are|has|had|would|will|should|could|can|seems?|appears?|looks?|lies|and|or|nor|vs)\b"
_ENTITY_NOUN = (r"(?:point|box|image|picture|option|choice|letter|label|object|region|circle|mark|figure"
                r"|(?:labell?ed|marked|circled|denoted)(?: (?:with|as|by))?)")


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (up to the first ".", "!" or "?" before a space or the end, or the first
    newline), at most ``SENTENCE_CHARS`` characters.

    Parameters
    ----------
    text : str
        A reply's text.

    Returns
    -------
    str
        The sentence, without its end mark; the first ``SENTENCE_CHARS`` characters when no end is found there.
    """
    m = _SENTENCE_END.search(text, 0, SENTENCE_CHARS)
    return text[: m.start()] if m else text[:SENTENCE_CHARS]


def sentences_of(text: str) -> Iterator[str]:
    """The sentences of ``text`` in order, each without its end mark (".", "!" or "?" before a space or the
    end, or a newline); empty ones included. One pass over ``text``.

    Parameters
    ----------
    text : str
        A reply's text (bounded by the caller).

    Yields
    ------
    str
        Each sentence.
    """
    start = 0
    while start < len(text):
        end = _SENTENCE_END.search(text, start)
        yield text[start: end.start() if end else len(text)]
        start = end.end() if end else len(text)


@dataclass(frozen=True)
class OptionNames:
    """How a reply can name the options of one question (`names_of`).

    Parameters
    ----------
    keys : frozenset of str
        The option keys.
    texts : tuple of (str, str)
        (casefolded text, key) of every option, longest first.
    prose : re.Pattern or None
        The option texts that can be named in prose (not yes/no words, not numbers) as one whole-word
        alternation, or None.
    entity : bool
        Every option's text names its own key as a word ("Point A").
    verb_keys : bool, optional
        A capital key before a verb counts as a mention for other options too.
    """

    keys: frozenset[str]
    #: (casefolded text, key) of every option, longest first
    texts: tuple[tuple[str, str], ...]
    #: all option texts as one whole-word alternation, longest first (None when no text can be named in prose)
    prose: re.Pattern | None
    #: every option's text names its own key as a word ("Point A", "A is closer")
    entity: bool
    #: (other options) a capital key before a verb ("A is the number shown") is a mention: set per reply by the
    #: choice reader, where the reply names no points by capitals ("triangle ABC", "D is the midpoint")
    verb_keys: bool = False


@functools.lru_cache(maxsize=256)
def names_of(items: tuple[tuple[str, str], ...]) -> OptionNames:
    """The `OptionNames` of options ``items`` ((key, text) pairs, letter keys), computed once per option set.

    Parameters
    ----------
    items : tuple of (str, str)
        The options as (key, text) pairs; hashable, so the result is cached (256 option sets at most).

    Returns
    -------
    OptionNames
        With ``verb_keys`` False.
    """
    texts = tuple(sorted(((" ".join(v.split()).casefold(), k) for k, v in items), key=lambda t: -len(t[0])))
    prose_texts = [t for t, _ in texts if t not in _POLAR and not _NUMERIC.fullmatch(t)]
    prose = None
    if prose_texts:
        prose = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(t) for t in prose_texts) + r")(?!\w)", re.IGNORECASE)
    keys = frozenset(k for k, _ in items)
    entity = all(len(k) == 1 and re.search(rf"(?<![\w']){k}(?![\w'])", v) for k, v in items)
    return OptionNames(keys, texts, prose, entity)


_BEFORE_KEY = re.compile(rf"\b{_ENTITY_NOUN} [\"']?$", re.IGNORECASE)
_CAPITAL = re.compile(r"(?<![\w'#])([A-Z])(?![\w'])")
_VERB_AFTER = re.compile(r" (?i:is|was|would|will|should|seems|appears|looks|matches|fits)\b")
_LABEL_NOUN = re.compile(r"\b(?i:image|picture|option|choice) $")
_KEY_AFTER = re.compile(rf"(?: (?i:{_KEY_VERB})| ?[.,;:!?)]| ?$)")


def _capital_keys(sentence: str, names: OptionNames) -> list[str]:
    """The keys named as capitals in ``sentence`` (entity options only): after an entity noun ("Point A",
    "box B"), or before a verb, a conjunction or punctuation ("A is closer", "B."); never an article "A dog"."""
    found = []
    for m in _CAPITAL.finditer(sentence):
        k = m.group(1)
        if k not in names.keys:
            continue
        if not names.entity:
            if _VERB_AFTER.match(sentence, m.end()) or (_LABEL_NOUN.search(sentence, max(0, m.start() - 8), m.start())
                                                        and not sentence.startswith(":", m.end())):
                found.append(k)  # "A is the number shown"; "I believe image A ... is most likely" (not "Image A: ...")
            continue
        if m.start() and sentence[m.start() - 1] in "\"'" and sentence[m.end(): m.end() + 1] == sentence[m.start() - 1]:
            found.append(k)  # a label in quotes: 'corresponds to point "A"', 'would be "A" on the second image'
            continue
        before = sentence[max(0, m.start() - 16): m.start()]
        if _BEFORE_KEY.search(before) or _KEY_AFTER.match(sentence, m.end()):
            found.append(k)
    return found


COMPARED = re.compile(
    r"\b(?:than|compared (?:to|with)|in comparison (?:to|with)|relative to|whereas|while|unlike|as opposed to|"
    r"instead of)\b",
    re.IGNORECASE,
)


_OWN_KEY = re.compile(r" ?\(([A-Za-z])\)")
COMPARED_PHRASE = re.compile(COMPARED.pattern + r"[^,;:]{0,120}", re.IGNORECASE)


def mentioned(sentence: str, names: OptionNames, paren: re.Pattern, option_word: re.Pattern,
              key_of: Callable[[str], str]) -> set[str]:
    """The distinct options ``sentence`` mentions (see the module docstring): option texts in prose, keys in
    parentheses, "option X", and capital keys of entity options. What follows a comparison ("than",
    "compared to", "whereas", "while", "unlike"; up to the next comma) is what the subject is compared with, not
    a mention: "Point A is closer to the camera than point B" mentions A. Where option texts are mentioned, other
    keys are not read, except a key in parentheses right after a text: "The second image (B) is most similar"
    (a model numbering the images itself, where B is the third image) mentions two options: letter and text
    disagree, and the sentence commits to neither. ``paren``/``option_word``: the alphabet's
    patterns; ``key_of``: a matched key token -> the option key.

    Parameters
    ----------
    sentence : str
        One sentence of a reply.
    names : OptionNames
        How the reply can name the question's options (`names_of`).
    paren : re.Pattern
        The option alphabet's key in parentheses, "(B)".
    option_word : re.Pattern
        The alphabet's "option B" pattern.
    key_of : callable
        A matched key token -> the option key.

    Returns
    -------
    set of str
        The option keys mentioned (empty for none).
    """
    spans = [m.span() for m in COMPARED_PHRASE.finditer(sentence)] if COMPARED.search(sentence) else []

    def compared(m: re.Match) -> bool:  # "A is closer than point B": B is what A is compared with
        return any(a <= m.start() < b for a, b in spans)

    keys: set[str] = set()
    if names.prose is not None:
        by_text = dict(names.texts)
        for m in names.prose.finditer(sentence):
            if not compared(m):
                keys.add(by_text[m.group().casefold()])
                own = _OWN_KEY.match(sentence, m.end())  # "the second image (B)": the model's own numbering
                if own is not None and key_of(own.group(1)) in names.keys:
                    keys.add(key_of(own.group(1)))
        if keys:  # where an option's text is named, other keys are not read ("Point A ... point B")
            return keys
    if spans:
        sentence = COMPARED_PHRASE.sub(lambda m: " " * len(m.group()), sentence)
    keys.update(k for x in paren.findall(sentence) if (k := key_of(x)) in names.keys)
    keys.update(k for a, b in option_word.findall(sentence) if (k := key_of(a or b)) in names.keys)
    if names.entity or names.verb_keys:
        keys.update(_capital_keys(sentence, names))
    return keys


def _one(keys: set[str]) -> str | None:
    return next(iter(keys)) if len(keys) == 1 else None


_LEAD_EDGES = " \t\r\n\"'*([-•>"
_ALTERNATIVE_AFTER = re.compile(r" ?(?:,? or|/|,? and) ", re.IGNORECASE)


def leading_option(text: str, names: OptionNames) -> tuple[str | None, str] | None:
    """Rule 5d: the reply begins with an option's text ("Yes, the teddy bear ...", " A is closer to the
    camera.", "Box A more accurately ...", "no"). A one-word text must be followed by punctuation or the end
    ("No cat is visible" is no "no"); a longer one by any non-word character. Followed by "or"/"and" and
    another option's text ("Yes or no ...") -> ambiguous. Returns (key, "ok") or (None, "ambiguous"), or None
    when the reply begins with no option's text.

    Parameters
    ----------
    text : str
        A reply's text.
    names : OptionNames
        How the reply can name the options.

    Returns
    -------
    (str or None, str) or None
        (key, "ok"), (None, "ambiguous"), or None.
    """
    body = text.lstrip(_LEAD_EDGES)
    low = body[: len(names.texts[0][0]) + 1].casefold() if names.texts else ""
    for t, k in names.texts:
        if not low.startswith(t):
            continue
        end = len(t)
        nxt = body[end:end + 1]
        if nxt and (nxt.isalnum() or nxt == "_"):
            continue
        if " " not in t and nxt not in ("", ".", ",", "!", ";", ":", "\n", ")") and not (nxt == " " and _NUMERIC.fullmatch(t)):
            continue
        own = _OWN_KEY.match(body, end)
        if own is not None and own.group(1).upper() in names.keys and own.group(1).upper() != k:
            return None, "ambiguous"  # "The second image (B) is ..." where B is the third image
        alt = _ALTERNATIVE_AFTER.match(body, end)
        if alt:
            rest = body[alt.end(): alt.end() + len(names.texts[0][0]) + 1].casefold()
            if any(rest.startswith(o) and o != t for o, _ in names.texts):
                return None, "ambiguous"
        return k, "ok"
    return None


def rejects_all(text: str) -> bool:
    """Rule 5c: the first sentence rejects the options together ("Neither bounding box A nor B ...", "None of
    the options ...", "none of the above"): the reply commits to no option.

    Parameters
    ----------
    text : str
        A reply's text.

    Returns
    -------
    bool
        Whether the first sentence (`first_sentence`) has "neither ... nor" or "none of the/these/them".
    """
    first = first_sentence(text)
    return bool(_REJECT.search(first))


_REJECT = re.compile(r"\bneither\b[^.\n]{0,80}\bnor\b|\bnone of (?:the|these|them)\b", re.IGNORECASE)


# An answer phrase that rule 4 could not match to an option ("the answer is a blue one") states an answer
# that is no option: its sentence is not read again here.
_ANSWER = re.compile(ANSWER_PHRASE, re.IGNORECASE)


# The reason given for a claim is not the claim: "(C) the third image is the most likely, as it depicts ... no
# apparent signs of manipulation" -- the sentence is read up to ", as", "because", "since", "due to", ", which";
# but ", which is labeled (with) A" names the claim's own option ("... is the handle of the hammer, which is
# labeled with A").
_REASON = re.compile(r",? \b(?:because|since|due to|given that)\b|, (?:as|which)\b(?! (?:is |are )?(?:labell?ed|marked|"
                     r"denoted|circled)\b)", re.IGNORECASE)


# "least" rejects an option ("(A) is the least likely"), except where it joins a "most" claim about the same
# option ("the first image (A) seems the most candid and least processed"): there it describes the pick.
MOST_AND_LEAST = re.compile(r"\bmost [\w-]+(?:,| and| but) (?:the )?least\b", re.IGNORECASE)


# A relative clause describing the pick of a "most"/"best" claim is not a negation of the pick: "(D) the fourth
# image is most likely to be a real photograph that has not been digitally manipulated" -- the clause is left
# out of the negation check (up to the next comma). Trap: "(D) is not the one that ..." still negates (the
# negation comes before "that"), and "I believe that (D) is not real" has no relative clause ("that" + a key).
_MOST_CLAIM = re.compile(r"\b(?:most|best)\b", re.IGNORECASE)
_RELATIVE = re.compile(r"(?<=\w) that (?:has|have|had|is|are|was|were|does|do|did)\b[^,;]*", re.IGNORECASE)


def claim_of(sentence: str) -> str:
    """The part of ``sentence`` that makes its claim: a comparison clause (``than ...``, ``compared to ...``) and a
    relative clause after a "most"/"best" claim are cut, so a negation inside them belongs to the other option.

    Parameters
    ----------
    sentence : str
        One sentence of a reply.

    Returns
    -------
    str
        The sentence less those clauses (the sentence itself when it has none).
    """
    claim = COMPARED_PHRASE.sub("", sentence) if COMPARED.search(sentence) else sentence
    relative = _RELATIVE.search(claim)
    if relative is not None and _MOST_CLAIM.search(claim, 0, relative.start()):
        claim = claim[: relative.start()] + claim[relative.end():]
    return claim


def _decides(sentence: str, names: OptionNames, paren: re.Pattern, option_word: re.Pattern,
             key_of: Callable[[str], str], more: Callable[[str], set[str]] | None, first: bool = False) -> str | None:
    reason = _REASON.search(sentence)
    if reason is not None:
        sentence = sentence[: reason.start()]
    claim = claim_of(sentence)
    if is_hedge(sentence) or NEGATION.search(MOST_AND_LEAST.sub("most", claim)) or (
            first and _ANSWER.search(sentence)):
        return None
    keys = mentioned(sentence, names, paren, option_word, key_of)
    if more is not None and keys:
        keys |= more(sentence)
    return _one(keys)


CLAUSE = re.compile(
    r"\b(?:is|are|was|were|be|would|will|should|could|can|may|might|must|seems?|appears?|looks?|has|have|had"
    r"|does|do|did|corresponds?|match(?:es)?|fits?|belongs?|represents?|resembles?|shares?|indicates?"
    r"|suggests?|lies|localizes|encloses|moves|moving|remains?)\b|'s\b",
    re.IGNORECASE,
)


_LISTED_KEY = r"[\"']?(?:(?i:point|box) )?[A-Z][\"']?"
_KEY_LIST = re.compile(rf"(?<![\w']){_LISTED_KEY}(?:(?:,? (?:and|or)|,) {_LISTED_KEY})+(?![\w'])")
_LONE_CAPITAL = re.compile(r"(?<!\w)[A-Z](?!\w)")


def _lists_every_key(sentence: str, names: OptionNames) -> bool:
    """Whether ``sentence`` lists every option key as capitals joined by commas, "and" or "or" ("labeled A and
    B", "the choices are A, B, C, and D", 'labeled "Point A", "Point B", "Point C", and "Point D"'): it
    describes the options, it does not choose one."""
    return any(set(_LONE_CAPITAL.findall(m.group())) == names.keys for m in _KEY_LIST.finditer(sentence))


def first_sentence_choice(text: str, names: OptionNames, paren: re.Pattern, option_word: re.Pattern,
                          key_of: Callable[[str], str], more: Callable[[str], set[str]] | None = None) -> str | None:
    """Rule 5f: the first sentence names exactly one option and neither negates nor hedges ("Box B more
    accurately localizes the bed."; "If all the algae dies, the population will decrease."): that option. The
    sentences after it are its explanation and may name the others. A first sentence that lists every key
    ("The image shows a ship with two points labeled A and B.") describes: the second is read instead, unless
    it heads a list (ends with ":"). The sentence must be a clause (an
    auxiliary verb, or four words or more that begin with the option): a noun phrase ("A blue circle",
    "Something purple-ish") describes, it does not choose. ``more``: the options a task's own reading in
    words finds in a sentence (`plates.tasks.answers.choice.Described`): a sentence it reads as naming
    another option too ("They look the same but the left is darker") decides nothing.

    Parameters
    ----------
    text : str
        A reply's text.
    names : OptionNames
        How the reply can name the question's options (`names_of`).
    paren : re.Pattern
        The option alphabet's key in parentheses, "(B)".
    option_word : re.Pattern
        The alphabet's "option B" pattern.
    key_of : callable
        A matched key token -> the option key.
    more : callable or None, optional
        The options a task's own reading in words finds in a sentence, or None.

    Returns
    -------
    str or None
        The option key, or None.
    """
    first = first_sentence(text)
    if _lists_every_key(first, names):  # "... two points labeled A and B. Point A is closer to the camera."
        rest = text[len(first):].lstrip(".!? \n")
        first = first_sentence(rest)
        if first.endswith(":"):  # "The dimensions of Box A are:" heads a list, it chooses nothing
            return None
        text = rest
    key = _decides(first, names, paren, option_word, key_of, more, first=True)
    if key is None or CLAUSE.search(first):
        return key
    lead = leading_option(first.replace(".", " ").replace(",", " ") + " ", names) if first.count(" ") >= 3 else None
    return key if lead == (key, "ok") else None


def after_key_list(text: str, names: OptionNames, paren: re.Pattern, option_word: re.Pattern,
                   key_of: Callable[[str], str], more: Callable[[str], set[str]] | None = None) -> str | None:
    """Rule 5f': the first sentence that mentions options lists every key ("In the second image, there are four
    red-circled points, A, B, C, and D.", after sentences that mention none) and the sentences after it name
    one option only, the first of them neither negating nor hedging ("... is the point A in the second
    image.") -> that option. A walk through the options after the list (sentences naming different options)
    names none, nor does a list that negates ("Neither of the bounding boxes A or B ...") or a heading after it
    ("The dimensions of Box A are:"). Read within the first ``6 * SENTENCE_CHARS`` characters.

    Parameters
    ----------
    text : str
        The reply, cleaned (`plates.tasks.answers.text.clean`).
    names : OptionNames
        The item's options (`names_of`).
    paren, option_word : re.Pattern
        The alphabet's patterns for a key in parentheses and for "option X" (`mentioned`).
    key_of : callable
        A matched key token -> the option key.
    more : callable, optional
        A sentence -> further keys it names (a reader's own forms, added to `mentioned`'s), or None.

    Returns
    -------
    str or None
        The option key, or None when the rule does not decide.
    """
    listed, found = False, None
    for sentence in sentences_of(text[: 6 * SENTENCE_CHARS]):
        if not listed:
            if _lists_every_key(sentence, names):
                if _REJECT.search(sentence) or NEGATION.search(sentence):
                    return None  # "Neither of the bounding boxes A or B ...": rule 5c's, the reply picks none
                listed = True
            elif mentioned(sentence, names, paren, option_word, key_of):
                return None  # the first sentence naming options is no list: rule 5f reads it
            continue
        keys = mentioned(sentence, names, paren, option_word, key_of)
        if not keys:
            continue
        if sentence.endswith(":"):  # "The dimensions of Box A are:" heads a list, it chooses nothing
            return None
        if found is None:
            found = _decides(sentence, names, paren, option_word, key_of, more)
            if found is None:
                return None
        elif keys != {found}:
            return None
    return found


_CONCLUSION = re.compile(
    r"(?:^|(?<=[.!?:] )|(?<=\n))(?:however,? )?(?=[tshiocabgfua])(?:therefore|thus|hence|so|in conclusion|in summary|"
    r"overall|if (?:i|we|one) (?:must|had to|have to|were to|need to) (?:choose|pick|select|decide)[^,.\n]{0,60}|"
    r"consequently|to conclude|to sum up|in short|in the end|all in all|ultimately|finally|as a result|"
    r"(?:based on|given|from|considering|after (?:analy[sz]ing|considering|comparing|examining|evaluating)) "
    r"(?:this|these|that|the above|my|all|the (?:analysis|observations?|(?:given |provided )?information|"
    r"details|comparison|evaluation|(?:given |provided )?images?(?: provided| given)?))\b[^,.\n]{0,40})\b,? ?",
    re.IGNORECASE,
)


_PARAGRAPH = re.compile(r"\n(?![ ]?(?:[-*•>]|\(?[A-Za-z0-9]{1,3}[.):]))")


def last_paragraph(text: str, names: OptionNames, paren: re.Pattern, option_word: re.Pattern,
                   key_of: Callable[[str], str], more: Callable[[str], set[str]] | None = None) -> str | None:
    """Rule 5e': the first sentence of the reply's last paragraph, when the reply has several and the last is
    no list item ("- (D) ...", "(D) ...", "4. ...") nor a list's heading ("The dimensions of Box A are:"),
    names exactly one option, neither negating nor hedging:
    the summary after a discussion ("... (D) is on the label.\nThe corresponding point is (D) Point D, as
    ...").

    Parameters
    ----------
    text : str
        A reply's text; only its last ``4 * SENTENCE_CHARS`` characters are searched for a paragraph break.
    names : OptionNames
        How the reply can name the question's options (`names_of`).
    paren : re.Pattern
        The option alphabet's key in parentheses, "(B)".
    option_word : re.Pattern
        The alphabet's "option B" pattern.
    key_of : callable
        A matched key token -> the option key.
    more : callable or None, optional
        The options a task's own reading in words finds in a sentence, or None.

    Returns
    -------
    str or None
        The option key, or None.
    """
    cut = None
    for cut in _PARAGRAPH.finditer(text, max(0, len(text) - 4 * SENTENCE_CHARS)):  # noqa: B007 - the last one
        pass
    if cut is None:
        return None
    first = first_sentence(text[cut.end():])
    if first.endswith(":"):  # "The dimensions of Box A are:" heads a list, it chooses nothing
        return None
    return _decides(first, names, paren, option_word, key_of, more)


def concluded(text: str, names: OptionNames, paren: re.Pattern, option_word: re.Pattern,
              key_of: Callable[[str], str], more: Callable[[str], set[str]] | None = None) -> str | None:
    """Rule 5e: the LAST sentence that begins with a conclusion ("Therefore", "Thus", "In conclusion", "Based
    on this analysis", "Given these observations", a forced choice "However, if we must choose one, ...") and
    names exactly one option, neither negating nor hedging: that option.

    Parameters
    ----------
    text : str
        A reply's text.
    names : OptionNames
        How the reply can name the question's options (`names_of`).
    paren : re.Pattern
        The option alphabet's key in parentheses, "(B)".
    option_word : re.Pattern
        The alphabet's "option B" pattern.
    key_of : callable
        A matched key token -> the option key.
    more : callable or None, optional
        The options a task's own reading in words finds in a sentence, or None.

    Returns
    -------
    str or None
        The option key, or None.
    """
    found = None
    for m in _CONCLUSION.finditer(text):
        end = _SENTENCE_END.search(text, m.end(), m.end() + SENTENCE_CHARS)
        sentence = text[m.end(): end.start() if end else m.end() + SENTENCE_CHARS]
        key = _decides(sentence, names, paren, option_word, key_of, more)
        if key is not None:
            found = key
    return found


_CORRECT_AFTER = re.compile(
    r" (?:is|would be|seems to be|appears to be) (?:the )?(?:correct|right|best|most (?:likely|appropriate|"
    r"accurate|suitable)) (?:answer|option|choice)\b",
    re.IGNORECASE,
)
_KEY_BEFORE = re.compile(r"(?:\(([A-Za-z]{1,4})\)|(?<![\w'])(?:(?i:option|choice|answer) )?([A-Z]{1,4}))$")


def named_as_correct(text: str, names: OptionNames, key_of: Callable[[str], str]) -> str | None:
    """Rule 4b: "A is the correct option for the given question", "(B) is the right answer", "Option C would
    be the best choice", "The second image is the correct answer": the key or option text right before "is
    the correct answer/option/choice". The LAST such statement wins, also when two statements in one sentence
    name different options. None when there is none.

    Parameters
    ----------
    text : str
        A reply's text.
    names : OptionNames
        How the reply can name the options.
    key_of : callable
        A matched key token -> the option key.

    Returns
    -------
    str or None
        The option key, or None.
    """
    found = None
    for m in _CORRECT_AFTER.finditer(text):
        window = text[max(0, m.start() - 2 * len(names.texts[0][0]) - 12): m.start()]
        k = _KEY_BEFORE.search(window)
        key = None
        if k:
            key = key_of(k.group(1) or k.group(2))
        if key not in names.keys:
            low = window.casefold().rstrip(" .,")
            key = next((o for t, o in names.texts if low.endswith(t)
                        and (len(low) == len(t) or not low[-len(t) - 1].isalnum())), None)
        if key is not None:
            found = key
    return found


_RESULT = re.compile(r"(?:=|\b(?:is|equals|be)\b) ?([-+]?[0-9][0-9,]*(?:\.[0-9]+)?) ?(°|%)?(?= ?(?:[a-z]{0,6}\b)?[.!;,)]? ?$)",
                     re.IGNORECASE)


def stated_result(text: str, names: OptionNames) -> str | None:
    """Rule 5g: the reply's last sentence ends with "= value" ("is value", "equals value") and the value
    (units after it aside) is an option's text ("... = 16." for the option "16"; "∠BOC = 145°" for "145°";
    "the length of EF is 8."): that option.

    Parameters
    ----------
    text : str
        A reply's text; its last sentence within the last ``SENTENCE_CHARS`` characters is read.
    names : OptionNames
        How the reply can name the options.

    Returns
    -------
    str or None
        The option key, or None.
    """
    tail = text[-SENTENCE_CHARS:].rstrip()
    start = max(tail.rfind(". "), tail.rfind("\n")) + 1
    last = tail[start:]
    m = None
    for m in _RESULT.finditer(last):  # noqa: B007 - the last "= value" of the sentence
        pass
    if m is None:
        return None
    value = m.group(1) + (m.group(2) or "")
    by_text = dict(names.texts)
    return by_text.get(value.casefold()) or by_text.get(m.group(1).casefold())


# Rule 5h: a pick made despite a hedge. The clause after a contrast that follows the hedge ("It's difficult to
# determine with absolute certainty, but point B appears to be closer"), or a later sentence that begins with a
# contrast or a forced guess ("However, ... it is possible that the first image (A) is the most likely ...";
# "if I had to make an educated guess, ..."), and that states a preference (a comparative, "most likely",
# "best") about exactly one option.
_CONTRAST = re.compile(r"(?:^|, |; |(?<=[.!?] )|(?<=\n))(?:but|however|that said|nevertheless|nonetheless|still|yet"
                       r"|if (?:i|we) (?:had|have|were) to (?:guess|choose|pick|select|make an? (?:educated |best )?guess)|if)"
                       r"\b,? ?", re.IGNORECASE)
_PREFERENCE = re.compile(r"\b(?:(?:most|more) (?:likely|probable|plausible|similar|realistic|real|natural|authentic"
                         r"|accurate|appropriate|suitable|consistent|candid)|likely|probably|best|authentic|genuine|better (?:fit|match"
                         r"|choice|answer|option|candidate)|closer|farther|further away|favou?red|preferred|an edge)\b",
                         re.IGNORECASE)


def hedged_pick(text: str, names: OptionNames, paren: re.Pattern, option_word: re.Pattern,
                key_of: Callable[[str], str], more: Callable[[str], set[str]] | None = None) -> str | None:
    """Rule 5h: in a reply that hedges (`plates.tasks.answers.text.is_hedge`), the one option its picks name.

    A pick is the clause after a contrast ("but", "however", "that said", "if I had to guess") that follows
    the reply's first hedge, up to the sentence's end, stating a preference ("most likely", "more similar",
    "closer", "best", "authentic", "genuine": "However, the third image (C) has ..., which might suggest a candid
    and authentic moment") without negation or a further hedge; every pick must name the same single option. A
    conditional preference ("If the criteria are ..., (B) might be favored") is no pick of its own, but a rival
    one that names another option leaves the reply with two candidates.
    The labelling rules (docs/reply-labels.md, rule 7): a hedge that still names one answer as its best
    commits to it. A hedge with no pick ("difficult to definitively determine ...") or with picks naming
    two options ("However, (C) or (D) could be real") names nothing.

    Parameters
    ----------
    text : str
        The whole reply.
    names : OptionNames
        How the reply can name the question's options (`names_of`).
    paren : re.Pattern
        The option alphabet's key in parentheses, "(B)".
    option_word : re.Pattern
        The alphabet's "option B" pattern.
    key_of : callable
        A matched key token -> the option key.
    more : callable or None, optional
        The options a task's own reading in words finds in a clause (`first_sentence_choice`), or None.

    Returns
    -------
    str or None
        The option key, or None (no hedge, no pick, or picks naming more than one option).
    """
    hedge = hedge_end(text)
    if hedge is None:
        return None
    keys: set[str] = set()
    conditional: set[str] = set()  # "If the criteria are ..., (B) might be favored": a rival, never a pick alone
    for m in _CONTRAST.finditer(text, hedge):
        end = _SENTENCE_END.search(text, m.end(), m.end() + SENTENCE_CHARS)
        clause = text[m.end(): end.start() if end else m.end() + SENTENCE_CHARS]
        if not _PREFERENCE.search(clause):
            continue
        key = _decides(clause, names, paren, option_word, key_of, more)
        if key is None:
            if mentioned(clause, names, paren, option_word, key_of):
                return None  # a pick of several options, or a negated one: no single best answer
            continue
        (conditional if m.group().casefold().rstrip(", ") == "if" else keys).add(key)
    return _one(keys | conditional) if keys else None
