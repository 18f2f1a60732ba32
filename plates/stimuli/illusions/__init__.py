"""Procedurally drawn colour illusions with exact target masks and pixel truth.

A frozen `IllusionSpec` (kind, size, seed, inducer strength, signed target ΔE2000, CIELAB colours, layout)
renders (`render`) to a `plates.stimuli.base.Stimulus`: the image (PIL RGB, sRGB 0-255), masks {"A", "B"}
covering exactly the two targets, the pixel truth measured on those masks plus the perceptual answer the
illusion predicts (with its literature source), and stats. `ILLUSION_TYPES` lists the kinds (RCID's contrast,
stripe and filter; simultaneous contrast, White's, Munker-White, checker-shadow, Cornsweet, Chevreul, Koffka
ring, neon spreading) with their descriptions and sources. The geometry is ours (numpy); no GPL code is used.

``FAMILY`` is this family's `plates.stimuli.base.Family` entry (name "illusion", as ``IllusionSpec.FAMILY``
and the ``{"family": "illusion"}`` tag of its JSON), ready for the ``STIMULI`` registry.
"""

from collections.abc import Mapping
from typing import Any

from plates.stimuli.base import Family, ManifestColumn, Stimulus
from plates.stimuli.illusions.kinds import DIRECTIONS, ILLUSION_TYPES, KINDS, LAYOUTS, IllusionType
from plates.stimuli.illusions.render import POSITIONS, VARIANTS, render
from plates.stimuli.illusions.spec import FAMILY_NAME, IllusionSpec, lab

#: An illusion's manifest columns (after the common ones).
MANIFEST_COLUMNS = (
    ManifestColumn("kind", "string", "the illusion kind (ILLUSION_TYPES)"),
    ManifestColumn("item_class", "string", "control (no inducer), illusion (identical targets drawn) or trap "
                   "(targets that differ), as in RCID §3.5"),
    ManifestColumn("strength", "float64", "inducer strength 0-1 (0: a control)"),
    ManifestColumn("signed_delta_e2000", "float64", "CIEDE2000 between the targets' mean colours as drawn, "
                   "signed + when target A is lighter (CIELAB L*)"),
    ManifestColumn("predicted_percept", "string", "what the illusion predicts a person sees: the target that "
                   "looks lighter (A, B or same; null for a trap whose inducer works against the pixels); for "
                   "the filter kind the colour names, 'A: name, B: name'"),
    ManifestColumn("human_key", "string", "where the predicted percept comes from: literature (the cited rule "
                   "or measurement) or unvalidated (kinds.HUMAN_KEYS)"),
)


def manifest_row(stimulus: Stimulus, *, label: str, group: str, question: Mapping[str, Any] | None) -> dict:
    """An illusion's `MANIFEST_COLUMNS` values from its pixel truth (`render`).

    Parameters
    ----------
    stimulus : Stimulus
        A rendered illusion.
    label, group : str
        The item's label and its group (the manifest's shared columns; unused here).
    question : mapping or None
        The item's question (unused here).

    Returns
    -------
    dict
        ``kind``, ``item_class``, ``strength``, ``signed_delta_e2000`` (ΔE2000 between A's and B's pixels, positive when A is lighter),
        ``predicted_percept`` and ``human_key``.
    """
    truth = stimulus.truth
    if "colour_names" in truth:
        names = truth["colour_names"]
        percept = f"A: {names['A']['perceived']}, B: {names['B']['perceived']}"
    else:
        percept = truth["perceived_lighter"]
    return {"kind": truth["kind"], "item_class": truth["item_class"], "strength": float(stimulus.spec.strength),
            "signed_delta_e2000": truth["signed_delta_e2000"], "predicted_percept": percept,
            "human_key": truth.get("human_key")}


FAMILY = Family(
    name=FAMILY_NAME,
    spec_type=IllusionSpec,
    render=render,
    variants=VARIANTS,
    source="RCID (Mao et al. 2025) §3.1-3.3; IllusionBench+ (Zhang et al. 2025) App. A; classic illusions "
    "after White 1979, Munker 1970, Adelson 1995, Cornsweet 1970, Chevreul 1839, Koffka 1935, van Tuijl 1975",
    manifest_columns=MANIFEST_COLUMNS,
    manifest_row=manifest_row,
)

__all__ = [
    "DIRECTIONS",
    "FAMILY",
    "FAMILY_NAME",
    "ILLUSION_TYPES",
    "KINDS",
    "LAYOUTS",
    "MANIFEST_COLUMNS",
    "POSITIONS",
    "VARIANTS",
    "IllusionSpec",
    "IllusionType",
    "lab",
    "manifest_row",
    "render",
]
