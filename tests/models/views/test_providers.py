"""The API providers' published resizing rules, checked on the examples their documentation works through."""

from __future__ import annotations

import pytest

from plates.models.views import tile_count, view_plan


@pytest.mark.parametrize(("size", "seen", "tiles"), [
    ((2048, 4096), (768, 1536), 6),   # OpenAI guide: fit 2048 -> 1024 x 2048, short side 768, 6 tiles
    ((1024, 1024), (768, 768), 4),    # OpenAI guide: 768 x 768, 4 tiles
    ((600, 300), (600, 300), 2),      # never scaled up
])
def test_openai_high(size, seen, tiles):
    plan = view_plan("openai-high", *size)
    assert plan.seen_size == seen and tile_count(plan) == tiles and not plan.exact


def test_openai_low_is_one_512_image():
    plan = view_plan("openai-low", 2048, 1024)
    assert plan.seen_size == (512, 256) and tile_count(plan) == 1


@pytest.mark.parametrize(("size", "seen"), [
    ((3000, 500), (1568, 261)),   # long edge capped at 1568
    ((2000, 2000), (1095, 1095)), # ~1600 tokens (w x h / 750): the guide's table gives 1092 x 1092
    ((800, 600), (800, 600)),     # within both limits: unchanged
])
def test_anthropic(size, seen):
    assert view_plan("anthropic", *size).seen_size == seen


def test_gemini_counts_768_tiles_and_keeps_pixels():
    assert tile_count(view_plan("gemini", 384, 300)) == 1
    plan = view_plan("gemini", 1600, 800)
    assert tile_count(plan) == 6 and plan.seen_size == (1600, 800) and plan.tiles[0].ops == ()
