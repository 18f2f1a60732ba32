"""Each planned row's request: a `Unit` (`plates.runs.plan`) becomes the `Query` a backend receives and the
`Asked` fields its results row records.

The item's plate image (the variant the prompt or the experiment asks for, sRGB 0-255; `plates.runs.images`) ->
``plates.conditions.apply_condition`` (size, grayscale, hue shift, CVD view) -> ``plates.tasks.prompts`` renders
the prompt and few-shot examples (k other items of the same colour set: ColorBlindnessEval App. B.2,
HueManity Table 3). ``check_units`` fails before any request is paid for; ``prepared`` gives each unit's request
in order, for the exporters (`plates.integrations`) as for a run.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from plates.colour import delta_e2000
from plates.datasets import PRESETS
from plates.models.base import Query
from plates.models.views import family_of_model
from plates.models.views.measure import measure_view, plate_regions
from plates.runs.experiment import Experiment, ModelSpec
from plates.runs.images import RunImages
from plates.runs.plan import Unit, eligible
from plates.runs.rows import Asked
from plates.stimuli import render
from plates.tasks import Question, task_of
from plates.tasks.prompts import query_for

#: Measured views kept per builder (an item's prompts, models and conditions ask the same one in a row).
VIEW_CACHE = 4096


def few_shot_examples(exp: Experiment, items: Sequence[Any], pool: Sequence[int], index: int, k: int) -> list[int]:
    """k other plates of ``pool`` (the items of the same colour set and variant), chosen with a generator
    seeded by (seed, item id, k); never the question's own plate.

    The candidates are the pool's items other than the question's, less any with the same plate spec (the same
    plate drawn again); ``k`` of them are sampled without replacement by a ``random.Random`` seeded with the
    first 8 bytes of SHA-256 of (experiment seed, item id, k), so a run's examples are the same on every
    machine and rerun, whatever the order units are built in.

    Parameters
    ----------
    exp : Experiment
        The run's experiment (its ``seed``).
    items : sequence
        The dataset's items (`plates.datasets.load`).
    pool : sequence of int
        Indices into ``items`` of the plates examples may come from (`Builder.pool`).
    index : int
        Index into ``items`` of the question's plate.
    k : int
        The number of examples (the unit's shots).

    Returns
    -------
    list of int
        ``k`` distinct indices into ``items``, in the sampled order.

    Raises
    ------
    ValueError
        Fewer than ``k`` candidates are loaded; the message names the shots, the colour set and how many are
        loaded, and says to raise the dataset limit or lower the shots.
    """
    item = items[index]
    candidates = [i for i in pool if i != index and items[i].spec != item.spec]
    if len(candidates) < k:
        raise ValueError(f"shots={k} needs {k} other items of group {item.group!r}, but only "
                         f"{len(candidates)} are loaded; raise dataset.limit (--limit) or lower shots")
    digest = hashlib.sha256(f"{exp.seed}\x00{item.item_id}\x00{k}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big")).sample(candidates, k)


class Builder:
    """Turns units into (Query, row fields) pairs; a unit's images, prompt text and expected answer.

    Parameters
    ----------
    exp : Experiment
        The run's experiment.
    items : sequence
        The dataset's items (`plates.datasets.load`).
    """

    def __init__(self, exp: Experiment, items: Sequence[Any]) -> None:
        self.exp, self.items = exp, items
        self.run_id = exp.run_id  # a hash of the experiment's JSON: computed once, not per row
        self.run_name = exp.display_name
        self.images = RunImages(items)
        self._delta_e: dict[Any, float | None] = {}
        self._drawn: dict[int, dict[str, Any]] = {}
        self._spec_json: dict[int, str] = {}
        self._pools: dict[tuple[str, str], list[int]] = {}
        self._pooled: set[str] = set()
        self._views: dict[tuple, dict[str, Any]] = {}

    def pool(self, variant: str, group: str) -> list[int]:
        """Items of one group (`plates.datasets.items.DatasetItem.group`: a plate's colour set, an illusion's
        kind, a scene's task) a question about ``variant`` may use as few-shot examples.

        Parameters
        ----------
        variant : str
            The question's image variant.
        group : str
            The item's group.

        Returns
        -------
        list of int
            Item indices.
        """
        if variant not in self._pooled:
            self._pooled.add(variant)
            for i in eligible(self.items, variant):
                self._pools.setdefault((variant, self.items[i].group), []).append(i)
        return self._pools.get((variant, group), [])

    def spec_json(self, index: int) -> str:
        """The item's tagged spec JSON, computed once per item.

        Parameters
        ----------
        index : int
            An item's index.

        Returns
        -------
        str
            Its tagged spec JSON.
        """
        if index not in self._spec_json:
            self._spec_json[index] = self.items[index].spec.to_json()
        return self._spec_json[index]

    def delta_e(self, index: int) -> float | None:
        """The item's nominal ΔE2000: the manifest's value, else computed once per colour pair set (a preset
        has a few colour sets and thousands of plates; `nominal_delta_e`).

        Parameters
        ----------
        index : int
            An item's index.

        Returns
        -------
        float or None
            ΔE2000, or None where the item has no colour pair.
        """
        item = self.items[index]
        recorded = getattr(item, "delta_e", None)
        if recorded is not None:
            return float(recorded)
        colours = getattr(item.spec, "colours", None)  # (fg, bg) tuples of sRGB 0-255 triples; None: no pair
        if colours not in self._delta_e:
            self._delta_e[colours] = nominal_delta_e(colours)
        return self._delta_e[colours]

    def drawn(self, index: int) -> dict[str, Any]:
        """The ΔE2000 an Ishihara item's plate draws (`plates.stimuli.ishihara.measure`), as results columns:
        the manifest's record when the item has one, else measured on the rendered plate; empty for other
        families.

        Parameters
        ----------
        index : int
            An item's index.

        Returns
        -------
        dict
            ``delta_e_drawn_*`` and ``delta_e_target`` columns, or empty.
        """
        if index not in self._drawn:
            item = self.items[index]
            if item.family != "ishihara":
                self._drawn[index] = {}
            elif item.drawn is not None:
                self._drawn[index] = dict(item.drawn)
            else:
                drawn = (self.images.plates.get(index) or render(item.spec)).stats.delta_e_drawn
                self._drawn[index] = {} if drawn is None else drawn.columns()
        return self._drawn[index]

    def view(self, unit: Unit, m: ModelSpec, image: Any) -> dict[str, Any]:
        """The view columns of the unit's image as ``m``'s family sees it (`plates.models.views.measure`): the
        model's ``view``, else a local model's own family (`family_of_model`); empty when neither. Ishihara
        items are measured with their figure and ground (`plate_regions`); other families get the geometry.

        Parameters
        ----------
        unit : Unit
            One planned question (item, prompt, condition, shots).
        m : ModelSpec
            The model.
        image : PIL.Image.Image or StoredPng
            The image sent, sRGB 0-255.

        Returns
        -------
        dict
            The ``view_*`` columns, or empty.
        """
        family = m.view or (family_of_model(m.model) if m.backend == "hf" else None)
        if family is None:
            return {}
        key = (unit.item, unit.variant, unit.condition, family)
        if key not in self._views:
            if len(self._views) >= VIEW_CACHE:  # bounded: a unit's prompts and models reuse it, then it is done
                self._views.clear()
            item = self.items[unit.item]
            regions = None
            if item.family == "ishihara" and unit.variant == "standard":
                plate = self.images.plates.get(unit.item) or render(item.spec)
                regions = plate_regions(plate)
            self._views[key] = measure_view(image, family, regions, seed=int(getattr(item.spec, "seed", 0)))
        return self._views[key]

    def question(self, unit: Unit, *, images: bool = True,
                 png: bool = False) -> tuple[Question, tuple[tuple[Any, Question], ...]]:
        """The unit's question about its item, and its few-shot examples as (image, question) pairs (with
        ``images=False``: only checked, no image prepared, no examples returned).

        Parameters
        ----------
        unit : Unit
            One planned question (item, prompt, condition, shots).
        images : bool, optional
            Prepare the images and few-shot examples (default True).
        png : bool, optional
            Images as `plates.images.StoredPng`.

        Returns
        -------
        (Question, tuple of (image, Question))
            The question and its few-shot examples.

        Raises
        ------
        ValueError
            When the prompt does not fit the item's label, or too few few-shot examples exist.
        """
        item = self.items[unit.item]
        template = self.exp.template(unit.prompt)
        task = task_of(template)
        space = label_space(item)
        try:
            if item.family not in task.families:
                raise ValueError(f"task {task.name!r} asks about {' or '.join(map(repr, task.families))} stimuli, "
                                 f"not {item.family!r}")
            question = task.question(item.truth(), template, seed=self.exp.seed, label_space=space)
        except ValueError as exc:
            raise ValueError(f"prompt {unit.prompt!r} cannot ask about item {item.item_id!r}: {exc}") from None
        examples: tuple[tuple[Any, Question], ...] = ()
        if unit.shots:
            if task.examples is None:
                raise ValueError(f"prompt {unit.prompt!r}: task {task.name!r} has no few-shot examples; "
                                 "allowed: shots = 0")
            picks = few_shot_examples(self.exp, self.items, self.pool(unit.variant, item.group), unit.item, unit.shots)
            if not images:
                return question, ()
            ex = task.examples([self.items[i].truth() for i in picks], template, seed=self.exp.seed,
                               label_space=space)
            examples = tuple((self.images.get(i, unit.variant, unit.condition, png=png), q)
                             for i, q in zip(picks, ex))
        return question, examples

    def build(self, unit: Unit, m: ModelSpec, *, png: bool = False) -> tuple[Query, Asked]:
        """The unit's request and what its row records; ``png``: images as `plates.images.StoredPng`
        (`Backend.sends_png`).

        Parameters
        ----------
        unit : Unit
            One planned question (item, prompt, condition, shots).
        m : ModelSpec
            The model asked.
        png : bool, optional
            Images as `plates.images.StoredPng`.

        Returns
        -------
        (Query, Asked)
            The request and the row's fields.

        Raises
        ------
        ValueError
            As `question`.
        """
        item = self.items[unit.item]
        question, examples = self.question(unit, png=png)
        image = self.images.get(unit.item, unit.variant, unit.condition, png=png)
        query = query_for(question, image, examples, max_tokens=m.max_tokens, temperature=m.temperature)
        cond = unit.condition
        if cond.grayscale or cond.hue_shift or cond.cvd != "none" or cond.text_only:
            # the pixel reply was measured on the stimulus as drawn, not on the image this condition sends
            query = replace(query, pixel_reply=None)
        asked = Asked(
            run_id=self.run_id, row_key=unit.key, item_id=item.item_id, dataset=item.dataset, model=m.model,
            backend=m.backend, question=question, spec_json=self.spec_json(unit.item), family=item.family,
            variant=unit.variant, group=item.group, delta_e=self.delta_e(unit.item),
            font=str(getattr(item.spec, "font", "")) or None, size=int(image.size[0]), grayscale=cond.grayscale,
            hue_shift=cond.hue_shift, cvd=cond.cvd, cvd_severity=cond.cvd_severity, shots=unit.shots,
            text_only=cond.text_only, protocol=self.exp.protocol, measured=self.drawn(unit.item),
            view=self.view(unit, m, image), run_name=self.run_name,
        )
        return query, asked


def label_space(item: Any) -> str | None:
    """The label space of the item's dataset (a `plates.datasets.PRESETS` name: ``cbe``, ``huemanity-numeric``
    or ``huemanity-alnum``), passed to `plates.tasks.prompts.render_prompt` so distractors (colorbench-mc options,
    cbe-yn-incorrect candidates) come from the labels the dataset can hold: HueManity §4 numbers are
    "10".."99", not ColorBlindnessEval's "0".."99". A dataset that is no preset (e.g. a hand-made manifest)
    has no declared space: None, and the prompt template's own space applies.

    Parameters
    ----------
    item : Item
        A dataset item.

    Returns
    -------
    str or None
        A preset's label space, or None.
    """
    preset = PRESETS.get(getattr(item, "dataset", None))
    return None if preset is None else preset.label_space


def nominal_delta_e(colours: Any) -> float | None:
    """The mean CIEDE2000 over the (foreground, background) pairs of ``colours`` (a spec's ``(fg, bg)``, each a
    tuple of sRGB 0-255 triples), as ``Plate.stats.delta_e``: no rendering needed. None for no pairs (a family
    without a foreground/background pair passes None).

    Parameters
    ----------
    colours : (tuple, tuple) or None
        A spec's ``(foreground, background)`` colours, sRGB 0-255.

    Returns
    -------
    float or None
        Mean ΔE2000, or None.

    References
    ----------
    Sharma, Wu and Dalal (2005), Color Res. Appl. 30(1):21-30 (CIEDE2000).
    """
    if colours is None:
        return None
    fg, bg = colours
    pairs = [(f, b) for f in fg for b in bg]
    if not pairs:
        return None
    return float(np.mean(delta_e2000(np.array([f for f, _ in pairs], float), np.array([b for _, b in pairs], float))))


def prepared(exp: Experiment, items: Sequence[Any], units: Sequence[Unit]) -> Iterator[tuple[Unit, Query, Asked]]:
    """Each unit's request (`Query`: the prompt text and the images exactly as a backend receives them) and
    what its row records (`Asked`), in order, checked first as a run checks them (``ValueError`` naming the
    prompt and item). A unit's images are prepared once and dropped after its item: memory stays bounded.
    The exporters (`plates.integrations`) read the runner's plan through this, never through a copy.

    Parameters
    ----------
    exp : Experiment
        The experiment.
    items : sequence
        Its dataset's items.
    units : sequence of Unit
        The planned questions (`plates.runs.plan`).

    Yields
    ------
    (Unit, Query, Asked)
        Each unit's request and row fields.

    Raises
    ------
    ValueError
        Before the first yield, when a unit fails `check_units`.
    """
    builder = Builder(exp, items)
    units = list(units)
    check_units(exp, items, builder, units)
    for u in units:
        query, asked = builder.build(u, exp.models[u.model])
        yield u, query, asked
        builder.images.forget_except({u.item})


def check_units(exp: Experiment, items: Sequence[Any], builder: Builder, units: list[Unit]) -> None:
    """Fail before any request is paid for: every prompt must fit every item's label, every few-shot request
    must find its examples.

    Parameters
    ----------
    exp : Experiment
        The experiment.
    items : sequence
        Its dataset's items.
    builder : Builder
        The run's builder.
    units : list of Unit
        The planned questions.

    Raises
    ------
    ValueError
        Naming the prompt and item that do not fit, or the few-shot request without examples.
    """
    seen: set[tuple[str, str]] = set()
    for u in units:
        item = items[u.item]
        if (item.label, u.prompt) not in seen or item.family != "ishihara":
            seen.add((item.label, u.prompt))
            builder.question(u, images=False)  # raises, naming the prompt and the item
        elif u.shots:
            few_shot_examples(exp, items, builder.pool(u.variant, item.group), u.item, u.shots)
