"""Training plates for the baseline reader, sampled on the fly from a seed (no files, no downloads).

Each seed decides one :class:`plates.stimuli.ishihara.plate.PlateSpec` through :func:`sample_spec`; :func:`training_example`
renders it and preprocesses it exactly as the ONNX reader will (:mod:`plates.reader.preprocess`).
The mix (see :data:`RECIPE`) covers the papers' stimuli and more: HueManity's 25 pairs with its jitter and font
(HueManity §3, Table 7, App. B label spaces), ColorBlindnessEval's five colour sets with Arial's stand-in
Liberation Sans (CBE §2.1, App. D, labels 0-99), and random colour pairs at random CIEDE2000 distances, random
fonts, dot sizes and densities. Colours: sRGB 0-255.
"""

from __future__ import annotations

import numpy as np

from plates.reader.coding import encode
from plates.reader.preprocess import preprocess
from plates.stimuli.ishihara.glyphs import FONTS
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import HUEMANITY_JITTER, PlateSpec, render

#: First plate seed of the training and validation sets; benchmarks and tests use seeds below 10^7.
TRAIN_SEED_BASE = 10_000_000
VAL_SEED_BASE = 20_000_000

HUEMANITY_PAIRS = tuple(f"huemanity-{i:02d}" for i in range(1, 26))
CBE_SETS = tuple(f"colorblindnesseval-{i}" for i in range(1, 6))
#: Plate groups and their share of the training mix.
GROUPS = {"hm-num": 0.12, "hm-alnum": 0.48, "cbe": 0.15, "random": 0.25}
#: Render sizes (px) drawn uniformly; the reader box-filters every plate down to its input size.
RENDER_SIZES = (192, 256, 384, 512, 900)

RECIPE = """Each plate seed picks one group:
- 12% `hm-num`: a HueManity pair (Table 7, uniform over the 25), label uniform over "10".."99", HueManity's
  jitter (shift 0.3, RGB +-30, lightness x0.67-1.5), font DejaVu Sans Bold Oblique (80%) or another of the
  8 Liberation Sans / DejaVu Sans styles (20%);
- 48% `hm-alnum`: the same with labels uniform over the 58 x 58 alphanumeric pairs;
- 15% `cbe`: a ColorBlindnessEval colour set (App. D, uniform over 1-5), label uniform over "0".."99",
  Liberation Sans Bold (60%: the preset's Arial stand-in) or another style, no jitter (70%) or
  HueManity's jitter (30%);
- 25% `random`: a random sRGB foreground and a background = foreground + Gaussian noise of random spread
  (10-80 per channel), kept when CIEDE2000 >= 5; any of the three label spaces, any font style, jitter
  off/half/full.
Every plate also draws dot radii (x0.7-1.4 of the defaults), a packing density (0.6-0.8) and a render size
(192, 256, 384, 512 or 900 px); the reader box-filters it to 96 px."""


def _font(rng: np.random.Generator, preferred: str, p_preferred: float) -> str:
    if rng.random() < p_preferred:
        return preferred
    return str(rng.choice(list(FONTS)))


def random_pair(rng: np.random.Generator, min_delta_e: float = 5.0) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A random (foreground, background) sRGB 0-255 pair at least ``min_delta_e`` CIEDE2000 apart.

    The background is the foreground plus Gaussian noise of a random spread (10-80 per channel), so distances
    from barely-visible to glaring all occur (cheaper than solving for an exact ΔE2000 per plate).
    """
    from plates.colour import delta_e2000

    for _ in range(50):
        fg = rng.integers(20, 236, 3)
        bg = np.clip(fg + rng.normal(0.0, rng.uniform(10, 80), 3), 0, 255).round().astype(int)
        if float(delta_e2000(tuple(int(v) for v in fg), tuple(int(v) for v in bg))) >= min_delta_e:
            return tuple(int(v) for v in fg), tuple(int(v) for v in bg)
    raise ValueError(f"no random colour pair reached ΔE2000 >= {min_delta_e} in 50 draws")


def sample_spec(seed: int, render_size: int | None = None) -> tuple[PlateSpec, str]:
    """The training plate of ``seed`` -> (PlateSpec, group name). ``render_size`` None draws one of RENDER_SIZES."""
    rng = np.random.default_rng([seed, 4])
    group = str(rng.choice(list(GROUPS), p=list(GROUPS.values())))
    size = int(rng.choice(RENDER_SIZES)) if render_size is None else render_size
    dots = float(rng.uniform(0.7, 1.4))
    common = {
        "size": size,
        "seed": int(seed),
        "min_radius": max(0.5, 3.0 * size / 900 * dots),
        "max_radius": 14.0 * size / 900 * dots,
        "density": float(rng.uniform(0.6, 0.8)),
    }
    if group in ("hm-num", "hm-alnum"):
        space = "huemanity-numeric" if group == "hm-num" else "huemanity-alnum"
        labels = LABEL_SPACES[space]
        text = labels[int(rng.integers(len(labels)))]
        spec = PlateSpec(text=text, palette=str(rng.choice(HUEMANITY_PAIRS)),
                         font=_font(rng, "dejavu-sans-bold-oblique", 0.8), **HUEMANITY_JITTER, **common)
    elif group == "cbe":
        labels = LABEL_SPACES["cbe"]
        text = labels[int(rng.integers(len(labels)))]
        jitter = HUEMANITY_JITTER if rng.random() < 0.3 else {}
        spec = PlateSpec(text=text, palette=str(rng.choice(CBE_SETS)), font=_font(rng, "liberation-sans-bold", 0.6),
                         **jitter, **common)
    else:
        labels = LABEL_SPACES[str(rng.choice(list(LABEL_SPACES)))]
        text = labels[int(rng.integers(len(labels)))]
        amount = float(rng.choice([0.0, 0.5, 1.0]))
        jitter = {k: v * amount for k, v in HUEMANITY_JITTER.items()}
        fg, bg = random_pair(rng)
        spec = PlateSpec(text=text, palette=None, foreground=(fg,), background=(bg,),
                         font=_font(rng, "dejavu-sans", 0.0), **jitter, **common)
    return spec, group


def training_example(seed: int, render_size: int | None = None, mode: str = "contrast"):
    """Seed -> (preprocessed (3, 96, 96) float32, per-position classes (2,), group name)."""
    spec, group = sample_spec(seed, render_size)
    return preprocess(render(spec).image, mode=mode), encode(spec.text), group
