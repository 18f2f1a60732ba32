"""`plates.datasets.illusions`: the illusion presets as item lists (RCID §3 and §3.5's split, the classic
illusions, the magnitude sweep): counts, controls / illusions / traps, seeded specs, unique ids, groups."""

from __future__ import annotations

from collections import Counter

import pytest

from plates.datasets.illusions import (
    CLASSIC_KINDS,
    COMPARISON_KINDS,
    classic_entries,
    magnitude_entries,
    rcid_entries,
)
from plates.stimuli.illusions.kinds import DIRECTIONS, KINDS, LAYOUTS


def _cell(entry):
    s = entry.spec
    return "control" if s.strength == 0 else "illusion" if s.delta_e == 0 else "trap"


@pytest.mark.parametrize(("kind", "per_repeat"), [
    ("rcid-contrast", 8 * len(LAYOUTS)), ("rcid-filter", 8 * len(LAYOUTS)),
    ("rcid-stripe", 8 * len(LAYOUTS) * len(DIRECTIONS)),
])
def test_rcid_items_are_half_controls_per_layout_and_direction(kind, per_repeat):
    entries = list(rcid_entries(kind, size=128, seed=1, repeats=2))
    assert len(entries) == 2 * per_repeat
    cells = Counter(_cell(e) for e in entries)
    assert cells["control"] == len(entries) / 2 and cells["illusion"] == cells["trap"] == len(entries) / 4
    assert {e.spec.layout for e in entries} == set(LAYOUTS) and all(e.spec.kind == kind for e in entries)
    assert {e.spec.delta_e for e in entries if _cell(e) == "trap"} == {2.0, -5.0}
    assert [e.item_id for e in entries[:2]] == [f"{kind}:00000", f"{kind}:00001"]
    assert all(e.group == kind and e.spec.size == 128 for e in entries)


def test_classic_items_cover_every_classic_kind_with_controls_illusions_and_traps():
    assert set(CLASSIC_KINDS) == {k for k in KINDS if not k.startswith("rcid-")}
    entries = list(classic_entries(size=96, repeats=1))
    assert len(entries) == len(CLASSIC_KINDS) * len(LAYOUTS) * 5
    assert Counter(e.spec.kind for e in entries) == {k: len(LAYOUTS) * 5 for k in CLASSIC_KINDS}
    assert Counter(_cell(e) for e in entries) == {"control": len(entries) / 5, "illusion": 2 * len(entries) / 5,
                                                  "trap": 2 * len(entries) / 5}


def test_magnitude_sweeps_signed_differences_for_every_comparison_kind():
    assert "rcid-filter" not in COMPARISON_KINDS and len(COMPARISON_KINDS) == len(KINDS) - 1
    entries = list(magnitude_entries(size=96, levels=5, span=4.0, repeats=2))
    assert len(entries) == len(COMPARISON_KINDS) * 2 * 5 * 2
    assert sorted({e.spec.delta_e for e in entries}) == [-4.0, -2.0, 0.0, 2.0, 4.0]
    assert {e.spec.strength for e in entries} == {0.5, 1.0}


def test_seeds_are_fixed_by_preset_seed_and_index_and_ids_unique():
    a = list(rcid_entries("rcid-contrast", size=96, seed=0, repeats=1))
    b = list(rcid_entries("rcid-contrast", size=96, seed=0, repeats=1))
    c = list(rcid_entries("rcid-contrast", size=96, seed=1, repeats=1))
    assert [e.spec for e in a] == [e.spec for e in b]
    assert all(x.spec.seed != y.spec.seed for x, y in zip(a, c))
    assert len({e.spec.seed for e in a}) == len(a) and len({e.item_id for e in a}) == len(a)
    assert all(0 <= e.spec.seed < 2**63 for e in a)
