"""The papers' benchmark sets as deterministic lists of plates, written to disk or rendered on demand.

Presets (`PRESETS`):

* ``colorblindnesseval``: ColorBlindnessEval §2.1 and App. D-E: 5 colour sets x numbers 0-99, each plate as a
  standard image and a "clear" (foreground-only) image: 500 pairs, 1,000 images. Text in Liberation Sans Bold
  (metric-compatible with the Arial of §3 note 2; the paper does not give the weight, bold keeps strokes
  several dots wide). No colour jitter (the paper describes none).
* ``huemanity-numeric``: HueManity §3-4: labels "10".."99" x the 25 pairs of Table 7 = 2,250 images.
* ``huemanity-alnum``: HueManity App. B.1: 3,364 two-character labels x 25 pairs = 84,100 images.
* ``huemanity``: HueManity §3's whole dataset, 83,850 images = 25 pairs x 3,354 strings: the 3,364
  alphanumeric labels without the leading-zero numbers "00".."09" (`plates.stimuli.ishihara.labels.HUEMANITY_DATASET`). This is
  where the paper's count comes from; it is not 25 x (90 + 3,364) = 86,350, because the numeric task's labels
  "10".."99" are a subset of the alphanumeric strings, and the paper drew both evaluation sets from this one.
  The HueManity presets use DejaVu Sans Bold Oblique and the paper's three jitters (`HUEMANITY_JITTER`).

Every plate's seed comes from (preset seed, dataset, colour set, label) through SHA-256: the same arguments
give the same specs, hence byte-identical images, in any process. `generate` writes PNGs (tmp file +
``os.replace``, so a killed run leaves no half-written image), skips images already on disk (rerun to resume),
and rewrites ``manifest.parquet`` atomically at the end from the item list and the files present.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from plates.datasets.items import DatasetItem
from plates.stimuli.ishihara.labels import HUEMANITY_DATASET, LABEL_SPACES
from plates.stimuli.ishihara.plate import HUEMANITY_JITTER, PlateSpec


@dataclass(frozen=True)
class Preset:
    """A benchmark set: labels x colour sets x variants, one font, optional jitter. ``label_space`` names the
    answer space for scoring (a key of `plates.stimuli.ishihara.labels.LABEL_SPACES`)."""

    name: str
    label_space: str
    labels: tuple[str, ...]
    palettes: tuple[str, ...]
    variants: tuple[str, ...]
    font: str
    jitter: dict = field(default_factory=dict)
    source: str = ""


PRESETS: dict[str, Preset] = {
    "colorblindnesseval": Preset(
        "colorblindnesseval", "cbe", LABEL_SPACES["cbe"], tuple(f"colorblindnesseval-{k}" for k in range(1, 6)), ("standard", "clear"),
        "liberation-sans-bold", {}, "ColorBlindnessEval §2.1, App. D-E",
    ),
    "huemanity-numeric": Preset(
        "huemanity-numeric", "huemanity-numeric", LABEL_SPACES["huemanity-numeric"], tuple(f"huemanity-{k:02d}" for k in range(1, 26)), ("standard",),
        "dejavu-sans-bold-oblique", dict(HUEMANITY_JITTER), "HueManity §3-4, Table 7",
    ),
    "huemanity-alnum": Preset(
        "huemanity-alnum", "huemanity-alnum", LABEL_SPACES["huemanity-alnum"],
        tuple(f"huemanity-{k:02d}" for k in range(1, 26)), ("standard",),
        "dejavu-sans-bold-oblique", dict(HUEMANITY_JITTER), "HueManity §3, App. B.1, Table 7",
    ),
    "huemanity": Preset(
        "huemanity", "huemanity-alnum", HUEMANITY_DATASET, tuple(f"huemanity-{k:02d}" for k in range(1, 26)),
        ("standard",), "dejavu-sans-bold-oblique", dict(HUEMANITY_JITTER), "HueManity §3 (83,850 images), Table 7",
    ),
}


def get_preset(name: str) -> Preset:
    """The :class:`Preset` called ``name`` (one of :data:`PRESETS`); ValueError listing the names otherwise."""
    if name not in PRESETS:
        raise ValueError(f"preset {name!r} is not known; allowed: {', '.join(PRESETS)}")
    return PRESETS[name]


def preset_size(name: str) -> int:
    """Number of images (items) in a preset."""
    p = get_preset(name)
    return len(p.labels) * len(p.palettes) * len(p.variants)


def item_seed(seed: int, dataset: str, colour_set: str, label: str) -> int:
    """A plate seed in [0, 2**63) derived from the preset seed and the plate's identity (SHA-256)."""
    digest = hashlib.sha256(f"{seed}\x1f{dataset}\x1f{colour_set}\x1f{label}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _plates(name: str, seed: int) -> Iterator[tuple[int, str, str]]:
    """(label index, label, colour set) in generation order: label-major, so a label's text mask is reused
    across its colour sets while it is still cached."""
    p = get_preset(name)
    for li, label in enumerate(p.labels):
        for pal in p.palettes:
            yield li, label, pal


def relative_path(name: str, colour_set: str, label_index: int, label: str, variant: str) -> str:
    """Image path inside the output folder. The label index keeps names unique on case-insensitive file
    systems ("Ab" and "AB" are different HueManity labels)."""
    return f"{name}/{colour_set}/{label_index:04d}_{label}_{variant}.png"


def make_spec(name: str, label: str, colour_set: str, *, size: int, seed: int) -> PlateSpec:
    """The PlateSpec of one plate of preset ``name``: its font and jitter (CBE App. D: Arial-metric, none;
    HueManity §3: DejaVu Sans Bold Oblique, its three jitters), the palette's sRGB 0-255 colours, and a seed
    derived from the preset seed, colour set and label (so an item is the same plate in any order)."""
    p = get_preset(name)
    return PlateSpec(
        text=label, size=size, font=p.font, palette=colour_set, seed=item_seed(seed, name, colour_set, label),
        **p.jitter,
    )


def preset_items(name: str, *, size: int = 900, seed: int = 0) -> Iterator[DatasetItem]:
    """Every item of preset ``name`` in a fixed order (path None: images render on demand)."""
    p = get_preset(name)
    for _li, label, pal in _plates(name, seed):
        spec = make_spec(name, label, pal, size=size, seed=seed)
        for v in p.variants:
            yield DatasetItem(f"{name}:{pal}:{label}:{v}", name, spec, v, label, pal, None)
