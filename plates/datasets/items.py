"""Dataset items: one image of a benchmark set each (its spec, variant, label and group)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from plates.stimuli.ishihara.plate import PlateSpec, render

MANIFEST = "manifest.parquet"
MANIFEST_COLUMNS = (
    "item_id", "dataset", "label", "colour_set", "delta_e", "variant", "font", "size", "seed", "path", "spec_json",
    # ΔE2000 as drawn (plates.stimuli.ishihara.measure; written by plates.datasets.generate)
    "delta_e_target", "delta_e_target_kind", "delta_e_drawn_min", "delta_e_drawn_p05", "delta_e_drawn_median",
    "delta_e_drawn_p95",
)


@dataclass(frozen=True)
class DatasetItem:
    """One image of a benchmark set. ``path`` is set when it was loaded from a generated folder."""

    item_id: str
    dataset: str
    spec: PlateSpec
    variant: str
    label: str
    colour_set: str
    path: Path | None = None

    def image(self) -> Image.Image:
        """The PIL RGB image: read from ``path`` when set, else rendered from ``spec``."""
        if self.path is not None:
            with Image.open(self.path) as im:
                return im.convert("RGB")
        return render(self.spec).variant(self.variant)
