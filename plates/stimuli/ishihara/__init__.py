"""Ishihara-style plates: the first stimulus family (ColorBlindnessEval App. D-E, HueManity §3).

`plate` (PlateSpec, render, Plate), `styles` (the papers' plate styles: dense, cbe, huemanity), `packing` (the
dense packing), `packing_mc` (the papers' Monte Carlo packings), `paint` (hard-edged and anti-aliased dots),
`jitter` (HueManity's colour jitter, ours and its released code's), `glyphs` (bundled fonts, text masks),
`palettes` (the papers' colour sets), `labels` (label spaces).
"""

from collections.abc import Mapping
from typing import Any

from plates.stimuli.base import Family, ManifestColumn, Stimulus
from plates.stimuli.ishihara.plate import VARIANTS, Plate, PlateSpec, render

__all__ = ["FAMILY", "MANIFEST_COLUMNS", "PlateSpec", "Plate", "manifest_row", "render"]

#: A plate's manifest columns (after the common ones): what the plate preset writer
#: (`plates.datasets.generate`) has always written, so plate sets keep their manifests.
MANIFEST_COLUMNS = (
    ManifestColumn("label", "string", "the figure drawn on the plate (the answer of an open question)"),
    ManifestColumn("colour_set", "string", "the palette (colour set) the plate's colours come from"),
    ManifestColumn("delta_e", "float64", "mean CIEDE2000 over the (foreground, background) palette colour "
                   "pairs, before jitter (CIELAB)"),
    ManifestColumn("font", "string", "the font of the figure"),
    ManifestColumn("delta_e_target", "float64", "the spec's ΔE2000 target, or null"),
    ManifestColumn("delta_e_target_kind", "string", "which drawn quantity the target sets "
                   "(plates.stimuli.ishihara.measure)"),
    *(ManifestColumn(f"delta_e_drawn_{q}", "float64", f"{q} CIEDE2000 over the (foreground dot, background dot) "
                     "pairs as painted, jitter included") for q in ("min", "p05", "median", "p95")),
)


def manifest_row(stimulus: Stimulus, *, label: str, group: str, question: Mapping[str, Any] | None) -> dict:
    """A plate's `MANIFEST_COLUMNS` values: its label, colour set (the item's group), nominal and drawn
    ΔE2000 (`plates.stimuli.ishihara.measure.DrawnDeltaE`; null where no dot pair was drawn).

    Parameters
    ----------
    stimulus : Stimulus
        A rendered plate.
    label : str
        The item's label (the plate's text).
    group : str
        The item's group: its colour set.
    question : mapping or None
        The item's question (unused here).

    Returns
    -------
    dict
        ``label``, ``colour_set``, ``delta_e`` (nominal ΔE2000), ``font``, ``delta_e_target`` and
        ``delta_e_target_kind``, and the drawn distribution's columns (`DrawnDeltaE.columns`) where dots of
        both classes were drawn.
    """
    stats = stimulus.stats
    drawn = stats["delta_e_drawn"]
    row = {"label": label, "colour_set": group, "delta_e": stats["delta_e"], "font": stimulus.spec.font,
           "delta_e_target": stats["delta_e_target"], "delta_e_target_kind": None}
    if drawn is not None:
        row.update(drawn.columns(), delta_e_target_kind=drawn.target_kind)
    return row


FAMILY = Family(
    name="ishihara", spec_type=PlateSpec, render=render, variants=VARIANTS,
    source="ColorBlindnessEval App. D-E (Algorithm 1); HueManity §3, Table 7",
    manifest_columns=MANIFEST_COLUMNS, manifest_row=manifest_row,
)
