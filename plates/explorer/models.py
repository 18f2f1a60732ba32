"""The live plate explorer's questions to a model, apart from any widget: one question (:class:`Ask`: the
prompt by name, optionally edited, and the condition of the image the model receives) about one plate or a
batch of plates, scored with the task's readers (plates.tasks.answers) into rows of the results schema through
the one row builder (plates.runs.rows), and the exact request as Markdown. Which backend answers:
`plates.explorer.backends`; the ΔE2000 sweep: `plates.explorer.sweep`; the session history:
`plates.explorer.history`.

Every message that leaves here goes through `plates.explorer.backends.redact` first: keys never leave in one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from PIL import Image

from plates.conditions import Condition, apply_condition
from plates.explorer.backends import redact
from plates.explorer.policy import Policy
from plates.models import Backend, BackendFailing, Query
from plates.runs.rows import Asked, build_row
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import VARIANTS, PlateSpec, render
from plates.tasks.prompts import PROMPTS, get_prompt, query_for, render_prompt
from plates.validation import check_int


def result_markdown(row: dict) -> str:
    """The verdict line for one scored plate row, as Markdown.

    Parameters
    ----------
    row : dict
        A results row (:func:`ask_plate`).

    Returns
    -------
    str
        Parsed answer, expected answer, verdict, failure mode, parse status and latency (ms); or the request's
        error; or, for parse status ``unsupported``, that the model declines this kind of prompt.
    """
    if row.get("error"):
        return f"**Request failed:** {row['error']}"
    if row.get("parse_status") == "unsupported":
        return f"**{row['model']} declines this kind of prompt** ({row['prompt_name']}); pick an open prompt."
    verdict = "✅ correct" if row.get("correct") else "❌ wrong"
    return (f"**Parsed answer:** `{row.get('parsed')}` · **expected** `{row.get('expected')}` · {verdict} · "
            f"**failure mode:** {row.get('failure_mode') or '—'} · **parse:** {row.get('parse_status')} · "
            f"**latency:** {1000 * float(row.get('latency_s') or 0):.0f} ms")


@dataclass(frozen=True)
class Ask:
    """One question to a model about a plate.

    Attributes
    ----------
    prompt_name : str
        A prompt of `plates.tasks.prompts.PROMPTS`.
    prompt_text : str or None
        Edited template text, or None for the prompt's own.
    condition : Condition
        The condition of the image the model receives (size px, grayscale, hue shift in degrees, CVD view;
        `plates.conditions.Condition`).
    variant : str
        The plate variant sent (`plates.stimuli.ishihara.plate.VARIANTS`: standard, clear ...).
    seed : int
        Seed of the prompt's rendering (option order, candidate).
    """

    prompt_name: str
    prompt_text: str | None = None
    condition: Condition = field(default_factory=Condition)
    variant: str = "standard"
    seed: int = 0

    def validate(self, policy: Policy) -> None:
        """Check the question against ``policy``.

        Parameters
        ----------
        policy : Policy
            This server's limits (prompt length, image size range in px).

        Raises
        ------
        ValueError
            Naming an unknown prompt or variant, a prompt text too long, or an image size out of range, and
            what is
            allowed.
        """
        if self.prompt_name not in PROMPTS:
            raise ValueError(f"prompt {self.prompt_name!r} is unknown; allowed: {', '.join(PROMPTS)}")
        if self.variant not in VARIANTS:
            raise ValueError(f"variant {self.variant!r} is unknown; allowed: {', '.join(VARIANTS)}")
        if self.prompt_text is not None and len(self.prompt_text) > policy.max_prompt_chars:
            raise ValueError(f"prompt text has {len(self.prompt_text)} characters; allowed: at most "
                             f"{policy.max_prompt_chars}")
        check_int("image size (px)", self.condition.size, policy.min_plate_size, policy.max_plate_size,
                  none_ok=True)


def prompt_template_text(name: str) -> str:
    """The template text of the named prompt (what the editable prompt box starts from).

    Parameters
    ----------
    name : str
        A prompt of `plates.tasks.prompts.PROMPTS`.

    Returns
    -------
    str
        The template, with its ``{candidate}`` / ``{options}`` fields unfilled.

    Raises
    ------
    ValueError
        When the prompt is unknown (`plates.tasks.prompts.get_prompt`).
    """
    return get_prompt(name).template


def prompt_defaults(name: str) -> tuple[str, str]:
    """The template text and plate variant of the named prompt.

    Parameters
    ----------
    name : str
        A prompt of `plates.tasks.prompts.PROMPTS`.

    Returns
    -------
    tuple of str
        (template text, plate variant): e.g. ``cbe-open-clear`` is meant for the clear plate.

    Raises
    ------
    ValueError
        When the prompt is unknown.
    """
    template = get_prompt(name)
    return template.template, template.variant


def prompt_label_space(template, target: str) -> str | None:
    """The label space to override the template's with when rendering and scoring, if any.

    An OPEN prompt about a text outside its label space (a visitor may type any text) uses "any" (parsing
    without a
    label space; `plates.tasks.ishihara.score`).

    Parameters
    ----------
    template : PromptTemplate
        The prompt template.
    target : str
        The plate's text.

    Returns
    -------
    str or None
        "any", or None for the template's own label space.
    """
    space = template.label_space
    if template.kind == "open" and space in LABEL_SPACES and target not in LABEL_SPACES[space]:
        return "any"
    return None


def asked_template(ask: Ask):
    """The prompt template ``ask`` names, with its edited text when it has one that differs.

    Parameters
    ----------
    ask : Ask
        The question.

    Returns
    -------
    PromptTemplate
        The template.

    Raises
    ------
    ValueError
        When the prompt is unknown.
    """
    template = get_prompt(ask.prompt_name)
    if ask.prompt_text is not None and ask.prompt_text.strip() and ask.prompt_text != template.template:
        template = dataclasses.replace(template, template=ask.prompt_text)
    return template


def _prepare(spec: PlateSpec, ask: Ask, renderer: Callable = render):
    """Render ``spec``, apply the condition, render the prompt: (plate, template, RenderedPrompt, Query)."""
    template = asked_template(ask)
    prompt = render_prompt(template, spec.text, seed=ask.seed, label_space=prompt_label_space(template, spec.text))
    plate = renderer(spec)
    image = apply_condition(plate.variant(ask.variant), ask.condition)
    query = query_for(prompt, image)
    return plate, template, prompt, query


def _row(plate, template, prompt, ask: Ask, backend: Backend, reply, colour_set: str, run_id: str,
         secrets: Sequence[str | None]) -> dict:
    """One row of the results schema for a scored reply, through the one row builder (`plates.runs.rows`)."""
    spec = plate.spec
    cond = ask.condition
    spec_json = spec.to_json()
    item_id = hashlib.sha1(spec_json.encode()).hexdigest()[:16]
    asked = Asked(
        run_id=run_id, row_key=hashlib.sha1(f"{run_id}|{item_id}|{time.time_ns()}".encode()).hexdigest(),
        item_id=item_id, dataset="explorer", model=backend.model, backend=backend.kind, question=prompt,
        spec_json=spec_json, family="ishihara", variant=ask.variant, group=colour_set,
        delta_e=float(plate.stats.delta_e), font=spec.font, size=int(cond.size or spec.size),
        grayscale=bool(cond.grayscale), hue_shift=float(cond.hue_shift), cvd=cond.cvd,
        cvd_severity=float(cond.cvd_severity) if cond.cvd != "none" else 0.0, shots=0,
    )
    return build_row(asked, reply, secrets)


def ask_plate(spec: PlateSpec, ask: Ask, backend: Backend, *, colour_set: str, run_id: str,
              secrets: Sequence[str | None] = ()) -> dict:
    """Ask a backend about the plate of ``spec`` once.

    Parameters
    ----------
    spec : PlateSpec
        The plate.
    ask : Ask
        The prompt and the image's condition.
    backend : Backend
        The model.
    colour_set : str
        The row's colour set (the palette name, or "custom").
    run_id : str
        The session's run id.
    secrets : sequence of str or None
        Keys to redact from the row.

    Returns
    -------
    dict
        The scored row in the results schema.

    Raises
    ------
    ValueError
        When the backend fails every request, with the redacted reason.
    """
    return ask_one(spec, ask, backend, colour_set=colour_set, run_id=run_id, secrets=secrets)[0]


def ask_one(spec: PlateSpec, ask: Ask, backend: Backend, *, colour_set: str, run_id: str,
            secrets: Sequence[str | None] = (), renderer: Callable = render) -> tuple[dict, Image.Image]:
    """Like :func:`ask_plate`, also returning the image the model received.

    Parameters
    ----------
    spec : PlateSpec
        The plate.
    ask : Ask
        The prompt and the image's condition.
    backend : Backend
        The model.
    colour_set : str
        The row's colour set.
    run_id : str
        The session's run id.
    secrets : sequence of str or None
        Keys to redact from the row.
    renderer : callable
        Spec -> Plate (e.g. a `plates.explorer.plate.PlateCache`: reuses a plate already on screen).

    Returns
    -------
    dict
        The scored row.
    PIL.Image.Image
        The image as sent (PIL RGB, sRGB 0-255, after the condition).

    Raises
    ------
    ValueError
        When the backend fails every request, with the redacted reason.
    """
    prepared = [_prepare(spec, ask, renderer)]
    row = next(_answer(prepared, ask, backend, colour_set, run_id, secrets))
    return row, prepared[0][3].turns[-1].images[-1]


def sent(spec: PlateSpec, ask: Ask, renderer: Callable = render) -> tuple[Image.Image, str]:
    """What a model receives when asked ``ask`` about ``spec`` (the same preparation the asking uses).

    Parameters
    ----------
    spec : PlateSpec
        The plate.
    ask : Ask
        The prompt and the image's condition.
    renderer : callable
        Spec -> Plate.

    Returns
    -------
    PIL.Image.Image
        The image as sent (PIL RGB, sRGB 0-255, after the condition).
    str
        :func:`request_markdown` of the request.
    """
    _, _, prompt, query = _prepare(spec, ask, renderer)
    image = query.turns[-1].images[-1]
    return image, request_markdown(prompt, query, image)


def request_markdown(prompt, query: Query, image: Image.Image) -> str:
    """The exact request as Markdown; visitor text sits in code spans.

    Parameters
    ----------
    prompt : Question
        The rendered prompt (`plates.tasks.base.Question`).
    query : Query
        The request.
    image : PIL.Image.Image
        The image as sent.

    Returns
    -------
    str
        The filled prompt text (``{candidate}`` / ``{options}`` replaced), the options with their letters, the
        expected answer and its text, temperature, max tokens, the image size as sent (px) and the answer
        kind.
    """
    def code(text: str) -> str:
        return "`` " + str(text).replace("`", "ˋ") + " ``"

    lines = ["**The exact request**", "```text\n" + prompt.text.replace("```", "ˋˋˋ") + "\n```"]
    if prompt.options:
        lines.append("Options: " + " · ".join(f"**{k}** {code(v)}" for k, v in prompt.options.items()))
    expected = prompt.expected
    meaning = prompt.options.get(expected) if prompt.options else None
    if meaning is None and prompt.kind == "yesno":
        meaning = "the label asked is the plate's text" if expected == "yes" else "the label asked is not the plate's text"
    lines.append(f"Expected answer: {code(expected)}" + (f" ({code(meaning)})" if meaning else "")
                 + f" · the plate's text: {code(prompt.target)}")
    lines.append(f"Temperature {query.temperature:g} · max tokens {query.max_tokens} · image {image.width}×"
                 f"{image.height} px as sent (PNG) · answer kind {query.answer_kind or 'unstated'}")
    return "\n\n".join(lines)


def ask_many(specs: Sequence[PlateSpec], ask: Ask, backend: Backend, *, colour_set: str, run_id: str,
             secrets: Sequence[str | None] = (), renderer: Callable = render) -> Iterator[dict]:
    """Ask about every spec in one batch (API backends run them concurrently); yield rows as replies arrive.

    A local Hugging Face model's come all at once (`plates.explorer.backends.OneAtATime`). Every plate is
    drawn
    before the batch is asked.

    Parameters
    ----------
    specs : sequence of PlateSpec
        The plates.
    ask : Ask
        The prompt and the image's condition.
    backend : Backend
        The model.
    colour_set : str
        The rows' colour set.
    run_id : str
        The session's run id.
    secrets : sequence of str or None
        Keys to redact from the rows.
    renderer : callable
        Spec -> Plate.

    Yields
    ------
    dict
        Scored rows in the results schema, in order of arrival.

    Raises
    ------
    ValueError
        When the backend fails every request, with the redacted reason.
    """
    yield from _answer([_prepare(spec, ask, renderer) for spec in specs], ask, backend, colour_set, run_id, secrets)


def _answer(prepared, ask: Ask, backend: Backend, colour_set: str, run_id: str, secrets) -> Iterator[dict]:
    queries = [q for *_, q in prepared]
    try:
        for index, reply in backend.ask(queries):
            plate, template, prompt, _ = prepared[index]
            yield _row(plate, template, prompt, ask, backend, reply, colour_set, run_id, secrets)
    except BackendFailing as exc:
        raise ValueError(f"the model keeps failing: {redact(str(exc), secrets)}") from None
