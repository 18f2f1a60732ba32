"""Benchmark sets: presets (a family x a parameter grid), their items, loading, and writing them to disk.

* `plates.datasets.presets`: ``PRESETS``, ``get_preset``, ``make_spec``, ``preset_items``, ``item_seed``.
* `plates.datasets.items`: ``DatasetItem``, the manifest's name and columns.
* `plates.datasets.load`: ``load_dataset`` (a generated folder or a preset name).
* `plates.datasets.generate`: ``generate`` (a plate preset's PNGs + ``manifest.parquet``, resumable).
* `plates.datasets.write`: ``write_items`` (any family's specs -> PNGs + manifest).
"""

from plates.datasets.generate import generate
from plates.datasets.items import MANIFEST, MANIFEST_COLUMNS, DatasetItem
from plates.datasets.load import load_dataset
from plates.datasets.presets import (
    PRESETS,
    Preset,
    get_preset,
    item_seed,
    make_spec,
    plate_order,
    preset_items,
    preset_size,
    relative_path,
)
from plates.datasets.write import Entry, write_items

__all__ = [
    "Preset", "PRESETS", "DatasetItem", "MANIFEST", "MANIFEST_COLUMNS", "preset_items", "preset_size",
    "load_dataset", "item_seed", "generate", "Entry", "write_items", "get_preset", "make_spec", "relative_path", "plate_order",
]
