"""`plates.datasets.presets`: the papers' plate sets as deterministic lists (ColorBlindnessEval §2.1, HueManity
§3-4 and App. B.1): their sizes, styles and jitter rules, the per-plate seeds, the order and the file names."""

from __future__ import annotations

import hashlib
import itertools

import pytest

from plates.datasets.presets import (
    PRESETS,
    get_preset,
    item_seed,
    make_spec,
    plate_order,
    preset_items,
    preset_size,
    relative_path,
)


@pytest.mark.parametrize(("name", "size"), [
    ("colorblindnesseval", 1000),  # 5 colour sets x 0-99 x (standard, clear)
    ("huemanity-numeric", 2250),  # "10".."99" x 25 pairs
    ("huemanity-alnum", 84100),  # 3,364 labels x 25 pairs
    ("huemanity", 83850),  # 3,354 strings x 25 pairs (HueManity §3's count)
])
def test_each_paper_set_has_its_papers_count_and_its_dense_twin_the_same(name, size):
    assert preset_size(name) == size and preset_size(f"{name}-dense") == size


def test_paper_presets_follow_the_papers_style_and_dense_ones_share_their_seeds():
    assert get_preset("colorblindnesseval").spec_fields()["style"] == "cbe"
    assert get_preset("huemanity-numeric").spec_fields()["jitter_rule"] == "released-code"
    for name in ("colorblindnesseval", "huemanity-numeric", "huemanity-alnum", "huemanity"):
        dense = get_preset(f"{name}-dense")
        assert dense.seed_key == name and dense.spec_fields()["style"] == "dense"
        label, colour_set = get_preset(name).labels[3], get_preset(name).palettes[2]
        assert (make_spec(name, label, colour_set, size=300, seed=4).seed
                == make_spec(f"{name}-dense", label, colour_set, size=300, seed=4).seed)


def test_an_unknown_preset_names_the_known_ones():
    with pytest.raises(ValueError, match="preset 'cbe' is not known; allowed: colorblindnesseval, "):
        get_preset("cbe")
    with pytest.raises(ValueError, match="preset 'nope' is not known"):
        preset_size("nope")


def test_item_seed_is_sha256_of_the_plates_identity_in_0_2_63():
    digest = hashlib.sha256("0\x1fa\x1fb\x1fc".encode()).digest()
    assert item_seed(0, "a", "b", "c") == int.from_bytes(digest[:8], "big") >> 1
    seeds = {item_seed(s, d, c, lab) for s, d, c, lab in itertools.product((0, 1), ("x", "y"), ("p", "q"), ("1", "2"))}
    assert len(seeds) == 16 and all(0 <= s < 2**63 for s in seeds)


def test_plate_order_is_label_major():
    order = list(itertools.islice(plate_order("colorblindnesseval", 0), 6))
    preset = get_preset("colorblindnesseval")
    assert [o[:2] for o in order[:len(preset.palettes)]] == [(0, preset.labels[0])] * len(preset.palettes)
    assert [o[2] for o in order[:len(preset.palettes)]] == list(preset.palettes)
    assert order[len(preset.palettes)][:2] == (1, preset.labels[1])


def test_relative_paths_keep_case_distinct_labels_apart():
    a = relative_path("huemanity-alnum", "huemanity-01", 7, "Ab", "standard")
    b = relative_path("huemanity-alnum", "huemanity-01", 8, "AB", "standard")
    assert a == "huemanity-alnum/huemanity-01/0007_Ab_standard.png" and a.lower() != b.lower()


def test_preset_items_are_unique_and_a_plate_is_the_same_in_any_order():
    items = list(preset_items("colorblindnesseval", size=128, seed=3))
    assert len(items) == preset_size("colorblindnesseval") and len({i.item_id for i in items}) == len(items)
    first = items[0]
    assert first.item_id == f"colorblindnesseval:{first.group}:{first.label}:{first.variant}"
    again = make_spec("colorblindnesseval", first.label, first.group, size=128, seed=3)
    assert first.spec == again and first.spec.size == 128
    assert make_spec("colorblindnesseval", first.label, first.group, size=128, seed=4).seed != again.seed


def test_the_registry_is_read_only():
    with pytest.raises(TypeError):
        PRESETS["mine"] = PRESETS["colorblindnesseval"]
