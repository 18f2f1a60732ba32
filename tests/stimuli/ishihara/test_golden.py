"""Golden digests: the pixels each preset and style draws, pinned.

A change here is a change of pixels: bump `plates.stimuli.ENGINE_VERSION` (which starts new runs rather than
mixing old and new images into one) and update the digests in the same commit, saying why. The digests cover
the seed derivation (`plates.datasets.item_seed`), the per-stage seed streams of `render`, the packer's tries,
the bundled fonts and the colour maths (a ΔE2000-controlled, jittered spec). Digests are SHA-256 of the raw
(H, W, 3) uint8 sRGB 0-255 pixels, first 16 hex digits.
"""

from __future__ import annotations

import hashlib
from itertools import islice

import numpy as np
import pytest

from plates.datasets import preset_items
from plates.stimuli import ENGINE_VERSION
from plates.stimuli.ishihara.packing import pack_circles
from plates.stimuli.ishihara.plate import PlateSpec, render


def digest(image) -> str:
    return hashlib.sha256(np.asarray(image).tobytes()).hexdigest()[:16]


def test_the_digests_below_belong_to_this_engine_version():
    # version 3 changed only the neon-spreading illusion's pixels: every plate digest below stands
    assert ENGINE_VERSION == 3, "pixels changed: update every digest in this file and say why in the commit"


PRESET_DIGESTS = {  # first three items of each preset at 256 px
    # the paper presets draw in their papers' styles (cbe, huemanity) and conventions
    "colorblindnesseval": ["83bdd0e50f3ed248", "5e4fee4f2c418dbc", "5cd400c769a12f93"],
    "colorblindnesseval-dejavu": ["133a2b7aa80fb8dc", "2df5642ecdea4deb", "69151b087dc5f0de"],
    "huemanity-numeric": ["9baf369476dc43cb", "14fbeb053fe1f576", "f6db2a4265c01d76"],
    "huemanity-alnum": ["adb57f02d37a6863", "eff33878750388df", "4fc761f2f0b4290f"],
    "huemanity": ["081b0c173dc6252c", "3b8fdf75c9c921e2", "15dfc3ec1dcd6e92"],
    # the dense style under its own names: the digests these presets had at engine version 2, unchanged
    "colorblindnesseval-dense": ["4ce97b3865391549", "829e18f0a75cd071", "3df32c261464943f"],
    "huemanity-numeric-dense": ["e19d276109718cd2", "8da32e9a709b67af", "babfce9b91d71260"],
    "huemanity-alnum-dense": ["317bee41f03a4951", "80c21cc790299cfe", "d9d2dfad6ea9cd3d"],
    "huemanity-dense": ["d8a44405466be9d1", "1d607271f313d5e2", "b50a678a40c26160"],
}


@pytest.mark.parametrize("preset", sorted(PRESET_DIGESTS))
def test_preset_pixels_are_pinned(preset):
    items = list(islice(preset_items(preset, size=256), 0, 3))
    assert [digest(item.image()) for item in items] == PRESET_DIGESTS[preset]


def test_a_delta_e_controlled_jittered_plate_is_pinned():
    spec = PlateSpec("7A", size=300, palette="huemanity-03", seed=42, jitter_shift=0.3, jitter_rgb=30,
                     jitter_lightness=0.4, delta_e=8.0)
    assert digest(render(spec).image) == "af3b3665ce2667aa"


def test_the_packer_is_pinned():
    p = pack_circles(150.0, 1.0, 5.0, 0.2, np.random.Generator(np.random.PCG64(7)))
    assert p.r.size == 1883
    assert hashlib.sha256(np.concatenate([p.x, p.y, p.r]).tobytes()).hexdigest()[:16] == "902c19965eb1e494"


def test_the_cbe_style_is_pinned():
    """ColorBlindnessEval's style (App. E Algorithm 1 + IshiharaMC layers): packing, colouring, hard edges."""
    spec = PlateSpec("38", size=300, style="cbe", font="liberation-sans", palette="colorblindnesseval-2", seed=11)
    plate = render(spec)
    assert plate.r.size == 640
    assert hashlib.sha256(np.concatenate([plate.x, plate.y, plate.r]).tobytes()).hexdigest()[:16] == "3f41503bc379f5a1"
    assert digest(plate.image) == "ee343ead841e8240"


def test_the_huemanity_style_is_pinned():
    """HueManity's style (its released generator's packing, anti-aliased dots, its jitter rule and roles)."""
    spec = PlateSpec("Qx", size=300, style="huemanity", palette="huemanity-14", colour_roles="released-code",
                     jitter_rule="released-code", allow_extremes=True, seed=12, jitter_shift=0.3, jitter_rgb=30,
                     jitter_lightness=0.4054651081081644)
    plate = render(spec)
    assert plate.r.size == 2036
    assert hashlib.sha256(np.concatenate([plate.x, plate.y, plate.r]).tobytes()).hexdigest()[:16] == "84f512be0b50f40e"
    assert digest(plate.image) == "07473bb7193f10c9"
