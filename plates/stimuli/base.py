"""The contract every stimulus family meets: a frozen spec renders to a :class:`Stimulus`.

A *family* (Ishihara plates, colour illusions, synthetic colour scenes, ...) is a frozen, validated spec type
plus a pure ``render(spec) -> Stimulus``. The spec decides every pixel (its seed included), so a results row
that stores the spec's tagged JSON regenerates its image exactly (`plates.stimuli.spec_from_json`).

Colours: images are PIL RGB, sRGB 0-255; masks are bool arrays (H, W) in image pixel coordinates.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np
from PIL import Image

from plates.validation import check_keys, not_known

__all__ = ["FAMILY_KEY", "MANIFEST_TYPES", "Family", "ManifestColumn", "SpecBase", "Stimulus", "StimulusSpec",
           "tagged_json"]

#: The key under which a spec's JSON names its family ({"family": "illusion", ...}). Plate specs written
#: before families existed carry no tag and read as "ishihara".
FAMILY_KEY = "family"


@runtime_checkable
class StimulusSpec(Protocol):
    """What a family's spec type provides: a frozen dataclass validated in ``__post_init__`` (a ValueError
    naming the bad value and what is allowed), with a ``seed`` and a ``size`` (image side in px)."""

    FAMILY: ClassVar[str]
    seed: int
    size: int

    def to_dict(self) -> dict:
        """Plain dict of the fields (tuples as lists)."""
        ...

    def to_json(self) -> str:
        """Compact JSON of the fields with the family tag."""
        ...

    def replace(self, **changes: Any) -> StimulusSpec:
        """A copy with ``changes`` applied, validated again.

        Parameters
        ----------
        **changes
            Field names and their new values.

        Returns
        -------
        StimulusSpec
            The new spec.
        """
        ...


@dataclass(frozen=True, eq=False)
class Stimulus:
    """A rendered stimulus: the image a family's renderer draws from a spec, with its regions and its truth.

    Frozen; compared by identity (``eq=False``: it holds arrays). The illusion and scene families return one;
    a plate spec renders to `plates.stimuli.ishihara.Plate`, which offers the same fields.

    Parameters
    ----------
    spec : object
        The family's frozen spec that drew it (`plates.stimuli.render` of it gives the same pixels).
    image : PIL.Image.Image
        Mode ``"RGB"``, sRGB 0-255: the "standard" variant.
    masks : mapping of str to numpy.ndarray
        Region name -> bool (H, W) array (plates: "text"; illusions: the targets "A" and "B"; scenes: one per
        region).
    truth : mapping
        JSON-able ground truth (plates: {"label": ...}; illusions: pixel truth (sRGB 0-255 and CIELAB means,
        ΔE2000) and the perceptual prediction; scenes: counts, shares, colours).
    stats : mapping
        JSON-able measurements of what was drawn (e.g. an illusion's requested and measured ΔE2000).
    variants : mapping of str to callable
        Other images of the same stimulus by name (e.g. a plate's "clear" and "mask", an illusion's
        "targets"), each a no-argument function returning a PIL RGB image, made on demand.

    Examples
    --------
    >>> from plates.stimuli import render
    >>> from plates.stimuli.illusions import IllusionSpec
    >>> stimulus = render(IllusionSpec(kind="whites", size=128))
    >>> stimulus.image.mode, sorted(stimulus.masks), stimulus.pixels.shape
    ('RGB', ['A', 'B'], (128, 128, 3))
    """

    spec: Any
    image: Image.Image
    masks: Mapping[str, np.ndarray] = field(default_factory=dict)
    truth: Mapping[str, Any] = field(default_factory=dict)
    stats: Mapping[str, Any] = field(default_factory=dict)
    variants: Mapping[str, Callable[[], Image.Image]] = field(default_factory=dict)

    @property
    def pixels(self) -> np.ndarray:
        """The image as a (H, W, 3) uint8 array, sRGB 0-255."""
        return np.asarray(self.image)

    def variant(self, name: str) -> Image.Image:
        """The image of one variant of this stimulus.

        Parameters
        ----------
        name : str
            ``"standard"`` (`image`) or a key of `variants`.

        Returns
        -------
        PIL.Image.Image
            Mode ``"RGB"``, sRGB 0-255.

        Raises
        ------
        ValueError
            ``name`` is not a variant of this stimulus; the message lists the allowed ones.
        """
        if name == "standard":
            return self.image
        if name in self.variants:
            return self.variants[name]()
        raise not_known("variant", name, ("standard", *self.variants))


#: The value types a manifest column may hold (Parquet: string, float64, int32).
MANIFEST_TYPES = ("string", "float64", "int32")


@dataclass(frozen=True)
class ManifestColumn:
    """One column a family adds to a generated set's ``manifest.parquet``.

    Parameters
    ----------
    name : str
        The column's name.
    type : str
        Its Parquet value type, one of `MANIFEST_TYPES` (every value may be null).
    doc : str
        What it holds, in the family's own words and units.

    Raises
    ------
    ValueError
        ``type`` is not one of `MANIFEST_TYPES`; the message lists them.
    """

    name: str
    type: str
    doc: str

    def __post_init__(self) -> None:
        if self.type not in MANIFEST_TYPES:
            raise ValueError(f"manifest column {self.name!r} type {self.type!r} is not known; allowed: "
                             f"{', '.join(MANIFEST_TYPES)}")


#: What a family's ``manifest_row`` is given: the rendered stimulus, the item's answer label (text, "" where
#: the answer depends on the question), its group and its fixed question (a dict with its ``task``, or None).
ManifestRow = Callable[..., Mapping[str, Any]]


def _no_columns(stimulus: Stimulus, *, label: str, group: str, question: Mapping[str, Any] | None) -> dict:
    return {}


@dataclass(frozen=True)
class Family:
    """One entry of `plates.stimuli.STIMULI`: a family name, its spec type, its renderer, the variants its
    stimuli offer, the papers it follows, and the columns its items show in a generated set's manifest.

    Every family's items also get the common columns of `plates.datasets.items.COMMON_COLUMNS`. A column that
    is not the family's is left null in its rows, so no family's field is stored in another's column.

    Parameters
    ----------
    name : str
        The registry key (``"ishihara"``, ``"illusion"``, ``"scene"``, ``"scene-recolour"``), also the spec's
        JSON tag.
    spec_type : type
        The family's frozen spec class (a `SpecBase` subclass).
    render : callable
        ``render(spec) -> stimulus``: a pure function of the spec; the image is PIL RGB, sRGB 0-255.
    variants : tuple of str
        The variant names its stimuli offer, ``"standard"`` first.
    source : str
        The papers it follows, with section or table (e.g. ``"ColorBench (Liang et al.) Table 7 ..."``).
    manifest_columns : tuple of ManifestColumn
        The family's own manifest columns.
    manifest_row : callable
        ``manifest_row(stimulus, *, label, group, question) -> {column: value}`` (`ManifestRow`): fills them.

    Examples
    --------
    >>> from plates.stimuli import get_family
    >>> family = get_family("illusion")
    >>> family.spec_type.__name__, family.variants
    ('IllusionSpec', ('standard', 'targets'))
    """

    name: str
    spec_type: type
    render: Callable[[Any], Any]
    variants: tuple[str, ...] = ("standard",)
    source: str = ""
    manifest_columns: tuple[ManifestColumn, ...] = ()
    manifest_row: ManifestRow = _no_columns


def tagged_json(family: str, fields: Mapping[str, Any]) -> str:
    """Compact JSON of a spec's fields with its family tag: equal specs, equal strings.

    Parameters
    ----------
    family : str
        The family's name, stored under ``"family"``.
    fields : mapping
        JSON-able field values (`SpecBase.to_dict`).

    Returns
    -------
    str
        Compact JSON, keys sorted.

    Raises
    ------
    ValueError
        A field called ``"family"``.

    Examples
    --------
    >>> tagged_json("illusion", {"size": 128, "kind": "whites"})
    '{"family":"illusion","kind":"whites","size":128}'
    """
    if FAMILY_KEY in fields:
        raise ValueError(f"a spec field may not be called {FAMILY_KEY!r} (it tags the family)")
    return json.dumps({FAMILY_KEY: family, **fields}, sort_keys=True, separators=(",", ":"))


def _lists(value: Any) -> Any:
    """JSON-able copy of a field value: tuples become lists (recursively), a nested spec its `to_dict`."""
    if isinstance(value, SpecBase):
        return value.to_dict()
    if isinstance(value, tuple | list):
        return [_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    return value


def _tuples(value: Any) -> Any:
    """A JSON list back to the tuple a frozen spec holds (recursively); other values unchanged."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


class SpecBase:
    """What every family's spec inherits: plain dict, tagged JSON, the inverse, and a validated ``replace``.

    A family's spec is a ``@dataclass(frozen=True)`` subclass that sets ``FAMILY`` (the tag its JSON carries)
    and validates its fields in ``__post_init__`` (a ValueError naming the bad value and what is allowed).
    Hooks: ``LATER_FIELDS`` (fields added after specs were first stored: left out of the JSON at exactly these
    defaults, so older specs keep their JSON and their golden digests) and `decode_fields` (JSON values back
    to field values; by default lists become tuples).
    """

    FAMILY: ClassVar[str]
    LATER_FIELDS: ClassVar[Mapping[str, Any]] = MappingProxyType({})

    def to_dict(self) -> dict:
        """Plain dict of the fields in field order (tuples as lists, a nested spec as its dict), without the
        `LATER_FIELDS` at their defaults."""
        out = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name in self.LATER_FIELDS:
                default = self.LATER_FIELDS[f.name]
                if value == default and type(value) is type(default):
                    continue
            out[f.name] = _lists(value)
        return out

    def to_json(self) -> str:
        """Compact JSON with keys sorted and the family tag (``"family": FAMILY``): equal specs give equal
        strings, and `plates.stimuli.spec_from_json` knows which family to rebuild."""
        return tagged_json(self.FAMILY, self.to_dict())

    @classmethod
    def decode_fields(cls, data: dict) -> dict:
        """Field values from their JSON form: lists back to tuples. A spec with nested specs overrides it.

        Parameters
        ----------
        data : dict
            Field names to their JSON values (the family tag removed).

        Returns
        -------
        dict
            Field names to field values.
        """
        return {k: _tuples(v) for k, v in data.items()}

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, Any]) -> Any:
        """Inverse of `to_json` (also takes the dict). No tag reads as this family (specs stored before
        families existed carry none); another family's tag, or keys that are not fields, is a ValueError.

        Parameters
        ----------
        text : str, bytes or mapping
            The spec's JSON (`to_json`), or the dict it decodes to.

        Returns
        -------
        SpecBase
            A spec of this class, validated.

        Raises
        ------
        ValueError
            When the JSON is not an object, carries another family's tag or keys that are not fields, or a field's
            value is refused by the spec's validation.

        Examples
        --------
        >>> from plates.stimuli.scenes.spec import SceneSpec
        >>> SceneSpec.from_json(SceneSpec(seed=3).to_json()) == SceneSpec(seed=3)
        True
        """
        data: Any = json.loads(text) if isinstance(text, str | bytes) else text
        if not isinstance(data, Mapping):
            raise ValueError(f"{cls.__name__} JSON {text!r:.80} is not an object; allowed: a JSON object of "
                             "its fields")
        data = dict(data)
        family = data.pop(FAMILY_KEY, cls.FAMILY)
        if family != cls.FAMILY:
            raise ValueError(f"spec JSON of family {family!r} is not a {cls.__name__}; allowed: {cls.FAMILY!r} "
                             "or no tag (plates.stimuli.spec_from_json reads any family)")
        names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
        check_keys(cls.__name__, data, names)
        return cls(**cls.decode_fields(data))

    def replace(self, **changes: Any) -> Any:
        """A copy with ``changes`` applied (validated again); a name that is not a field is a ValueError.

        Parameters
        ----------
        **changes
            Field names and their new values.

        Returns
        -------
        SpecBase
            The new spec, of the same class.

        Raises
        ------
        ValueError
            When a name is not a field, or the new values are refused by the spec's validation.
        """
        names = [f.name for f in dataclasses.fields(self)]  # type: ignore[arg-type]
        check_keys(type(self).__name__, changes, sorted(names))
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]
