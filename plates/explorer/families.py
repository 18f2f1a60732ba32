"""The explorer's illusion and scene tabs, apart from any widget.

Controls become validated specs (`plates.stimuli.illusions.IllusionSpec`, `plates.stimuli.scenes.SceneSpec`)
under the explorer's `plates.explorer.policy.Policy`; an illusion's two targets are outlined on a copy of its image
and their pixel values measured from the image under the masks (independently of the renderer's own truth);
a question is built by the prompt's task from the stimulus's truth (`plates.tasks.get_task`), asked of a backend
with the exact image (a `plates.models.base.Query`; backends send PIL images as PNG, so the pixels arrive
unchanged: JPEG would change the colours under test) and scored into one results row through the one row
builder (`plates.runs.rows.build_row`), as `plates.explorer.models` does for plates.

The bundled baseline reader reads plate text only, so where the Model tab names it these tabs ask the
reference observer instead (`plates.models.reference`: it reads the pixels; a ceiling, not a model), and say so
(:func:`family_backend`, :func:`who_answers`): an Ask button always answers. A backend that declines a question
(``parse_status`` "unsupported") is said in words by :func:`result_markdown`.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from plates import colour as C
from plates.explorer.backends import ModelCache, ModelChoice, open_backend
from plates.explorer.policy import Policy
from plates.models import Backend, BackendFailing, make_backend
from plates.models.reference import MODEL as REFERENCE_MODEL
from plates.runs.rows import Asked, build_row
from plates.secrets import redact
from plates.stimuli.base import Stimulus
from plates.stimuli.illusions import ILLUSION_TYPES, LAYOUTS, IllusionSpec
from plates.stimuli.illusions import render as render_illusion
from plates.stimuli.scenes import SCENE_PALETTES, SHAPES, SceneSpec
from plates.stimuli.scenes import render as render_scene
from plates.tasks import Question, get_task, subject_of
from plates.tasks.prompts import PROMPTS, get_prompt, query_for
from plates.tasks.scenes.colorbench import SCENE_BUILDERS, NotAskable
from plates.validation import check_choice, check_int

__all__ = [
    "family_backend", "who_answers", "ILLUSION_KINDS", "ILLUSION_PROMPTS", "illusion_prompts", "NO_PALETTE", "OUTLINE", "SCENE_PROMPTS", "IllusionControls",
    "SceneControls", "TargetValues", "ask_stimulus", "illusion_markdown", "make_question", "measure_targets",
    "outlined", "question_markdown", "render_illusion_controls", "render_scene_controls", "result_markdown",
    "scene_markdown", "scene_question_markdown", "subject_of", "LAYOUT_CHOICES", "PALETTE_CHOICES", "SHAPE_CHOICES",
]

#: Illusion kinds a visitor can pick (`plates.stimuli.illusions.ILLUSION_TYPES`, in its order).
ILLUSION_KINDS = tuple(ILLUSION_TYPES)
#: Prompts of the illusion tasks (RCID's two framings, its colour naming, IllusionBench+ true/false and choice).
ILLUSION_PROMPTS = tuple(n for n, t in PROMPTS.items() if get_task(t.task).family == "illusion")
#: ColorBench task -> its plain prompt ("colorbench-<task>", `plates.tasks.prompts`).
SCENE_PROMPTS: Mapping[str, str] = {task: f"colorbench-{task}" for task in SCENE_BUILDERS}
#: The scene palette choice meaning "colours drawn from all of sRGB" (SceneSpec.palette None).
NO_PALETTE = "none (any sRGB colours)"
#: Outline colours (sRGB 0-255) drawn just outside targets A and B: magenta and cyan, rare in the stimuli.
OUTLINE: Mapping[str, tuple[int, int, int]] = {"A": (255, 0, 255), "B": (0, 200, 255)}


# ------------------------------------------------------------------------------------------------ illusions
@dataclass(frozen=True)
class IllusionControls:
    """The illusion tab's controls, as plain values.

    Attributes
    ----------
    kind : str
        An illusion kind (:data:`ILLUSION_KINDS`).
    strength : float
        Inducer strength, 0-1.
    delta_e : float
        Signed target difference in CIEDE2000 (+ = A lighter;
        `plates.stimuli.illusions.IllusionSpec.delta_e`).
    layout : str
        Where the targets sit (:data:`LAYOUT_CHOICES`).
    swap : bool
        Whether A and B trade contexts.
    seed : int
        Integer >= 0.
    size : int
        Image side in px.
    """

    kind: str = "rcid-contrast"
    strength: float = 1.0
    delta_e: float = 0.0
    layout: str = "left-right"
    swap: bool = False
    seed: int = 0
    size: int = 512

    def spec(self, policy: Policy) -> IllusionSpec:
        """The validated spec the controls describe.

        Parameters
        ----------
        policy : Policy
            This server's limits (the image size range, px).

        Returns
        -------
        IllusionSpec
            The spec.

        Raises
        ------
        ValueError
            Naming the bad value (seed, size, kind, strength, layout ...) and what is allowed.
        """
        return IllusionSpec(kind=self.kind, seed=check_int("seed", self.seed, text=True),
                            size=check_int("image size (px)", self.size, policy.min_plate_size,
                                           policy.max_plate_size, text=True),
                            strength=float(self.strength), delta_e=float(self.delta_e), layout=self.layout,
                            swap=bool(self.swap))


@dataclass(frozen=True)
class TargetValues:
    """One illusion target measured from the image under its mask.

    Attributes
    ----------
    name : str
        ``"A"`` or ``"B"``.
    pixels : int
        Pixels under the mask.
    mean_srgb : tuple of float
        Their mean, sRGB 0-255, rounded to 2 places.
    hex : str
        That mean rounded, as ``"#rrggbb"``.
    lab : tuple of float
        That mean in CIELAB (D65, 2°), rounded to 2 places.
    flat_share : float
        Share (0-1) of its pixels equal to the rounded mean: 1.0 for a flat target.
    """

    name: str
    pixels: int
    mean_srgb: tuple[float, float, float]
    hex: str
    lab: tuple[float, float, float]
    flat_share: float


def measure_targets(stim: Stimulus) -> tuple[dict[str, TargetValues], float]:
    """Each target's values measured from the image under its mask (not from the renderer's truth).

    Parameters
    ----------
    stim : Stimulus
        An illusion: its ``image`` (sRGB 0-255) and boolean ``masks`` ``"A"`` and ``"B"``.

    Returns
    -------
    dict of str to TargetValues
        ``"A"`` and ``"B"``'s values.
    float
        The CIEDE2000 between the two mean colours (CIELAB D65, 2°).

    Raises
    ------
    ValueError
        When a target's mask is empty.
    """
    px = np.asarray(stim.image.convert("RGB"), dtype=np.float64)
    out = {}
    for name in ("A", "B"):
        mask = np.asarray(stim.masks[name], dtype=bool)
        if not mask.any():
            raise ValueError(f"target {name}'s mask is empty; allowed: a stimulus whose masks cover its targets")
        values = px[mask]
        mean = values.mean(axis=0)
        flat = float(np.mean(np.all(values == np.round(mean), axis=1)))
        lab = C.srgb255_to_lab(mean)
        out[name] = TargetValues(name, int(mask.sum()), tuple(round(float(v), 2) for v in mean),
                                 C.to_hex(tuple(int(v) for v in np.round(mean))), tuple(round(float(v), 2) for v in lab), flat)
    de = float(C.delta_e2000(np.array(out["A"].mean_srgb), np.array(out["B"].mean_srgb)))  # takes sRGB 0-255
    return out, de


def outlined(stim: Stimulus, width: int | None = None) -> Image.Image:
    """A copy of the image with each target ringed just outside its mask and lettered (targets untouched).

    Parameters
    ----------
    stim : Stimulus
        An illusion with ``masks`` ``"A"`` and ``"B"``.
    width : int or None
        Ring width in px; None = the image side / 128, at least 2 px.

    Returns
    -------
    PIL.Image.Image
        RGB (sRGB 0-255); the rings and letter boxes in the :data:`OUTLINE` colours.
    """
    from scipy import ndimage  # lazy: ~0.3 s of CPU the explorer's first page never needs

    image = stim.image.convert("RGB")
    w = width or max(2, image.size[0] // 128)
    px = np.array(image)
    masks = {n: np.asarray(stim.masks[n], dtype=bool) for n in ("A", "B")}
    either = masks["A"] | masks["B"]
    for name, mask in masks.items():
        ring = ndimage.binary_dilation(mask, iterations=w) & ~either
        px[ring] = OUTLINE[name]
    out = Image.fromarray(px)
    draw = ImageDraw.Draw(out)
    side = max(12, image.size[0] // 24)  # the letter's box, px
    font = ImageFont.load_default(size=int(side * 0.8))
    for name, mask in masks.items():
        ys, xs = np.nonzero(mask)
        x, y = int(xs.min()), max(0, int(ys.min()) - side - w)
        draw.rectangle((x, y, x + side, y + side), fill=OUTLINE[name])
        draw.text((x + side / 2, y + side / 2), name, fill=(0, 0, 0), font=font, anchor="mm")
    return out


def illusion_markdown(stim: Stimulus) -> str:
    """The targets' measured pixel values and the illusion's answers, as Markdown.

    Parameters
    ----------
    stim : Stimulus
        An illusion (its image, masks and truth).

    Returns
    -------
    str
        A table per target (position, mean sRGB 0-255, hex, CIELAB L* a* b*, pixels), then the measured
        CIEDE2000,
        the pixel-darker and perceived-darker targets, the item class, the prediction and its source.

    Raises
    ------
    ValueError
        When a target's mask is empty (:func:`measure_targets`).
    """
    t = stim.truth
    measured, de = measure_targets(stim)
    pos = t.get("positions", {})
    lines = ["| target | where | mean sRGB (0-255) | hex | CIELAB L*, a*, b* | pixels |", "|---|---|---|---|---|---|"]
    for name, v in measured.items():
        lines.append(f"| **{name}** ({'magenta' if name == 'A' else 'cyan'} outline) | {pos.get(name, '?')} | "
                     f"{', '.join(f'{c:.1f}' for c in v.mean_srgb)} | `{v.hex}` | "
                     f"{', '.join(f'{c:.1f}' for c in v.lab)} | {v.pixels} |")
    darker = t.get("pixel_darker") or "neither (identical pixels)"
    lines += ["", f"**Measured ΔE2000 between the targets:** {de:.2f} · **pixel-darker:** {darker} · "
              f"**perceived darker (the illusion's prediction):** {t.get('perceived_darker') or 'neither'} · "
              f"**item class:** {t.get('item_class')}",
              "", f"*Prediction:* {t.get('prediction', '')}  ", f"*Source:* {t.get('source', '')}"]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------- scenes
@dataclass(frozen=True)
class SceneControls:
    """The scene tab's controls, as plain values (`plates.stimuli.scenes.SceneSpec` fields).

    Attributes
    ----------
    n_regions : int
        Objects in the scene.
    n_colours : int
        Distinct object colours.
    min_delta_e : float
        Least CIEDE2000 between any two colours.
    clutter : float
        Clutter, 0-1 (`plates.stimuli.scenes.SceneSpec.clutter`).
    area_ratio : float
        Ratio of the largest to the smallest object's area, 1-100.
    shapes : tuple of str
        Shapes drawn (:data:`SHAPE_CHOICES`).
    palette : str
        :data:`NO_PALETTE` or a `plates.stimuli.scenes.SCENE_PALETTES` name.
    seed : int
        Integer >= 0.
    size : int
        Image side in px.
    """

    n_regions: int = 6
    n_colours: int = 4
    min_delta_e: float = 20.0
    clutter: float = 0.0
    area_ratio: float = 1.0
    shapes: tuple[str, ...] = ("circle", "square", "triangle", "star")
    palette: str = NO_PALETTE
    seed: int = 0
    size: int = 512

    def spec(self, policy: Policy) -> SceneSpec:
        """The validated spec the controls describe.

        Parameters
        ----------
        policy : Policy
            This server's limits (the image size range, px).

        Returns
        -------
        SceneSpec
            The spec; palette None for :data:`NO_PALETTE`.

        Raises
        ------
        ValueError
            Naming the bad value (an unknown palette, no shape chosen, seed, size, counts ...) and what is
            allowed.
        """
        if self.palette != NO_PALETTE and self.palette not in SCENE_PALETTES:
            raise ValueError(f"palette {self.palette!r} is not known; allowed: {NO_PALETTE}, "
                             f"{', '.join(SCENE_PALETTES)}")
        shapes = tuple(self.shapes or ())
        if not shapes:
            raise ValueError(f"no shape is chosen; allowed: one or more of {', '.join(SHAPES)}")
        return SceneSpec(seed=check_int("seed", self.seed, text=True),
                         size=check_int("image size (px)", self.size, policy.min_plate_size, policy.max_plate_size,
                                        text=True),
                         n_regions=check_int("n_regions", self.n_regions, text=True),
                         n_colours=check_int("n_colours", self.n_colours, text=True),
                         min_delta_e=float(self.min_delta_e), clutter=float(self.clutter),
                         area_ratio=float(self.area_ratio), shapes=shapes,
                         palette=None if self.palette == NO_PALETTE else self.palette)


def scene_markdown(stim: Stimulus) -> str:
    """A short account of the scene's truth, as Markdown.

    Parameters
    ----------
    stim : Stimulus
        A scene.

    Returns
    -------
    str
        Objects, distinct colours (background included, and of the objects alone), the least CIEDE2000 between
        any
        two of them, and the share (%) of the image the objects cover.
    """
    t, stats = stim.truth, dict(stim.stats)
    parts = [f"**objects:** {len(t.get('regions', []))}", f"**distinct colours:** {t.get('distinct_colours')} "
             f"(objects: {t.get('object_colours')})", f"**least ΔE2000 between colours:** {t['min_delta_e']:.1f}"]
    if "fill_visible" in stats:
        parts.append(f"**objects cover:** {100 * float(stats['fill_visible']):.1f}% of the image")
    return " · ".join(parts)


# ------------------------------------------------------------------------------------------------- questions
def illusion_prompts(stim: Stimulus) -> list[str]:
    """The illusion prompts that can ask about ``stim``.

    Those whose question builder accepts it (RCID's filter kind is asked for colour names, every other kind
    for a
    comparison), so the Question list follows the chosen kind instead of offering a question that fails.

    Parameters
    ----------
    stim : Stimulus
        An illusion.

    Returns
    -------
    list of str
        Prompt names, in :data:`ILLUSION_PROMPTS`'s order.
    """
    allowed = []
    for name in ILLUSION_PROMPTS:
        try:
            make_question(stim, name)
        except ValueError:
            continue
        allowed.append(name)
    return allowed


def make_question(stim: Stimulus, prompt_name: str, *, seed: int = 0) -> Question:
    """The prompt's question about ``stim``.

    Parameters
    ----------
    stim : Stimulus
        An illusion or scene.
    prompt_name : str
        A prompt (`plates.tasks.prompts.PROMPTS`) whose task asks about ``stim``'s family.
    seed : int
        Seed of the question (option order where the task shuffles).

    Returns
    -------
    Question
        The question, with its expected answer.

    Raises
    ------
    ValueError
        In words, when the prompt is unknown, asks about another family, or the stimulus cannot carry it (a
        scene's `NotAskable`).
    """
    template = get_prompt(prompt_name)
    task = get_task(template.task)
    family = stim.spec.FAMILY
    if family not in task.families:
        raise ValueError(f"prompt {prompt_name!r} asks about {' or '.join(task.families)} stimuli, not {family!r}")
    try:
        return task.question(subject_of(stim), template, seed=int(seed))
    except NotAskable as exc:
        raise ValueError(f"this scene cannot carry a {task.name} question: {exc}") from None


def scene_question_markdown(stim: Stimulus, task: str) -> str:
    """The ColorBench task's question about a scene as Markdown, or why the scene cannot carry it.

    Parameters
    ----------
    stim : Stimulus
        A scene.
    task : str
        A ColorBench task (a key of :data:`SCENE_PROMPTS`).

    Returns
    -------
    str
        :func:`question_markdown`'s text, or ``"**Not askable:** ..."`` in words for the page to show instead
        of
        an error.

    Raises
    ------
    ValueError
        When ``task`` is not a ColorBench task.
    """
    check_choice("task", task, SCENE_PROMPTS)
    try:
        return question_markdown(make_question(stim, SCENE_PROMPTS[task]))
    except ValueError as exc:
        return f"**Not askable:** {exc}"


def question_markdown(question: Question) -> str:
    """The question's text and its options (one per line) as Markdown; the answer is not shown.

    Parameters
    ----------
    question : Question
        A built question.

    Returns
    -------
    str
        Markdown.
    """
    text = question.text.replace("\n", "  \n")
    opts = "".join(f"\n- **{k}** {v}" for k, v in (question.options or {}).items())
    return f"**Question ({question.name}):**  \n{text}" + (f"\n\n**Options:**{opts}" if opts else "")


def ask_stimulus(stim: Stimulus, question: Question, backend: Backend, *, run_id: str,
                 secrets: Sequence[str | None] = ()) -> dict:
    """Ask a backend a question about a stimulus's exact image, scored into one results row.

    Parameters
    ----------
    stim : Stimulus
        An illusion or scene; its image (PIL RGB, sRGB 0-255) is sent as PNG, so its pixels arrive unchanged.
    question : Question
        The question (:func:`make_question`).
    backend : Backend
        The model that answers.
    run_id : str
        The session's run id, written to the row.
    secrets : sequence of str or None
        Keys to redact from any error text in the row.

    Returns
    -------
    dict
        A row of the results schema (`plates.runs.rows.build_row`). ``delta_e``: an illusion's measured signed
        CIEDE2000 between its targets (+ = A lighter), None for scenes; ``group``: the illusion kind or the
        scene
        task.

    Raises
    ------
    ValueError
        When the backend fails every request, with the redacted reason.
    """
    spec = stim.spec
    query = query_for(question, stim.image)
    try:
        (_, reply), = list(backend.ask([query]))
    except BackendFailing as exc:
        raise ValueError(f"the model keeps failing: {redact(str(exc), secrets, min_length=4)}") from None
    spec_json = spec.to_json()
    item_id = hashlib.sha1(spec_json.encode()).hexdigest()[:16]
    signed = stim.truth.get("signed_delta_e2000") if spec.FAMILY == "illusion" else None
    # the family's grouping, as its sets record it: a plate's colour set, an illusion's kind, a scene's task
    group = (getattr(spec, "palette", None) or spec.FAMILY) if spec.FAMILY == "ishihara" else (
        getattr(spec, "kind", None) or question.task)
    asked = Asked(run_id=run_id, row_key=hashlib.sha1(f"{run_id}|{item_id}|{time.time_ns()}".encode()).hexdigest(),
                  item_id=item_id, dataset="explorer", model=backend.model, backend=backend.kind, question=question,
                  spec_json=spec_json, family=spec.FAMILY, group=group,
                  delta_e=None if signed is None else float(signed), size=int(stim.image.size[0]))
    return build_row(asked, reply, secrets)


#: Why the reference observer answers where the Model tab names the bundled reader (Markdown).
READER_STAND_IN = ("the bundled reader reads the text of dot plates only, so the **reference observer** answers "
                   "here (it reads the pixels: a ceiling, not a model); for a model's answer pick `openai` and a "
                   "provider in the Model tab")


def family_backend(choice: ModelChoice, key: str | None, policy: Policy, cache: ModelCache) -> tuple[Backend, bool]:
    """The backend that answers an illusion or scene question for the Model tab's choice.

    Parameters
    ----------
    choice : ModelChoice
        The Model tab's model.
    key : str or None
        The visitor's API key, if any.
    policy : Policy
        This server's limits.
    cache : ModelCache
        The app's warm backends.

    Returns
    -------
    Backend
        The reference observer (``reference-pixels``) for the bundled reader, which cannot read these; else
        `plates.explorer.backends.open_backend`'s.
    bool
        Whether the caller must close it.

    Raises
    ------
    ValueError
        When ``choice`` is not allowed by ``policy`` (`plates.explorer.backends.ModelChoice.validate`).
    """
    if choice.validate(policy).kind == "baseline":
        return make_backend("reference-pixels"), False
    return open_backend(choice, key, policy, cache)


def who_answers(kind: str) -> str:
    """The line beside these tabs' Ask buttons: who answers for the Model tab's model ``kind`` (Markdown).

    Parameters
    ----------
    kind : str
        The Model tab's model kind (``baseline``, ``openai`` ...).

    Returns
    -------
    str
        Markdown; for ``baseline`` it names the reference observer that stands in (:data:`READER_STAND_IN`).

    Examples
    --------
    >>> who_answers("openai")
    'Asks the model chosen in the Model tab (openai).'
    """
    if kind == "baseline":
        return "Asks: " + READER_STAND_IN + "."
    return f"Asks the model chosen in the Model tab ({kind})."


def result_markdown(row: Mapping[str, Any]) -> str:
    """The verdict on one illusion or scene row, in words; a declined question says who declined and why.

    Parameters
    ----------
    row : mapping
        A results row (:func:`ask_stimulus`).

    Returns
    -------
    str
        Markdown: the parsed and expected answers, the verdict, parse status, failure mode and latency (ms);
        or
        the request's error; or, for parse status ``unsupported``, who declined and why.
    """
    if row.get("parse_status") == "unsupported":
        why = ("its pixels do not decide this question; pick a model (`openai` and a provider) in the Model tab."
               if row.get("backend") == "reference-pixels" else "this backend does not take this kind of question.")
        return f"**{row['model']} ({row['backend']}) declines this question** (parse status `unsupported`): {why}"
    if row.get("error"):
        return f"**Request failed:** {row['error']}"
    verdict = "✅ correct" if row.get("correct") else "❌ wrong"
    who = f"**Answered by the {REFERENCE_MODEL}** · " if row.get("backend") == "reference-pixels" else ""
    return (who + f"**Parsed answer:** `{row.get('parsed')}` · **expected** `{row.get('expected')}` · {verdict} · "
            f"**parse:** {row.get('parse_status')} · **failure mode:** {row.get('failure_mode') or '—'} · "
            f"**latency:** {1000 * float(row.get('latency_s') or 0):.0f} ms")


def render_illusion_controls(controls: IllusionControls, policy: Policy) -> Stimulus:
    """Render the illusion the controls describe.

    Parameters
    ----------
    controls : IllusionControls
        The tab's values.
    policy : Policy
        This server's limits.

    Returns
    -------
    Stimulus
        The illusion: image (sRGB 0-255), masks and truth.

    Raises
    ------
    ValueError
        Naming a bad control value (:meth:`IllusionControls.spec`).
    """
    return render_illusion(controls.spec(policy))


def render_scene_controls(controls: SceneControls, policy: Policy) -> Stimulus:
    """Render the scene the controls describe.

    Parameters
    ----------
    controls : SceneControls
        The tab's values.
    policy : Policy
        This server's limits.

    Returns
    -------
    Stimulus
        The scene: image (sRGB 0-255) and truth.

    Raises
    ------
    ValueError
        Naming a bad control value (:meth:`SceneControls.spec`).
    """
    return render_scene(controls.spec(policy))


LAYOUT_CHOICES = tuple(LAYOUTS)
SHAPE_CHOICES = tuple(SHAPES)
PALETTE_CHOICES = (NO_PALETTE, *SCENE_PALETTES)
