"""Stimulus families and the ``STIMULI`` registry.

A family is a folder here (its frozen spec type and a pure ``render(spec)``; `plates.stimuli.base`) plus one
entry in ``STIMULI``. Specs serialise to JSON tagged with their family, so any stored row regenerates its image:
``render(spec_from_json(row["spec_json"]))``.

``ENGINE_VERSION`` counts changes to the pixels a spec draws. It enters every run's identity and every result
row, so a change of pixels starts a new run instead of mixing old and new images in one. History: 1 = plates
read Liberation Sans 1.07 from the system; 2 = fonts bundled (Liberation Sans 2.1.5, DejaVu Sans 2.37) and the
paper presets drawn in their papers' plate styles (one bump for both: they landed together); 3 = the neon
spreading illusion's B carries the same coloured segments as A behind a gap that stops the spreading (it was a
plain lattice).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from plates.stimuli import illusions, ishihara, scenes
from plates.stimuli.base import FAMILY_KEY, Family, Stimulus, StimulusSpec, tagged_json
from plates.validation import lookup

__all__ = [
    "ENGINE_VERSION", "STIMULI", "Family", "Stimulus", "StimulusSpec", "get_family", "family_of", "spec_from_json",
    "render", "tagged_json", "FAMILY_KEY",
]

ENGINE_VERSION = 3

#: Family name -> Family (read-only).
STIMULI: Mapping[str, Family] = MappingProxyType({
    f.name: f for f in (ishihara.FAMILY, illusions.FAMILY, scenes.SCENES, scenes.RECOLOURED_SCENES)
})


def _registry() -> Mapping[str, Family]:
    return globals()["STIMULI"]  # read at call time: a caller (a test) may swap the mapping for its own


def get_family(name: str) -> Family:
    """The family called ``name`` in `STIMULI`.

    Parameters
    ----------
    name : str
        A family name: "ishihara", "illusion", "scene" or "scene-recolour".

    Returns
    -------
    Family

    Raises
    ------
    ValueError
        An unknown name, listing the family names.

    Examples
    --------
    >>> get_family("illusion").spec_type.__name__
    'IllusionSpec'
    >>> get_family("plates")
    Traceback (most recent call last):
    ...
    ValueError: stimulus family 'plates' is not known; allowed: ishihara, illusion, scene, scene-recolour
    """
    return lookup(_registry(), name, "stimulus family")


def family_of(spec: Any) -> Family:
    """The family whose spec type ``spec`` is (exactly: a subclass is not a family's spec).

    Parameters
    ----------
    spec : object
        A family's spec (`plates.stimuli.ishihara.PlateSpec`, `plates.stimuli.illusions.IllusionSpec`, ...).

    Returns
    -------
    Family

    Raises
    ------
    ValueError
        Any other object, naming the known spec types.
    """
    for family in _registry().values():
        if type(spec) is family.spec_type:
            return family
    known = ", ".join(f.spec_type.__name__ for f in _registry().values())
    raise ValueError(f"{type(spec).__name__} is not a stimulus spec; allowed: {known}")


def spec_from_json(text: str | bytes | Mapping[str, Any]) -> Any:
    """The spec stored as tagged JSON (``{"family": ..., fields}``, `tagged_json`).

    Parameters
    ----------
    text : str, bytes or mapping
        The JSON text, or its already-parsed object. Untagged JSON is a plate spec (rows written before
        families existed).

    Returns
    -------
    object
        The family's frozen spec, validated.

    Raises
    ------
    ValueError
        Not a JSON object, an unknown family or a bad field (the message names it and what is allowed).

    Examples
    --------
    >>> spec = spec_from_json('{"family": "illusion", "kind": "whites", "size": 128, "seed": 1}')
    >>> type(spec).__name__, spec.kind, spec.size
    ('IllusionSpec', 'whites', 128)
    """
    data = json.loads(text) if isinstance(text, str | bytes) else dict(text)
    if not isinstance(data, dict):
        raise ValueError(f"spec JSON {text!r:.80} is not an object; allowed: a JSON object with a 'family' key")
    family = get_family(data.get(FAMILY_KEY, ishihara.FAMILY.name))
    return family.spec_type.from_json(data)


def render(spec: Any) -> Any:
    """Render any family's spec (`family_of(spec).render`): a pure function of the spec.

    Parameters
    ----------
    spec : object
        A family's spec.

    Returns
    -------
    object
        The family's stimulus: a `plates.stimuli.base.Stimulus` (image as PIL RGB, sRGB 0-255; masks; truth;
        stats), or a `plates.stimuli.ishihara.Plate` for a plate spec.

    Raises
    ------
    ValueError
        ``spec`` is not a family's spec (`family_of`).
    """
    return family_of(spec).render(spec)
