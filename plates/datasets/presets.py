"""The papers' benchmark sets as deterministic lists of plates, written to disk or rendered on demand.

Each preset reproduces its paper by default: the paper's plate *style* (`plates.stimuli.ishihara.styles`),
font, colour sets and jitter, and, where the paper's text and its released code disagree, the convention its
released dataset follows (the dataset is what the paper's tables measured). The project's own dense style is
kept under ``<preset>-dense`` names, with the same per-plate seeds as the presets had before styles existed,
so those plates are byte-identical to the ones made then.

Presets (`PRESETS`):

* ``colorblindnesseval``: ColorBlindnessEval §2.1 and App. D-E: 5 colour sets x numbers 0-99, each plate as a
  standard image and a "clear" (foreground-only) image: 500 pairs, 1,000 images. Style ``cbe`` (App. E
  Algorithm 1 with IshiharaMC's layers: large dots, gaps of several pixels, strokes one to two dots wide); the
  figure colours on the number (Algorithm 1: "if I(px, py) < threshold then assign random color from C_f").
  Text in Liberation Sans Regular, metric-compatible with the Arial of §2.1 note 2: the paper gives no weight,
  "Arial" names the regular face (arial.ttf, what a script loading "Arial" gets), and its strokes (about 0.09
  em, ~50 px at our 550 px font size) are one to two of the style's dots wide, as the paper's plates are.
  No colour jitter (the paper describes none).
* ``colorblindnesseval-dejavu``: the same with DejaVu Sans (App. B.3, Table 5's "DejaVuSans" dataset).
* ``huemanity-numeric``: HueManity §3-4: labels "10".."99" x the 25 pairs of Table 7 = 2,250 images.
* ``huemanity-alnum``: HueManity App. B.1: 3,364 two-character labels x 25 pairs = 84,100 images.
* ``huemanity``: HueManity §3's whole dataset, 83,850 images = 25 pairs x 3,354 strings: the 3,364
  alphanumeric labels without the leading-zero numbers "00".."09" (`plates.stimuli.ishihara.labels.HUEMANITY_DATASET`). This is
  where the paper's count comes from; it is not 25 x (90 + 3,364) = 86,350, because the numeric task's labels
  "10".."99" are a subset of the alphanumeric strings, and the paper drew both evaluation sets from this one.
  The HueManity presets use style ``huemanity`` (its released generator's packing and anti-aliased dots),
  DejaVu Sans Bold Oblique and the paper's three jitters (`HUEMANITY_JITTER`) as its released code applies
  them (``jitter_rule="released-code"``: channels clip at 255, so some dots turn near-white) and its released
  code's colour roles (``colour_roles="released-code"``): Table 7's "Foreground" colour is painted on the dots
  OUTSIDE the text and the "Background" colour on the text. The paper's text (§3, App. D) calls the first
  colour the characters' colour; its code and released dataset do the opposite, and we follow the dataset.
* ``colorblindnesseval-dense``, ``huemanity-numeric-dense``, ``huemanity-alnum-dense``, ``huemanity-dense``:
  the same label and colour grids in this project's dense style, paper-text colour roles and hue-keeping jitter
  (CBE in Liberation Sans Bold): the presets as they were before styles existed, pixel for pixel.

Every plate's seed comes from (preset seed, dataset, colour set, label) through SHA-256: the same arguments
give the same specs, hence byte-identical images, in any process. `generate` writes PNGs (tmp file +
``os.replace``, so a killed run leaves no half-written image), skips images already on disk (rerun to resume),
and rewrites ``manifest.parquet`` atomically at the end from the item list and the files present.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from plates.datasets.items import DatasetItem
from plates.stimuli.ishihara.labels import HUEMANITY_DATASET, LABEL_SPACES
from plates.stimuli.ishihara.palettes import CBE_SETS, HUEMANITY_PAIRS
from plates.stimuli.ishihara.plate import HUEMANITY_JITTER, PlateSpec
from plates.validation import lookup


@dataclass(frozen=True)
class Preset:
    """A benchmark set: labels x colour sets x variants, one font, optional jitter, a plate style and the colour
    conventions it follows. ``label_space`` names the answer space for scoring (a key of
    `plates.stimuli.ishihara.labels.LABEL_SPACES`); ``seed_key`` the name its plate seeds derive from (None:
    its own name; the ``-dense`` presets keep the seeds of the presets they were); ``convention`` says in words
    which convention it follows where a paper's text and its code disagree.

    Parameters
    ----------
    name : str
        The preset's name (a key of `PRESETS`).
    label_space : str
        A key of `plates.stimuli.ishihara.labels.LABEL_SPACES`.
    labels : tuple of str
        The plates' texts.
    palettes : tuple of str
        The colour sets (names of `plates.stimuli.ishihara.palettes.PALETTES`).
    variants : tuple of str
        Image variants of each plate (`plates.stimuli.ishihara.plate.VARIANTS`).
    font : str
        The font name.
    jitter : dict, optional
        `PlateSpec` jitter fields (``jitter_shift``, ``jitter_rgb``, ``jitter_lightness``).
    source : str, optional
        The paper and section it follows.
    style : str, optional
        The plate style (`plates.stimuli.ishihara.styles.STYLES`).
    colour_roles : str, optional
        "paper-text" or "released-code".
    jitter_rule : str, optional
        "keep-hue" or "released-code".
    allow_extremes : bool, optional
        Whether jitter may reach channel values beyond 8-247.
    seed_key : str or None, optional
        The name plate seeds derive from (None: ``name``).
    convention : str, optional
        The convention followed, in words.
    """

    name: str
    label_space: str
    labels: tuple[str, ...]
    palettes: tuple[str, ...]
    variants: tuple[str, ...]
    font: str
    jitter: dict = field(default_factory=dict)
    source: str = ""
    style: str = "dense"
    colour_roles: str = "paper-text"
    jitter_rule: str = "keep-hue"
    allow_extremes: bool = False
    seed_key: str | None = None
    convention: str = ""

    def spec_fields(self) -> dict:
        """The PlateSpec fields every plate of this preset shares (font, style, colour roles, jitter)."""
        return {"font": self.font, "style": self.style, "colour_roles": self.colour_roles,
                "jitter_rule": self.jitter_rule, "allow_extremes": self.allow_extremes, **self.jitter}


_CBE_CONVENTION = ("ColorBlindnessEval App. E Algorithm 1: figure colours on the number (paper text; no code "
                   "convention differs); style cbe (IshiharaMC layers, gap 0.01 R); Arial -> Liberation Sans")
_HM_CONVENTION = ("HueManity released code: Table 7 'Foreground' colour OUTSIDE the text, 'Background' on the text "
                  "(the paper's text says the opposite); jitter clips at 255 as its code does; style huemanity")
_DENSE_CONVENTION = "this project's dense style, paper-text colour roles, hue-keeping jitter (presets before styles)"
_HM_CODE = {"style": "huemanity", "colour_roles": "released-code", "jitter_rule": "released-code",
            "allow_extremes": True, "convention": _HM_CONVENTION}


def _presets() -> dict[str, Preset]:
    hm = dict(HUEMANITY_JITTER)
    papers = [
        Preset("colorblindnesseval", "cbe", LABEL_SPACES["cbe"], CBE_SETS, ("standard", "clear"), "liberation-sans",
               {}, "ColorBlindnessEval §2.1, App. D-E", style="cbe", convention=_CBE_CONVENTION),
        Preset("colorblindnesseval-dejavu", "cbe", LABEL_SPACES["cbe"], CBE_SETS, ("standard", "clear"),
               "dejavu-sans", {}, "ColorBlindnessEval App. B.3, Table 5 (DejaVuSans)", style="cbe",
               convention=_CBE_CONVENTION.replace("Arial -> Liberation Sans", "DejaVu Sans")),
        Preset("huemanity-numeric", "huemanity-numeric", LABEL_SPACES["huemanity-numeric"], HUEMANITY_PAIRS, ("standard",),
               "dejavu-sans-bold-oblique", hm, "HueManity §3-4, Table 7", **_HM_CODE),
        Preset("huemanity-alnum", "huemanity-alnum", LABEL_SPACES["huemanity-alnum"], HUEMANITY_PAIRS, ("standard",),
               "dejavu-sans-bold-oblique", hm, "HueManity §3, App. B.1, Table 7", **_HM_CODE),
        Preset("huemanity", "huemanity-alnum", HUEMANITY_DATASET, HUEMANITY_PAIRS, ("standard",), "dejavu-sans-bold-oblique",
               hm, "HueManity §3 (83,850 images), Table 7", **_HM_CODE),
    ]
    out = {p.name: p for p in papers}
    for p in papers:
        if p.name == "colorblindnesseval-dejavu":
            continue
        dense = replace(p, name=f"{p.name}-dense", style="dense", colour_roles="paper-text", jitter_rule="keep-hue",
                        allow_extremes=False, seed_key=p.name, convention=_DENSE_CONVENTION,
                        font="liberation-sans-bold" if p.label_space == "cbe" else p.font)
        out[dense.name] = dense
    return out


PRESETS: Mapping[str, Preset] = MappingProxyType(_presets())


def get_preset(name: str) -> Preset:
    """The :class:`Preset` called ``name`` (one of :data:`PRESETS`); ValueError listing the names otherwise.

    Parameters
    ----------
    name : str
        A preset name.

    Returns
    -------
    Preset

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).
    """
    return lookup(PRESETS, name, "preset")


def preset_size(name: str) -> int:
    """Number of images (items) in a preset.

    Parameters
    ----------
    name : str
        A preset name.

    Returns
    -------
    int
        Labels x colour sets x variants.

    Raises
    ------
    ValueError
        An unknown name.
    """
    p = get_preset(name)
    return len(p.labels) * len(p.palettes) * len(p.variants)


def item_seed(seed: int, dataset: str, colour_set: str, label: str) -> int:
    """A plate seed in [0, 2**63) derived from the preset seed and the plate's identity (SHA-256).

    Parameters
    ----------
    seed : int
        The preset (set) seed.
    dataset : str
        The preset's name (or its ``seed_key``).
    colour_set : str
        The plate's colour set.
    label : str
        The plate's label.

    Returns
    -------
    int
        The first 8 bytes of the SHA-256 of the four joined by U+001F, shifted right by one bit.
    """
    digest = hashlib.sha256(f"{seed}\x1f{dataset}\x1f{colour_set}\x1f{label}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def plate_order(name: str, seed: int) -> Iterator[tuple[int, str, str]]:
    """(label index, label, colour set) in generation order: label-major, so a label's text mask is reused
    across its colour sets while it is still cached.

    Parameters
    ----------
    name : str
        A preset name.
    seed : int
        The set's seed (the order does not depend on it).

    Yields
    ------
    tuple of (int, str, str)
        Label index, label, colour set.

    Raises
    ------
    ValueError
        An unknown name.
    """
    p = get_preset(name)
    for li, label in enumerate(p.labels):
        for pal in p.palettes:
            yield li, label, pal


def relative_path(name: str, colour_set: str, label_index: int, label: str, variant: str) -> str:
    """Image path inside the output folder. The label index keeps names unique on case-insensitive file
    systems ("Ab" and "AB" are different HueManity labels).

    Parameters
    ----------
    name : str
        The preset's name.
    colour_set : str
        The plate's colour set.
    label_index : int
        The label's index in the preset.
    label : str
        The label.
    variant : str
        The image variant.

    Returns
    -------
    str
        ``<name>/<colour set>/<index:04d>_<label>_<variant>.png``.
    """
    return f"{name}/{colour_set}/{label_index:04d}_{label}_{variant}.png"


def make_spec(name: str, label: str, colour_set: str, *, size: int, seed: int) -> PlateSpec:
    """The PlateSpec of one plate of preset ``name``: its style, font, colour roles and jitter (CBE App. D-E:
    style cbe, Arial-metric, none; HueManity §3: style huemanity, DejaVu Sans Bold Oblique, its three jitters
    as its released code applies them), the palette's sRGB 0-255 colours, and a seed derived from the preset
    seed, colour set and label (so an item is the same plate in any order).

    Parameters
    ----------
    name : str
        A preset name.
    label : str
        The plate's text.
    colour_set : str
        The palette name.
    size : int
        Image side, px.
    seed : int
        The preset seed (`item_seed` derives the plate's).

    Returns
    -------
    PlateSpec

    Raises
    ------
    ValueError
        An unknown preset, or a spec `PlateSpec` refuses.

    References
    ----------
    ColorBlindnessEval App. D-E; HueManity §3.
    """
    p = get_preset(name)
    return PlateSpec(text=label, size=size, palette=colour_set,
                     seed=item_seed(seed, p.seed_key or name, colour_set, label), **p.spec_fields())


def preset_items(name: str, *, size: int = 900, seed: int = 0) -> Iterator[DatasetItem]:
    """Every item of preset ``name`` in a fixed order (path None: images render on demand).

    Parameters
    ----------
    name : str
        A preset name.
    size : int, optional
        Image side, px.
    seed : int, optional
        The preset seed.

    Yields
    ------
    DatasetItem
        Ids ``"<name>:<colour set>:<label>:<variant>"``, in `plate_order`, each plate's variants together.

    Raises
    ------
    ValueError
        An unknown name.
    """
    p = get_preset(name)
    for _li, label, pal in plate_order(name, seed):
        spec = make_spec(name, label, pal, size=size, seed=seed)
        for v in p.variants:
            yield DatasetItem(f"{name}:{pal}:{label}:{v}", name, spec, v, label, pal, None)
