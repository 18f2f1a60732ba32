"""plates.stimuli.ishihara.palettes: the papers' colour sets, by name, exactly as printed."""

import pytest

from plates.colour import delta_e2000
from plates.stimuli.ishihara.palettes import PALETTES, Palette, get_palette


def test_names_and_counts():
    assert [n for n in PALETTES if n.startswith("colorblindnesseval")] == [f"colorblindnesseval-{i}" for i in range(1, 6)]
    assert [n for n in PALETTES if n.startswith("huemanity")] == [f"huemanity-{i:02d}" for i in range(1, 26)]
    for p in PALETTES.values():
        assert isinstance(p, Palette) and p.foreground and p.background
        for c in p.foreground + p.background:
            assert len(c) == 3 and all(isinstance(v, int) and 0 <= v <= 255 for v in c)


def test_cbe_appendix_d_values():
    p = get_palette("colorblindnesseval-1")
    assert p.background == ((106, 124, 115),) and p.foreground == ((245, 97, 60), (242, 85, 45))
    assert len(get_palette("colorblindnesseval-4").background) == 9
    assert len(get_palette("colorblindnesseval-5").foreground) == 7


def test_huemanity_table7_order_and_range():
    assert get_palette("huemanity-01").foreground == ((178, 34, 34),)
    assert get_palette("huemanity-01").label == "Firebrick on PaleTurquoise"
    assert get_palette("huemanity-25").background == ((176, 196, 222),)
    # HueManity App. D: every pair was filtered to CIEDE2000 between 25 and 75 ... most are; report the spread
    des = [delta_e2000(p.foreground[0], p.background[0]) for n, p in PALETTES.items() if n.startswith("huemanity")]
    assert 10 < min(des) and max(des) < 80


def test_unknown_palette_lists_names():
    with pytest.raises(ValueError, match="colorblindnesseval-1.*huemanity-25"):
        get_palette("ishihara")
