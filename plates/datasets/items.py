"""Dataset items: one image of a benchmark set each (its spec, variant, label and group), of any family."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from plates.stimuli import family_of, render
from plates.tasks.base import subject_of

MANIFEST = "manifest.parquet"
#: The columns every family's manifest written by `plates.datasets.write` starts with; the family's own
#: columns follow (`plates.stimuli.base.Family.manifest_columns`). ``group``: the items few-shot examples are
#: drawn from together (a plate's colour set, an illusion's kind, a scene's task or seed scene).
COMMON_COLUMNS = ("item_id", "dataset", "family", "group", "variant", "size", "seed", "path", "spec_json",
                  "question_json")
#: The manifest of a plate set (`plates.datasets.generate`, `plates.datasets.grid`): the common columns but
#: ``family``, ``group`` (a plate's group is its ``colour_set``) and ``question_json``, with the plate family's
#: own (`plates.stimuli.ishihara.MANIFEST_COLUMNS`). Manifests of any family written before families declared
#: their columns have these columns too, the family's fields squeezed into them.
MANIFEST_COLUMNS = (
    "item_id", "dataset", "label", "colour_set", "delta_e", "variant", "font", "size", "seed", "path", "spec_json",
    # ΔE2000 as drawn (plates.stimuli.ishihara.measure; written by plates.datasets.generate)
    "delta_e_target", "delta_e_target_kind", "delta_e_drawn_min", "delta_e_drawn_p05", "delta_e_drawn_median",
    "delta_e_drawn_p95",
)
#: The manifest columns of the ΔE2000 a plate draws that results rows repeat (`DatasetItem.drawn`).
DRAWN_COLUMNS = ("delta_e_target", "delta_e_drawn_min", "delta_e_drawn_p05", "delta_e_drawn_median",
                 "delta_e_drawn_p95")
#: An optional manifest column (`plates.datasets.write`): the item's fixed question as JSON.
QUESTION_COLUMN = "question_json"


@dataclass(frozen=True)
class DatasetItem:
    """One image of a benchmark set. ``spec``: any family's spec (`plates.stimuli.STIMULI`); ``label``: the
    item's answer as text where it has one (a plate's number; "" where the answer depends on the question);
    ``colour_set``: the group few-shot examples are drawn from (a plate's colour set; an illusion's kind; a
    scene's task or seed scene: the manifest's ``group`` column, or ``colour_set`` in a plate manifest);
    ``path``: set when loaded from a generated folder; ``question_json``: for an item made for one question
    (a ColorBench scene question, fixed when the set was generated so its robustness variants ask the same
    one), that question as JSON with its ``task``: only prompts of that task are asked on the item; ``drawn``:
    see below."""

    item_id: str
    dataset: str
    spec: Any
    variant: str
    label: str
    colour_set: str
    path: Path | None = None
    question_json: str | None = None
    #: The ΔE2000 its plate draws as the manifest recorded it (`plates.stimuli.ishihara.measure` columns
    #: ``delta_e_target``, ``delta_e_drawn_*``), so a run need not render the plate again to report it; None
    #: when not recorded (presets rendered in memory, other families).
    drawn: Mapping[str, float | None] | None = None

    @property
    def family(self) -> str:
        """The name of the spec's stimulus family (e.g. "ishihara")."""
        return family_of(self.spec).name

    @property
    def question_task(self) -> str | None:
        """The task of the item's fixed question, or None (any prompt of its family may ask about it)."""
        return None if self.question_json is None else json.loads(self.question_json)["task"]

    def truth(self) -> Mapping[str, Any]:
        """What a task builds its question from (`plates.tasks.base.Task.question`): a plate's
        ``{"label": ...}`` without rendering it; for any other family the rendered stimulus's truth, plus the
        stimulus itself under ``"stimulus"``, the spec's seed under ``"spec_seed"`` and the item's fixed
        question (a dict, or None) under ``"question"``."""
        if self.family == "ishihara":
            return {"label": self.label}
        fixed = None if self.question_json is None else json.loads(self.question_json)
        return subject_of(render(self.spec), fixed)

    def image(self) -> Image.Image:
        """The PIL RGB image: read from ``path`` when set, else rendered from ``spec``."""
        if self.path is not None:
            with Image.open(self.path) as im:
                return im.convert("RGB")
        return render(self.spec).variant(self.variant)
