"""The papers' prompts, exactly as published, by stable name; rendering and few-shot conversations.

Built-in templates (``plates prompts`` lists them):

    ========================  =====  ===================  ========  ==========================================
    name                      kind   label space          variant   source
    ========================  =====  ===================  ========  ==========================================
    ``cbe-open``              open   cbe (0-99)           standard  ColorBlindnessEval App. F (open prompt)
    ``cbe-open-clear``        open   cbe                  clear     ColorBlindnessEval §3.1 "Open-clear", App. F
    ``cbe-yn-correct``        yesno  cbe                  standard  ColorBlindnessEval App. F, §3.1 Y*/N
    ``cbe-yn-incorrect``      yesno  cbe                  standard  ColorBlindnessEval App. F, §3.1 Y/N*
    ``huemanity-numeric``     open   huemanity-numeric    standard  HueManity §4 "Number Recognition Prompt"
    ``huemanity-alnum``       open   huemanity-alnum      standard  HueManity §4 "Text Recognition Prompt"
    ``colorbench-mc``         mc     cbe                  standard  ColorBench App. F "Instruction Prompt"
    ``colorbench-mc-cot``     mc     cbe                  standard  ColorBench App. F "CoT Instruction Prompt"
    ``plain-open``            open   any                  standard  not from a paper: any text label
    ``plain-yn``              yesno  any                  standard  not from a paper: any text label
    ========================  =====  ===================  ========  ==========================================

ColorBlindnessEval's Appendix F swaps its two prompt labels: the text printed under "Yes/No (Y/N) Prompts" is
the open question and vice versa. We attach each text to the question it actually asks: the yes/no prompt is
the "Is the number in the image is <NUM>? Answer 'yes' or 'no'." one (its grammar kept verbatim).

Templates use ``str.format`` placeholders (literal braces are doubled): ``{candidate}`` in a yes/no template is
the label asked about (the target, or a seeded wrong label from the same label space: ColorBlindnessEval App. F
"a random incorrect number between 0 and 99"); ``{options}`` in a multiple-choice template is the option list in
ColorBench's released format ``(A) 12 (B) 7 (C) 45 (D) 3``. Open templates take no placeholder.

Rendering is deterministic for (template name, target, seed): the seed drives only the wrong yes/no candidate
and the multiple-choice distractors and order. No colours are involved here (prompts are text only).
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from plates.models.base import QUERY_KINDS, Query, Turn
from plates.stimuli.ishihara.labels import LABEL_SPACE_NAMES, LABEL_SPACES
from plates.stimuli.ishihara.plate import VARIANTS as PLATE_VARIANTS
from plates.tasks.base import Question, pixel_reply
from plates.toml_files import read_toml
from plates.validation import check_int, lookup

#: Prompt kinds: what a backend is asked to do (answer openly, yes/no, pick an option letter).
KINDS = QUERY_KINDS
#: Where a question's text comes from: this template (plate prompts, a user's own), or the task's builder,
#: which writes it from the stimulus's truth (illusions, scenes: their templates show the frame for reference).
TEXT_FROM = ("template", "task")
#: The plate task a user's template of each kind belongs to when it names none (`plates.tasks.TASKS`).
DEFAULT_TASKS = MappingProxyType({"open": "plate-open", "yesno": "plate-yes-no", "mc": "plate-choice"})
ASKS = ("target", "distractor")
#: Placeholders each kind allows (all of them required).
PLACEHOLDERS: dict[str, tuple[str, ...]] = {"open": (), "yesno": ("candidate",), "mc": ("options",)}
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_LETTERS = string.ascii_uppercase


@dataclass(frozen=True)
class PromptTemplate:
    """A named prompt template (text only; no colour domain involved).

    ``kind``: "open" | "yesno" | "mc". ``label_space``: where targets (and distractors) come from:
    "cbe" ("0".."99"), "huemanity-numeric" ("10".."99"), "huemanity-alnum" (58x58 pairs) or "any".
    ``variant``: the plate variant the prompt is meant for ("standard", "clear", "mask").
    ``cot``: the prompt asks for chain of thought. ``asks`` (yes/no only): whether ``{candidate}`` is the
    target (expected "yes") or a seeded distractor (expected "no"). ``n_options`` (mc only): options shown.
    ``answer_format``: how a correct answer is written in a few-shot example (``{answer}`` is replaced).
    ``task``: the `plates.tasks.TASKS` entry that builds and scores its questions. ``text_from``: "template"
    (the text is rendered from ``template``) or "task" (the task writes it from the stimulus; ``template`` then
    shows the frame and is not checked for placeholders).

    Parameters
    ----------
    name : str
        Lowercase letters, digits, ".", "_" and "-", starting with a letter or digit.
    source : str
        The paper and section it comes from, or who wrote it; not empty.
    kind : str
        One of `KINDS`.
    label_space : str
        One of `plates.stimuli.ishihara.labels.LABEL_SPACE_NAMES`.
    template : str
        The text, with the placeholders its kind requires (`PLACEHOLDERS`) when ``text_from`` is "template".
    variant : str, optional
        One of the plate variants.
    cot : bool, optional
        Asks for chain of thought.
    asks : str, optional
        One of `ASKS` (yes/no templates).
    n_options : int, optional
        Options shown (mc), 2-26.
    answer_format : str, optional
        Holds ``{answer}`` and no other placeholder.
    task : str, optional
        The task's name; empty for `DEFAULT_TASKS`' entry of ``kind``.
    text_from : str, optional
        One of `TEXT_FROM`.

    Raises
    ------
    ValueError
        A field not allowed (the message names it and what is allowed), an empty source or template, a
        placeholder unknown, missing or malformed.
    """

    name: str
    source: str
    kind: str
    label_space: str
    template: str
    variant: str = "standard"
    cot: bool = False
    asks: str = "target"
    n_options: int = 4
    answer_format: str = "{answer}"
    task: str = ""
    text_from: str = "template"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
            raise ValueError(
                f"prompt name {self.name!r} is not allowed; use lowercase letters, digits, '.', '_' and '-', "
                "starting with a letter or digit"
            )
        _check_choice("kind", self.kind, KINDS)
        _check_choice("label_space", self.label_space, LABEL_SPACE_NAMES)
        _check_choice("variant", self.variant, PLATE_VARIANTS)
        _check_choice("asks", self.asks, ASKS)
        if not isinstance(self.cot, bool):
            raise ValueError(f"cot must be true or false, got {self.cot!r}")
        if not isinstance(self.source, str) or not self.source.strip():
            raise ValueError(f"prompt {self.name!r} needs a non-empty source (paper + section, or your own)")
        if not isinstance(self.template, str) or not self.template.strip():
            raise ValueError(f"prompt {self.name!r} needs a non-empty template text")
        check_int("n_options", self.n_options, 2, 26)
        _check_choice("text_from", self.text_from, TEXT_FROM)
        if self.text_from == "template":
            _check_placeholders(self.name, self.template, PLACEHOLDERS[self.kind], required=True)
        _check_placeholders(self.name + " answer_format", self.answer_format, ("answer",), required=True)
        if not self.task:  # a user's template joins the generic plate task of its kind
            object.__setattr__(self, "task", DEFAULT_TASKS[self.kind])
        elif not isinstance(self.task, str):
            raise ValueError(f"prompt {self.name!r}: task must be a task name, got {self.task!r}")

    @property
    def first_line(self) -> str:
        """The template's first line, without the whitespace around the template (for listings)."""
        return self.template.strip().splitlines()[0]


#: A rendered plate prompt is a task `Question` (kept under its old name for callers of this module).
RenderedPrompt = Question

_ANSWER_KIND = {"open": "label", "yesno": "yesno", "mc": "choice"}


def _check_choice(field: str, value: Any, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{field} {value!r} is not allowed; allowed: {', '.join(allowed)}")


def _check_placeholders(where: str, text: str, allowed: Sequence[str], *, required: bool) -> None:
    """ValueError naming an unknown placeholder (and the allowed ones), or a missing required one."""
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
    except ValueError as exc:  # a lone "{" or "}"
        raise ValueError(f"{where}: malformed template ({exc}); write literal braces as '{{{{' and '}}}}'") from exc
    allowed_text = ", ".join("{" + a + "}" for a in allowed) or "none"
    for f in fields:
        if f not in allowed:
            raise ValueError(f"{where}: unknown placeholder {{{f}}}; allowed here: {allowed_text}")
    if required:
        for a in allowed:
            if a not in fields:
                raise ValueError(f"{where}: the template must contain the placeholder {{{a}}}")


# --- the papers' texts, verbatim --------------------------------------------------------------------------

_CBE_PREAMBLE = "This is an Ishihara plate designed for color blindness testing. "
#: ColorBlindnessEval App. F (printed under "Yes/No" in the paper: the labels are swapped there).
CBE_OPEN_TEXT = _CBE_PREAMBLE + (
    "The number is made up of dots of different colors. What number do you see in the image? "
    "Output the number you see only."
)
#: ColorBlindnessEval App. F (printed under "Open-Ended"); "<NUM>" becomes {candidate}. Grammar verbatim.
CBE_YN_TEXT = _CBE_PREAMBLE + "Is the number in the image is {candidate}? Answer 'yes' or 'no'."
#: HueManity §4, Number Recognition Prompt.
HUEMANITY_NUMERIC_TEXT = (
    "What is the number in this image? Strictly stick to the format: Answer: [number in the image]"
)
#: HueManity §4, Text Recognition Prompt.
HUEMANITY_ALNUM_TEXT = (
    "What is the exact text in this image? It has only alpha-numeric characters excluding small l, "
    "capital O, capital I, and capital J to avoid ambiguity. Strictly stick to the format: "
    "Answer: [exact text in the image]"
)
#: ColorBench App. F, Instruction Prompt (the paper's typographic apostrophe kept).
COLORBENCH_INSTRUCTION = (
    "You\u2019ll be given an image, an instruction and some options. You have to select the correct one. "
    "Do not explain your reasoning. Answer with only the letter that corresponds to the correct option. "
    "Do not repeat the entire answer."
)
#: ColorBench App. F, CoT Instruction Prompt.
COLORBENCH_COT_INSTRUCTION = (
    "You\u2019ll be given an image, an instruction and some options. You have to select the correct one. "
    "Think step by step before answering. Then conclude with the letter that corresponds to the correct "
    "option. Make sure the option letter is in the parentheses like (X). Do not include ( or ) in the "
    "response except for the answer."
)
#: ColorBench Table 7, Color Blindness sample question, plus the option sentence of its released data.
COLORBENCH_BLIND_QUESTION = (
    "What is the number in the center of the image? Select from the following choices. {options}"
)

_CB_SRC = (
    "ColorBench (Liang et al.) App. F {which}; question: Table 7 (Color Blindness); option format "
    "'(A) .. (B) ..' as in its released data"
)


def _builtin_prompts() -> dict[str, PromptTemplate]:
    cbe = "ColorBlindnessEval (Ling et al.) App. F"
    templates = [
        PromptTemplate("cbe-open", f"{cbe}, Open prompt (App. F prints it under 'Yes/No': labels swapped)",
                       "open", "cbe", CBE_OPEN_TEXT, task="cbe-open"),
        PromptTemplate("cbe-open-clear", f"{cbe} and §3.1 'Open-clear': the open prompt on the clear plate",
                       "open", "cbe", CBE_OPEN_TEXT, variant="clear", task="cbe-open"),
        PromptTemplate("cbe-yn-correct", f"{cbe}, Y/N prompt with the correct number (Y*/N, §3.1, Table 1)",
                       "yesno", "cbe", CBE_YN_TEXT, asks="target", task="cbe-yes-no"),
        PromptTemplate("cbe-yn-incorrect",
                       f"{cbe}, Y/N prompt with a random incorrect number 0-99 (Y/N*, §3.1, Table 1)",
                       "yesno", "cbe", CBE_YN_TEXT, asks="distractor", task="cbe-yes-no"),
        PromptTemplate("huemanity-numeric", "HueManity §4, Number Recognition Prompt; scoring App. B.2",
                       "open", "huemanity-numeric", HUEMANITY_NUMERIC_TEXT, answer_format="Answer: {answer}",
                       task="huemanity-numeric"),
        PromptTemplate("huemanity-alnum", "HueManity §4, Text Recognition Prompt; scoring App. B.2",
                       "open", "huemanity-alnum", HUEMANITY_ALNUM_TEXT, answer_format="Answer: {answer}",
                       task="huemanity-alnum"),
        PromptTemplate("colorbench-mc", _CB_SRC.format(which="Instruction Prompt"), "mc", "cbe",
                       COLORBENCH_INSTRUCTION + "\n" + COLORBENCH_BLIND_QUESTION, task="colorbench-blindness"),
        PromptTemplate("colorbench-mc-cot", _CB_SRC.format(which="CoT Instruction Prompt"), "mc", "cbe",
                       COLORBENCH_COT_INSTRUCTION + "\n" + COLORBENCH_BLIND_QUESTION, cot=True,
                       answer_format="({answer})", task="colorbench-blindness"),
        PromptTemplate("plain-open", "plates (not from a paper): an open question for any text label",
                       "open", "any", "What is the text in this image? Answer with the text only.", task="plate-open"),
        PromptTemplate("plain-yn", "plates (not from a paper): a yes/no question for any text label",
                       "yesno", "any", "Does this image show the text {candidate}? Answer 'yes' or 'no'.",
                       task="plate-yes-no"),
    ]
    templates += _scene_prompts() + _illusion_prompts()
    return {t.name: t for t in templates}


#: The ColorBench tasks drawn as synthetic scenes (`plates.tasks.scenes.colorbench.SCENE_BUILDERS`; shape counting is ours).
_SCENE_TASKS = ("colour-extraction", "colour-proportion", "colour-counting", "object-counting",
                "colour-comparison", "colour-recognition", "shape-counting", "object-recognition",
                "colour-mimicry")


def _scene_prompts() -> list[PromptTemplate]:
    """One prompt per ColorBench scene task, plain and chain of thought (App. F instructions)."""
    frame = "\n{question} Select from the following choices. {options}"
    out = []
    for task in _SCENE_TASKS:
        src = f"ColorBench App. F instruction, Table 7 question wording where printed; task {task} on our scenes"
        out.append(PromptTemplate(f"colorbench-{task}", src, "mc", "any", COLORBENCH_INSTRUCTION + frame,
                                  task=task, text_from="task"))
        out.append(PromptTemplate(f"colorbench-{task}-cot", src.replace("instruction", "CoT instruction"), "mc",
                                  "any", COLORBENCH_COT_INSTRUCTION + frame, cot=True, answer_format="({answer})",
                                  task=task, text_from="task"))
    return out


def _illusion_prompts() -> list[PromptTemplate]:
    """RCID's two framings of its comparison and naming questions (§3.3, Fig. 1) and IllusionBench+'s
    true/false and multiple-choice formats (App. A1); the tasks write each question from the illusion's truth
    (`plates.tasks.illusions.questions`)."""
    compare = ("{framing}, how do the colors of {regions} compare? Here are some options you can choose: "
               "I. Left is darker II. Right is darker III. They are exactly same")
    name = "{framing}, what color is {region}?"
    out = []
    for framing, words in (("pixel", "Based on pixel values"), ("human", "According to human perception")):
        out.append(PromptTemplate(f"rcid-compare-{framing}", f"RCID §3.3, Fig. 1a-b ({words})", "mc", "any",
                                  compare.replace("{framing}", words), task="rcid-compare", text_from="task"))
        out.append(PromptTemplate(f"rcid-name-{framing}", f"RCID §3.3, Fig. 1c ({words})", "open", "any",
                                  name.replace("{framing}", words), task="rcid-name", text_from="task"))
    out.append(PromptTemplate("illusionbench-tf", "IllusionBench+ App. A1 true/false instruction; statements ours",
                              "yesno", "any", "Given an image, check if the following description is correct, and "
                              "answer 'True' or 'False'. Do not explain the reason. Description: {statement}",
                              task="illusionbench-tf", text_from="task"))
    out.append(PromptTemplate("illusionbench-mc", "IllusionBench+ App. A1 multiple-choice instruction; options ours",
                              "mc", "any", "Given an image, a question, and some options, You have to select the "
                              "correct one. ... {question} Options: I. .. II. .. III. .. IV. ..",
                              task="illusionbench-mc", text_from="task"))
    return out


#: Name -> built-in template (read-only). A user's own templates (`load_prompt_file`) live in the experiment or
#: the session that loaded them, never here, so nothing one run loads leaks into another.
PROMPTS: Mapping[str, PromptTemplate] = MappingProxyType(_builtin_prompts())
#: The papers whose prompts, stimuli and scoring this project reproduces, as a prompt's ``source`` names them.
PAPERS: tuple[str, ...] = ("ColorBlindnessEval", "HueManity", "ColorBench", "IllusionBench+", "RCID")


def paper_of(template: PromptTemplate) -> str | None:
    """The paper (`PAPERS`) a template's ``source`` names first, or None for prompts of our own.

    Parameters
    ----------
    template : PromptTemplate
        The template; its ``source`` is searched for each paper's name.

    Returns
    -------
    str or None
        The paper whose name occurs earliest in ``source``, or None when none does.

    Examples
    --------
    >>> paper_of(PROMPTS["cbe-open"]), paper_of(PROMPTS["plain-open"])
    ('ColorBlindnessEval', None)
    """
    hits = [(template.source.index(p), p) for p in PAPERS if p in template.source]
    return min(hits)[1] if hits else None


def get_prompt(name: str, user: Mapping[str, PromptTemplate] | None = None) -> PromptTemplate:
    """The template called ``name``: a built-in, or one of ``user`` (a user's own, e.g. from
    `load_prompt_file`); ValueError listing the names otherwise.

    Parameters
    ----------
    name : str
        The template's name.
    user : mapping of str to PromptTemplate or None, optional
        A user's own templates by name (a built-in's name still gives the built-in).

    Returns
    -------
    PromptTemplate
        The template.

    Raises
    ------
    ValueError
        No template has that name (the message lists them).
    """
    return lookup({**(user or {}), **PROMPTS}, name, "prompt")


_TOML_FIELDS = {f.name for f in dataclasses.fields(PromptTemplate)}


def load_prompt_file(path: str | Path) -> tuple[PromptTemplate, ...]:
    """The templates of a TOML file: one ``[[prompt]]`` table each, with the fields of :class:`PromptTemplate`
    (``name``, ``kind``, ``label_space``, ``template`` required; ``source`` defaults to the file name). A name
    may not repeat in the file nor take a built-in's name. Errors name the file, the table and the field.
    Nothing is registered: the caller keeps the templates (an experiment, an explorer session).

    Parameters
    ----------
    path : str or pathlib.Path
        The TOML file.

    Returns
    -------
    tuple of PromptTemplate
        The templates, in the file's order.

    Raises
    ------
    ValueError
        A missing file or invalid TOML, a top-level key other than ``prompt``, no ``[[prompt]]`` table, an
        unknown or missing field, a field `PromptTemplate` refuses, a repeated name or a built-in's name.
    """
    path = Path(path)
    data = read_toml(path, "prompt")
    tables = data.get("prompt")
    unknown_top = sorted(set(data) - {"prompt"})
    if unknown_top:
        raise ValueError(f"{path}: unknown top-level key(s) {', '.join(unknown_top)}; allowed: [[prompt]] tables")
    if not isinstance(tables, list) or not tables:
        raise ValueError(f"{path}: expected one or more [[prompt]] tables")
    built = []
    for i, table in enumerate(tables):
        where = f"{path}: [[prompt]] #{i + 1}"
        unknown = sorted(set(table) - _TOML_FIELDS)
        if unknown:
            allowed = ", ".join(sorted(_TOML_FIELDS))
            raise ValueError(f"{where}: unknown field(s) {', '.join(unknown)}; allowed: {allowed}")
        for required in ("name", "kind", "label_space", "template"):
            if required not in table:
                raise ValueError(f"{where}: missing field {required!r}")
        fields = {"source": f"user prompt file {path.name}", **table}
        try:
            built.append(PromptTemplate(**fields))
        except ValueError as exc:
            raise ValueError(f"{where} ({table.get('name')!r}): {exc}") from None
    names = [t.name for t in built]
    for t in built:
        if t.name in PROMPTS:
            raise ValueError(f"{path}: prompt {t.name!r} is built in and cannot be replaced; choose another name")
        if names.count(t.name) > 1:
            raise ValueError(f"{path}: prompt {t.name!r} appears more than once; allowed: each name once")
    return tuple(built)


# --- rendering --------------------------------------------------------------------------------------------

def _label_space(name: str) -> tuple[str, ...]:
    return tuple(LABEL_SPACES[name])


def _rng(name: str, target: str, seed: int) -> random.Random:
    """A generator seeded from (name, target, seed) through SHA-256: stable across processes and Pythons."""
    digest = hashlib.sha256(f"{name}\x00{target}\x00{seed}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _format_options(options: dict[str, str]) -> str:
    return " ".join(f"({letter}) {text}" for letter, text in options.items())


def render_prompt(
    name_or_template: str | PromptTemplate,
    target: str,
    *,
    seed: int,
    label_space: str | None = None,
) -> RenderedPrompt:
    """Render a template for one plate whose label is ``target``; deterministic for (name, target, seed).

    ``label_space`` overrides the template's (e.g. ``colorbench-mc`` with HueManity numbers: distractors then
    come from "10".."99"); a template whose space is "any" needs it for seeded distractors. The target must
    belong to the label space in use (ValueError otherwise).

    Parameters
    ----------
    name_or_template : str or PromptTemplate
        A built-in's name, or a template.
    target : str
        The plate's label, without surrounding spaces.
    seed : int
        Seeds the yes/no distractor or the options' distractors and order.
    label_space : str or None, optional
        A label space to use instead of the template's.

    Returns
    -------
    Question
        The question: its text, expected answer (the label, "yes"/"no" or an option letter), options (mc) and
        the template's settings.

    Raises
    ------
    ValueError
        An unknown prompt or label space, a target that is empty, padded or not in the label space, a bad
        seed, a template that draws distractors with label space "any", or fewer labels than options.
    """
    t = get_prompt(name_or_template) if isinstance(name_or_template, str) else name_or_template
    if not isinstance(t, PromptTemplate):
        raise ValueError(f"expected a prompt name or PromptTemplate, got {type(t).__name__}")
    if not isinstance(target, str) or not target.strip() or target != target.strip():
        raise ValueError(f"target must be a non-empty label without surrounding spaces, got {target!r}")
    check_int("seed", seed)
    space = t.label_space if label_space is None else label_space
    _check_choice("label_space", space, LABEL_SPACE_NAMES)
    labels: tuple[str, ...] | None = None if space == "any" else _label_space(space)
    if labels is not None and target not in labels:
        raise ValueError(
            f"target {target!r} is not in label space {space!r} ({labels[0]!r} .. {labels[-1]!r}, "
            f"{len(labels)} labels); pass label_space= one of {', '.join(LABEL_SPACE_NAMES)}"
        )
    needs_distractors = t.kind == "mc" or (t.kind == "yesno" and t.asks == "distractor")
    if needs_distractors and labels is None:
        raise ValueError(
            f"prompt {t.name!r} draws seeded distractors, so it needs a label space; pass label_space= one of "
            f"{', '.join(n for n in LABEL_SPACE_NAMES if n != 'any')}"
        )
    rng = _rng(t.name, target, seed)
    options = None
    if t.kind == "open":
        text, expected = t.template.format(), target
        answer = expected
    elif t.kind == "yesno":
        if t.asks == "target":
            candidate, expected = target, "yes"
        else:
            candidate, expected = rng.choice([label for label in labels if label != target]), "no"
        text, answer = t.template.format(candidate=candidate), expected
    else:
        if len(labels) < t.n_options:
            raise ValueError(f"label space {space!r} has fewer labels than n_options={t.n_options}")
        choices = [target, *rng.sample([label for label in labels if label != target], t.n_options - 1)]
        rng.shuffle(choices)
        options = {letter: label for letter, label in zip(_LETTERS, choices)}
        expected = _LETTERS[choices.index(target)]
        text, answer = t.template.format(options=_format_options(options)), expected
    return Question(
        name=t.name, kind=t.kind, text=text, expected=expected, options=options, target=target,
        label_space=space, variant=t.variant, cot=t.cot, answer_text=t.answer_format.format(answer=answer),
        task=t.task, answer_kind=_ANSWER_KIND[t.kind], answer_format=t.answer_format,
    )


def few_shot_prompts(
    name_or_template: str | PromptTemplate, targets: Sequence[str], *, seed: int, label_space: str | None = None
) -> tuple[RenderedPrompt, ...]:
    """Example prompts for a few-shot conversation, one per example plate label in ``targets``.

    Yes/no templates alternate the question asked, starting with the correct label: examples answer "yes",
    "no", "yes", ... (ColorBlindnessEval App. B.2: one "yes" and one "no" example of the same colour set).
    Other kinds render the same template (ColorBlindnessEval B.2 open: one example; HueManity Table 3: 1, 3
    or 5). Choosing example plates of the same colour set is the caller's job (the runner).

    Parameters
    ----------
    name_or_template : str or PromptTemplate
        A built-in's name, or a template.
    targets : sequence of str
        The example plates' labels.
    seed : int
        The question's seed; example i is rendered with ``seed + 1000 * (i + 1)``.
    label_space : str or None, optional
        As `render_prompt`.

    Returns
    -------
    tuple of Question
        One rendered example per target.

    Raises
    ------
    ValueError
        As `render_prompt`.
    """
    t = get_prompt(name_or_template) if isinstance(name_or_template, str) else name_or_template
    out = []
    for i, target in enumerate(targets):
        example = t
        if t.kind == "yesno":
            example = dataclasses.replace(t, asks=ASKS[i % 2])
        out.append(render_prompt(example, target, seed=seed + 1000 * (i + 1), label_space=label_space))
    return tuple(out)


def build_turns(prompt: RenderedPrompt, image: Any, examples: Sequence[tuple[Any, RenderedPrompt]] = ()) -> tuple:
    """The conversation for one question: ``tuple[plates.models.base.Turn, ...]``.

    Each example ``(image, RenderedPrompt)`` becomes a user turn (its prompt text and image) followed by an
    assistant turn with its correct answer (``answer_text``), then the question itself as the last user turn
    (ColorBlindnessEval App. B.2, HueManity Table 3). Images are PIL RGB images, sRGB 0-255; ``image=None``
    sends the question without an image (a text-only control).

    Parameters
    ----------
    prompt : Question
        The question.
    image : PIL.Image.Image or None
        Its image (sRGB 0-255), or None.
    examples : sequence of (PIL.Image.Image or None, Question), optional
        The few-shot examples, in order.

    Returns
    -------
    tuple of Turn
        The turns, the question's last.

    Raises
    ------
    ValueError
        ``prompt`` is not a `Question`, or an example is not an (image, `Question`) pair.
    """
    if not isinstance(prompt, RenderedPrompt):
        raise ValueError(f"build_turns needs a RenderedPrompt, got {type(prompt).__name__}")
    turns = []
    for i, example in enumerate(examples):
        if not (isinstance(example, tuple) and len(example) == 2 and isinstance(example[1], RenderedPrompt)):
            raise ValueError(f"few-shot example #{i + 1} must be an (image, RenderedPrompt) pair, got {example!r:.80}")
        ex_image, ex_prompt = example
        turns.append(Turn("user", ex_prompt.text, () if ex_image is None else (ex_image,)))
        turns.append(Turn("assistant", ex_prompt.answer_text or ex_prompt.expected))
    turns.append(Turn("user", prompt.text, () if image is None else (image,)))
    return tuple(turns)


def query_for(prompt: RenderedPrompt, image: Any, examples: Sequence[tuple[Any, RenderedPrompt]] = (), *,
              max_tokens: int = 512, temperature: float = 0.0) -> Query:
    """The request for one question (`build_turns`), stating what it expects (its kind, answer kind, label
    space and answer format) so that no backend has to guess it from the prompt text.

    Parameters
    ----------
    prompt : Question
        The question.
    image : PIL.Image.Image or None
        Its image (sRGB 0-255), or None for a text-only query.
    examples : sequence of (PIL.Image.Image or None, Question), optional
        The few-shot examples.
    max_tokens : int, optional
        The reply's token budget.
    temperature : float, optional
        The sampling temperature.

    Returns
    -------
    Query
        The request.

    Raises
    ------
    ValueError
        As `build_turns`, or a setting `Query` refuses.
    """
    return Query(build_turns(prompt, image, examples), kind=prompt.kind, max_tokens=max_tokens,
                 temperature=temperature, answer_kind=prompt.answer_kind, label_space=prompt.label_space,
                 answer_format=prompt.answer_format, pixel_reply=pixel_reply(prompt))


def list_prompts(user: Sequence[PromptTemplate] = ()) -> list[dict[str, Any]]:
    """One row per prompt for ``plates prompts`` (the built-ins, then ``user``'s): name, task, kind, label
    space, variant, cot, source and the template's first line.

    Parameters
    ----------
    user : sequence of PromptTemplate, optional
        A user's own templates (`load_prompt_file`).

    Returns
    -------
    list of dict
        The rows, built-ins first.
    """
    return [
        {"name": t.name, "task": t.task, "kind": t.kind, "label_space": t.label_space, "variant": t.variant,
         "cot": t.cot, "source": t.source, "first_line": t.first_line}
        for t in (*PROMPTS.values(), *user)
    ]
