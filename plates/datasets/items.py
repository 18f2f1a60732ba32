"""Dataset items: one image of a benchmark set each (its spec, variant, label and group), of any family."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from plates.stimuli import family_of, render

MANIFEST = "manifest.parquet"
MANIFEST_COLUMNS = (
    "item_id", "dataset", "label", "colour_set", "delta_e", "variant", "font", "size", "seed", "path", "spec_json",
)


@dataclass(frozen=True)
class DatasetItem:
    """One image of a benchmark set. ``spec``: any family's spec (`plates.stimuli.STIMULI`); ``label``: the
    item's answer as text where it has one (a plate's number; "" where the answer depends on the question);
    ``colour_set``: the group few-shot examples are drawn from (a plate's colour set); ``path``: set when
    loaded from a generated folder."""

    item_id: str
    dataset: str
    spec: Any
    variant: str
    label: str
    colour_set: str
    path: Path | None = None

    @property
    def family(self) -> str:
        """The name of the spec's stimulus family (e.g. "ishihara")."""
        return family_of(self.spec).name

    def truth(self) -> Mapping[str, Any]:
        """The ground truth questions are built from: a plate's ``{"label": ...}`` without rendering it; any
        other family's ``render(spec).truth``."""
        if self.family == "ishihara":
            return {"label": self.label}
        return render(self.spec).truth

    def image(self) -> Image.Image:
        """The PIL RGB image: read from ``path`` when set, else rendered from ``spec``."""
        if self.path is not None:
            with Image.open(self.path) as im:
                return im.convert("RGB")
        return render(self.spec).variant(self.variant)
